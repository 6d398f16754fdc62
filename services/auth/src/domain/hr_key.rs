//! The HR system's own keys (issue 21): a person's employee number
//! (табельный номер), a department's or a position's code. The staff sync
//! keeps people in step by them; an administrator links a person to a number
//! on the user form.

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

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
}
