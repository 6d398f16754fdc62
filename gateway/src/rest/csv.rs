//! CSV as a spreadsheet opened in Russian Excel reads it: UTF-8 with a byte
//! order mark (else Cyrillic turns to mojibake), `;` between fields (Russian
//! Excel's list separator; `,` is its decimal comma), CRLF line ends, and
//! fields that could start a formula neutralised (OWASP "CSV injection").

use std::borrow::Cow;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use time::{OffsetDateTime, UtcOffset};

use super::disposition::{Disposition, content_disposition};

/// The byte order mark a file starts with.
pub const BOM: &str = "\u{feff}";
pub const CONTENT_TYPE: &str = "text/csv; charset=utf-8";
const SEPARATOR: char = ';';

/// One line of the file: the fields escaped, separated, ended with CRLF.
pub fn record<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for (index, value) in fields.into_iter().enumerate() {
        if index > 0 {
            line.push(SEPARATOR);
        }
        line.push_str(&field(value));
    }
    line.push_str("\r\n");
    line
}

/// A field as it is safe to write: a value a spreadsheet would run as a formula
/// (`=`, `+`, `-`, `@`, or a tab or carriage return first) gets a `'` before it,
/// so it shows as the text it is; a value with the separator, a quote or a line
/// break is quoted, its quotes doubled.
fn field(value: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(value);
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        text = Cow::Owned(format!("'{value}"));
    }
    if text.contains([SEPARATOR, '"', '\n', '\r']) {
        text = Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")));
    }
    text
}

/// A CSV file streamed as `body`, saved as `«name» YYYY-MM-DD.csv` (today in
/// the reader's zone `offset`), `fallback-YYYY-MM-DD.csv` for a browser
/// without UTF-8 file names.
pub fn download(name: &str, fallback: &str, offset: UtcOffset, body: axum::body::Body) -> Response {
    let today = OffsetDateTime::now_utc().to_offset(offset).date();
    let day = format!(
        "{:04}-{:02}-{:02}",
        today.year(),
        u8::from(today.month()),
        today.day()
    );
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE)),
            (
                header::CONTENT_DISPOSITION,
                content_disposition(
                    Disposition::Attachment,
                    &format!("{name} {day}.csv"),
                    &format!("{fallback}-{day}.csv"),
                ),
            ),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fields_are_written_as_they_are() {
        assert_eq!(
            record(["Гигиена рук", "Иванова Анна", "5", "Да"]),
            "Гигиена рук;Иванова Анна;5;Да\r\n"
        );
    }

    #[test]
    fn separators_quotes_and_line_breaks_are_quoted() {
        assert_eq!(
            record(["a;b", "он сказал \"да\"", "две\nстроки", "cr\rlf"]),
            "\"a;b\";\"он сказал \"\"да\"\"\";\"две\nстроки\";\"cr\rlf\"\r\n"
        );
    }

    #[test]
    fn formulas_are_neutralised() {
        for value in ["=1+1", "+7 999", "-2", "@SUM(A1)", "\tx"] {
            assert_eq!(field(value), format!("'{value}"), "{value:?}");
        }
        assert_eq!(
            field("=HYPERLINK(\"http://x\";\"a\")"),
            "\"'=HYPERLINK(\"\"http://x\"\";\"\"a\"\")\""
        );
        assert_eq!(field("\r=1"), "\"'\r=1\"");
        assert_eq!(field("1-2"), "1-2");
    }
}
