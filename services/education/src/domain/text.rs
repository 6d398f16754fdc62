//! Titles and descriptions people type: trimmed, required, bounded.

use portal_kit::ServiceError;

pub const MAX_TITLE_CHARS: usize = 300;
pub const MAX_DESCRIPTION_CHARS: usize = 5_000;

/// A required line of text: trimmed, not blank, at most `max` characters.
/// `required` and `too_long` are the Russian messages for the field.
pub fn required(
    input: &str,
    max: usize,
    required: &str,
    too_long: &str,
) -> Result<String, ServiceError> {
    let text = input.trim();
    if text.is_empty() {
        Err(ServiceError::invalid(required))
    } else if text.chars().count() > max {
        Err(ServiceError::invalid(too_long))
    } else {
        Ok(text.to_owned())
    }
}

/// Ids in the order given, each once (a course's article order).
pub fn ordered_ids(ids: &[i64]) -> Vec<i64> {
    let mut seen = std::collections::HashSet::new();
    ids.iter().copied().filter(|id| seen.insert(*id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_trimmed_and_blank_or_long_text_refused() {
        assert_eq!(required("  Курс ", 10, "нет", "длинно").unwrap(), "Курс");
        assert_eq!(
            required(" \n", 10, "нет", "длинно")
                .unwrap_err()
                .to_string(),
            "нет"
        );
        assert_eq!(
            required(&"ж".repeat(11), 10, "нет", "длинно")
                .unwrap_err()
                .to_string(),
            "длинно"
        );
    }

    #[test]
    fn repeated_ids_keep_their_first_place() {
        assert_eq!(ordered_ids(&[3, 1, 3, 2, 1]), [3, 1, 2]);
    }
}
