//! Staff as the HR system knows it (issue 21): its own keys for people
//! (employee numbers) and for departments and positions (codes), and the
//! questions other services ask to turn those keys into ids and back.

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

use super::ids::IdSet;

/// Employee numbers and codes are an HR system's identifiers, not names: at
/// most this long, compared exactly once trimmed.
pub const MAX_KEY_CHARS: usize = 64;

pub const MSG_EMPLOYEE_NUMBER_REQUIRED: &str = "Укажите табельный номер";
pub const MSG_EMPLOYEE_NUMBER_TOO_LONG: &str = "Табельный номер не должен превышать 64 символа";
pub const MSG_EMPLOYEE_NUMBER_HIDDEN: &str =
    "Табельный номер не должен содержать невидимых и управляющих символов";
pub const MSG_CODE_REQUIRED: &str = "Укажите код";
pub const MSG_CODE_TOO_LONG: &str = "Код не должен превышать 64 символа";
pub const MSG_CODE_HIDDEN: &str = "Код не должен содержать невидимых и управляющих символов";

/// What an HR key identifies, for its messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOf {
    /// A person's employee number (табельный номер).
    Person,
    /// A department's or a position's code.
    Reference,
}

impl KeyOf {
    fn field(self) -> &'static Field {
        const PERSON: Field = Field {
            required: MSG_EMPLOYEE_NUMBER_REQUIRED,
            too_long: MSG_EMPLOYEE_NUMBER_TOO_LONG,
            hidden: MSG_EMPLOYEE_NUMBER_HIDDEN,
            max_chars: MAX_KEY_CHARS,
            shape: Shape::Line,
        };
        const REFERENCE: Field = Field {
            required: MSG_CODE_REQUIRED,
            too_long: MSG_CODE_TOO_LONG,
            hidden: MSG_CODE_HIDDEN,
            max_chars: MAX_KEY_CHARS,
            shape: Shape::Line,
        };
        match self {
            KeyOf::Person => &PERSON,
            KeyOf::Reference => &REFERENCE,
        }
    }
}

/// An employee number or a code: trimmed, not blank, at most
/// [`MAX_KEY_CHARS`], every character one that shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HrKey(String);

impl HrKey {
    pub fn parse(input: &str, of: KeyOf) -> Result<HrKey, ServiceError> {
        of.field().required(input).map(HrKey)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What ResolveStaff is asked: keys that cannot name anything (blank, too
/// long) are dropped, as unknown keys are, and each key is asked once.
#[derive(Clone, Debug, Default)]
pub struct StaffQuery {
    pub employee_numbers: Vec<HrKey>,
    pub department_codes: Vec<HrKey>,
    pub user_ids: IdSet,
}

impl StaffQuery {
    pub fn parse(
        employee_numbers: &[String],
        department_codes: &[String],
        user_ids: &[i64],
    ) -> StaffQuery {
        StaffQuery {
            employee_numbers: keys(employee_numbers, KeyOf::Person),
            department_codes: keys(department_codes, KeyOf::Reference),
            user_ids: IdSet::from_request(user_ids),
        }
    }
}

fn keys(inputs: &[String], of: KeyOf) -> Vec<HrKey> {
    let mut keys: Vec<HrKey> = inputs
        .iter()
        .filter_map(|input| HrKey::parse(input, of).ok())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_trimmed_and_bounded() {
        assert_eq!(
            HrKey::parse(" 00123 ", KeyOf::Person).unwrap().as_str(),
            "00123"
        );
        let message = |input: &str, of| HrKey::parse(input, of).unwrap_err().to_string();
        assert_eq!(message("  ", KeyOf::Person), MSG_EMPLOYEE_NUMBER_REQUIRED);
        assert_eq!(message("", KeyOf::Reference), MSG_CODE_REQUIRED);
        assert_eq!(
            message(&"7".repeat(MAX_KEY_CHARS + 1), KeyOf::Person),
            MSG_EMPLOYEE_NUMBER_TOO_LONG
        );
        assert_eq!(message("A\u{200B}1", KeyOf::Reference), MSG_CODE_HIDDEN);
    }

    #[test]
    fn a_query_asks_each_possible_key_once() {
        let query = StaffQuery::parse(
            &[
                "2".into(),
                " 1".into(),
                "2".into(),
                "".into(),
                "x".repeat(65),
            ],
            &["ОРИТ".into()],
            &[5, 5, 3],
        );
        let numbers: Vec<&str> = query.employee_numbers.iter().map(HrKey::as_str).collect();
        assert_eq!(numbers, ["1", "2"]);
        assert_eq!(query.department_codes.len(), 1);
        assert_eq!(query.user_ids.iter().collect::<Vec<_>>(), [3, 5]);
    }
}
