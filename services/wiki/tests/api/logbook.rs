//! The maintenance logbook and the standing it gives a unit, journals, the
//! label sheet, and the demo equipment.

use portal_kit::Right;
use portal_kit::testing::backends;
use portal_proto::wiki::v1 as pb;
use tonic::Code;

use crate::helpers::*;

async fn by_department(app: &TestApp, token: &str) -> Vec<pb::EnvironmentModelRef> {
    app.client
        .clone()
        .list_environment_models_by_department(authed(
            pb::ListEnvironmentModelsByDepartmentRequest {
                department_id: OWN_DEPARTMENT,
            },
            token,
        ))
        .await
        .unwrap()
        .into_inner()
        .environment_models
}

async fn units(app: &TestApp, model_id: i64) -> Vec<pb::Environment> {
    app.client
        .clone()
        .list_environments_by_model(authed(
            pb::ListEnvironmentsByModelRequest {
                environment_model_id: model_id,
            },
            &app.learner_token(),
        ))
        .await
        .unwrap()
        .into_inner()
        .environments
}

#[tokio::test]
async fn a_units_standing_follows_the_next_due_date_of_its_latest_entry() {
    on_each_backend(|app| async move {
        let model = app.create_model("Аппарат ИВЛ", "").await;
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        app.create_unit(model.id, OWN_DEPARTMENT, "ИН-2")
            .await
            .unwrap();
        let standing = |u: &pb::Environment| {
            (
                u.next_maintenance_due.clone(),
                u.is_maintenance_due_soon,
                u.is_maintenance_overdue,
            )
        };
        assert_eq!(
            standing(&units(&app, model.id).await[0]),
            (String::new(), false, false)
        );

        app.log(unit.id, &day(-200), &day(-1)).await.unwrap();
        assert_eq!(
            standing(&units(&app, model.id).await[0]),
            (day(-1), false, true)
        );
        let listed = by_department(&app, &app.learner_token()).await;
        assert_eq!((listed[0].units_overdue, listed[0].units_due_soon), (1, 0));

        // An older entry logged later does not override the latest one.
        app.log(unit.id, &day(0), &day(30)).await.unwrap();
        app.log(unit.id, &day(-300), &day(-100)).await.unwrap();
        assert_eq!(
            standing(&units(&app, model.id).await[0]),
            (day(30), true, false)
        );
        let listed = by_department(&app, &app.learner_token()).await;
        assert_eq!((listed[0].units_overdue, listed[0].units_due_soon), (0, 1));

        app.log(unit.id, &day(0), &day(31)).await.unwrap();
        assert_eq!(
            standing(&units(&app, model.id).await[0]),
            (day(31), false, false)
        );

        let entries = app
            .client
            .clone()
            .list_maintenance_entries(authed(
                pb::ListMaintenanceEntriesRequest {
                    environment_id: unit.id,
                },
                &app.learner_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .entries;
        assert_eq!(
            entries.iter().map(|e| e.date.as_str()).collect::<Vec<_>>(),
            [day(0), day(0), day(-200), day(-300)]
        );
        assert_eq!(entries[0].next_due, day(31), "the latest recorded first");
        assert_eq!(entries[0].kind, pb::MaintenanceKind::Preventive as i32);
        assert_eq!(entries[0].result, "Исправен");
        assert_eq!(entries[0].author_id, EDITOR_ID);
    })
    .await;
}

#[tokio::test]
async fn a_logbook_entry_is_checked_before_it_is_written() {
    on_each_backend(|app| async move {
        let model = app.create_model("Аппарат ИВЛ", "").await;
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        assert_status(
            app.log(unit.id, &day(1), "").await,
            Code::InvalidArgument,
            "Дата обслуживания не может быть в будущем",
        );
        assert_status(
            app.log(unit.id, &day(-1), &day(-2)).await,
            Code::InvalidArgument,
            "Дата следующего обслуживания должна быть позже даты обслуживания",
        );
        assert_status(
            app.log(unit.id + 100, &day(0), "").await,
            Code::NotFound,
            "Оборудование не найдено",
        );
        let no_kind = app
            .client
            .clone()
            .create_maintenance_entry(authed(
                pb::CreateMaintenanceEntryRequest {
                    environment_id: unit.id,
                    date: day(0),
                    kind: 0,
                    performed_by: "Инженер".into(),
                    description: "Осмотр".into(),
                    result: String::new(),
                    next_due: String::new(),
                },
                &app.editor_token(),
            ))
            .await;
        assert_status(no_kind, Code::InvalidArgument, "Выберите вид обслуживания");
    })
    .await;
}

#[tokio::test]
async fn the_due_list_spans_the_departments_the_caller_reads_most_urgent_first() {
    on_each_backend(|app| async move {
        let model = app.create_model("Дефибриллятор", "").await;
        let soon = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let overdue = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-2")
            .await
            .unwrap();
        let elsewhere = app
            .create_unit(model.id, OTHER_DEPARTMENT, "ИН-3")
            .await
            .unwrap();
        let fine = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-4")
            .await
            .unwrap();
        app.log(soon.id, &day(-10), &day(5)).await.unwrap();
        app.log(overdue.id, &day(-10), &day(-3)).await.unwrap();
        app.log(elsewhere.id, &day(-10), &day(-5)).await.unwrap();
        app.log(fine.id, &day(-10), &day(90)).await.unwrap();
        let due = |token: String| {
            let mut client = app.client.clone();
            async move {
                client
                    .list_maintenance_due(authed(pb::ListMaintenanceDueRequest {}, &token))
                    .await
                    .unwrap()
                    .into_inner()
            }
        };
        let ids = |response: &pb::ListMaintenanceDueResponse| {
            response
                .units
                .iter()
                .map(|u| u.environment.as_ref().unwrap().id)
                .collect::<Vec<_>>()
        };
        let learner = due(app.learner_token()).await;
        assert_eq!(ids(&learner), [overdue.id, soon.id]);
        assert_eq!(learner.units[0].environment_model_name, "Дефибриллятор");
        assert_eq!(learner.today, day(0));
        let editor = due(app.editor_token()).await;
        assert_eq!(ids(&editor), [elsewhere.id, overdue.id, soon.id]);
    })
    .await;
}

#[tokio::test]
async fn journals_are_named_once_per_model_and_entries_carry_their_author() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        app.create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let journal = app.create_journal(model.id, "Журнал дезинфекции").await;
        let mut client = app.client.clone();
        let again = client
            .create_journal(authed(
                pb::CreateJournalRequest {
                    environment_model_id: model.id,
                    name: " журнал  ДЕЗИНФЕКЦИИ ".into(),
                },
                &app.editor_token(),
            ))
            .await;
        assert_status(
            again,
            Code::FailedPrecondition,
            "У этой модели уже есть журнал «журнал ДЕЗИНФЕКЦИИ»",
        );
        let author = app.keys.token(7, &[Right::EquipmentEditing], &[]);
        for (date, text) in [(day(-1), "Первая"), (day(0), "Вторая")] {
            client
                .create_journal_entry(authed(
                    pb::CreateJournalEntryRequest {
                        journal_id: journal.id,
                        date,
                        text: text.into(),
                    },
                    &author,
                ))
                .await
                .unwrap();
        }
        let reader = app.learner_token();
        let entries = client
            .list_journal_entries(authed(
                pb::ListJournalEntriesRequest {
                    journal_id: journal.id,
                },
                &reader,
            ))
            .await
            .unwrap()
            .into_inner()
            .entries;
        assert_eq!(
            entries.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(),
            ["Вторая", "Первая"]
        );
        assert_eq!(entries[0].author_id, 7);
        assert_eq!(entries[0].author, "Тестов Тест Тестович");
        let journals = client
            .list_journals(authed(
                pb::ListJournalsRequest {
                    environment_model_id: model.id,
                },
                &reader,
            ))
            .await
            .unwrap()
            .into_inner()
            .journals;
        assert_eq!(journals, [journal]);
    })
    .await;
}

