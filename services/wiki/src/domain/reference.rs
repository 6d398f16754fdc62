//! Reference data: countries, manufacturers, equipment types and common
//! documents (regulations and manuals not tied to one model).

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

use super::text::{MAX_NAME_CHARS, MAX_TEXT_CHARS};

pub const MSG_URL_INVALID: &str = "Ссылка на документ должна начинаться с http:// или https://";
pub const MSG_COUNTRY_NOT_FOUND: &str = "Страна не найдена";

pub const COUNTRY: Field = Field {
    required: "Введите название страны",
    too_long: "Название страны не должно превышать 300 символов",
    hidden: "Название страны не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
pub const MANUFACTURER: Field = Field {
    required: "Введите название производителя",
    too_long: "Название производителя не должно превышать 300 символов",
    hidden: "Название производителя не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
pub const ENVIRONMENT_TYPE: Field = Field {
    required: "Введите название типа оборудования",
    too_long: "Название типа оборудования не должно превышать 300 символов",
    hidden: "Название типа оборудования не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const DOCUMENT_TITLE: Field = Field {
    required: "Введите название документа",
    too_long: "Название документа не должно превышать 300 символов",
    hidden: "Название документа не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const DOCUMENT_DESCRIPTION: Field = Field {
    required: "Введите описание документа",
    too_long: "Описание документа не должно превышать 5000 символов",
    hidden: "Описание документа не должно содержать невидимых и управляющих символов",
    max_chars: MAX_TEXT_CHARS,
    shape: Shape::Lines,
};
const DOCUMENT_URL: Field = Field {
    required: "Укажите ссылку на документ",
    too_long: "Ссылка не должна превышать 2000 символов",
    hidden: "Ссылка не должна содержать невидимых и управляющих символов",
    max_chars: 2_000,
    shape: Shape::Line,
};

/// The 409 message when a name is taken.
pub fn name_taken(name: &str) -> ServiceError {
    ServiceError::conflict(format!("«{name}» уже есть в справочнике"))
}

/// What adding a common document writes.
#[derive(Clone, Debug)]
pub struct DocumentDraft {
    pub title: String,
    pub description: String,
    pub url: String,
}

impl DocumentDraft {
    pub fn parse(title: &str, description: &str, url: &str) -> Result<DocumentDraft, ServiceError> {
        let url = DOCUMENT_URL.required(url)?;
        let lower = url.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://"))
            || url.chars().any(char::is_whitespace)
        {
            return Err(ServiceError::invalid(MSG_URL_INVALID));
        }
        Ok(DocumentDraft {
            title: DOCUMENT_TITLE.required(title)?,
            description: DOCUMENT_DESCRIPTION.optional(description)?,
            url,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_links_only_to_the_web() {
        assert!(DocumentDraft::parse("Приказ", "", "https://portal.example/a.pdf").is_ok());
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "ftp://a/b",
            "https://a b",
        ] {
            assert_eq!(
                DocumentDraft::parse("Приказ", "", bad)
                    .unwrap_err()
                    .to_string(),
                MSG_URL_INVALID
            );
        }
        assert_eq!(
            DocumentDraft::parse(" ", "", "https://a/")
                .unwrap_err()
                .to_string(),
            DOCUMENT_TITLE.required
        );
    }
}
