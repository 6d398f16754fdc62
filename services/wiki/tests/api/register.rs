//! The equipment register of another hospital system: every unit paged out
//! with its maintenance standing, and batches of units upserted by inventory
//! number (created, changed, left alone), dry runs, refused rows, and who
//! wrote what.

use portal_kit::access::Scope;
use portal_proto::wiki::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;

/// The service account of the tests, and the scopes a register holds.
const SYSTEM_ID: i64 = 77;
const REGISTER_SCOPES: [Scope; 2] = [Scope::EquipmentRead, Scope::EquipmentWrite];

fn row(inventory_number: &str, model_id: i64, department_id: i64) -> pb::EquipmentUnitInput {
    pb::EquipmentUnitInput {
        inventory_number: inventory_number.into(),
        serial_number: format!("SN-{inventory_number}"),
        model_id,
        department_id,
        retired: None,
    }
}

impl TestApp {
    fn system_token(&self) -> String {
        self.keys.service_token(SYSTEM_ID, &REGISTER_SCOPES)
    }

    async fn upsert(
        &self,
        token: &str,
        dry_run: bool,
        units: Vec<pb::EquipmentUnitInput>,
    ) -> Result<pb::UpsertEquipmentUnitsResponse, Status> {
        self.client
            .clone()
            .upsert_equipment_units(authed(
                pb::UpsertEquipmentUnitsRequest { dry_run, units },
                token,
            ))
            .await
            .map(|r| r.into_inner())
    }

    async fn page(&self, after: i64, limit: i32) -> pb::ListEquipmentUnitsResponse {
        self.client
            .clone()
            .list_equipment_units(authed(
                pb::ListEquipmentUnitsRequest { after, limit },
                &self.system_token(),
            ))
            .await
            .expect("a page of the register")
            .into_inner()
    }

    /// Every unit, page by page.
    async fn register(&self) -> Vec<pb::EquipmentUnit> {
        let mut units = Vec::new();
        let mut after = 0;
        loop {
            let page = self.page(after, 0).await;
            units.extend(page.units);
            if page.next == 0 {
                return units;
            }
            after = page.next;
        }
    }

    async fn unit_by_number(&self, inventory_number: &str) -> pb::EquipmentUnit {
        self.register()
            .await
            .into_iter()
            .find(|u| u.inventory_number == inventory_number)
            .unwrap_or_else(|| panic!("{inventory_number} in the register"))
    }
}

/// (inventory number, outcome, changed fields) of each accepted row.
fn outcomes(
    reply: &pb::UpsertEquipmentUnitsResponse,
) -> Vec<(String, pb::UpsertOutcome, Vec<String>)> {
    reply
        .units
        .iter()
        .map(|u| {
            (
                u.inventory_number.clone(),
                u.outcome(),
                u.changed_fields.clone(),
            )
        })
        .collect()
}

fn counts(reply: &pb::UpsertEquipmentUnitsResponse) -> (i32, i32, i32, usize) {
    (
        reply.created,
        reply.changed,
        reply.unchanged,
        reply.errors.len(),
    )
}

