//! The wiki's audit log: every kind of write leaves one record per entity it
//! changes, of who, from where and which fields went from what to what, in
//! the write's own transaction; a register's dry run leaves none; only
//! UserManagement reads the log.

use portal_kit::access::Scope;
use portal_kit::testing::{self, AuditLog};
use portal_proto::audit::v1 as audit_pb;
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::notification_service_client::NotificationServiceClient;

use crate::helpers::*;

#[tokio::test]
async fn only_user_managers_read_the_audit_log() {
    on_each_backend(|app| async move { testing::assert_audit_access(&app).await }).await;
}

#[test]
fn the_audit_matrix_covers_every_rpc_of_the_contract() {
    testing::assert_matrix_covers(testing::AUDIT_MATRIX, "portal.audit.v1", "AuditService");
}

/// The one record written since the last look: of `entity` `id`, `action`.
async fn one(
    log: &mut AuditLog,
    app: &TestApp,
    (entity, id, action): (&str, i64, &str),
) -> audit_pb::AuditRecord {
    let record = log.next(app, 1).await.remove(0);
    of(&record, entity, id, action);
    record
}

fn of(record: &audit_pb::AuditRecord, entity: &str, id: i64, action: &str) {
    assert_eq!(
        (
            record.entity.as_str(),
            record.entity_id,
            record.action.as_str()
        ),
        (entity, Some(id), action),
        "{record:?}"
    );
}

/// A field's change as recorded: old and new as JSON text.
fn change<'r>(record: &'r audit_pb::AuditRecord, field: &str) -> (&'r str, &'r str) {
    let found = record
        .changes
        .iter()
        .find(|c| c.field == field)
        .unwrap_or_else(|| panic!("{field} not among {:?}", record.changes));
    (found.old.as_str(), found.new.as_str())
}

fn fields(record: &audit_pb::AuditRecord) -> Vec<&str> {
    record.changes.iter().map(|c| c.field.as_str()).collect()
}

