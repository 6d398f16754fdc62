//! What other hospital systems send education (issue 21): pages of training
//! records after a cursor, and assignments of a course by the HR system's keys.

use std::collections::BTreeSet;

use portal_kit::ServiceError;

use super::date::Day;

/// Records or assignments a page holds when the caller names no limit.
pub const DEFAULT_PAGE: i64 = 500;
/// The most a page may hold.
pub const MAX_PAGE: i64 = 5000;
/// The most keys of one kind an assignment may name.
pub const MAX_KEYS: usize = 5000;

pub const MSG_PAGE_LIMIT: &str = "Размер страницы должен быть от 1 до 5000";
pub const MSG_NEGATIVE_CURSOR: &str = "Курсор не может быть отрицательным";
pub const MSG_TOO_MANY_KEYS: &str = "За один вызов можно назначить не более 5000 сотрудников, отделений или пользователей каждого вида";

/// Where a page starts and how much it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub after: i64,
    pub limit: i64,
}

impl Page {
    /// `limit` 0 is [`DEFAULT_PAGE`]; a negative cursor or a limit outside
    /// 1..=[`MAX_PAGE`] is refused.
    pub fn parse(after: i64, limit: i32) -> Result<Page, ServiceError> {
        if after < 0 {
            return Err(ServiceError::invalid(MSG_NEGATIVE_CURSOR));
        }
        let limit = match i64::from(limit) {
            0 => DEFAULT_PAGE,
            limit if (1..=MAX_PAGE).contains(&limit) => limit,
            _ => return Err(ServiceError::invalid(MSG_PAGE_LIMIT)),
        };
        Ok(Page { after, limit })
    }
}

/// Who made a write: a person or another system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Author {
    Person(i64),
    ServiceAccount(i64),
    /// The demo data loaded at start: nobody's write, no author recorded.
    Demo,
}

/// The people an assignment names, each key once, and their own deadline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssignmentKeys {
    pub employee_numbers: BTreeSet<String>,
    pub department_codes: BTreeSet<String>,
    pub user_ids: BTreeSet<i64>,
    /// `None`: no deadline of their own (the course's applies to people newly
    /// assigned; people already assigned keep theirs).
    pub deadline: Option<Day>,
}

impl AssignmentKeys {
    /// Blank keys and ids below 1 name nobody and are dropped; over
    /// [`MAX_KEYS`] of a kind is refused.
    pub fn parse(
        employee_numbers: &[String],
        department_codes: &[String],
        user_ids: &[i64],
        deadline: &str,
    ) -> Result<AssignmentKeys, ServiceError> {
        if employee_numbers.len() > MAX_KEYS
            || department_codes.len() > MAX_KEYS
            || user_ids.len() > MAX_KEYS
        {
            return Err(ServiceError::invalid(MSG_TOO_MANY_KEYS));
        }
        let keys = |texts: &[String]| {
            texts
                .iter()
                .map(|text| text.trim())
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
                .collect()
        };
        Ok(AssignmentKeys {
            employee_numbers: keys(employee_numbers),
            department_codes: keys(department_codes),
            user_ids: user_ids.iter().copied().filter(|id| *id > 0).collect(),
            deadline: Day::optional(deadline)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_holds_500_unless_asked_and_never_over_5000() {
        assert_eq!(
            Page::parse(7, 0).unwrap(),
            Page {
                after: 7,
                limit: 500
            }
        );
        assert_eq!(Page::parse(0, 5000).unwrap().limit, 5000);
        for (after, limit) in [(0, 5001), (0, -1), (-1, 10)] {
            assert!(Page::parse(after, limit).is_err(), "{after} {limit}");
        }
    }

    #[test]
    fn keys_are_trimmed_and_each_named_once() {
        let keys = AssignmentKeys::parse(
            &[" 0042 ".into(), "0042".into(), "".into()],
            &["ХИР".into()],
            &[5, 0, 5, -3],
            "2027-01-31",
        )
        .unwrap();
        assert_eq!(
            keys.employee_numbers.into_iter().collect::<Vec<_>>(),
            ["0042"]
        );
        assert_eq!(keys.user_ids.into_iter().collect::<Vec<_>>(), [5]);
        assert_eq!(keys.deadline, Some(Day::parse("2027-01-31").unwrap()));
        assert!(AssignmentKeys::parse(&[], &[], &[], "31.01.2027").is_err());
        let many = vec![1; MAX_KEYS + 1];
        assert_eq!(
            AssignmentKeys::parse(&[], &[], &many, "")
                .unwrap_err()
                .to_string(),
            MSG_TOO_MANY_KEYS
        );
    }
}
