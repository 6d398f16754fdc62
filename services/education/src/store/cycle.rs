//! Tries per cycle (recertification, issue 24): every count of a person's
//! tries on a test reads its attempts here and lets
//! [`Cycle::of`](crate::domain::compliance::Cycle::of) decide which belong to
//! the current cycle. The validity a test's passes follow for a person is the
//! shortest non-zero one among the courses assigned to them whose articles
//! link it (0 when none expires), so a person whose earliest course lapses may
//! renew it.

use std::collections::HashMap;

use portal_kit::ServiceResult;
use sqlx::{AnyConnection, AssertSqlSafe};

use super::{Store, TriesUsed};
use crate::domain::attempt::is_expired;
use crate::domain::compliance::{AttemptMark, Cycle};

/// Per test, the validity of the passes of user `$1`; [`of_tests`] adds the
/// test and the grouping.
const TEST_VALIDITY: &str = "SELECT t.id, MIN(c.validity_months) FROM course_users cu JOIN courses c ON c.id = cu.course_id JOIN course_articles ca ON ca.course_id = cu.course_id JOIN articles a ON a.id = ca.article_id JOIN tests t ON t.id = a.test_id OR t.article_id = a.id WHERE cu.user_id = $1 AND c.validity_months > 0";

/// The attempts of user `$1`: when each started and, if it passed, when it
/// was completed.
const ATTEMPT_MARKS: &str = "SELECT test_id, started_at, CASE WHEN is_passed = 1 THEN completed_at END FROM attempts WHERE user_id = $1";

/// `select` (conditions on user `$1`) on every test, or on test `$2` alone
/// unless `only` is 0, then `rest`: a statement of its own for each shape.
/// PostgreSQL plans a prepared `($2 = 0 OR test_id = $3)` again at every call,
/// as the two cases want different plans; the exam morning spent two fifths of
/// PostgreSQL's CPU planning (issue 23).
pub(super) fn of_tests(select: &str, test: &str, only: i64, rest: &str) -> AssertSqlSafe<String> {
    AssertSqlSafe(if only == 0 {
        format!("{select}{rest}")
    } else {
        format!("{select} AND {test} = $2{rest}")
    })
}

impl From<Cycle> for TriesUsed {
    fn from(cycle: Cycle) -> TriesUsed {
        TriesUsed {
            started: cycle.started,
            passed: cycle.passed,
        }
    }
}

/// An attempt started and neither completed nor expired: its id and start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InProgress {
    pub id: i64,
    pub started_at: i64,
}

impl Store {
    /// How many attempts `user_id` started on the test in the current cycle,
    /// and how many of them passed; and the attempt they have in progress at
    /// `now`, if any (what a reload of the test's page resumes).
    pub async fn tries_used(
        &self,
        test_id: i64,
        user_id: i64,
        now: i64,
    ) -> ServiceResult<(TriesUsed, Option<InProgress>)> {
        let mut conn = self.pool.acquire().await?;
        let used = cycle(&mut conn, test_id, user_id, now).await?.into();
        // The newest one not completed: one older than it started earlier, so
        // it has expired if this one has.
        let newest: Option<(i64, i64)> = sqlx::query_as(
            "SELECT id, started_at FROM attempts WHERE test_id = $1 AND user_id = $2 AND completed_at IS NULL ORDER BY id DESC LIMIT 1",
        )
        .bind(test_id)
        .bind(user_id)
        .fetch_optional(&mut *conn)
        .await?;
        let open = newest
            .filter(|(_, started_at)| !is_expired(*started_at, now))
            .map(|(id, started_at)| InProgress { id, started_at });
        Ok((used, open))
    }

    /// The user's current cycle on each test they made an attempt on.
    pub async fn cycles(&self, user_id: i64, now: i64) -> ServiceResult<HashMap<i64, Cycle>> {
        let mut conn = self.pool.acquire().await?;
        cycles(&mut conn, user_id, 0, now).await
    }
}

/// When the user's current cycle on the test began (Unix ms; 0 for the
/// first). StartAttempt's question, in its write transaction: a test whose
/// passes never expire for the user (the usual case) costs one query.
pub(super) async fn cycle_start(
    conn: &mut AnyConnection,
    test_id: i64,
    user_id: i64,
    now: i64,
) -> ServiceResult<i64> {
    if test_validity(conn, user_id, test_id).await?.is_empty() {
        return Ok(0);
    }
    Ok(cycle(conn, test_id, user_id, now).await?.start)
}

/// The user's current cycle on one test (an empty one before any attempt).
async fn cycle(
    conn: &mut AnyConnection,
    test_id: i64,
    user_id: i64,
    now: i64,
) -> ServiceResult<Cycle> {
    Ok(cycles(conn, user_id, test_id, now)
        .await?
        .remove(&test_id)
        .unwrap_or_default())
}

/// The user's current cycle on each test (`only`, unless 0) they made an
/// attempt on.
async fn cycles(
    conn: &mut AnyConnection,
    user_id: i64,
    only: i64,
    now: i64,
) -> ServiceResult<HashMap<i64, Cycle>> {
    let validity = test_validity(conn, user_id, only).await?;
    let mut marks = sqlx::query_as(of_tests(ATTEMPT_MARKS, "test_id", only, "")).bind(user_id);
    if only != 0 {
        marks = marks.bind(only);
    }
    let rows: Vec<(i64, i64, Option<i64>)> = marks.fetch_all(&mut *conn).await?;
    let mut marks: HashMap<i64, Vec<AttemptMark>> = HashMap::new();
    for (test_id, started_at, passed_at) in rows {
        marks.entry(test_id).or_default().push(AttemptMark {
            started_at,
            passed_at,
        });
    }
    Ok(marks
        .into_iter()
        .map(|(test_id, marks)| {
            let months = validity.get(&test_id).copied().unwrap_or(0);
            (test_id, Cycle::of(&marks, months, now))
        })
        .collect())
}

/// The validity of each test (`only`, unless 0) whose passes expire for the user.
async fn test_validity(
    conn: &mut AnyConnection,
    user_id: i64,
    only: i64,
) -> ServiceResult<HashMap<i64, i64>> {
    let mut validity =
        sqlx::query_as(of_tests(TEST_VALIDITY, "t.id", only, " GROUP BY t.id")).bind(user_id);
    if only != 0 {
        validity = validity.bind(only);
    }
    let rows: Vec<(i64, i64)> = validity.fetch_all(&mut *conn).await?;
    Ok(rows.into_iter().collect())
}
