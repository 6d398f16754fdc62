//! Search of models (their instructions too) and units (issue 25): Russian
//! word forms, lookalikes, an inventory number's prefix, each hit a thing
//! the caller sees, with its page's path.

use portal_kit::testing;
use portal_proto::search::v1::SearchHit;
use portal_proto::wiki::v1 as pb;
use tonic::Code;

use crate::helpers::*;

/// The hits of `query`, which the deprecated Search must answer alike.
#[allow(deprecated)]
async fn search(app: &TestApp, token: &str, query: &str) -> Vec<SearchHit> {
    let mut client = app.client.clone();
    let answer = testing::search_as(app, token, query, async |r| client.search(r).await).await;
    answer.expect("search").hits
}

fn found(hits: &[SearchHit]) -> Vec<(&str, i64)> {
    hits.iter().map(|h| (h.kind.as_str(), h.id)).collect()
}

#[tokio::test]
async fn a_reader_finds_their_departments_equipment_by_any_form_of_a_word() {
    on_each_backend(|app| async move {
        let ours = app
            .create_model(
                "Дефибриллятор Zoll",
                "<p>Перед <b>обработкой</b> рук отключите</p>",
            )
            .await;
        let unit = app
            .create_unit(ours.id, OWN_DEPARTMENT, "ИН-2024-0012")
            .await
            .unwrap();
        let theirs = app.create_model("Дефибриллятор скрытый", "").await;
        let hidden = app
            .create_unit(theirs.id, OTHER_DEPARTMENT, "ИН-2024-0099")
            .await
            .unwrap();
        let learner = app.learner_token();

        // The model by its name, then its unit by its model's name.
        let hits = search(&app, &learner, "дефибрилляторы").await;
        assert_eq!(
            found(&hits),
            [("environment-model", ours.id), ("environment", unit.id)]
        );
        assert_eq!(hits[0].path_ids, [OWN_DEPARTMENT]);
        assert!(
            hits[0].snippet.contains("<mark>Дефибриллятор</mark>"),
            "{}",
            hits[0].snippet
        );

        // A word of the instruction, in another form; "Дeфибр" typed with a Latin e.
        assert_eq!(
            found(&search(&app, &learner, "обработка").await),
            [("environment-model", ours.id)]
        );
        assert_eq!(found(&search(&app, &learner, "Дeфибр").await), found(&hits));
        // The start of a hidden model's name finds nothing hidden.
        assert!(search(&app, &learner, "скрыт").await.is_empty());

        let by_number = search(&app, &learner, "ИН-2024-00").await;
        assert_eq!(found(&by_number), [("environment", unit.id)]);
        assert_eq!(by_number[0].path_ids, [OWN_DEPARTMENT, ours.id]);
        assert!(search(&app, &learner, "0099").await.is_empty());

        // An editor sees every department's.
        let editor = search(&app, &app.editor_token(), "0099").await;
        assert_eq!(found(&editor), [("environment", hidden.id)]);
    })
    .await;
}

#[tokio::test]
async fn edits_are_found_at_once_and_a_retired_unit_no_more() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "М-1")
            .await
            .unwrap();
        app.client
            .clone()
            .save_instruction(authed(
                pb::SaveInstructionRequest {
                    environment_model_id: model.id,
                    short_instruction: "<p>Калибровка датчика</p>".into(),
                },
                &app.editor_token(),
            ))
            .await
            .unwrap();
        let learner = app.learner_token();
        assert_eq!(
            found(&search(&app, &learner, "калибровку").await),
            [("environment-model", model.id)]
        );
        app.client
            .clone()
            .retire_environment(authed(
                pb::RetireEnvironmentRequest { id: unit.id },
                &app.editor_token(),
            ))
            .await
            .unwrap();
        assert!(
            search(&app, &app.editor_token(), "М-1")
                .await
                .iter()
                .all(|h| h.kind != "environment")
        );
        // Without units in their department the model is no longer theirs either.
        assert!(search(&app, &learner, "монитор").await.is_empty());

        let mut client = app.client.clone();
        #[allow(deprecated)]
        let blank = testing::search_as(&app, &learner, " — ", async |r| client.search(r).await)
            .await
            .unwrap_err();
        assert_eq!(blank.code(), Code::InvalidArgument);
    })
    .await;
}

#[tokio::test]
async fn anyone_signed_in_searches_and_no_service_account() {
    on_each_backend(|app| async move { testing::assert_search_access(&app).await }).await;
}

#[test]
fn the_search_matrix_covers_every_rpc_of_the_contract() {
    testing::assert_matrix_covers(testing::SEARCH_MATRIX, "portal.search.v1", "SearchService");
}
