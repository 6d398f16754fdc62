//! Records as the contract's messages.

use portal_kit::day::Day;
use portal_kit::db::timestamp_from_millis;
use portal_proto::wiki::v1 as pb;

use crate::app::clearance::{Course, MemberClearance};
use crate::app::labels::Label;
use crate::app::maintenance::{DepartmentModel, DueUnit};
use crate::app::notifications::Item;
use crate::domain::clearance::Clearance;
use crate::domain::maintenance::{Kind, Standing};
use crate::domain::register::{Outcome, Upsert};
use crate::store::instruction::InstructionRevisionRecord;
use crate::store::journal::{JournalEntryRecord, JournalRecord};
use crate::store::logbook::EntryRecord;
use crate::store::model::ModelRecord;
use crate::store::reference::{DocumentRecord, ManufacturerRecord, NamedRecord};
use crate::store::register::RegisterUnitRecord;
use crate::store::unit::UnitRecord;

/// A revision of an instruction; author 0 for the version of before
/// revisions were kept.
pub fn instruction_revision(record: InstructionRevisionRecord) -> pb::InstructionRevision {
    pb::InstructionRevision {
        id: record.id,
        author_id: record.author_id.unwrap_or(0),
        author_name: record.author_name,
        created_at: Some(timestamp_from_millis(record.created_at)),
        size: record.size,
        restored_from_id: record.restored_from_id.unwrap_or(0),
        restored_from_created_at: record.restored_from_at.map(timestamp_from_millis),
    }
}

/// A unit as it stands with its maintenance on `today`.
pub fn unit(record: UnitRecord, today: Day) -> pb::Environment {
    let standing = record.standing(today);
    pb::Environment {
        id: record.id,
        environment_model_id: record.environment_model_id,
        department_id: record.department_id,
        serial_number: record.serial_number,
        inventory_number: record.inventory_number,
        next_maintenance_due: record.next_due.unwrap_or_default(),
        is_maintenance_due_soon: standing == Standing::DueSoon,
        is_maintenance_overdue: standing == Standing::Overdue,
    }
}

/// A model with `units`, its QR code (empty in lists) and the courses it
/// requires.
pub fn model(
    record: ModelRecord,
    units: Vec<UnitRecord>,
    qr_code: Vec<u8>,
    required_course_ids: Vec<i64>,
) -> pb::EnvironmentModel {
    let today = Day::today();
    pb::EnvironmentModel {
        id: record.id,
        name: record.name,
        brand_name: record.brand_name,
        description: record.description,
        short_instruction: record.short_instruction,
        short_instruction_qr_code: qr_code,
        environments: units.into_iter().map(|u| unit(u, today)).collect(),
        manufacturer_id: record.manufacturer_id.unwrap_or(0),
        environment_type_id: record.environment_type_id.unwrap_or(0),
        required_course_ids,
    }
}

fn kind_value(stored: &str) -> i32 {
    let kind = match Kind::stored(stored) {
        Some(Kind::Preventive) => pb::MaintenanceKind::Preventive,
        Some(Kind::Corrective) => pb::MaintenanceKind::Corrective,
        Some(Kind::Inspection) => pb::MaintenanceKind::Inspection,
        Some(Kind::Calibration) => pb::MaintenanceKind::Calibration,
        None => pb::MaintenanceKind::Unspecified,
    };
    kind as i32
}

impl From<EntryRecord> for pb::MaintenanceEntry {
    fn from(record: EntryRecord) -> Self {
        pb::MaintenanceEntry {
            id: record.id,
            environment_id: record.environment_id,
            environment_model_id: record.environment_model_id,
            date: record.performed_on,
            kind: kind_value(&record.kind),
            performed_by: record.performed_by,
            description: record.description,
            result: record.result,
            next_due: record.next_due.unwrap_or_default(),
            author_id: record.author_id,
            author: record.author_name,
            created_at: Some(timestamp_from_millis(record.created_at)),
        }
    }
}

impl From<JournalRecord> for pb::Journal {
    fn from(record: JournalRecord) -> Self {
        pb::Journal {
            id: record.id,
            environment_model_id: record.environment_model_id,
            name: record.name,
        }
    }
}

impl From<JournalEntryRecord> for pb::JournalEntry {
    fn from(record: JournalEntryRecord) -> Self {
        pb::JournalEntry {
            id: record.id,
            journal_id: record.journal_id,
            date: record.entry_date,
            text: record.text,
            author_id: record.author_id,
            author: record.author_name,
            created_at: Some(timestamp_from_millis(record.created_at)),
        }
    }
}

impl From<Label> for pb::Label {
    fn from(label: Label) -> Self {
        pb::Label {
            environment_id: label.unit.id,
            environment_model_id: label.unit.environment_model_id,
            environment_model_name: label.model_name,
            inventory_number: label.unit.inventory_number,
            serial_number: label.unit.serial_number,
            qr_code: label.qr_code,
            url: label.url,
        }
    }
}

impl From<NamedRecord> for pb::Country {
    fn from(record: NamedRecord) -> Self {
        pb::Country {
            id: record.id,
            name: record.name,
        }
    }
}

impl From<NamedRecord> for pb::EnvironmentType {
    fn from(record: NamedRecord) -> Self {
        pb::EnvironmentType {
            id: record.id,
            name: record.name,
        }
    }
}

impl From<ManufacturerRecord> for pb::Manufacturer {
    fn from(record: ManufacturerRecord) -> Self {
        pb::Manufacturer {
            id: record.id,
            name: record.name,
            country_id: record.country_id.unwrap_or(0),
        }
    }
}

