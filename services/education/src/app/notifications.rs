//! Education's part of the bell: the caller's courses due within 7 days or
//! overdue, with their read marks.

use portal_kit::ServiceResult;

use crate::app::compliance::assess_rows;
use crate::domain::compliance::{Assessment, Standing};
use crate::domain::date::Day;
use crate::domain::notification::{self, DueCourse};
use crate::store::{ComplianceRow, Store};

/// A due course and whether its person marked it read.
pub struct Item {
    pub course: DueCourse,
    pub read: bool,
}

/// The assignment's course if its person must act soon: due within 7 days
/// or overdue by the deadline that applies now (their own when they have one,
/// else the course's; once a pass expired, its renewal deadline).
pub fn due_course(row: &ComplianceRow, assessment: &Assessment) -> Option<DueCourse> {
    let overdue = match assessment.standing {
        Standing::Overdue => true,
        Standing::DueSoon => false,
        Standing::InProgress | Standing::Complete => return None,
    };
    Some(DueCourse {
        user_id: row.user_id,
        course_id: row.course_id,
        title: row.course_title.clone(),
        due: assessment.deadline?,
        overdue,
    })
}

/// `user_id`'s due courses on `today`, overdue first.
pub async fn due_courses(store: &Store, user_id: i64, today: Day) -> ServiceResult<Vec<DueCourse>> {
    let rows = store.compliance_rows_of(user_id).await?;
    let mut due: Vec<DueCourse> = assess_rows(store, rows, today)
        .await?
        .iter()
        .filter_map(|(row, assessment)| due_course(row, assessment))
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
    use crate::app::compliance::terms;
    use crate::domain::compliance::assess;

    fn row(own: Option<&str>, course: &str) -> ComplianceRow {
        ComplianceRow {
            course_id: 5,
            course_title: "ИВЛ".into(),
            user_id: 2,
            own_deadline: own.map(str::to_owned),
            course_deadline: course.into(),
            course_created: 0,
            validity_months: 12,
        }
    }

    /// The row's course on `today` for a person whose one test was last
    /// passed at `passed` (Unix ms), if ever.
    fn due(row: &ComplianceRow, passed: Option<i64>, today: Day) -> Option<DueCourse> {
        let terms = terms(
            row.validity_months,
            row.course_created,
            &row.course_deadline,
            row.own_deadline.as_deref(),
        );
        due_course(row, &assess(&[passed], terms, today))
    }

    fn millis(day: &str) -> i64 {
        Day::parse(day).unwrap().start_millis()
    }

    #[test]
    fn a_course_is_due_within_seven_days_or_overdue_until_passed() {
        let today = Day::parse("2026-03-10").unwrap();
        let soon = due(&row(None, "2026-03-17"), None, today).unwrap();
        assert!(!soon.overdue);
        assert_eq!(soon.key(), "education:course:5:2026-03-17");
        assert!(due(&row(None, "2026-03-18"), None, today).is_none());
        let passed = Some(millis("2026-03-01"));
        assert!(due(&row(None, "2026-03-01"), passed, today).is_none());
        let own = due(&row(Some("2026-03-09"), "2026-04-01"), None, today).unwrap();
        assert!(own.overdue, "their own deadline decides");
        assert_eq!(own.key(), "education:course:5:2026-03-09");
    }

    #[test]
    fn an_expired_pass_makes_the_course_due_again_by_its_renewal_deadline() {
        let today = Day::parse("2026-03-10").unwrap();
        // Created a month before its deadline and passed over a year ago:
        // valid 12 months, expired on 2026-02-01, due again a month later.
        let course = ComplianceRow {
            course_created: millis("2024-12-01"),
            ..row(None, "2025-01-01")
        };
        let lapsed = due(&course, Some(millis("2025-02-01")), today).unwrap();
        assert!(lapsed.overdue);
        assert_ne!(
            lapsed.key(),
            "education:course:5:2025-01-01",
            "a new cycle is a new item"
        );
    }
}
