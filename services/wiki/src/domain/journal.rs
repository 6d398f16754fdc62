//! Named journals of a model (e.g. a disinfection journal) and their dated
//! entries.

use portal_kit::ServiceError;
use portal_kit::day::Day;
use portal_kit::text::{Field, Shape, name_key};

use super::text::{MAX_NAME_CHARS, MAX_TEXT_CHARS};

pub const MSG_JOURNAL_NOT_FOUND: &str = "Журнал не найден";
pub const MSG_ENTRY_DATE_REQUIRED: &str = "Укажите дату записи";

const NAME: Field = Field {
    required: "Введите название журнала",
    too_long: "Название журнала не должно превышать 300 символов",
    hidden: "Название журнала не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const TEXT: Field = Field {
    required: "Введите текст записи",
    too_long: "Запись не должна превышать 5000 символов",
    hidden: "Запись не должна содержать невидимых и управляющих символов",
    max_chars: MAX_TEXT_CHARS,
    shape: Shape::Lines,
};

/// The 409 message when a model already has a journal of that name.
pub fn journal_taken(name: &str) -> ServiceError {
    ServiceError::conflict(format!("У этой модели уже есть журнал «{name}»"))
}

/// A journal's name and its key for uniqueness within the model.
#[derive(Clone, Debug)]
pub struct JournalName {
    pub name: String,
    pub key: String,
}

impl JournalName {
    pub fn parse(input: &str) -> Result<JournalName, ServiceError> {
        let name = NAME.required(input)?;
        Ok(JournalName {
            key: name_key(&name),
            name,
        })
    }
}

/// What writing a journal entry stores.
#[derive(Clone, Debug)]
pub struct JournalEntryDraft {
    pub date: Day,
    pub text: String,
}

impl JournalEntryDraft {
    pub fn parse(date: &str, text: &str) -> Result<JournalEntryDraft, ServiceError> {
        Ok(JournalEntryDraft {
            date: Day::required(date, MSG_ENTRY_DATE_REQUIRED)?,
            text: TEXT.required(text)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_is_named_and_an_entry_dated_and_written() {
        assert_eq!(
            JournalName::parse("  ").unwrap_err().to_string(),
            NAME.required
        );
        assert_eq!(
            JournalName::parse(" Журнал  Дезинфекции ").unwrap().key,
            "журнал дезинфекции"
        );
        assert_eq!(
            JournalEntryDraft::parse("", "x").unwrap_err().to_string(),
            MSG_ENTRY_DATE_REQUIRED
        );
        assert_eq!(
            JournalEntryDraft::parse("2026-11-23", " ")
                .unwrap_err()
                .to_string(),
            TEXT.required
        );
    }
}
