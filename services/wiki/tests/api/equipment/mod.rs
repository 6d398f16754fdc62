//! Models and units: what is stored, what a learner sees, and the rules of
//! spec §5.

mod reference;

use portal_proto::wiki::v1 as pb;
use tonic::{Code, Request};

use crate::helpers::*;

#[tokio::test]
async fn a_model_comes_back_with_its_units_and_a_qr_code_png() {
    on_each_backend(|app| async move {
        let created = app.create_model(" BeneView T5 ", "<p>Включите</p>").await;
        assert_eq!(created.name, "BeneView T5");
        let unit = app
            .create_unit(created.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        assert_eq!(
            (
                unit.department_id,
                unit.inventory_number.as_str(),
                unit.serial_number.as_str()
            ),
            (OWN_DEPARTMENT, "ИН-1", "SN-ИН-1")
        );
        let model = app
            .client
            .clone()
            .get_environment_model(authed(
                pb::GetEnvironmentModelRequest {
                    environment_model_id: created.id,
                },
                &app.learner_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .environment_model
            .unwrap();
        assert_eq!(model.short_instruction, "<p>Включите</p>");
        assert_eq!(model.environments, [unit]);
        assert!(
            model
                .short_instruction_qr_code
                .starts_with(b"\x89PNG\r\n\x1a\n"),
            "a PNG"
        );
        let list = app
            .client
            .clone()
            .list_environment_models(authed(
                pb::ListEnvironmentModelsRequest {},
                &app.learner_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .environment_models;
        assert_eq!(list.len(), 1);
        assert!(
            list[0].short_instruction_qr_code.is_empty(),
            "no QR in lists"
        );
    })
    .await;
}

#[tokio::test]
async fn a_taken_inventory_number_is_refused_with_a_clear_message() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        app.create_unit(model.id, OWN_DEPARTMENT, "ИН-7")
            .await
            .unwrap();
        let message = "Инвентарный номер «ИН-7» уже присвоен другому оборудованию";
        assert_status(
            app.create_unit(model.id, OTHER_DEPARTMENT, " ИН-7 ").await,
            Code::FailedPrecondition,
            message,
        );
        let second = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-8")
            .await
            .unwrap();
        let update = app
            .client
            .clone()
            .update_environment(authed(
                pb::UpdateEnvironmentRequest {
                    id: second.id,
                    department_deployment: OTHER_DEPARTMENT,
                    serial_number: "SN-2".into(),
                    inventory_number: "ИН-7".into(),
                },
                &app.editor_token(),
            ))
            .await;
        assert_status(update, Code::FailedPrecondition, message);
        assert_status(
            app.create_unit(model.id, OWN_DEPARTMENT, " ").await,
            Code::InvalidArgument,
            "Введите инвентарный номер",
        );
        assert_status(
            app.create_unit(model.id + 100, OWN_DEPARTMENT, "ИН-9")
                .await,
            Code::NotFound,
            "Модель оборудования не найдена",
        );
    })
    .await;
}

#[tokio::test]
async fn a_model_needs_name_brand_and_description() {
    on_each_backend(|app| async move {
        let mut request = model_request("Монитор", "");
        request.brand_name = "  ".into();
        let result = app
            .client
            .clone()
            .create_environment_model(authed(request, &app.editor_token()))
            .await;
        assert_status(result, Code::InvalidArgument, "Введите название бренда");
    })
    .await;
}

#[tokio::test]
async fn a_learner_sees_only_the_equipment_of_their_departments() {
    on_each_backend(|app| async move {
        let shared = app.create_model("Монитор", "").await;
        let mine = app
            .create_unit(shared.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        app.create_unit(shared.id, OTHER_DEPARTMENT, "ИН-2")
            .await
            .unwrap();
        let theirs = app.create_model("Дефибриллятор", "").await;
        app.create_unit(theirs.id, OTHER_DEPARTMENT, "ИН-3")
            .await
            .unwrap();
        app.create_model("Без оборудования", "").await;
        let mut client = app.client.clone();
        let token = app.learner_token();
        let models = client
            .list_environment_models(authed(pb::ListEnvironmentModelsRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .environment_models;
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].environments, std::slice::from_ref(&mine));
        let units = client
            .list_environments_by_model(authed(
                pb::ListEnvironmentsByModelRequest {
                    environment_model_id: shared.id,
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner()
            .environments;
        assert_eq!(units, [mine]);
        let by_department = client
            .list_environment_models_by_department(authed(
                pb::ListEnvironmentModelsByDepartmentRequest {
                    department_id: OWN_DEPARTMENT,
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner()
            .environment_models;
        assert_eq!(
            by_department
                .iter()
                .map(|m| (m.id, m.name.as_str()))
                .collect::<Vec<_>>(),
            [(shared.id, "Монитор")]
        );
        let everything = client
            .list_environment_models(authed(
                pb::ListEnvironmentModelsRequest {},
                &app.editor_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .environment_models;
        assert_eq!(everything.len(), 3, "an editor sees every model");
    })
    .await;
}

#[tokio::test]
async fn the_visibility_check_answers_as_the_model_read_does() {
    on_each_backend(|app| async move {
        let own = app.create_model("Монитор", "").await;
        app.create_unit(own.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let other = app.create_model("Дефибриллятор", "").await;
        app.create_unit(other.id, OTHER_DEPARTMENT, "ИН-2")
            .await
            .unwrap();
        let bare = app.create_model("Без оборудования", "").await;
        let retired = app.create_model("Списанный", "").await;
        let gone = app
            .create_unit(retired.id, OWN_DEPARTMENT, "ИН-3")
            .await
            .unwrap();
        app.client
            .clone()
            .retire_environment(authed(
                pb::RetireEnvironmentRequest { id: gone.id },
                &app.editor_token(),
            ))
            .await
            .unwrap();
        let unknown = bare.id + 100;
        let both_departments = app
            .keys
            .token(LEARNER_ID, &[], &[OWN_DEPARTMENT, OTHER_DEPARTMENT]);
        let nowhere = app.keys.token(LEARNER_ID, &[], &[]);
        let expected = [
            (app.learner_token(), [true, false, false, false, false]),
            (both_departments, [true, true, false, false, false]),
            (nowhere, [false, false, false, false, false]),
            (app.editor_token(), [true, true, true, true, false]),
        ];
        let mut client = app.client.clone();
        for (token, visible) in expected {
            for (id, visible) in [own.id, other.id, bare.id, retired.id, unknown]
                .into_iter()
                .zip(visible)
            {
                let checked = client
                    .check_environment_model_visible(authed(
                        pb::CheckEnvironmentModelVisibleRequest {
                            environment_model_id: id,
                        },
                        &token,
                    ))
                    .await
                    .unwrap()
                    .into_inner()
                    .visible;
                let read = client
                    .get_environment_model(authed(
                        pb::GetEnvironmentModelRequest {
                            environment_model_id: id,
                        },
                        &token,
                    ))
                    .await;
                assert_eq!(checked, visible, "model {id}");
                assert_eq!(read.is_ok(), visible, "the read of model {id}");
            }
        }
        let anonymous = client
            .check_environment_model_visible(Request::new(
                pb::CheckEnvironmentModelVisibleRequest {
                    environment_model_id: own.id,
                },
            ))
            .await;
        assert_eq!(code(&anonymous), Code::Unauthenticated);
    })
    .await;
}

#[tokio::test]
async fn a_retired_unit_leaves_every_list_and_keeps_its_number() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let mut client = app.client.clone();
        let retire = || pb::RetireEnvironmentRequest { id: unit.id };
        client
            .retire_environment(authed(retire(), &app.editor_token()))
            .await
            .unwrap();
        assert_status(
            client
                .retire_environment(authed(retire(), &app.editor_token()))
                .await,
            Code::NotFound,
            "Оборудование не найдено",
        );
        let model_read = client
            .get_environment_model(authed(
                pb::GetEnvironmentModelRequest {
                    environment_model_id: model.id,
                },
                &app.learner_token(),
            ))
            .await;
        assert_eq!(
            code(&model_read),
            Code::NotFound,
            "no unit left in the department"
        );
        let labels = client
            .get_label_sheet(authed(
                pb::GetLabelSheetRequest {
                    department_id: OWN_DEPARTMENT,
                },
                &app.editor_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .labels;
        assert!(labels.is_empty());
        assert_eq!(
            code(&app.create_unit(model.id, OWN_DEPARTMENT, "ИН-1").await),
            Code::FailedPrecondition
        );
    })
    .await;
}

#[tokio::test]
async fn the_public_instruction_shows_name_and_instruction_without_sign_in() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "<h2>Включение</h2>").await;
        let mut client = app.client.clone();
        let public = client
            .get_public_instruction(Request::new(pb::GetPublicInstructionRequest {
                environment_model_id: model.id,
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            public,
            pb::GetPublicInstructionResponse {
                name: "Монитор".into(),
                short_instruction: "<h2>Включение</h2>".into(),
            }
        );
        assert_status(
            client
                .get_public_instruction(Request::new(pb::GetPublicInstructionRequest {
                    environment_model_id: model.id + 1,
                }))
                .await,
            Code::NotFound,
            "Модель оборудования не найдена",
        );
    })
    .await;
}