#[tokio::test]
async fn the_label_sheet_has_a_label_per_active_unit_of_the_department() {
    on_each_backend(|app| async move {
        let monitor = app.create_model("Монитор", "").await;
        let pump = app.create_model("Инфузомат", "").await;
        app.create_unit(monitor.id, OWN_DEPARTMENT, "ИН-2")
            .await
            .unwrap();
        let pump_unit = app
            .create_unit(pump.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let second_pump = app
            .create_unit(pump.id, OWN_DEPARTMENT, "ИН-4")
            .await
            .unwrap();
        app.create_unit(pump.id, OTHER_DEPARTMENT, "ИН-3")
            .await
            .unwrap();
        let labels = app
            .client
            .clone()
            .get_label_sheet(authed(
                pb::GetLabelSheetRequest {
                    department_id: OWN_DEPARTMENT,
                },
                &app.learner_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .labels;
        assert_eq!(
            labels
                .iter()
                .map(|l| (
                    l.environment_model_name.as_str(),
                    l.inventory_number.as_str()
                ))
                .collect::<Vec<_>>(),
            [
                ("Инфузомат", "ИН-1"),
                ("Инфузомат", "ИН-4"),
                ("Монитор", "ИН-2")
            ]
        );
        // Each unit's label opens its model's instruction for that unit
        // (issue 37): two units of one model have two codes.
        assert_eq!(
            labels[0].url,
            format!(
                "{PUBLIC_URL}/short-instruction/{}?unit={}",
                pump.id, pump_unit.id
            )
        );
        assert_eq!(
            labels[1].url,
            format!(
                "{PUBLIC_URL}/short-instruction/{}?unit={}",
                pump.id, second_pump.id
            )
        );
        assert!(labels[0].qr_code.starts_with(b"\x89PNG"));
        assert_ne!(labels[0].qr_code, labels[1].qr_code);
    })
    .await;
}

#[tokio::test]
async fn the_demo_equipment_has_units_in_two_departments_and_one_overdue() {
    for backend in backends() {
        let app = spawn_app(backend, true).await;
        let nurse = app.keys.token(2, &[], &[1, 2]);
        let mut client = app.client.clone();
        for department_id in [1, 2] {
            let models = client
                .list_environment_models_by_department(authed(
                    pb::ListEnvironmentModelsByDepartmentRequest { department_id },
                    &nurse,
                ))
                .await
                .unwrap()
                .into_inner()
                .environment_models;
            assert!(models.len() >= 2, "department {department_id}: {models:?}");
        }
        let due = client
            .list_maintenance_due(authed(pb::ListMaintenanceDueRequest {}, &nurse))
            .await
            .unwrap()
            .into_inner()
            .units;
        let overdue = due
            .iter()
            .filter(|u| u.environment.as_ref().unwrap().is_maintenance_overdue)
            .count();
        assert_eq!((overdue, due.len()), (1, 2), "{due:?}");
        drop(app);
    }
}

#[tokio::test]
async fn the_demo_models_name_manufacturers_and_types_of_the_reference() {
    for backend in backends() {
        let app = spawn_app(backend, true).await;
        let editor = app.keys.token(6, &[Right::EquipmentEditing], &[1, 2]);
        let mut client = app.client.clone();
        let makers = client
            .list_manufacturers(authed(pb::ListManufacturersRequest {}, &editor))
            .await
            .unwrap()
            .into_inner()
            .manufacturers;
        let types = client
            .list_environment_types(authed(pb::ListEnvironmentTypesRequest {}, &editor))
            .await
            .unwrap()
            .into_inner()
            .environment_types;
        let models = client
            .list_environment_models(authed(pb::ListEnvironmentModelsRequest {}, &editor))
            .await
            .unwrap()
            .into_inner()
            .environment_models;
        assert_eq!(models.len(), 4, "{models:?}");
        for model in &models {
            let maker = makers
                .iter()
                .find(|maker| maker.id == model.manufacturer_id)
                .unwrap_or_else(|| panic!("{}: no manufacturer in {makers:?}", model.name));
            assert_eq!(maker.name, model.brand_name);
            assert!(maker.country_id > 0, "{maker:?}");
            assert!(
                types
                    .iter()
                    .any(|kind| kind.id == model.environment_type_id),
                "{}: no equipment type in {types:?}",
                model.name
            );
        }
        drop(app);
    }
}
