//! `Content-Disposition` (RFC 6266) of what the gateway hands a browser to show
//! or to save: stored files and CSV exports alike.

use axum::http::HeaderValue;

/// Whether the browser shows the body or saves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    Inline,
    Attachment,
}

/// The header for `filename`: the exact name percent-encoded as UTF-8 in
/// `filename*` (RFC 8187), which every current browser reads, and `fallback`
/// in `filename` for any that does not, each character outside printable
/// ASCII (and `"`, `\`) written as `_`.
pub fn content_disposition(
    disposition: Disposition,
    filename: &str,
    fallback: &str,
) -> HeaderValue {
    let kind = match disposition {
        Disposition::Inline => "inline",
        Disposition::Attachment => "attachment",
    };
    let ascii: String = fallback
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut encoded = String::new();
    for byte in filename.bytes() {
        // RFC 8187 attr-char: these go as they are, every other byte as %XX.
        if byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    // Both parts are ASCII without control characters by construction.
    HeaderValue::from_str(&format!(
        "{kind}; filename=\"{ascii}\"; filename*=UTF-8''{encoded}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyrillic_names_go_in_filename_star() {
        let name = "Паспорт \"ИВЛ\".pdf";
        assert_eq!(
            content_disposition(Disposition::Attachment, name, name),
            "attachment; filename=\"_______ _____.pdf\"; filename*=UTF-8''%D0%9F%D0%B0%D1%81%D0%BF%D0%BE%D1%80%D1%82%20%22%D0%98%D0%92%D0%9B%22.pdf"
        );
        assert_eq!(
            content_disposition(Disposition::Inline, "clip.mp4", "clip.mp4"),
            "inline; filename=\"clip.mp4\"; filename*=UTF-8''clip.mp4"
        );
    }

    #[test]
    fn a_fallback_name_is_kept_to_plain_ascii() {
        let header = content_disposition(
            Disposition::Attachment,
            "Статистика 2026.csv",
            "statistics \"2026\".csv",
        );
        assert_eq!(
            header.to_str().unwrap(),
            "attachment; filename=\"statistics _2026_.csv\"; filename*=UTF-8''%D0%A1%D1%82%D0%B0%D1%82%D0%B8%D1%81%D1%82%D0%B8%D0%BA%D0%B0%202026.csv"
        );
    }
}
