//! The name a file is offered under when downloaded. A client's name is never a
//! path (storage keys are the server's own): it is cut to its last component,
//! cleaned of characters that could fool a person or a program, shortened, and
//! given the extension of the type the content turned out to be.

use portal_kit::text::is_hidden_char;
use portal_kit::{ServiceError, ServiceResult};

/// At most this many characters are kept (file systems allow 255 bytes; Cyrillic
/// takes two bytes a letter in UTF-8, and the extension may be added).
pub const MAX_CHARS: usize = 120;

/// A safe base name: no path separators, no control, bidi or zero-width
/// characters, no leading dots, at most [`MAX_CHARS`] characters, ending in
/// `.{extension}` of the detected type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafeFileName(String);

impl SafeFileName {
    /// `offered` as the client named it; `extensions` those of the detected
    /// type, the first given to a name that has none of them.
    pub fn from_offered(offered: &str, extensions: &[&str]) -> SafeFileName {
        let base = offered
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or_default()
            .chars()
            .filter(|c| !is_hidden_char(*c))
            .map(|c| {
                if matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                    '_'
                } else {
                    c
                }
            })
            .collect::<String>();
        let base = base.trim().trim_start_matches('.').trim();
        let (stem, suffix) = match base.rsplit_once('.') {
            Some((stem, own))
                if !stem.is_empty() && extensions.iter().any(|e| own.eq_ignore_ascii_case(e)) =>
            {
                (stem, own)
            }
            _ => (base, extensions.first().copied().unwrap_or("bin")),
        };
        let room = MAX_CHARS.saturating_sub(suffix.chars().count() + 1);
        let stem = truncate_chars(stem, room).trim_end();
        let stem = if stem.is_empty() { "файл" } else { stem };
        SafeFileName(format!("{stem}.{suffix}"))
    }

    /// The name a stored file is saved under: its `title` as a safe base
    /// name (a slash in it is no path), ending in the extension of its
    /// `stored` name, that is of its type.
    pub fn for_download(title: &str, stored: &str) -> SafeFileName {
        let extension = stored.rsplit_once('.').map_or("bin", |(_, e)| e);
        SafeFileName::from_offered(&title.replace(['/', '\\'], "_"), &[extension])
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

pub const MAX_TITLE_CHARS: usize = 200;
pub const MSG_TITLE_TOO_LONG: &str = "Название документа длиннее 200 символов";

/// A document's title as lists show it: trimmed, without hidden characters;
/// the file name when none is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Title(String);

impl Title {
    pub fn parse(title: &str, file_name: &SafeFileName) -> ServiceResult<Title> {
        let cleaned: String = title.chars().filter(|c| !is_hidden_char(*c)).collect();
        let cleaned = cleaned.trim();
        if cleaned.chars().count() > MAX_TITLE_CHARS {
            return Err(ServiceError::invalid(MSG_TITLE_TOO_LONG));
        }
        Ok(Title(if cleaned.is_empty() {
            file_name.as_str().to_owned()
        } else {
            cleaned.to_owned()
        }))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The first `max` characters of `text`.
fn truncate_chars(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn safe(offered: &str, extension: &str) -> String {
        SafeFileName::from_offered(offered, &[extension]).into_string()
    }

    #[test]
    fn a_path_keeps_only_its_last_component() {
        assert_eq!(safe("../../etc/passwd.pdf", "pdf"), "passwd.pdf");
        assert_eq!(
            safe("C:\\Users\\Иван\\Руководство.pdf", "pdf"),
            "Руководство.pdf"
        );
        assert_eq!(safe("/", "pdf"), "файл.pdf");
    }

    #[test]
    fn cyrillic_names_stay_readable() {
        assert_eq!(
            safe("Инструкция по эксплуатации ИВЛ.pdf", "pdf"),
            "Инструкция по эксплуатации ИВЛ.pdf"
        );
    }

    #[test]
    fn the_extension_is_the_contents_not_the_clients() {
        assert_eq!(safe("manual.pdf", "png"), "manual.pdf.png");
        assert_eq!(
            SafeFileName::from_offered("photo.JPEG", &["jpg", "jpeg"]).as_str(),
            "photo.JPEG"
        );
        assert_eq!(safe("no extension", "mp4"), "no extension.mp4");
        assert_eq!(safe(".hidden", "txt"), "hidden.txt");
    }

    #[test]
    fn control_bidi_and_zero_width_characters_are_removed() {
        assert_eq!(safe("evil\u{202E}fdp.exe", "pdf"), "evilfdp.exe.pdf");
        assert_eq!(safe("a\u{0}b\r\n\u{200B}c.pdf", "pdf"), "abc.pdf");
        assert_eq!(safe("what?<x>.pdf", "pdf"), "what__x_.pdf");
    }

    #[test]
    fn a_long_name_is_shortened_keeping_its_extension() {
        let long = format!("{}.pdf", "я".repeat(300));
        let name = safe(&long, "pdf");
        assert_eq!(name.chars().count(), MAX_CHARS);
        assert!(name.ends_with("я.pdf"));
    }

    #[test]
    fn a_download_is_named_by_its_title_with_its_types_extension() {
        let titled = |title, stored| SafeFileName::for_download(title, stored).into_string();
        assert_eq!(
            titled("Руководство по эксплуатации", "manual.pdf"),
            "Руководство по эксплуатации.pdf"
        );
        assert_eq!(titled("Паспорт 2.1", "scan.pdf"), "Паспорт 2.1.pdf");
        assert_eq!(titled("Отчёт.docx", "report.pdf"), "Отчёт.docx.pdf");
        assert_eq!(titled("Схема 1/2", "a.png"), "Схема 1_2.png");
        assert_eq!(titled("список.pdf.txt", "список.pdf.txt"), "список.pdf.txt");
    }

    #[test]
    fn a_title_is_cleaned_and_defaults_to_the_file_name() {
        let name = SafeFileName::from_offered("manual.pdf", &["pdf"]);
        assert_eq!(
            Title::parse("  Руководство\u{202E} ", &name)
                .unwrap()
                .as_str(),
            "Руководство"
        );
        assert_eq!(Title::parse("", &name).unwrap().as_str(), "manual.pdf");
        assert!(Title::parse(&"я".repeat(201), &name).is_err());
    }

    #[test]
    fn an_empty_name_gets_a_default() {
        assert_eq!(safe("", "webm"), "файл.webm");
        assert_eq!(safe("  ...  ", "pdf"), "файл.pdf");
    }
}