#[tokio::test]
async fn every_kind_of_write_leaves_one_record_with_its_fields_old_and_new() {
    testing::on_each_backend(spawn_with_training, |app| async move {
        let mut log = AuditLog::start(&app).await;
        let editor = app.editor_token();
        let mut client = app.client.clone();

        // Reference data.
        let country = client
            .create_country(authed(
                pb::CreateCountryRequest {
                    name: "Финляндия".into(),
                },
                &editor,
            ))
            .await
            .expect("country")
            .into_inner()
            .country
            .unwrap();
        let record = one(&mut log, &app, ("country", country.id, "create")).await;
        assert_eq!(change(&record, "name"), ("null", "\"Финляндия\""));
        let actor = record.actor.clone().unwrap();
        assert_eq!(
            (actor.kind.as_str(), actor.user_id),
            ("person", Some(EDITOR_ID))
        );
        assert!(!record.request_id.is_empty() && !record.address.is_empty());
        let kind = client
            .create_environment_type(authed(
                pb::CreateEnvironmentTypeRequest {
                    name: "Аудиометры".into(),
                },
                &editor,
            ))
            .await
            .expect("type")
            .into_inner()
            .environment_type
            .unwrap();
        one(&mut log, &app, ("environment-type", kind.id, "create")).await;
        let maker = client
            .create_manufacturer(authed(
                pb::CreateManufacturerRequest {
                    name: "Аудит-Мед".into(),
                    country_id: country.id,
                },
                &editor,
            ))
            .await
            .expect("manufacturer")
            .into_inner()
            .manufacturer
            .unwrap();
        let record = one(&mut log, &app, ("manufacturer", maker.id, "create")).await;
        assert_eq!(
            change(&record, "countryId"),
            ("null", &*country.id.to_string())
        );
        let document = client
            .create_common_document(authed(
                pb::CreateCommonDocumentRequest {
                    title: "Приказ о ТО".into(),
                    description: String::new(),
                    url: "https://hospital.example/order.pdf".into(),
                },
                &editor,
            ))
            .await
            .expect("document")
            .into_inner()
            .common_document
            .unwrap();
        let record = one(&mut log, &app, ("common-document", document.id, "create")).await;
        assert_eq!(
            change(&record, "url"),
            ("null", "\"https://hospital.example/order.pdf\"")
        );

        // A model: its fields, the instruction by its length and hash.
        let model = app.create_model("Монитор", "<p>Включите питание</p>").await;
        let record = one(&mut log, &app, ("environment-model", model.id, "create")).await;
        assert_eq!(change(&record, "name"), ("null", "\"Монитор\""));
        let (_, instruction) = change(&record, "shortInstruction");
        assert!(instruction.contains("\"sha256\":"), "{instruction}");
        assert!(!instruction.contains("питание"), "{instruction}");
        let mut update = pb::UpdateEnvironmentModelRequest {
            id: model.id,
            name: "Монитор пациента".into(),
            brand_name: model.brand_name.clone(),
            description: model.description.clone(),
            short_instruction: model.short_instruction.clone(),
            manufacturer_id: 0,
            environment_type_id: 0,
        };
        client
            .update_environment_model(authed(update.clone(), &editor))
            .await
            .expect("update model");
        let record = one(&mut log, &app, ("environment-model", model.id, "update")).await;
        assert_eq!(fields(&record), ["name"], "only what changed");
        assert_eq!(
            change(&record, "name"),
            ("\"Монитор\"", "\"Монитор пациента\"")
        );
        update.short_instruction = "<p>Включите питание и проверьте тревоги</p>".into();
        client
            .save_instruction(authed(
                pb::SaveInstructionRequest {
                    environment_model_id: model.id,
                    short_instruction: update.short_instruction.clone(),
                },
                &editor,
            ))
            .await
            .expect("save instruction");
        let record = one(&mut log, &app, ("environment-model", model.id, "update")).await;
        assert_eq!(fields(&record), ["shortInstruction"]);
        client
            .set_required_courses(authed(
                pb::SetRequiredCoursesRequest {
                    environment_model_id: model.id,
                    course_ids: vec![2],
                },
                &editor,
            ))
            .await
            .expect("required courses");
        let record = one(&mut log, &app, ("environment-model", model.id, "update")).await;
        assert_eq!(change(&record, "requiredCourses"), ("[]", "[2]"));

        // A unit: added, changed, retired.
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "АУД-900")
            .await
            .expect("unit");
        let record = one(&mut log, &app, ("environment", unit.id, "create")).await;
        assert_eq!(change(&record, "inventoryNumber"), ("null", "\"АУД-900\""));
        client
            .update_environment(authed(
                pb::UpdateEnvironmentRequest {
                    id: unit.id,
                    department_deployment: OTHER_DEPARTMENT,
                    serial_number: "SN-NEW".into(),
                    inventory_number: "АУД-900".into(),
                },
                &editor,
            ))
            .await
            .expect("update unit");
        let record = one(&mut log, &app, ("environment", unit.id, "update")).await;
        assert_eq!(fields(&record), ["departmentId", "serialNumber"]);
        assert_eq!(
            change(&record, "departmentId"),
            (&*OWN_DEPARTMENT.to_string(), &*OTHER_DEPARTMENT.to_string())
        );

        // Its logbook and a journal.
        let entry = app.log(unit.id, &day(-1), &day(180)).await.expect("entry");
        let record = one(&mut log, &app, ("maintenance-entry", entry.id, "create")).await;
        assert_eq!(
            change(&record, "environmentId"),
            ("null", &*unit.id.to_string())
        );
        assert_eq!(
            change(&record, "nextDue"),
            ("null", &*format!("\"{}\"", day(180)))
        );
        let journal = app.create_journal(model.id, "Журнал дезинфекции").await;
        let record = one(&mut log, &app, ("journal", journal.id, "create")).await;
        assert_eq!(change(&record, "name"), ("null", "\"Журнал дезинфекции\""));
        let written = client
            .create_journal_entry(authed(
                pb::CreateJournalEntryRequest {
                    journal_id: journal.id,
                    date: day(0),
                    text: "Обработан".into(),
                },
                &editor,
            ))
            .await
            .expect("journal entry")
            .into_inner()
            .entry
            .unwrap();
        let record = one(&mut log, &app, ("journal-entry", written.id, "create")).await;
        assert_eq!(change(&record, "text"), ("null", "\"Обработан\""));

        client
            .retire_environment(authed(
                pb::RetireEnvironmentRequest { id: unit.id },
                &editor,
            ))
            .await
            .expect("retire");
        let record = one(&mut log, &app, ("environment", unit.id, "retire")).await;
        assert_eq!(fields(&record), ["retiredAt"]);

        // Another system's register: one record per unit it adds or changes,
        // with the system's client id as actor; the unit unchanged leaves none.
        let system = app
            .keys
            .service_token(77, &[Scope::EquipmentRead, Scope::EquipmentWrite]);
        let second = app
            .create_unit(model.id, OWN_DEPARTMENT, "АУД-901")
            .await
            .expect("unit");
        log.next(&app, 1).await;
        let units = vec![
            pb::EquipmentUnitInput {
                inventory_number: "АУД-901".into(),
                serial_number: "SN-CHANGED".into(),
                model_id: model.id,
                department_id: OWN_DEPARTMENT,
                retired: None,
            },
            pb::EquipmentUnitInput {
                inventory_number: "АУД-902".into(),
                serial_number: "SN-902".into(),
                model_id: model.id,
                department_id: OWN_DEPARTMENT,
                retired: None,
            },
        ];
        let done = client
            .upsert_equipment_units(authed(
                pb::UpsertEquipmentUnitsRequest {
                    dry_run: false,
                    units,
                },
                &system,
            ))
            .await
            .expect("register")
            .into_inner();
        let records = log.next(&app, 2).await;
        let changed = records
            .iter()
            .find(|r| r.entity_id == Some(second.id))
            .expect("the changed unit's record");
        of(changed, "environment", second.id, "update");
        assert_eq!(fields(changed), ["serialNumber"]);
        assert_eq!(changed.actor.as_ref().unwrap().kind, "service-account");
        let added = records
            .iter()
            .find(|r| r.action == "create")
            .expect("the added unit's record");
        assert_eq!(change(added, "inventoryNumber"), ("null", "\"АУД-902\""));
        assert!(done.units.iter().any(|u| Some(u.id) == added.entity_id));

        // The bell's read marks.
        let key = format!("wiki:maintenance:{}:{}", unit.id, day(0));
        NotificationServiceClient::new(app.channel.clone())
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec![key.clone()],
                },
                &editor,
            ))
            .await
            .expect("mark read");
        let record = one(&mut log, &app, ("notification", EDITOR_ID, "mark-read")).await;
        assert_eq!(change(&record, "read"), ("[]", &*format!("[\"{key}\"]")));
    })
    .await;
}

