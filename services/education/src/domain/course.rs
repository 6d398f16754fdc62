//! Courses (курсы): a title, a description, a deadline, how long a pass stays
//! valid, the staff assigned to it (auth's user ids) and its articles in order.

use std::collections::BTreeSet;

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

use super::compliance::validity_months;
use super::date::Day;
use super::text::{MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS, ordered_ids};

pub const MSG_TITLE_REQUIRED: &str = "Введите название курса";
pub const MSG_TITLE_TOO_LONG: &str = "Название курса не должно превышать 300 символов";
pub const MSG_DESCRIPTION_REQUIRED: &str = "Введите описание курса";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Описание курса не должно превышать 5000 символов";
pub const MSG_DEADLINE_REQUIRED: &str = "Укажите срок прохождения курса";
pub const MSG_COURSE_NOT_FOUND: &str = "Курс не найден";

const TITLE: Field = Field {
    required: MSG_TITLE_REQUIRED,
    too_long: MSG_TITLE_TOO_LONG,
    hidden: "Название курса не должно содержать невидимых и управляющих символов",
    max_chars: MAX_TITLE_CHARS,
    shape: Shape::Line,
};
const DESCRIPTION: Field = Field {
    required: MSG_DESCRIPTION_REQUIRED,
    too_long: MSG_DESCRIPTION_TOO_LONG,
    hidden: "Описание курса не должно содержать невидимых и управляющих символов",
    max_chars: MAX_DESCRIPTION_CHARS,
    shape: Shape::Lines,
};

/// What creating or updating a course writes: its fields, the complete assignee
/// set and the complete article list.
#[derive(Clone, Debug)]
pub struct CourseDraft {
    pub title: String,
    pub description: String,
    pub deadline: Day,
    /// Months a pass stays valid, 0 to 120; 0 = never expires. `None` on an
    /// update keeps the course's own (a client that does not know the field
    /// must not clear it); on a creation it is 0.
    pub validity_months: Option<i64>,
    /// Each user once; no foreign key, they are another service's ids.
    pub assignees: BTreeSet<i64>,
    /// Each article once, in course order; whether they exist is the store's
    /// question, asked inside the transaction that writes the links.
    pub articles: Vec<i64>,
}

impl CourseDraft {
    pub fn parse(
        title: &str,
        description: &str,
        deadline: &str,
        validity: Option<i32>,
        user_ids: &[i64],
        article_ids: &[i64],
    ) -> Result<CourseDraft, ServiceError> {
        Ok(CourseDraft {
            title: TITLE.required(title)?,
            description: DESCRIPTION.required(description)?,
            deadline: Day::required(deadline, MSG_DEADLINE_REQUIRED)?,
            validity_months: validity.map(validity_months).transpose()?,
            assignees: user_ids.iter().copied().filter(|id| *id > 0).collect(),
            articles: ordered_ids(article_ids),
        })
    }
}

/// An article id in a course that does not exist.
pub fn unknown_article(id: i64) -> ServiceError {
    ServiceError::invalid(format!("Статья с идентификатором {id} не существует"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_keeps_article_order_and_each_assignee_once() {
        let draft = CourseDraft::parse(
            "Курс",
            "Описание",
            "2026-12-31",
            Some(0),
            &[5, 2, 5],
            &[9, 3, 9],
        )
        .unwrap();
        assert_eq!(draft.assignees.into_iter().collect::<Vec<_>>(), [2, 5]);
        assert_eq!(draft.articles, [9, 3]);
    }

    #[test]
    fn title_description_and_deadline_are_required() {
        let parse = |t, d, dl| {
            CourseDraft::parse(t, d, dl, Some(0), &[], &[])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(parse(" ", "Описание", "2026-12-31"), MSG_TITLE_REQUIRED);
        assert_eq!(parse("Курс", "", "2026-12-31"), MSG_DESCRIPTION_REQUIRED);
        assert_eq!(parse("Курс", "Описание", ""), MSG_DEADLINE_REQUIRED);
    }

    #[test]
    fn hidden_characters_are_refused_and_a_title_is_one_line() {
        let parse = |t, d| CourseDraft::parse(t, d, "2026-12-31", Some(0), &[], &[]);
        // A right-to-left override makes the title read backwards in every list.
        assert_eq!(
            parse("Курс \u{202E}акитпеса", "Описание")
                .unwrap_err()
                .to_string(),
            TITLE.hidden
        );
        assert_eq!(
            parse("Курс", "Описание\u{200B}").unwrap_err().to_string(),
            DESCRIPTION.hidden
        );
        let draft = parse(" Курс\n по  асептике ", "Первая строка\r\nвторая").unwrap();
        assert_eq!(draft.title, "Курс по асептике");
        assert_eq!(draft.description, "Первая строка\nвторая");
    }
}
