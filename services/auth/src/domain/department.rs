//! Departments (отделения): a title and the staff who belong to them.

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape, name_key};

use super::ids::IdSet;

pub const MAX_TITLE_CHARS: usize = 200;
pub const MSG_TITLE_REQUIRED: &str = "Введите название отделения";
pub const MSG_TITLE_TOO_LONG: &str = "Название отделения не должно превышать 200 символов";
pub const MSG_DEPARTMENT_NOT_FOUND: &str = "Отделение не найдено";
pub const MSG_TITLE_TAKEN: &str = "Отделение с таким названием уже существует";
pub const MSG_TITLE_HIDDEN_CHARS: &str =
    "Название отделения не должно содержать невидимых и управляющих символов";

const TITLE: Field = Field {
    required: MSG_TITLE_REQUIRED,
    too_long: MSG_TITLE_TOO_LONG,
    hidden: MSG_TITLE_HIDDEN_CHARS,
    max_chars: MAX_TITLE_CHARS,
    shape: Shape::Line,
};

/// A department's title: trimmed, not blank, at most [`MAX_TITLE_CHARS`], every
/// character one that shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Title(String);

impl Title {
    /// Runs of white space (tabs and line breaks too) become one space.
    pub fn parse(input: &str) -> Result<Title, ServiceError> {
        TITLE.required(input).map(Title)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What makes two titles one department to the people choosing from a list:
    /// case, runs of spaces and ё written as е do not tell departments apart.
    pub fn key(&self) -> String {
        name_key(&self.0)
    }
}

/// What creating or updating a department writes: the title and the complete
/// member set.
#[derive(Clone, Debug)]
pub struct DepartmentDraft {
    pub title: Title,
    pub members: IdSet,
}

impl DepartmentDraft {
    pub fn parse(title: &str, user_ids: &[i64]) -> Result<DepartmentDraft, ServiceError> {
        Ok(DepartmentDraft {
            title: Title::parse(title)?,
            members: IdSet::from_request(user_ids),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_trimmed() {
        assert_eq!(
            Title::parse("  Хирургическое отделение ").unwrap().as_str(),
            "Хирургическое отделение"
        );
    }

    #[test]
    fn a_blank_title_is_refused() {
        for blank in ["", "   ", "\n\t"] {
            assert_eq!(
                Title::parse(blank).unwrap_err().to_string(),
                MSG_TITLE_REQUIRED
            );
        }
    }

    #[test]
    fn an_overlong_title_is_refused() {
        assert!(Title::parse(&"Ж".repeat(MAX_TITLE_CHARS)).is_ok());
        assert_eq!(
            Title::parse(&"Ж".repeat(MAX_TITLE_CHARS + 1))
                .unwrap_err()
                .to_string(),
            MSG_TITLE_TOO_LONG
        );
    }

    #[test]
    fn titles_differing_in_case_spacing_or_yo_share_a_key() {
        let key = Title::parse("Приёмное отделение").unwrap().key();
        for same in [
            "приемное  отделение",
            "ПРИЁМНОЕ ОТДЕЛЕНИЕ",
            " Приемное\tотделение ",
        ] {
            assert_eq!(Title::parse(same).unwrap().key(), key, "{same}");
        }
        assert_ne!(Title::parse("Приёмное отделение 2").unwrap().key(), key);
    }

    #[test]
    fn a_draft_keeps_each_member_once() {
        let draft = DepartmentDraft::parse("Приёмное отделение", &[5, 5, 2]).unwrap();
        assert_eq!(draft.members.iter().collect::<Vec<_>>(), [2, 5]);
    }
}