#[tokio::test]
async fn the_register_pages_every_unit_by_id_with_its_model_and_standing() {
    on_each_backend(|app| async move {
        let editor = app.editor_token();
        let mut client = app.client.clone();
        let manufacturer = client
            .create_manufacturer(authed(
                pb::CreateManufacturerRequest {
                    name: "Mindray".into(),
                    country_id: 0,
                },
                &editor,
            ))
            .await
            .unwrap()
            .into_inner()
            .manufacturer
            .unwrap();
        let kind = client
            .create_environment_type(authed(
                pb::CreateEnvironmentTypeRequest {
                    name: "Монитор".into(),
                },
                &editor,
            ))
            .await
            .unwrap()
            .into_inner()
            .environment_type
            .unwrap();
        let mut request = model_request("BeneView T5", "");
        request.manufacturer_id = manufacturer.id;
        request.environment_type_id = kind.id;
        let model = client
            .create_environment_model(authed(request, &editor))
            .await
            .unwrap()
            .into_inner()
            .environment_model
            .unwrap();
        let mut ids = Vec::new();
        for n in 1..=5 {
            let unit = app
                .create_unit(model.id, OWN_DEPARTMENT, &format!("ИН-{n}"))
                .await
                .unwrap();
            ids.push(unit.id);
        }
        app.log(ids[0], &day(-200), &day(-10)).await.unwrap();
        app.log(ids[1], &day(-5), &day(10)).await.unwrap();
        client
            .retire_environment(authed(pb::RetireEnvironmentRequest { id: ids[4] }, &editor))
            .await
            .unwrap();

        let first = app.page(0, 2).await;
        let second = app.page(first.next, 2).await;
        let last = app.page(second.next, 2).await;
        let paged: Vec<i64> = [&first, &second, &last]
            .iter()
            .flat_map(|page| page.units.iter().map(|u| u.id))
            .collect();
        assert_eq!(paged, ids, "every unit once, by id");
        assert_eq!(first.next, ids[1]);
        assert_eq!(last.next, 0, "the last page says so");
        assert_eq!(
            app.page(0, 0).await.units.len(),
            5,
            "0 is the default limit"
        );
        assert_eq!(first.today, day(0));

        let overdue = &first.units[0];
        assert_eq!(overdue.inventory_number, "ИН-1");
        assert_eq!(overdue.serial_number, "SN-ИН-1");
        assert_eq!(overdue.model_id, model.id);
        assert_eq!(overdue.model_name, "BeneView T5");
        assert_eq!(overdue.manufacturer_name, "Mindray");
        assert_eq!(overdue.environment_type_name, "Монитор");
        assert_eq!(overdue.department_id, OWN_DEPARTMENT);
        assert_eq!(overdue.last_maintenance, day(-200));
        assert_eq!(overdue.next_maintenance_due, day(-10));
        assert!(overdue.is_maintenance_overdue && !overdue.is_maintenance_due_soon);
        let soon = &first.units[1];
        assert!(soon.is_maintenance_due_soon && !soon.is_maintenance_overdue);
        assert_eq!(soon.last_maintenance, day(-5));
        let unplanned = &second.units[0];
        assert_eq!(
            (
                unplanned.last_maintenance.as_str(),
                unplanned.next_maintenance_due.as_str()
            ),
            ("", "")
        );
        let retired = &last.units[0];
        assert!(retired.retired && retired.retired_at.is_some());
        assert!(!unplanned.retired && unplanned.retired_at.is_none());
        let by_editor = Some(pb::WrittenBy {
            user_id: EDITOR_ID,
            service_account_id: 0,
        });
        assert_eq!(
            unplanned.created_by, by_editor,
            "CreateEnvironment's author"
        );
        assert_eq!(retired.changed_by, by_editor, "RetireEnvironment's author");
        assert!(retired.changed_at.is_some() && unplanned.changed_at.is_none());
    })
    .await;
}

#[tokio::test]
async fn a_batch_creates_changes_and_leaves_alone_and_the_same_batch_again_changes_nothing() {
    on_each_backend(|app| async move {
        let monitor = app.create_model("Монитор", "").await;
        let pump = app.create_model("Инфузомат", "").await;
        let kept = app
            .create_unit(monitor.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let moved = app
            .create_unit(monitor.id, OWN_DEPARTMENT, "ИН-2")
            .await
            .unwrap();
        let mut renamed = row("ИН-2", pump.id, OTHER_DEPARTMENT);
        renamed.serial_number = "SN-new".into();
        let batch = vec![
            row("ИН-1", monitor.id, OWN_DEPARTMENT),
            renamed,
            row(" ИН-3 ", pump.id, OTHER_DEPARTMENT),
        ];
        let token = app.system_token();
        let first = app.upsert(&token, false, batch.clone()).await.unwrap();
        assert_eq!(counts(&first), (1, 1, 1, 0));
        assert!(!first.dry_run);
        use pb::UpsertOutcome::{Changed, Created, Unchanged};
        assert_eq!(
            outcomes(&first),
            [
                ("ИН-1".to_owned(), Unchanged, vec![]),
                (
                    "ИН-2".to_owned(),
                    Changed,
                    vec![
                        "serialNumber".to_owned(),
                        "modelId".to_owned(),
                        "departmentId".to_owned()
                    ]
                ),
                ("ИН-3".to_owned(), Created, vec![]),
            ]
        );
        assert_eq!(first.units[0].id, kept.id);
        assert_eq!(first.units[1].id, moved.id);
        let created = app.unit_by_number("ИН-3").await;
        assert_eq!(first.units[2].id, created.id);
        assert_eq!(
            (
                created.model_id,
                created.department_id,
                created.serial_number.as_str()
            ),
            (pump.id, OTHER_DEPARTMENT, "SN- ИН-3")
        );
        let changed = app.unit_by_number("ИН-2").await;
        assert_eq!(
            (
                changed.model_id,
                changed.department_id,
                changed.serial_number.as_str()
            ),
            (pump.id, OTHER_DEPARTMENT, "SN-new")
        );

        let register = app.register().await;
        let again = app.upsert(&token, false, batch).await.unwrap();
        assert_eq!(counts(&again), (0, 0, 3, 0), "idempotent");
        assert_eq!(app.register().await, register, "nothing written");
    })
    .await;
}

#[tokio::test]
async fn a_dry_run_answers_the_same_and_writes_nothing() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        app.create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let batch = vec![
            row("ИН-1", model.id, OTHER_DEPARTMENT),
            row("ИН-2", model.id, OWN_DEPARTMENT),
            row("ИН-3", 0, OWN_DEPARTMENT),
        ];
        let token = app.system_token();
        let before = app.register().await;
        let dry = app.upsert(&token, true, batch.clone()).await.unwrap();
        assert!(dry.dry_run);
        assert_eq!(counts(&dry), (1, 1, 0, 1));
        assert_eq!(dry.units[1].id, 0, "a unit a dry run would add has no id");
        assert_eq!(app.register().await, before, "nothing written");

        let done = app.upsert(&token, false, batch).await.unwrap();
        assert_eq!(counts(&done), counts(&dry));
        assert_eq!(outcomes(&done), outcomes(&dry));
        assert_eq!(done.errors, dry.errors);
        assert_ne!(app.register().await, before);
    })
    .await;
}

