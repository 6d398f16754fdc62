//! A course's compliance: where each assignee stands with its tests and
//! deadline (their own when AssignCourse gave one, else the course's).

use portal_kit::ServiceResult;

use crate::domain::compliance::{Standing, standing};
use crate::domain::date::Day;
use crate::store::{AssigneeDeadline, CourseRecord, Store, Viewer};

pub struct CourseCompliance {
    pub course: CourseRecord,
    /// Those furthest behind first, then by user id.
    pub assignees: Vec<AssigneeStanding>,
    pub today: Day,
}

pub struct AssigneeStanding {
    pub user_id: i64,
    /// How many of the course's tests they passed.
    pub passed: usize,
    pub total: usize,
    pub standing: Standing,
}

pub async fn course_compliance(store: &Store, course_id: i64) -> ServiceResult<CourseCompliance> {
    let course = store.course(Viewer::Everything, course_id).await?;
    let tests = store.course_test_ids(course_id).await?;
    let mut passed = store.passed_by_assignees(course_id).await?;
    let today = Day::today();
    let course_deadline = Day::stored(&course.date_deadline);
    let mut assignees: Vec<AssigneeStanding> = store
        .course_assignee_deadlines(course_id)
        .await?
        .into_iter()
        .map(
            |AssigneeDeadline {
                 user_id,
                 own_deadline,
             }| {
                // Their own deadline (AssignCourse) when they have one.
                let deadline = own_deadline
                    .as_deref()
                    .and_then(Day::stored)
                    .or(course_deadline);
                let done = passed
                    .remove(&user_id)
                    .unwrap_or_default()
                    .intersection(&tests)
                    .count();
                AssigneeStanding {
                    user_id,
                    passed: done,
                    total: tests.len(),
                    standing: standing(done, tests.len(), deadline, today),
                }
            },
        )
        .collect();
    assignees.sort_by_key(|assignee| (assignee.standing, assignee.user_id));
    Ok(CourseCompliance {
        course,
        assignees,
        today,
    })
}
