//! The equipment register of another hospital system (issue 21): pages of
//! every unit, and batches of units keyed by inventory number. What one row
//! must hold is a unit's own rule ([`UnitDraft`]); a batch adds its size, the
//! numbers repeated within it, and what a row changes of the unit it names.

use std::collections::{HashMap, HashSet};

use portal_kit::ServiceError;

use super::model::MSG_MODEL_NOT_FOUND;
use super::unit::{UnitDraft, UnitField};

/// Units in a page when the caller names no limit, and the most it may name.
pub const DEFAULT_PAGE: i64 = 500;
pub const MAX_PAGE: i64 = 5000;
/// Rows in one batch at most (a hospital's whole register at once).
pub const MAX_BATCH: usize = 5000;

pub const MSG_BATCH_TOO_LARGE: &str =
    "В одном пакете можно передать не больше 5000 единиц оборудования";
pub const MSG_MODEL_REQUIRED: &str = "Выберите модель оборудования";

/// A row's field breaks a unit's rule (blank, too long, hidden characters,
/// no department or model).
pub const REASON_INVALID_FIELD: &str = "invalid-field";
/// A row names a model the wiki does not have.
pub const REASON_MODEL_NOT_FOUND: &str = "model-not-found";
/// A row's inventory number is in another row of the batch too.
pub const REASON_REPEATED: &str = "inventory-number-repeated";

/// Which units a page of the register holds: ids above `after`, at most
/// `limit` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub after: i64,
    pub limit: i64,
}

impl Page {
    /// A limit of 0 or less is the default; above the most, the most.
    pub fn parse(after: i64, limit: i32) -> Page {
        let limit = match i64::from(limit) {
            limit if limit <= 0 => DEFAULT_PAGE,
            limit => limit.min(MAX_PAGE),
        };
        Page {
            after: after.max(0),
            limit,
        }
    }
}

/// One row of a batch as the request carries it.
pub struct RowInput<'a> {
    pub inventory_number: &'a str,
    pub serial_number: &'a str,
    pub model_id: i64,
    pub department_id: i64,
    pub retired: Option<bool>,
}

/// A row that holds a unit: its place in the batch and the unit's whole state
/// (`retired` none: as it is).
#[derive(Clone, Debug)]
pub struct Row {
    pub index: usize,
    pub draft: UnitDraft,
    pub model_id: i64,
    pub retired: Option<bool>,
}

/// A refused row: nothing of it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    pub index: usize,
    pub inventory_number: String,
    /// None when the row as a whole is refused.
    pub field: Option<UnitField>,
    /// Russian, for people.
    pub message: String,
    /// Stable, for programs: one of the `REASON_*`.
    pub reason: &'static str,
}

impl RowError {
    /// `row` names a model that does not exist.
    pub fn model_not_found(row: &Row) -> RowError {
        RowError {
            index: row.index,
            inventory_number: row.draft.inventory_number.clone(),
            field: Some(UnitField::Model),
            message: MSG_MODEL_NOT_FOUND.to_owned(),
            reason: REASON_MODEL_NOT_FOUND,
        }
    }
}

/// The message of a number sent in more than one row.
pub fn repeated(inventory_number: &str) -> String {
    format!("Инвентарный номер «{inventory_number}» указан в пакете несколько раз")
}

/// A batch parsed: the rows that hold a unit and the refusals of the others,
/// each in request order.
#[derive(Clone, Debug)]
pub struct Batch {
    pub rows: Vec<Row>,
    pub errors: Vec<RowError>,
}

impl Batch {
    /// Checks every row by the unit's rules; a refused row does not stop the
    /// others. A number in more than one row refuses each of them: which one
    /// the register meant is not for the portal to guess. Too many rows
    /// refuses the whole batch.
    pub fn parse(inputs: &[RowInput<'_>]) -> Result<Batch, ServiceError> {
        if inputs.len() > MAX_BATCH {
            return Err(ServiceError::invalid(MSG_BATCH_TOO_LARGE));
        }
        let mut rows = Vec::with_capacity(inputs.len());
        let mut errors = Vec::new();
        for (index, input) in inputs.iter().enumerate() {
            match parse_row(index, input) {
                Ok(row) => rows.push(row),
                Err(error) => errors.push(error),
            }
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for row in &rows {
            *counts
                .entry(row.draft.inventory_number.as_str())
                .or_default() += 1;
        }
        let repeated_numbers: HashSet<String> = counts
            .into_iter()
            .filter(|(_, count)| *count > 1)
            .map(|(number, _)| number.to_owned())
            .collect();
        let (rows, twice): (Vec<Row>, Vec<Row>) = rows
            .into_iter()
            .partition(|row| !repeated_numbers.contains(&row.draft.inventory_number));
        errors.extend(twice.into_iter().map(|row| RowError {
            index: row.index,
            message: repeated(&row.draft.inventory_number),
            inventory_number: row.draft.inventory_number,
            field: Some(UnitField::InventoryNumber),
            reason: REASON_REPEATED,
        }));
        errors.sort_by_key(|error| error.index);
        Ok(Batch { rows, errors })
    }
}

fn parse_row(index: usize, input: &RowInput<'_>) -> Result<Row, RowError> {
    let refused = |field, error: ServiceError| RowError {
        index,
        inventory_number: input.inventory_number.to_owned(),
        field: Some(field),
        message: error.to_string(),
        reason: REASON_INVALID_FIELD,
    };
    let draft = UnitDraft::parse_naming_field(
        input.department_id,
        input.serial_number,
        input.inventory_number,
    )
    .map_err(|(field, error)| refused(field, error))?;
    if input.model_id <= 0 {
        return Err(refused(
            UnitField::Model,
            ServiceError::invalid(MSG_MODEL_REQUIRED),
        ));
    }
    Ok(Row {
        index,
        draft,
        model_id: input.model_id,
        retired: input.retired,
    })
}

/// A unit as stored, as far as a register row describes it.
#[derive(Clone, Copy, Debug)]
pub struct Current<'a> {
    pub model_id: i64,
    pub department_id: i64,
    pub serial_number: &'a str,
    pub retired: bool,
}

/// The fields in which `row` differs from the unit as it is (none: unchanged).
pub fn changes(row: &Row, current: Current<'_>) -> Vec<UnitField> {
    [
        (
            UnitField::SerialNumber,
            row.draft.serial_number != current.serial_number,
        ),
        (UnitField::Model, row.model_id != current.model_id),
        (
            UnitField::Department,
            row.draft.department_id != current.department_id,
        ),
        (
            UnitField::Retired,
            row.retired
                .is_some_and(|retired| retired != current.retired),
        ),
    ]
    .into_iter()
    .filter_map(|(field, differs)| differs.then_some(field))
    .collect()
}

/// What a row did (or, in a dry run, would do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Created,
    Changed,
    Unchanged,
}

