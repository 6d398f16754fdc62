//! Attempts: taking a try, and handing in its answers.
//!
//! An attempt row is a try taken. It is inserted by one conditional
//! statement that numbers it after the user's attempts on the test and only
//! while the count of those in the current cycle ([`super::cycle`]) is below
//! `number_of_tries` and no attempt of the user on the test is open; the unique `(test_id, user_id, try_number)` makes two
//! concurrent writers on PostgreSQL collide rather than both take a try. The
//! loser's transaction is run again from the start and sees the winner's row.
//! Starting looks for the open attempt inside the same write transaction
//! (`BEGIN IMMEDIATE` on SQLite), so parallel starts return one attempt.
//!
//! An attempt not completed within `ATTEMPT_TIME_LIMIT_MS` of its start has
//! expired: it is no longer anyone's open attempt and cannot be completed, and
//! its row still counts as a try. Nothing rewrites it; every read compares its
//! `started_at` with the time of the call.

use std::collections::HashSet;

use portal_kit::db::{WriteError, retry_on_collision};
use portal_kit::{ServiceError, ServiceResult};
use sqlx::AnyConnection;

use super::cycle::cycle_start;
use super::records::number_record;
use super::{Store, TestRecord};
use crate::domain::attempt::{
    ATTEMPT_TIME_LIMIT_MS, AnswerKey, MSG_ATTEMPT_COMPLETED, MSG_ATTEMPT_EXPIRED,
    MSG_ATTEMPT_NOT_FOUND, MSG_NO_OPEN_ATTEMPT, MSG_NO_TRIES_LEFT, Marked, REASON_NO_OPEN_ATTEMPT,
    Submission, is_expired, mark,
};

/// A user's attempts on one test in the current cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TriesUsed {
    pub started: i64,
    pub passed: i64,
}

/// An attempt that has been started and not completed.
#[derive(Clone, Debug)]
pub struct OpenAttempt {
    pub id: i64,
    pub started_at: i64,
    pub question_ids: Vec<i64>,
}

/// Which attempt answers are handed in for.
#[derive(Clone, Copy, Debug)]
pub enum AttemptChoice {
    /// An attempt from StartAttempt.
    Started(i64),
    /// The caller's open attempt; CONFLICT (`no-open-attempt`) without one.
    Open,
}

/// A scored attempt.
#[derive(Clone, Copy, Debug)]
pub struct Completed {
    pub attempt_id: i64,
    pub total_point: i64,
    pub points_possible: i64,
    pub is_passed: bool,
}

impl Store {
    /// The user's open attempt on the test, or else a try taken now with the
    /// questions `draw` picks given those the user saw before; CONFLICT when no
    /// try is left. One write transaction decides, so parallel starts by one
    /// user open one attempt and use one try.
    pub async fn start_attempt(
        &self,
        test: &TestRecord,
        user_id: i64,
        now: i64,
        draw: impl Fn(&HashSet<i64>) -> Vec<i64>,
    ) -> ServiceResult<OpenAttempt> {
        let draw = &draw;
        retry_on_collision(|| async move {
            let mut tx = self.write().await?;
            let open = match open_attempt(&mut tx, test.id, user_id, now).await? {
                Some(open) => open,
                None => {
                    let drawn = draw(&seen_questions(&mut tx, test.id, user_id).await?);
                    // Tries count from the start of the current cycle (recertification).
                    let since = cycle_start(&mut tx, test.id, user_id, now).await?;
                    match take_try(&mut tx, test, user_id, now, drawn.len(), since).await? {
                        Some(id) => {
                            insert_attempt_questions(&mut tx, id, &drawn).await?;
                            OpenAttempt {
                                id,
                                started_at: now,
                                question_ids: drawn,
                            }
                        }
                        // Either no try is left or, on PostgreSQL, a parallel start
                        // committed its attempt after this transaction looked.
                        None => open_attempt(&mut tx, test.id, user_id, now)
                            .await?
                            .ok_or_else(|| ServiceError::conflict(MSG_NO_TRIES_LEFT))?,
                    }
                }
            };
            tx.commit().await?;
            Ok(open)
        })
        .await
    }

