//! A course's compliance: where each assignee stands with its tests, its
//! deadline (their own when AssignCourse gave one, else the course's) and,
//! for a course whose passes expire, their pass's validity.

use std::collections::BTreeSet;

use portal_kit::ServiceResult;

use crate::domain::compliance::{Assessment, Terms, assess, lead_days};
use crate::domain::date::Day;
use crate::store::{AssigneeDeadline, ComplianceRow, CourseRecord, Store, Viewer};

pub struct CourseCompliance {
    pub course: CourseRecord,
    /// Those furthest behind first, then by user id.
    pub assignees: Vec<AssigneeStanding>,
    pub today: Day,
}

pub struct AssigneeStanding {
    pub user_id: i64,
    pub assessment: Assessment,
}

/// A course's terms for an assignee with `own_deadline` (AssignCourse), if any.
pub fn terms(
    validity_months: i64,
    created_at: i64,
    course_deadline: &str,
    own_deadline: Option<&str>,
) -> Terms {
    let course_deadline = Day::stored(course_deadline);
    Terms {
        validity_months,
        deadline: own_deadline.and_then(Day::stored).or(course_deadline),
        lead_days: lead_days(created_at, course_deadline),
    }
}

pub async fn course_compliance(store: &Store, course_id: i64) -> ServiceResult<CourseCompliance> {
    let course = store.course(Viewer::Everything, course_id).await?;
    let tests = store
        .tests_of_courses(&[course_id])
        .await?
        .remove(&course_id)
        .unwrap_or_default();
    let passes = store.latest_passes_in_course(course_id).await?;
    let today = Day::today();
    let mut assignees: Vec<AssigneeStanding> = store
        .course_assignee_deadlines(course_id)
        .await?
        .into_iter()
        .map(
            |AssigneeDeadline {
                 user_id,
                 own_deadline,
             }| {
                let terms = terms(
                    course.validity_months,
                    course.date_creation,
                    &course.date_deadline,
                    own_deadline.as_deref(),
                );
                AssigneeStanding {
                    user_id,
                    assessment: assess(&passes.of(user_id, &tests), terms, today),
                }
            },
        )
        .collect();
    assignees.sort_by_key(|assignee| (assignee.assessment.standing, assignee.user_id));
    Ok(CourseCompliance {
        course,
        assignees,
        today,
    })
}

/// Where each assignment's person stands on `today`: the other systems'
/// standings, the bell and the digest all count them so.
pub async fn assess_rows(
    store: &Store,
    rows: Vec<ComplianceRow>,
    today: Day,
) -> ServiceResult<Vec<(ComplianceRow, Assessment)>> {
    let user_ids: BTreeSet<i64> = rows.iter().map(|row| row.user_id).collect();
    let course_ids: BTreeSet<i64> = rows.iter().map(|row| row.course_id).collect();
    let tests = store
        .tests_of_courses(&course_ids.into_iter().collect::<Vec<_>>())
        .await?;
    let passes = store
        .latest_passes_of(&user_ids.into_iter().collect::<Vec<_>>())
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let terms = terms(
                row.validity_months,
                row.course_created,
                &row.course_deadline,
                row.own_deadline.as_deref(),
            );
            let course_tests = tests.get(&row.course_id).map_or(&[][..], Vec::as_slice);
            let assessment = assess(&passes.of(row.user_id, course_tests), terms, today);
            (row, assessment)
        })
        .collect())
}
