//! What people type into names, titles and texts, parsed one way in every
//! service: trimmed, required or not, bounded, and made only of characters
//! that show. Control, zero-width and bidirectional-override characters make
//! two names that read alike differ, or make a name read backwards in a list.

use crate::ServiceError;

/// Whether a field is one line (a name, a number) or a text of lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Runs of white space (tabs and line breaks too) become one space.
    Line,
    /// Line breaks (`\n`, `\r\n` stored as `\n`) and tabs stay.
    Lines,
}

/// A field people fill in, with its messages in the forms Russian needs.
pub struct Field {
    /// "Введите …" when blank.
    pub required: &'static str,
    /// "… не должно превышать N символов" when too long.
    pub too_long: &'static str,
    /// "… не должно содержать невидимых и управляющих символов".
    pub hidden: &'static str,
    pub max_chars: usize,
    pub shape: Shape,
}

impl Field {
    /// Trimmed, not blank, within the bound, every character one that shows.
    pub fn required(&self, input: &str) -> Result<String, ServiceError> {
        let text = self.optional(input)?;
        if text.is_empty() {
            Err(ServiceError::invalid(self.required))
        } else {
            Ok(text)
        }
    }

    /// As [`Field::required`], but may be empty.
    pub fn optional(&self, input: &str) -> Result<String, ServiceError> {
        let text = match self.shape {
            Shape::Line => input.split_whitespace().collect::<Vec<_>>().join(" "),
            Shape::Lines => input.trim().replace("\r\n", "\n"),
        };
        let allowed = |c: char| self.shape == Shape::Lines && matches!(c, '\n' | '\t');
        if text.chars().count() > self.max_chars {
            Err(ServiceError::invalid(self.too_long))
        } else if text.chars().any(|c| !allowed(c) && is_hidden_char(c)) {
            Err(ServiceError::invalid(self.hidden))
        } else {
            Ok(text)
        }
    }
}

/// Whether `text` holds a character that does not show as itself.
pub fn has_hidden_chars(text: &str) -> bool {
    text.chars().any(is_hidden_char)
}

/// A control character, or a Unicode format character (general category Cf)
/// that text can carry: zero-width, bidi controls, soft hyphen.
pub fn is_hidden_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// A name or title as people read it, for uniqueness: case and runs of white
/// space ignored, ё read as е. Folded here rather than in SQL, where SQLite's
/// `lower` folds only ASCII.
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

    const LINE: Field = Field {
        required: "нет",
        too_long: "длинно",
        hidden: "невидимое",
        max_chars: 6,
        shape: Shape::Line,
    };
    const LINES: Field = Field {
        shape: Shape::Lines,
        max_chars: 20,
        ..LINE
    };

    fn message(result: Result<String, ServiceError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn visible_text_passes_and_hidden_characters_do_not() {
        assert!(!has_hidden_chars("Хирургическое отделение № 2 (ёлка)"));
        for hidden in [
            "\u{7}",
            "a\u{200B}b",
            "\u{202E}abc",
            "\u{2066}x",
            "x\u{FEFF}",
            "\u{AD}",
        ] {
            assert!(has_hidden_chars(hidden), "{hidden:?}");
        }
    }

    #[test]
    fn a_line_is_trimmed_its_spaces_joined_and_blank_long_or_hidden_text_refused() {
        assert_eq!(LINE.required("  Шп\tриц ").unwrap(), "Шп риц");
        assert_eq!(message(LINE.required(" \n")), "нет");
        assert_eq!(LINE.optional(" ").unwrap(), "");
        assert_eq!(message(LINE.optional("шестьбукв")), "длинно");
        for hidden in ["a\u{202E}b", "a\u{7}", "\u{200B}"] {
            assert_eq!(message(LINE.optional(hidden)), "невидимое", "{hidden:?}");
        }
    }

    #[test]
    fn a_text_keeps_its_lines_and_tabs_but_no_other_hidden_character() {
        assert_eq!(
            LINES.required(" 1.\tВключить\r\n2. Ждать \n").unwrap(),
            "1.\tВключить\n2. Ждать"
        );
        for hidden in ["a\rb", "a\u{1b}[2J", "a\u{2067}b", "a\u{0}"] {
            assert_eq!(message(LINES.optional(hidden)), "невидимое", "{hidden:?}");
        }
    }

    #[test]
    fn names_match_whatever_their_case_spacing_or_yo() {
        assert_eq!(name_key(" Журнал  учёта "), name_key("журнал учета"));
        assert_ne!(name_key("Журнал 2"), name_key("Журнал"));
    }
}