/// An accepted row: its unit's id (0 for one a dry run would add), what was
/// done, and the fields that changed.
#[derive(Clone, Debug)]
pub struct Upserted {
    pub index: usize,
    pub inventory_number: String,
    pub id: i64,
    pub outcome: Outcome,
    pub changed: Vec<UnitField>,
}

/// A batch's answer: the accepted rows and the refused ones, each in request
/// order.
#[derive(Clone, Debug)]
pub struct Upsert {
    pub units: Vec<Upserted>,
    pub errors: Vec<RowError>,
    pub dry_run: bool,
}

impl Upsert {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.units.iter().filter(|u| u.outcome == outcome).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(inventory_number: &'a str, model_id: i64) -> RowInput<'a> {
        RowInput {
            inventory_number,
            serial_number: "SN-1",
            model_id,
            department_id: 3,
            retired: None,
        }
    }

    #[test]
    fn a_page_is_bounded_and_starts_at_the_beginning() {
        assert_eq!(
            Page::parse(-4, 0),
            Page {
                after: 0,
                limit: 500
            }
        );
        assert_eq!(
            Page::parse(7, 20),
            Page {
                after: 7,
                limit: 20
            }
        );
        assert_eq!(Page::parse(7, 90_000).limit, MAX_PAGE);
    }

    #[test]
    fn bad_rows_are_refused_one_by_one_and_the_rest_kept() {
        let mut blank_serial = input("ИН-3", 1);
        blank_serial.serial_number = " ";
        let batch = Batch::parse(&[
            input(" ИН-1 ", 1),
            input("ИН-2", 0),
            blank_serial,
            input("ИН-4", 2),
        ])
        .unwrap();
        let kept: Vec<_> = batch.rows.iter().map(|r| r.index).collect();
        assert_eq!(kept, [0, 3]);
        assert_eq!(batch.rows[0].draft.inventory_number, "ИН-1", "trimmed");
        let refused: Vec<_> = batch
            .errors
            .iter()
            .map(|e| (e.index, e.field, e.message.as_str(), e.reason))
            .collect();
        assert_eq!(
            refused,
            [
                (
                    1,
                    Some(UnitField::Model),
                    MSG_MODEL_REQUIRED,
                    REASON_INVALID_FIELD
                ),
                (
                    2,
                    Some(UnitField::SerialNumber),
                    "Введите серийный номер",
                    REASON_INVALID_FIELD
                ),
            ]
        );
    }

    #[test]
    fn a_number_sent_twice_refuses_both_rows() {
        let batch = Batch::parse(&[input("ИН-1", 1), input("ИН-2", 1), input("ИН-1 ", 2)]).unwrap();
        assert_eq!(batch.rows.len(), 1);
        assert_eq!(batch.rows[0].index, 1);
        let refused: Vec<_> = batch.errors.iter().map(|e| (e.index, e.reason)).collect();
        assert_eq!(refused, [(0, REASON_REPEATED), (2, REASON_REPEATED)]);
        assert_eq!(
            batch.errors[0].message,
            "Инвентарный номер «ИН-1» указан в пакете несколько раз"
        );
    }

    #[test]
    fn a_batch_over_the_limit_is_refused_whole() {
        let numbers: Vec<String> = (0..=MAX_BATCH).map(|i| format!("ИН-{i}")).collect();
        let inputs: Vec<_> = numbers.iter().map(|n| input(n, 1)).collect();
        assert_eq!(
            Batch::parse(&inputs).unwrap_err().to_string(),
            MSG_BATCH_TOO_LARGE
        );
        assert!(Batch::parse(&inputs[..MAX_BATCH]).is_ok());
    }

    #[test]
    fn a_row_changes_only_the_fields_that_differ() {
        let mut sent = input("ИН-1", 1);
        let row = Batch::parse(&[input("ИН-1", 1)]).unwrap().rows.remove(0);
        let current = Current {
            model_id: 1,
            department_id: 3,
            serial_number: "SN-1",
            retired: true,
        };
        assert!(changes(&row, current).is_empty(), "retired left as it is");
        sent.retired = Some(false);
        sent.department_id = 4;
        let row = Batch::parse(&[sent]).unwrap().rows.remove(0);
        assert_eq!(
            changes(&row, current),
            [UnitField::Department, UnitField::Retired]
        );
    }
}