    /// Scores `submission` for the chosen attempt and records the result, all in
    /// one transaction; an attempt is completed once only.
    pub async fn complete_attempt(
        &self,
        test: &TestRecord,
        user_id: i64,
        choice: AttemptChoice,
        submission: &Submission,
        departments: &[i64],
        now: i64,
    ) -> ServiceResult<Completed> {
        let completed = retry_on_collision(|| async move {
            let mut tx = self.write().await?;
            let completed =
                complete(&mut tx, test, user_id, choice, submission, departments, now).await?;
            tx.commit().await?;
            Ok(completed)
        })
        .await?;
        self.ring_record_bell();
        Ok(completed)
    }
}

async fn open_attempt(
    conn: &mut AnyConnection,
    test_id: i64,
    user_id: i64,
    now: i64,
) -> ServiceResult<Option<OpenAttempt>> {
    let found: Option<(i64, i64)> = sqlx::query_as(
        "SELECT id, started_at FROM attempts WHERE test_id = $1 AND user_id = $2 AND completed_at IS NULL AND started_at > $3 ORDER BY id DESC LIMIT 1",
    )
    .bind(test_id)
    .bind(user_id)
    .bind(now.saturating_sub(ATTEMPT_TIME_LIMIT_MS))
    .fetch_optional(&mut *conn)
    .await?;
    let Some((id, started_at)) = found else {
        return Ok(None);
    };
    Ok(Some(OpenAttempt {
        id,
        started_at,
        question_ids: attempt_question_ids(conn, id).await?,
    }))
}

/// Question ids of the test the user was shown in earlier attempts.
async fn seen_questions(
    conn: &mut AnyConnection,
    test_id: i64,
    user_id: i64,
) -> ServiceResult<HashSet<i64>> {
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT aq.question_id FROM attempt_questions aq JOIN attempts a ON a.id = aq.attempt_id WHERE a.test_id = $1 AND a.user_id = $2",
    )
    .bind(test_id)
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(ids.into_iter().collect())
}

async fn attempt_question_ids(
    conn: &mut AnyConnection,
    attempt_id: i64,
) -> ServiceResult<Vec<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT question_id FROM attempt_questions WHERE attempt_id = $1 ORDER BY position",
    )
    .bind(attempt_id)
    .fetch_all(&mut *conn)
    .await?)
}

/// Inserts the next try of `user_id` on `test` if one is left among those
/// started since `since` (the current cycle's start) and no attempt of theirs
/// is open: one statement that checks, counts and inserts, so no
/// read-then-write gap. The try's number counts every cycle, so it stays
/// unique. `None` when it inserted nothing.
async fn take_try(
    conn: &mut AnyConnection,
    test: &TestRecord,
    user_id: i64,
    now: i64,
    points_possible: usize,
    since: i64,
) -> Result<Option<i64>, WriteError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO attempts (test_id, user_id, try_number, started_at, points_possible) \
         SELECT t.id, $1, COUNT(a.id) + 1, $2, $3 FROM tests t \
         LEFT JOIN attempts a ON a.test_id = t.id AND a.user_id = $4 \
         WHERE t.id = $5 AND NOT EXISTS (SELECT 1 FROM attempts o WHERE o.test_id = $6 \
         AND o.user_id = $7 AND o.completed_at IS NULL AND o.started_at > $8) \
         GROUP BY t.id, t.number_of_tries \
         HAVING COUNT(CASE WHEN a.started_at >= $9 THEN 1 END) < t.number_of_tries RETURNING id",
    )
    .bind(user_id)
    .bind(now)
    .bind(i64::try_from(points_possible).unwrap_or(i64::MAX))
    .bind(user_id)
    .bind(test.id)
    .bind(test.id)
    .bind(user_id)
    .bind(now.saturating_sub(ATTEMPT_TIME_LIMIT_MS))
    .bind(since)
    .fetch_optional(&mut *conn)
    .await?)
}

