//! What people type into names and titles: characters that show. Control,
//! zero-width and bidirectional-override characters make two names that read
//! alike differ, or make a name read backwards in a list.

/// Whether `text` holds a character that does not show as itself: a control
/// character, or a Unicode format character (zero-width, bidi controls, soft hyphen).
pub fn has_hidden_chars(text: &str) -> bool {
    text.chars().any(|c| c.is_control() || is_format(c))
}

/// Unicode's format characters (general category Cf) that text can carry.
fn is_format(c: char) -> bool {
    matches!(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