impl From<DocumentRecord> for pb::CommonDocument {
    fn from(record: DocumentRecord) -> Self {
        pb::CommonDocument {
            id: record.id,
            title: record.title,
            description: record.description,
            url: record.url,
        }
    }
}

impl From<DepartmentModel> for pb::EnvironmentModelRef {
    fn from(model: DepartmentModel) -> Self {
        pb::EnvironmentModelRef {
            id: model.id,
            name: model.name,
            units_due_soon: model.units_due_soon,
            units_overdue: model.units_overdue,
        }
    }
}

/// A unit due, as it stands on `today`.
pub fn due_unit(due: DueUnit, today: Day) -> pb::DueUnit {
    pb::DueUnit {
        environment: Some(unit(due.unit, today)),
        environment_model_name: due.model_name,
    }
}

fn written_by(user_id: Option<i64>, service_account_id: Option<i64>) -> pb::WrittenBy {
    pb::WrittenBy {
        user_id: user_id.unwrap_or(0),
        service_account_id: service_account_id.unwrap_or(0),
    }
}

/// A unit as a register reads it, standing as on `today`.
pub fn equipment_unit(record: RegisterUnitRecord, today: Day) -> pb::EquipmentUnit {
    let standing = record.standing(today);
    pb::EquipmentUnit {
        id: record.id,
        inventory_number: record.inventory_number,
        serial_number: record.serial_number,
        model_id: record.environment_model_id,
        model_name: record.model_name,
        manufacturer_id: record.manufacturer_id.unwrap_or(0),
        manufacturer_name: record.manufacturer_name.unwrap_or_default(),
        environment_type_id: record.environment_type_id.unwrap_or(0),
        environment_type_name: record.environment_type_name.unwrap_or_default(),
        department_id: record.department_id,
        retired: record.retired_at.is_some(),
        retired_at: record.retired_at.map(timestamp_from_millis),
        last_maintenance: record.last_maintenance.unwrap_or_default(),
        next_maintenance_due: record.next_due.unwrap_or_default(),
        is_maintenance_due_soon: standing == Some(Standing::DueSoon),
        is_maintenance_overdue: standing == Some(Standing::Overdue),
        created_at: Some(timestamp_from_millis(record.created_at)),
        created_by: Some(written_by(
            record.created_by_user_id,
            record.created_by_service_account_id,
        )),
        changed_at: record.changed_at.map(timestamp_from_millis),
        changed_by: Some(written_by(
            record.changed_by_user_id,
            record.changed_by_service_account_id,
        )),
    }
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl From<Upsert> for pb::UpsertEquipmentUnitsResponse {
    fn from(upsert: Upsert) -> Self {
        pb::UpsertEquipmentUnitsResponse {
            created: count(upsert.count(Outcome::Created)),
            changed: count(upsert.count(Outcome::Changed)),
            unchanged: count(upsert.count(Outcome::Unchanged)),
            dry_run: upsert.dry_run,
            errors: upsert
                .errors
                .into_iter()
                .map(|error| pb::UpsertError {
                    index: count(error.index),
                    inventory_number: error.inventory_number,
                    field: error
                        .field
                        .map(|field| field.json_name().to_owned())
                        .unwrap_or_default(),
                    message: error.message,
                    reason: error.reason.to_owned(),
                })
                .collect(),
            units: upsert
                .units
                .into_iter()
                .map(|unit| pb::UpsertedUnit {
                    index: count(unit.index),
                    inventory_number: unit.inventory_number,
                    id: unit.id,
                    outcome: match unit.outcome {
                        Outcome::Created => pb::UpsertOutcome::Created,
                        Outcome::Changed => pb::UpsertOutcome::Changed,
                        Outcome::Unchanged => pb::UpsertOutcome::Unchanged,
                    } as i32,
                    changed_fields: unit
                        .changed
                        .into_iter()
                        .map(|field| field.json_name().to_owned())
                        .collect(),
                })
                .collect(),
        }
    }
}

impl From<Course> for pb::RequiredCourse {
    fn from(course: Course) -> pb::RequiredCourse {
        pb::RequiredCourse {
            id: course.id,
            title: course.title,
        }
    }
}

/// A person's clearance, naming their `missing` courses.
pub fn clearance(clearance: &Clearance, missing: Vec<Course>) -> pb::GetClearanceResponse {
    pb::GetClearanceResponse {
        cleared: clearance.cleared(),
        missing_courses: missing.into_iter().map(Into::into).collect(),
        valid_until: clearance.valid_until.map(timestamp_from_millis),
    }
}

/// A member's clearance on `now`, naming their missing courses from
/// `required` (the model's, titled).
pub fn member_clearance(
    person: MemberClearance,
    required: &[Course],
    now: i64,
) -> pb::PersonClearance {
    let MemberClearance { member, clearance } = person;
    let missing_courses = required
        .iter()
        .filter(|course| clearance.missing.contains(&course.id))
        .cloned()
        .map(Into::into)
        .collect();
    pb::PersonClearance {
        user_id: member.id,
        name: member.name,
        surname: member.surname,
        last_name: member.last_name,
        cleared: clearance.cleared(),
        lapsing: clearance.lapsing(now),
        valid_until: clearance.valid_until.map(timestamp_from_millis),
        missing_courses,
    }
}

/// An item of the bell or the digest.
pub fn notification(item: Item) -> pb::Notification {
    pb::Notification {
        id: item.key,
        kind: item.kind.into(),
        title: item.title,
        link: item.link,
        due_date: item.due.to_string(),
        overdue: item.overdue,
        read: item.read,
    }
}