async fn insert_attempt_questions(
    conn: &mut AnyConnection,
    attempt_id: i64,
    question_ids: &[i64],
) -> ServiceResult<()> {
    for (position, question_id) in (0_i64..).zip(question_ids) {
        sqlx::query(
            "INSERT INTO attempt_questions (attempt_id, question_id, position) VALUES ($1, $2, $3)",
        )
        .bind(attempt_id)
        .bind(*question_id)
        .bind(position)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

async fn complete(
    conn: &mut AnyConnection,
    test: &TestRecord,
    user_id: i64,
    choice: AttemptChoice,
    submission: &Submission,
    departments: &[i64],
    now: i64,
) -> Result<Completed, WriteError> {
    let (attempt_id, asked) = match choice {
        AttemptChoice::Started(attempt_id) => {
            let owner: Option<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
                "SELECT test_id, user_id, started_at, completed_at FROM attempts WHERE id = $1",
            )
            .bind(attempt_id)
            .fetch_optional(&mut *conn)
            .await?;
            match owner {
                Some((test_id, owner, _, _)) if test_id != test.id || owner != user_id => {
                    return Err(ServiceError::not_found(MSG_ATTEMPT_NOT_FOUND).into());
                }
                None => return Err(ServiceError::not_found(MSG_ATTEMPT_NOT_FOUND).into()),
                Some((_, _, _, Some(_))) => {
                    return Err(ServiceError::conflict(MSG_ATTEMPT_COMPLETED).into());
                }
                Some((_, _, started_at, None)) if is_expired(started_at, now) => {
                    return Err(ServiceError::conflict(MSG_ATTEMPT_EXPIRED).into());
                }
                Some((_, _, _, None)) => {
                    (attempt_id, attempt_question_ids(conn, attempt_id).await?)
                }
            }
        }
        AttemptChoice::Open => match open_attempt(conn, test.id, user_id, now).await? {
            Some(open) => (open.id, open.question_ids),
            None => {
                return Err(ServiceError::conflict(MSG_NO_OPEN_ATTEMPT)
                    .because(REASON_NO_OPEN_ATTEMPT)
                    .into());
            }
        },
    };
    let key = answer_key(conn, test.id).await?;
    let marked = mark(&asked, &key, submission)?;
    let total_point = i64::try_from(marked.iter().filter(|m| m.is_correct).count()).unwrap_or(0);
    let is_passed = total_point >= test.total_points_required;
    record_answers(conn, attempt_id, &marked).await?;
    let completed = sqlx::query(
        "UPDATE attempts SET completed_at = $1, total_point = $2, is_passed = $3 WHERE id = $4 AND completed_at IS NULL",
    )
    .bind(now)
    .bind(total_point)
    .bind(i64::from(is_passed))
    .bind(attempt_id)
    .execute(&mut *conn)
    .await?;
    if completed.rows_affected() == 0 {
        return Err(ServiceError::conflict(MSG_ATTEMPT_COMPLETED).into());
    }
    for department_id in departments.iter().collect::<HashSet<_>>() {
        sqlx::query("INSERT INTO attempt_departments (attempt_id, department_id) VALUES ($1, $2)")
            .bind(attempt_id)
            .bind(*department_id)
            .execute(&mut *conn)
            .await?;
    }
    let points_possible: i64 =
        sqlx::query_scalar("SELECT points_possible FROM attempts WHERE id = $1")
            .bind(attempt_id)
            .fetch_one(&mut *conn)
            .await?;
    // Last: it holds the record sequence until the commit.
    number_record(conn, attempt_id).await?;
    Ok(Completed {
        attempt_id,
        total_point,
        points_possible,
        is_passed,
    })
}

async fn answer_key(conn: &mut AnyConnection, test_id: i64) -> ServiceResult<AnswerKey> {
    let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT an.question_id, an.id, an.is_correct FROM answers an JOIN questions q ON q.id = an.question_id WHERE q.test_id = $1",
    )
    .bind(test_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut key = AnswerKey::new();
    for (question_id, answer_id, is_correct) in rows {
        let entry = key.entry(question_id).or_insert_with(|| (Vec::new(), 0));
        entry.0.push(answer_id);
        if is_correct == 1 {
            entry.1 = answer_id;
        }
    }
    Ok(key)
}

async fn record_answers(
    conn: &mut AnyConnection,
    attempt_id: i64,
    marked: &[Marked],
) -> ServiceResult<()> {
    for answer in marked {
        sqlx::query(
            "UPDATE attempt_questions SET answer_id = $1, is_correct = $2 WHERE attempt_id = $3 AND question_id = $4",
        )
        .bind(answer.answer_id)
        .bind(i64::from(answer.is_correct))
        .bind(attempt_id)
        .bind(answer.question_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
