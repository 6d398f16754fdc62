//! Education's part of the bell: the caller's courses due within 7 days or
//! overdue, with their read marks.

use portal_kit::ServiceResult;

use crate::domain::compliance::{Standing, standing};
use crate::domain::date::Day;
use crate::domain::notification::{self, DueCourse};
use crate::store::{ComplianceRow, Store};

/// A due course and whether its person marked it read.
pub struct Item {
    pub course: DueCourse,
    pub read: bool,
}

/// The row's course if it is due on `today`: its assignee's own deadline
/// when they have one, else the course's.
pub fn due_course(row: &ComplianceRow, today: Day) -> Option<DueCourse> {
    let due = row
        .own_deadline
        .as_deref()
        .and_then(Day::stored)
        .or_else(|| Day::stored(&row.course_deadline))?;
    let passed = usize::try_from(row.tests_passed).unwrap_or(0);
    let total = usize::try_from(row.tests_total).unwrap_or(0);
    let overdue = match standing(passed, total, Some(due), today) {
        Standing::Overdue => true,
        Standing::DueSoon => false,
        Standing::InProgress | Standing::Complete => return None,
    };
    Some(DueCourse {
        user_id: row.user_id,
        course_id: row.course_id,
        title: row.course_title.clone(),
        due,
        overdue,
    })
}

/// `user_id`'s due courses on `today`, overdue first.
pub async fn due_courses(store: &Store, user_id: i64, today: Day) -> ServiceResult<Vec<DueCourse>> {
    let mut due: Vec<DueCourse> = store
        .compliance_rows_of(user_id)
        .await?
        .iter()
        .filter_map(|row| due_course(row, today))
        .collect();
    notification::sort(&mut due);
    Ok(due)
}

/// What the bell shows of education for `user_id`.
pub async fn my_items(store: &Store, user_id: i64, today: Day) -> ServiceResult<Vec<Item>> {
    let due = due_courses(store, user_id, today).await?;
    let read = store.read_marks(user_id).await?;
    Ok(due
        .into_iter()
        .map(|course| Item {
            read: read.contains(&course.key()),
            course,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(own: Option<&str>, course: &str, passed: i64) -> ComplianceRow {
        ComplianceRow {
            course_id: 5,
            course_title: "ИВЛ".into(),
            user_id: 2,
            own_deadline: own.map(str::to_owned),
            course_deadline: course.into(),
            tests_passed: passed,
            tests_total: 1,
        }
    }

    #[test]
    fn a_course_is_due_within_seven_days_or_overdue_until_passed() {
        let today = Day::parse("2026-03-10").unwrap();
        let due = due_course(&row(None, "2026-03-17", 0), today).unwrap();
        assert!(!due.overdue);
        assert_eq!(due.key(), "education:course:5:2026-03-17");
        assert!(due_course(&row(None, "2026-03-18", 0), today).is_none());
        assert!(due_course(&row(None, "2026-03-01", 1), today).is_none());
        let own = due_course(&row(Some("2026-03-09"), "2026-04-01", 0), today).unwrap();
        assert!(own.overdue, "their own deadline decides");
        assert_eq!(own.key(), "education:course:5:2026-03-09");
    }
}