#[tokio::test]
async fn bad_rows_are_refused_each_with_its_reason_and_the_others_written() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let mut blank_serial = row("ИН-2", model.id, OWN_DEPARTMENT);
        blank_serial.serial_number = "  ".into();
        let batch = vec![
            row("ИН-1", model.id, OWN_DEPARTMENT),
            blank_serial,
            row("ИН-3", model.id + 100, OWN_DEPARTMENT),
            row("ИН-4", model.id, 0),
            row("ИН-5", model.id, OWN_DEPARTMENT),
            row("ИН-5", model.id, OTHER_DEPARTMENT),
            row("", model.id, OWN_DEPARTMENT),
        ];
        let reply = app.upsert(&app.system_token(), false, batch).await.unwrap();
        assert_eq!(counts(&reply), (1, 0, 0, 6));
        let errors: Vec<_> = reply
            .errors
            .iter()
            .map(|e| {
                (
                    e.index,
                    e.inventory_number.as_str(),
                    e.field.as_str(),
                    e.reason.as_str(),
                    e.message.as_str(),
                )
            })
            .collect();
        let repeated = "Инвентарный номер «ИН-5» указан в пакете несколько раз";
        assert_eq!(
            errors,
            [
                (
                    1,
                    "ИН-2",
                    "serialNumber",
                    "invalid-field",
                    "Введите серийный номер"
                ),
                (
                    2,
                    "ИН-3",
                    "modelId",
                    "model-not-found",
                    "Модель оборудования не найдена"
                ),
                (
                    3,
                    "ИН-4",
                    "departmentId",
                    "invalid-field",
                    "Выберите отделение, где установлено оборудование"
                ),
                (
                    4,
                    "ИН-5",
                    "inventoryNumber",
                    "inventory-number-repeated",
                    repeated
                ),
                (
                    5,
                    "ИН-5",
                    "inventoryNumber",
                    "inventory-number-repeated",
                    repeated
                ),
                (
                    6,
                    "",
                    "inventoryNumber",
                    "invalid-field",
                    "Введите инвентарный номер"
                ),
            ]
        );
        let numbers: Vec<_> = app
            .register()
            .await
            .into_iter()
            .map(|u| u.inventory_number)
            .collect();
        assert_eq!(numbers, ["ИН-1"]);
    })
    .await;
}

