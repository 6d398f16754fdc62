//! Lines of text people type: trimmed, required or not, bounded.

use portal_kit::ServiceError;

pub const MAX_NAME_CHARS: usize = 300;
pub const MAX_TEXT_CHARS: usize = 5_000;

/// What a field is called in its messages, in the forms Russian needs.
pub struct Field {
    /// "Введите …" when blank.
    pub required: &'static str,
    /// "… не должно превышать N символов" when too long.
    pub too_long: &'static str,
    pub max_chars: usize,
}

impl Field {
    /// Trimmed, not blank, within the bound.
    pub fn required(&self, input: &str) -> Result<String, ServiceError> {
        let text = self.optional(input)?;
        if text.is_empty() {
            Err(ServiceError::invalid(self.required))
        } else {
            Ok(text)
        }
    }

    /// Trimmed and within the bound; may be empty.
    pub fn optional(&self, input: &str) -> Result<String, ServiceError> {
        let text = input.trim();
        if text.chars().count() > self.max_chars {
            Err(ServiceError::invalid(self.too_long))
        } else {
            Ok(text.to_owned())
        }
    }
}

/// A name as people read it, for uniqueness: case and runs of white space
/// ignored, ё read as е.
pub fn name_key(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .replace('ё', "е")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELD: Field = Field {
        required: "нет",
        too_long: "длинно",
        max_chars: 5,
    };

    #[test]
    fn text_is_trimmed_and_blank_or_long_text_refused() {
        assert_eq!(FIELD.required("  Шприц ").unwrap(), "Шприц");
        assert_eq!(FIELD.required(" \n").unwrap_err().to_string(), "нет");
        assert_eq!(FIELD.optional(" ").unwrap(), "");
        assert_eq!(
            FIELD.optional("шестьбукв").unwrap_err().to_string(),
            "длинно"
        );
    }

    #[test]
    fn names_match_whatever_their_case_spacing_or_yo() {
        assert_eq!(name_key(" Журнал  учёта "), name_key("журнал учета"));
    }
}
