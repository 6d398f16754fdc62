//! Equipment units (единицы оборудования): a model's device deployed in a
//! department, known by its serial and inventory numbers (spec §5: both
//! required). Inventory numbers are unique; the store's unique index says so.

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

use super::text::MAX_NAME_CHARS;

pub const MSG_UNIT_NOT_FOUND: &str = "Оборудование не найдено";
pub const MSG_DEPARTMENT_REQUIRED: &str = "Выберите отделение, где установлено оборудование";

const SERIAL: Field = Field {
    required: "Введите серийный номер",
    too_long: "Серийный номер не должен превышать 300 символов",
    hidden: "Серийный номер не должен содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const INVENTORY: Field = Field {
    required: "Введите инвентарный номер",
    too_long: "Инвентарный номер не должен превышать 300 символов",
    hidden: "Инвентарный номер не должен содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};

/// The 409 message when an inventory number is taken.
pub fn inventory_taken(inventory_number: &str) -> ServiceError {
    ServiceError::conflict(format!(
        "Инвентарный номер «{inventory_number}» уже присвоен другому оборудованию"
    ))
}

/// What creating or updating a unit writes.
#[derive(Clone, Debug)]
pub struct UnitDraft {
    /// A department of auth; the wiki keeps its id only.
    pub department_id: i64,
    pub serial_number: String,
    pub inventory_number: String,
}

/// A field of a unit, as a register names it (the JSON name of the
/// contract's `EquipmentUnitInput`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitField {
    InventoryNumber,
    SerialNumber,
    Model,
    Department,
    Retired,
}

impl UnitField {
    pub fn json_name(self) -> &'static str {
        match self {
            UnitField::InventoryNumber => "inventoryNumber",
            UnitField::SerialNumber => "serialNumber",
            UnitField::Model => "modelId",
            UnitField::Department => "departmentId",
            UnitField::Retired => "retired",
        }
    }
}

impl UnitDraft {
    pub fn parse(
        department_id: i64,
        serial_number: &str,
        inventory_number: &str,
    ) -> Result<UnitDraft, ServiceError> {
        Self::parse_naming_field(department_id, serial_number, inventory_number)
            .map_err(|(_, error)| error)
    }

    /// [`parse`](Self::parse), naming the field a refusal is about.
    pub fn parse_naming_field(
        department_id: i64,
        serial_number: &str,
        inventory_number: &str,
    ) -> Result<UnitDraft, (UnitField, ServiceError)> {
        if department_id <= 0 {
            return Err((
                UnitField::Department,
                ServiceError::invalid(MSG_DEPARTMENT_REQUIRED),
            ));
        }
        Ok(UnitDraft {
            department_id,
            serial_number: SERIAL
                .required(serial_number)
                .map_err(|e| (UnitField::SerialNumber, e))?,
            inventory_number: INVENTORY
                .required(inventory_number)
                .map_err(|e| (UnitField::InventoryNumber, e))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_needs_a_department_and_both_numbers() {
        let message = |d, s, i| UnitDraft::parse(d, s, i).unwrap_err().to_string();
        assert_eq!(message(0, "SN1", "ИН-1"), MSG_DEPARTMENT_REQUIRED);
        assert_eq!(message(1, " ", "ИН-1"), SERIAL.required);
        assert_eq!(message(1, "SN1", ""), INVENTORY.required);
        let field = |d, s, i| UnitDraft::parse_naming_field(d, s, i).unwrap_err().0;
        assert_eq!(field(0, "SN1", "ИН-1"), UnitField::Department);
        assert_eq!(field(1, "", "ИН-1"), UnitField::SerialNumber);
        assert_eq!(field(1, "SN1", "\u{200b}"), UnitField::InventoryNumber);
        let draft = UnitDraft::parse(1, " SN1 ", " ИН-1 ").unwrap();
        assert_eq!(
            (
                draft.serial_number.as_str(),
                draft.inventory_number.as_str()
            ),
            ("SN1", "ИН-1")
        );
    }
}
