//! Assigning a course to people one by one (AssignCourse), each with a
//! deadline of their own and its author, without touching anyone else.

use std::collections::{BTreeMap, BTreeSet};

use portal_kit::audit::{self, AuditContext, Changes, Event, action, entity};
use portal_kit::db::for_update;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::AnyConnection;

use super::Store;
use crate::domain::course::MSG_COURSE_NOT_FOUND;
use crate::domain::date::Day;
use crate::domain::integration::Author;

/// What an assignment did to each person, user ids ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssignOutcome {
    pub assigned: Vec<i64>,
    pub updated: Vec<i64>,
    pub unchanged: Vec<i64>,
}

/// An assignee of a course and their own deadline, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssigneeDeadline {
    pub user_id: i64,
    pub own_deadline: Option<String>,
}

impl Store {
    /// Assigns course `course_id` to `user_ids`: a person not yet assigned is
    /// added with `deadline` and `author`; one already assigned gets
    /// `deadline` only if it is given and differs. One transaction; the
    /// insert skips a row a concurrent assignment added (no error), and its
    /// person counts as already assigned. Recorded, when anything changed, as
    /// one change of the course: its assignees, and the own deadlines of
    /// those assigned or given a new one.
    pub async fn assign_course(
        &self,
        course_id: i64,
        user_ids: &BTreeSet<i64>,
        deadline: Option<Day>,
        author: Author,
        now: i64,
        audit: &AuditContext,
    ) -> ServiceResult<AssignOutcome> {
        let mut tx = self.write().await?;
        lock_course(&mut tx, course_id).await?;
        let before = own_deadlines(&mut tx, course_id).await?;
        let deadline = deadline.map(|day| day.to_string());
        let mut outcome = AssignOutcome::default();
        for &user_id in user_ids {
            let deadline = deadline.as_deref();
            if insert_assignee(&mut tx, course_id, user_id, deadline, author, now).await? {
                outcome.assigned.push(user_id);
            } else if give_own_deadline(&mut tx, course_id, user_id, deadline).await? {
                outcome.updated.push(user_id);
            } else {
                outcome.unchanged.push(user_id);
            }
        }
        if !(outcome.assigned.is_empty() && outcome.updated.is_empty()) {
            let event = assignment_event(course_id, &before, &outcome, deadline.as_deref());
            audit::record(&mut tx, audit, event).await?;
        }
        tx.commit().await?;
        Ok(outcome)
    }

    /// The assignees of a course with their own deadlines, by user id.
    pub async fn course_assignee_deadlines(
        &self,
        course_id: i64,
    ) -> ServiceResult<Vec<AssigneeDeadline>> {
        let rows: Vec<(i64, Option<String>)> = sqlx::query_as(
            "SELECT user_id, date_deadline FROM course_users WHERE course_id = $1 ORDER BY user_id",
        )
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(user_id, own_deadline)| AssigneeDeadline {
                user_id,
                own_deadline,
            })
            .collect())
    }
}

/// Adds `user_id` to the course's assignees unless they are one; whether it
/// did.
pub(super) async fn insert_assignee(
    conn: &mut AnyConnection,
    course_id: i64,
    user_id: i64,
    deadline: Option<&str>,
    author: Author,
    now: i64,
) -> ServiceResult<bool> {
    let (by_user, by_account) = match author {
        Author::Person(id) => (Some(id), None),
        Author::ServiceAccount(id) => (None, Some(id)),
        Author::Demo => (None, None),
    };
    let inserted = sqlx::query(
        "INSERT INTO course_users (course_id, user_id, date_deadline, assigned_by_user_id, assigned_by_service_account_id, assigned_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (course_id, user_id) DO NOTHING",
    )
    .bind(course_id)
    .bind(user_id)
    .bind(deadline)
    .bind(by_user)
    .bind(by_account)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(inserted.rows_affected() > 0)
}

/// Locks course `course_id`'s row until the transaction ends, NOT_FOUND when
/// there is none: the assignees read next are the "old" of the record, and a
/// course's every write locks its row first.
async fn lock_course(conn: &mut AnyConnection, course_id: i64) -> ServiceResult<()> {
    let exists: Option<i64> = sqlx::query_scalar(for_update(
        conn,
        "SELECT id FROM courses WHERE id = $1",
        "courses",
    ))
    .bind(course_id)
    .fetch_optional(&mut *conn)
    .await?;
    exists
        .map(|_| ())
        .ok_or_else(|| ServiceError::not_found(MSG_COURSE_NOT_FOUND))
}

/// The course's assignees with their own deadlines.
async fn own_deadlines(
    conn: &mut AnyConnection,
    course_id: i64,
) -> ServiceResult<BTreeMap<i64, Option<String>>> {
    Ok(
        sqlx::query_as("SELECT user_id, date_deadline FROM course_users WHERE course_id = $1")
            .bind(course_id)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .collect(),
    )
}

/// Gives assignee `user_id` the own deadline `deadline`, if one is given and
/// differs from theirs; whether it did.
async fn give_own_deadline(
    conn: &mut AnyConnection,
    course_id: i64,
    user_id: i64,
    deadline: Option<&str>,
) -> ServiceResult<bool> {
    let Some(deadline) = deadline else {
        return Ok(false);
    };
    let updated = sqlx::query(
        "UPDATE course_users SET date_deadline = $1 WHERE course_id = $2 AND user_id = $3 AND (date_deadline IS NULL OR date_deadline <> $4)",
    )
    .bind(deadline)
    .bind(course_id)
    .bind(user_id)
    .bind(deadline)
    .execute(&mut *conn)
    .await?;
    Ok(updated.rows_affected() > 0)
}

/// The record of an assignment that changed something, as one change of the
/// course: its assignees, and the own deadlines of those assigned or given a
/// new one (`before`: the assignees and deadlines it found).
fn assignment_event(
    course_id: i64,
    before: &BTreeMap<i64, Option<String>>,
    outcome: &AssignOutcome,
    deadline: Option<&str>,
) -> Event<'static> {
    let touched = outcome.assigned.iter().chain(&outcome.updated);
    let old_deadlines: BTreeMap<i64, Option<&str>> = touched
        .clone()
        .map(|id| (*id, before.get(id).and_then(|d| d.as_deref())))
        .collect();
    let new_deadlines: BTreeMap<i64, Option<&str>> = touched.map(|id| (*id, deadline)).collect();
    let mut assignees: BTreeSet<i64> = before.keys().copied().collect();
    let old_assignees: Vec<i64> = assignees.iter().copied().collect();
    assignees.extend(&outcome.assigned);
    let changes = Changes::new()
        .field("assignees", old_assignees, assignees)
        .field("ownDeadlines", old_deadlines, new_deadlines);
    Event::new(entity::COURSE, course_id, action::UPDATE).changes(changes)
}