#[tokio::test]
async fn a_register_retires_and_returns_units_only_when_it_says_so() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let token = app.system_token();
        let mut retire = row("ИН-1", model.id, OWN_DEPARTMENT);
        retire.serial_number = unit.serial_number.clone();
        retire.retired = Some(true);
        let reply = app
            .upsert(&token, false, vec![retire.clone()])
            .await
            .unwrap();
        assert_eq!(reply.units[0].changed_fields, ["retired"]);
        let listed = app
            .client
            .clone()
            .list_environments_by_model(authed(
                pb::ListEnvironmentsByModelRequest {
                    environment_model_id: model.id,
                },
                &app.editor_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .environments;
        assert!(listed.is_empty(), "a retired unit leaves the lists");
        let retired_at = app.unit_by_number("ИН-1").await.retired_at;
        assert!(retired_at.is_some());

        assert_eq!(
            counts(
                &app.upsert(&token, false, vec![retire.clone()])
                    .await
                    .unwrap()
            ),
            (0, 0, 1, 0)
        );
        retire.retired = None;
        assert_eq!(
            counts(
                &app.upsert(&token, false, vec![retire.clone()])
                    .await
                    .unwrap()
            ),
            (0, 0, 1, 0),
            "left out, retirement stays"
        );
        assert_eq!(app.unit_by_number("ИН-1").await.retired_at, retired_at);
        retire.retired = Some(false);
        let back = app.upsert(&token, false, vec![retire]).await.unwrap();
        assert_eq!(back.units[0].changed_fields, ["retired"]);
        assert!(!app.unit_by_number("ИН-1").await.retired);

        let mut born_retired = row("ИН-2", model.id, OWN_DEPARTMENT);
        born_retired.retired = Some(true);
        app.upsert(&token, false, vec![born_retired]).await.unwrap();
        assert!(app.unit_by_number("ИН-2").await.retired);
    })
    .await;
}

#[tokio::test]
async fn each_write_records_whether_a_person_or_a_system_made_it() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let system = app.system_token();
        app.upsert(&system, false, vec![row("ИН-1", model.id, OWN_DEPARTMENT)])
            .await
            .unwrap();
        let by_system = Some(pb::WrittenBy {
            user_id: 0,
            service_account_id: SYSTEM_ID,
        });
        let created = app.unit_by_number("ИН-1").await;
        assert_eq!(created.created_by, by_system);
        assert_eq!(
            created.changed_by,
            Some(pb::WrittenBy::default()),
            "never changed"
        );

        let editor = app.editor_token();
        app.upsert(
            &editor,
            false,
            vec![row("ИН-1", model.id, OTHER_DEPARTMENT)],
        )
        .await
        .unwrap();
        let changed = app.unit_by_number("ИН-1").await;
        assert_eq!(changed.created_by, by_system, "who added it is kept");
        assert_eq!(
            changed.changed_by,
            Some(pb::WrittenBy {
                user_id: EDITOR_ID,
                service_account_id: 0,
            })
        );
        assert!(changed.changed_at.is_some());

        app.upsert(&system, false, vec![row("ИН-1", model.id, OWN_DEPARTMENT)])
            .await
            .unwrap();
        assert_eq!(app.unit_by_number("ИН-1").await.changed_by, by_system);
    })
    .await;
}

#[tokio::test]
async fn five_thousand_units_go_in_one_batch_and_more_are_refused() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let batch: Vec<_> = (0..5000)
            .map(|n| row(&format!("ИН-{n:05}"), model.id, OWN_DEPARTMENT))
            .collect();
        let token = app.system_token();
        let first = app.upsert(&token, false, batch.clone()).await.unwrap();
        assert_eq!(counts(&first), (5000, 0, 0, 0));
        let ids: std::collections::HashSet<i64> = first.units.iter().map(|u| u.id).collect();
        assert_eq!(ids.len(), 5000, "each created row has its own id");
        assert!(!ids.contains(&0));
        let again = app.upsert(&token, false, batch.clone()).await.unwrap();
        assert_eq!(counts(&again), (0, 0, 5000, 0));
        let page = app.page(0, 9000).await;
        assert_eq!(page.units.len(), 5000, "the largest page");

        let mut too_many = batch;
        too_many.push(row("ИН-лишний", model.id, OWN_DEPARTMENT));
        assert_status(
            app.upsert(&token, false, too_many).await,
            Code::InvalidArgument,
            "В одном пакете можно передать не больше 5000 единиц оборудования",
        );
    })
    .await;
}

#[tokio::test]
async fn two_systems_sending_the_same_new_units_at_once_add_each_unit_once() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "").await;
        let batch: Vec<_> = (0..300)
            .map(|n| row(&format!("ИН-{n:03}"), model.id, OWN_DEPARTMENT))
            .collect();
        let (one, two) = (app.system_token(), app.editor_token());
        let (a, b) = tokio::join!(
            app.upsert(&one, false, batch.clone()),
            app.upsert(&two, false, batch),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.created + b.created, 300, "{:?}", (counts(&a), counts(&b)));
        assert_eq!(a.unchanged + b.unchanged, 300);
        assert!(a.errors.is_empty() && b.errors.is_empty());
        assert_eq!(app.register().await.len(), 300);
    })
    .await;
}
