//! Revisions of short instructions (issue 25): each save that changes one
//! keeps its version with its author and time, whichever call saved it; a
//! restore is a new save; only equipment editors read or restore them.

use portal_kit::Right;
use portal_proto::wiki::v1 as pb;
use tonic::Code;

use crate::helpers::*;

const OTHER_EDITOR_ID: i64 = 7;

async fn revision_text(app: &TestApp, model_id: i64, revision_id: i64) -> String {
    app.client
        .clone()
        .get_instruction_revision(authed(
            pb::GetInstructionRevisionRequest {
                environment_model_id: model_id,
                revision_id,
            },
            &app.editor_token(),
        ))
        .await
        .expect("get instruction revision")
        .into_inner()
        .short_instruction
}

async fn save(app: &TestApp, token: &str, model_id: i64, text: &str) {
    app.client
        .clone()
        .save_instruction(authed(
            pb::SaveInstructionRequest {
                environment_model_id: model_id,
                short_instruction: text.into(),
            },
            token,
        ))
        .await
        .expect("save instruction");
}

#[tokio::test]
async fn each_change_of_an_instruction_is_a_revision_and_a_restore_is_one_more() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "<p>Включите монитор</p>").await;
        let other = app
            .keys
            .token(OTHER_EDITOR_ID, &[Right::EquipmentEditing], &[]);
        save(&app, &other, model.id, "<p>Включите монитор кнопкой</p>").await;
        // A save of the model's other fields keeps the instruction: no revision.
        app.client
            .clone()
            .update_environment_model(authed(
                pb::UpdateEnvironmentModelRequest {
                    id: model.id,
                    name: "Монитор пациента".into(),
                    brand_name: model.brand_name.clone(),
                    description: model.description.clone(),
                    short_instruction: "<p>Включите монитор кнопкой</p>".into(),
                    manufacturer_id: 0,
                    environment_type_id: 0,
                },
                &app.editor_token(),
            ))
            .await
            .expect("update model");

        let revisions = app.instruction_revisions(model.id).await;
        let authors: Vec<i64> = revisions.iter().map(|r| r.author_id).collect();
        assert_eq!(authors, [OTHER_EDITOR_ID, EDITOR_ID], "{revisions:?}");
        assert!(revisions.iter().all(|r| !r.author_name.is_empty()));
        let time = |r: &pb::InstructionRevision| {
            let at = r.created_at.expect("a time");
            (at.seconds, at.nanos)
        };
        assert!(time(&revisions[0]) >= time(&revisions[1]));
        let first = &revisions[1];
        assert_eq!(
            revision_text(&app, model.id, first.id).await,
            "<p>Включите монитор</p>"
        );
        assert_eq!(first.size, "<p>Включите монитор</p>".chars().count() as i64);

        let restored = app
            .client
            .clone()
            .restore_instruction_revision(authed(
                pb::RestoreInstructionRevisionRequest {
                    environment_model_id: model.id,
                    revision_id: first.id,
                },
                &other,
            ))
            .await
            .expect("restore")
            .into_inner()
            .short_instruction;
        assert_eq!(restored, "<p>Включите монитор</p>");
        let public = app
            .client
            .clone()
            .get_public_instruction(pb::GetPublicInstructionRequest {
                environment_model_id: model.id,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(public.short_instruction, "<p>Включите монитор</p>");
        let after = app.instruction_revisions(model.id).await;
        assert_eq!(after.len(), 3);
        assert_eq!(after[0].author_id, OTHER_EDITOR_ID);
        assert_eq!(&after[1..], &revisions[..]);
        // It says which version it restored, and of when (issue 37).
        assert_eq!(after[0].restored_from_id, first.id);
        assert_eq!(after[0].restored_from_created_at, first.created_at);
        assert!(after[1..].iter().all(|r| r.restored_from_id == 0));

        // Restoring the version it already is writes nothing, marks nothing.
        app.client
            .clone()
            .restore_instruction_revision(authed(
                pb::RestoreInstructionRevisionRequest {
                    environment_model_id: model.id,
                    revision_id: after[0].id,
                },
                &other,
            ))
            .await
            .expect("restore the same");
        assert_eq!(app.instruction_revisions(model.id).await, after);
        assert_eq!(
            revision_text(&app, model.id, after[0].id).await,
            "<p>Включите монитор</p>"
        );
    })
    .await;
}

#[tokio::test]
async fn a_model_saved_before_revisions_keeps_its_instruction_of_then() {
    on_each_backend(|app| async move {
        let model = app
            .create_model("Монитор", "<p>Старая инструкция</p>")
            .await;
        // As if written before migration 0010: no revision at all.
        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        sqlx::query("DELETE FROM instruction_revisions")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;

        save(
            &app,
            &app.editor_token(),
            model.id,
            "<p>Новая инструкция</p>",
        )
        .await;
        let revisions = app.instruction_revisions(model.id).await;
        assert_eq!(revisions.len(), 2);
        assert_eq!(revisions[0].author_id, EDITOR_ID);
        assert_eq!(
            (revisions[1].author_id, revisions[1].author_name.as_str()),
            (0, "")
        );
        assert_eq!(
            revision_text(&app, model.id, revisions[1].id).await,
            "<p>Старая инструкция</p>"
        );
    })
    .await;
}

#[tokio::test]
async fn a_learner_may_not_read_or_restore_revisions_and_a_wrong_one_is_missing() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "<p>Инструкция</p>").await;
        let other = app.create_model("Дефибриллятор", "<p>Другая</p>").await;
        let revision_id = app.instruction_revisions(model.id).await[0].id;
        let foreign = app.instruction_revisions(other.id).await[0].id;
        let mut client = app.client.clone();
        let learner = app.learner_token();
        let refused = client
            .list_instruction_revisions(authed(
                pb::ListInstructionRevisionsRequest {
                    environment_model_id: model.id,
                },
                &learner,
            ))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied);
        let refused = client
            .restore_instruction_revision(authed(
                pb::RestoreInstructionRevisionRequest {
                    environment_model_id: model.id,
                    revision_id,
                },
                &learner,
            ))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied);
        let missing = client
            .restore_instruction_revision(authed(
                pb::RestoreInstructionRevisionRequest {
                    environment_model_id: model.id,
                    revision_id: foreign,
                },
                &app.editor_token(),
            ))
            .await
            .unwrap_err();
        assert_eq!(missing.code(), Code::NotFound);
        assert_eq!(app.instruction_revisions(model.id).await.len(), 1);
    })
    .await;
}