#[tokio::test]
async fn a_dry_run_and_a_refused_write_leave_no_record() {
    on_each_backend(|app| async move {
        let model = app.create_model("Монитор", "<p>Текст</p>").await;
        let mut log = AuditLog::start(&app).await;
        let system = app
            .keys
            .service_token(77, &[Scope::EquipmentRead, Scope::EquipmentWrite]);
        // Written, then rolled back: the records with the units.
        let preview = app
            .client
            .clone()
            .upsert_equipment_units(authed(
                pb::UpsertEquipmentUnitsRequest {
                    dry_run: true,
                    units: vec![pb::EquipmentUnitInput {
                        inventory_number: "ИН-1".into(),
                        serial_number: "SN-1".into(),
                        model_id: model.id,
                        department_id: OWN_DEPARTMENT,
                        retired: None,
                    }],
                },
                &system,
            ))
            .await
            .expect("a dry run")
            .into_inner();
        assert_eq!(preview.units.len(), 1);
        log.next(&app, 0).await;
        // A taken inventory number refuses the unit.
        app.create_unit(model.id, OWN_DEPARTMENT, "ИН-2")
            .await
            .expect("unit");
        log.next(&app, 1).await;
        let taken = app.create_unit(model.id, OWN_DEPARTMENT, "ИН-2").await;
        assert_eq!(taken.unwrap_err().code(), tonic::Code::FailedPrecondition);
        log.next(&app, 0).await;
    })
    .await;
}
