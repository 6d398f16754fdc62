//! Attempts: taking a try, and handing in its answers.
//!
//! An attempt row is a try taken. The tries of a user on a test are read once
//! per call into [`Tries`], the one place they are counted: how many were
//! taken and passed, which one is open, the number of the next. A start reads
//! them inside its write transaction and inserts the next try only while one
//! is left and none is open; the unique `(test_id, user_id, try_number)` makes
//! two concurrent starts on PostgreSQL (whose writers do not queue) collide
//! rather than both take a try. The loser's transaction is run again from the
//! start ([`GroupCommit::write`](super::group_commit::GroupCommit::write))
//! and sees the winner's row, so parallel starts return one attempt. On
//! SQLite the writers queue (`BEGIN IMMEDIATE`, and this process's writers take
//! turns before that), so the read in the transaction is already the last word.
//!
//! An attempt not completed within `ATTEMPT_TIME_LIMIT_MS` of its start has
//! expired: it is no longer anyone's open attempt and cannot be completed, and
//! its row still counts as a try. Nothing rewrites it; every read compares its
//! `started_at` with the time of the call.
//!
//! A completion reads what it needs before its write transaction (the tries,
//! the asked questions and their answers: none changes once the attempt
//! started, but for its completion), so SQLite's one writer holds the database
//! only for the writes; the completing UPDATE checks that the attempt is still
//! open, so of two concurrent hand-ins one records and the other is refused.
//! A hand-in with no attempt open, on a test that shows every question (spec
//! §7's `complete-test` alone), takes its try as a start does and completes
//! it in the same write transaction.

use std::collections::HashSet;
use std::sync::Arc;

use portal_kit::audit::{self, AuditContext, Changes, Event, action};
use portal_kit::db::WriteError;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::any::{Any, AnyArguments};
use sqlx::query::Query;
use sqlx::{AnyConnection, FromRow};

use super::cycle::cycle_start;
use super::records::next_record_seq;
use super::{Store, TestRecord, audited};
use crate::domain::attempt::{
    AnswerKey, MSG_ATTEMPT_COMPLETED, MSG_ATTEMPT_EXPIRED, MSG_ATTEMPT_NOT_FOUND, MSG_EMPTY_TEST,
    MSG_NO_OPEN_ATTEMPT, MSG_NO_TRIES_LEFT, Marked, REASON_NO_OPEN_ATTEMPT, Submission, draw,
    is_expired, mark, shows_every_question,
};

/// A user's attempts on one test.
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
    /// The caller's open attempt. Without one, a test that shows every
    /// question takes a try and completes it in one write transaction (the
    /// spec's `complete-test` alone); one that draws a subset is CONFLICT
    /// (`no-open-attempt`): its questions are drawn by a start.
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

/// An attempt as the try rules read it.
#[derive(Debug, FromRow)]
struct TryRow {
    id: i64,
    started_at: i64,
    points_possible: i64,
    completed_at: Option<i64>,
    is_passed: Option<i64>,
}

const TRY_COLUMNS: &str =
    "SELECT id, started_at, points_possible, completed_at, is_passed FROM attempts";

/// A user's tries on one test, oldest first, and when their current cycle
/// began ([`super::cycle`]: a lapsed pass starts a new one with fresh tries):
/// every rule about tries reads them here.
#[derive(Debug)]
struct Tries {
    rows: Vec<TryRow>,
    cycle_start: i64,
}

impl Tries {
    async fn of(
        conn: &mut AnyConnection,
        test_id: i64,
        user_id: i64,
        now: i64,
    ) -> ServiceResult<Tries> {
        let cycle_start = cycle_start(conn, test_id, user_id, now).await?;
        let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{TRY_COLUMNS} WHERE test_id = $1 AND user_id = $2 ORDER BY id"
        )))
        .bind(test_id)
        .bind(user_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(Tries { rows, cycle_start })
    }

    /// Every try taken in the current cycle counts, expired ones too.
    fn used(&self) -> TriesUsed {
        let cycle: Vec<&TryRow> = self
            .rows
            .iter()
            .filter(|attempt| attempt.started_at >= self.cycle_start)
            .collect();
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        TriesUsed {
            started: count(cycle.len()),
            passed: count(cycle.iter().filter(|a| a.is_passed == Some(1)).count()),
        }
    }

    /// The newest attempt neither completed nor expired at `now`.
    fn open(&self, now: i64) -> Option<&TryRow> {
        self.rows
            .iter()
            .rev()
            .find(|attempt| attempt.completed_at.is_none() && !is_expired(attempt.started_at, now))
    }

    /// The number of the next try, if `test` leaves one in the cycle; numbers
    /// count every cycle's tries, so they stay unique.
    fn next(&self, test: &TestRecord) -> Option<i64> {
        let taken = i64::try_from(self.rows.len()).unwrap_or(i64::MAX);
        (self.used().started < test.number_of_tries).then_some(taken + 1)
    }

    fn attempt(&self, id: i64) -> Option<&TryRow> {
        self.rows.iter().find(|attempt| attempt.id == id)
    }

    /// The tries after the attempt `id` completed at `now` with `is_passed`.
    fn record(&mut self, id: i64, now: i64, is_passed: bool) {
        if let Some(attempt) = self.rows.iter_mut().find(|attempt| attempt.id == id) {
            attempt.completed_at = Some(now);
            attempt.is_passed = Some(i64::from(is_passed));
        }
    }
}

impl Store {
    /// The user's open attempt on the test, or else a try taken now with the
    /// questions `draw` picks given those the user saw before, and the tries
    /// used with it; CONFLICT when no try is left. One write transaction
    /// decides, so parallel starts by one user open one attempt and use one try.
    pub async fn start_attempt(
        &self,
        test: &TestRecord,
        user_id: i64,
        now: i64,
        draw: impl Fn(&HashSet<i64>) -> Vec<i64> + Send + Sync + 'static,
        audit: &AuditContext,
    ) -> ServiceResult<(OpenAttempt, TriesUsed)> {
        let inputs = Arc::new((test.clone(), audit.clone(), draw));
        self.group
            .write(move |conn| {
                let inputs = Arc::clone(&inputs);
                Box::pin(async move {
                    let (test, audit, draw) = &*inputs;
                    start(conn, test, user_id, (now, audit), draw).await
                })
            })
            .await
    }

    /// Scores `submission` for the chosen attempt and records the result in one
    /// transaction, with the tries used after it; an attempt is completed once
    /// only.
    pub async fn complete_attempt(
        &self,
        test: &TestRecord,
        user_id: i64,
        choice: AttemptChoice,
        submission: &Submission,
        departments: &[i64],
        (now, audit): (i64, &AuditContext),
    ) -> ServiceResult<(Completed, TriesUsed)> {
        let (mut tries, (attempt_id, points_possible), asked, key) = {
            let mut conn = self.pool.acquire().await?;
            let tries = Tries::of(&mut conn, test.id, user_id, now).await?;
            let attempt = match chosen(&tries, choice, now) {
                Ok(attempt) => (attempt.id, attempt.points_possible),
                Err(refusal) if matches!(choice, AttemptChoice::Started(_)) => return Err(refusal),
                Err(refusal) => {
                    let questions = question_ids(&mut conn, test.id).await?;
                    if !shows_every_question(test.number_of_questions, questions.len()) {
                        return Err(refusal);
                    }
                    drop(conn);
                    let hand_in = HandIn {
                        submission: submission.clone(),
                        departments: departments.to_vec(),
                    };
                    return self
                        .start_and_complete(test, user_id, questions, hand_in, (now, audit))
                        .await;
                }
            };
            let (asked, key) = asked_with_key(&mut conn, attempt.0).await?;
            (tries, attempt, asked, key)
        };
        let marked = mark(&asked, &key, submission)?;
        let completed = scored(test, attempt_id, points_possible, &marked);
        let is_passed = completed.is_passed;
        let inputs = Arc::new((test.clone(), marked, departments.to_vec(), audit.clone()));
        self.group
            .write(move |conn| {
                let inputs = Arc::clone(&inputs);
                Box::pin(async move {
                    let (test, marked, departments, audit) = &*inputs;
                    Ok(record(conn, test, &completed, marked, departments, (now, audit)).await?)
                })
            })
            .await?;
        self.ring_record_bell();
        tries.record(attempt_id, now, is_passed);
        Ok((completed, tries.used()))
    }
}

/// What a hand-in gives: the answers and the learner's departments (their
/// token's) at completion.
struct HandIn {
    submission: Submission,
    departments: Vec<i64>,
}

impl Store {
    /// A hand-in without an attempt on a test that shows every question (all
    /// of `questions`): in one write transaction, the open attempt (one a
    /// concurrent start just opened) or the next try taken with every
    /// question, then scored and completed as a hand-in of it. A try is
    /// taken as a start takes it: none left is CONFLICT, and two such
    /// hand-ins take two tries, never the same one (a collision runs the
    /// later again); a retried call with its idempotency key runs once.
    async fn start_and_complete(
        &self,
        test: &TestRecord,
        user_id: i64,
        questions: Vec<i64>,
        hand_in: HandIn,
        (now, audit): (i64, &AuditContext),
    ) -> ServiceResult<(Completed, TriesUsed)> {
        if questions.is_empty() {
            return Err(ServiceError::conflict(MSG_EMPTY_TEST));
        }
        let inputs = Arc::new((test.clone(), questions, hand_in, audit.clone()));
        let done = self
            .group
            .write(move |conn| {
                let inputs = Arc::clone(&inputs);
                Box::pin(async move {
                    let (test, questions, hand_in, audit) = &*inputs;
                    let every = questions.len();
                    let (open, used) = start(conn, test, user_id, (now, audit), |seen| {
                        draw(questions, seen, every)
                    })
                    .await?;
                    let (asked, key) = asked_with_key(conn, open.id).await?;
                    let marked = mark(&asked, &key, &hand_in.submission)?;
                    let points_possible = i64::try_from(asked.len()).unwrap_or(i64::MAX);
                    let completed = scored(test, open.id, points_possible, &marked);
                    let at = (now, audit);
                    record(conn, test, &completed, &marked, &hand_in.departments, at).await?;
                    let used = TriesUsed {
                        started: used.started,
                        passed: used.passed + i64::from(completed.is_passed),
                    };
                    Ok((completed, used))
                })
            })
            .await?;
        self.ring_record_bell();
        Ok(done)
    }
}

/// An attempt's score from its `marked` questions: a point for each correct
/// answer, passed at the test's points required.
fn scored(
    test: &TestRecord,
    attempt_id: i64,
    points_possible: i64,
    marked: &[Marked],
) -> Completed {
    let total_point = i64::try_from(marked.iter().filter(|m| m.is_correct).count()).unwrap_or(0);
    Completed {
        attempt_id,
        total_point,
        points_possible,
        is_passed: total_point >= test.total_points_required,
    }
}

/// The ids of the test's questions.
async fn question_ids(conn: &mut AnyConnection, test_id: i64) -> ServiceResult<Vec<i64>> {
    Ok(
        sqlx::query_scalar("SELECT id FROM questions WHERE test_id = $1 ORDER BY id")
            .bind(test_id)
            .fetch_all(&mut *conn)
            .await?,
    )
}

/// The start in `conn`'s write transaction: the open attempt, or the next try
/// taken with the questions `draw` picks (recorded as the attempt's creation).
async fn start(
    conn: &mut AnyConnection,
    test: &TestRecord,
    user_id: i64,
    (now, audit): (i64, &AuditContext),
    draw: impl Fn(&HashSet<i64>) -> Vec<i64>,
) -> Result<(OpenAttempt, TriesUsed), WriteError> {
    let mut tries = Tries::of(conn, test.id, user_id, now).await?;
    if let Some(open) = tries.open(now) {
        let open = OpenAttempt {
            id: open.id,
            started_at: open.started_at,
            question_ids: attempt_question_ids(conn, open.id).await?,
        };
        return Ok((open, tries.used()));
    }
    let try_number = tries
        .next(test)
        .ok_or_else(|| ServiceError::conflict(MSG_NO_TRIES_LEFT))?;
    // A first try has seen nothing: no need to ask.
    let seen = if tries.rows.is_empty() {
        HashSet::new()
    } else {
        seen_questions(conn, test.id, user_id).await?
    };
    let drawn = draw(&seen);
    let points_possible = i64::try_from(drawn.len()).unwrap_or(i64::MAX);
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO attempts (test_id, user_id, try_number, started_at, points_possible) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(test.id)
    .bind(user_id)
    .bind(try_number)
    .bind(now)
    .bind(points_possible)
    .fetch_one(&mut *conn)
    .await?;
    insert_attempt_questions(conn, id, &drawn).await?;
    let changes = Changes::new()
        .field("testId", None::<i64>, test.id)
        .field("userId", None::<i64>, user_id)
        .field("tryNumber", None::<i64>, try_number)
        .field("questions", None::<i64>, &drawn);
    let event = Event::new(audited::ATTEMPT, id, action::CREATE).changes(changes);
    audit::record(conn, audit, event).await?;
    tries.rows.push(TryRow {
        id,
        started_at: now,
        points_possible,
        completed_at: None,
        is_passed: None,
    });
    let open = OpenAttempt {
        id,
        started_at: now,
        question_ids: drawn,
    };
    Ok((open, tries.used()))
}

/// The attempt `choice` names among the user's tries on the test, if it can
/// still be completed at `now`.
fn chosen(tries: &Tries, choice: AttemptChoice, now: i64) -> ServiceResult<&TryRow> {
    match choice {
        // Another user's attempt, or one on another test, is not among these.
        AttemptChoice::Started(id) => match tries.attempt(id) {
            None => Err(ServiceError::not_found(MSG_ATTEMPT_NOT_FOUND)),
            Some(attempt) if attempt.completed_at.is_some() => {
                Err(ServiceError::conflict(MSG_ATTEMPT_COMPLETED))
            }
            Some(attempt) if is_expired(attempt.started_at, now) => {
                Err(ServiceError::conflict(MSG_ATTEMPT_EXPIRED))
            }
            Some(attempt) => Ok(attempt),
        },
        AttemptChoice::Open => tries.open(now).ok_or_else(|| {
            ServiceError::conflict(MSG_NO_OPEN_ATTEMPT).because(REASON_NO_OPEN_ATTEMPT)
        }),
    }
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

/// The attempt's questions in their order and the answer key of those
/// questions, in one read: marking needs no other question's answers.
async fn asked_with_key(
    conn: &mut AnyConnection,
    attempt_id: i64,
) -> ServiceResult<(Vec<i64>, AnswerKey)> {
    let rows: Vec<(i64, Option<i64>, Option<i64>)> = sqlx::query_as(
        "SELECT aq.question_id, an.id, an.is_correct FROM attempt_questions aq \
         LEFT JOIN answers an ON an.question_id = aq.question_id \
         WHERE aq.attempt_id = $1 ORDER BY aq.position, an.id",
    )
    .bind(attempt_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut asked = Vec::new();
    let mut key = AnswerKey::new();
    for (question_id, answer_id, is_correct) in rows {
        if asked.last() != Some(&question_id) {
            asked.push(question_id);
        }
        let entry = key.entry(question_id).or_insert_with(|| (Vec::new(), 0));
        if let Some(answer_id) = answer_id {
            entry.0.push(answer_id);
            if is_correct == Some(1) {
                entry.1 = answer_id;
            }
        }
    }
    Ok((asked, key))
}

/// `rows` rows of `columns` binds each, numbered from `$first`: `($2, $3),
/// ($4, $5)` for 2, 2 and 2.
fn value_rows(first: usize, rows: usize, columns: usize) -> String {
    let row = |from: usize| {
        let binds: Vec<String> = (from..from + columns).map(|i| format!("${i}")).collect();
        format!("({})", binds.join(", "))
    };
    let all: Vec<String> = (0..rows).map(|r| row(first + r * columns)).collect();
    all.join(", ")
}

/// A statement of `sql` with its `{}` replaced by `rows` rows of `columns`
/// binds numbered from `$first`.
fn with_rows(
    sql: &str,
    first: usize,
    rows: usize,
    columns: usize,
) -> Query<'static, Any, AnyArguments> {
    sqlx::query(sqlx::AssertSqlSafe(sql.replacen(
        "{}",
        &value_rows(first, rows, columns),
        1,
    )))
}

/// The drawn questions in their order, one statement.
async fn insert_attempt_questions(
    conn: &mut AnyConnection,
    attempt_id: i64,
    question_ids: &[i64],
) -> ServiceResult<()> {
    if question_ids.is_empty() {
        return Ok(());
    }
    let mut insert = with_rows(
        "INSERT INTO attempt_questions (attempt_id, question_id, position) VALUES {}",
        1,
        question_ids.len(),
        3,
    );
    for (position, question_id) in (0_i64..).zip(question_ids) {
        insert = insert.bind(attempt_id).bind(*question_id).bind(position);
    }
    insert.execute(&mut *conn).await?;
    Ok(())
}

/// The writes of a completion: the answers, the departments, the record
/// number and last the completing UPDATE, which matches only an attempt still
/// open; CONFLICT (and everything rolled back) when another hand-in came first.
async fn record(
    conn: &mut AnyConnection,
    test: &TestRecord,
    completed: &Completed,
    marked: &[Marked],
    departments: &[i64],
    (now, audit): (i64, &AuditContext),
) -> ServiceResult<()> {
    if !marked.is_empty() {
        // SQLite and PostgreSQL both name a VALUES list's columns column1, ….
        let mut answers = with_rows(
            "UPDATE attempt_questions SET answer_id = v.column2, is_correct = v.column3 \
             FROM (VALUES {}) AS v WHERE attempt_questions.attempt_id = $1 \
             AND attempt_questions.question_id = v.column1",
            2,
            marked.len(),
            3,
        )
        .bind(completed.attempt_id);
        for answer in marked {
            answers = answers
                .bind(answer.question_id)
                .bind(answer.answer_id)
                .bind(i64::from(answer.is_correct));
        }
        answers.execute(&mut *conn).await?;
    }
    let departments: Vec<i64> = departments
        .iter()
        .copied()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if !departments.is_empty() {
        // Nothing to do for a department already written: only a second
        // hand-in of the attempt meets one, and the completing UPDATE below
        // refuses it and rolls this back.
        let mut insert = with_rows(
            "INSERT INTO attempt_departments (attempt_id, department_id, completed_at, test_id) \
             VALUES {} ON CONFLICT DO NOTHING",
            1,
            departments.len(),
            4,
        );
        for department_id in departments {
            insert = insert
                .bind(completed.attempt_id)
                .bind(department_id)
                .bind(now)
                .bind(test.id);
        }
        insert.execute(&mut *conn).await?;
    }
    let changes = Changes::new()
        .field("totalPoint", None::<i64>, completed.total_point)
        .field("pointsPossible", None::<i64>, completed.points_possible)
        .field("isPassed", None::<bool>, completed.is_passed);
    let event =
        Event::new(audited::ATTEMPT, completed.attempt_id, audited::COMPLETE).changes(changes);
    audit::record(conn, audit, event).await?;
    // Last: the number holds the record sequence until the commit.
    let seq = next_record_seq(conn).await?;
    let done = sqlx::query(
        "UPDATE attempts SET completed_at = $1, total_point = $2, is_passed = $3, record_seq = $4 \
         WHERE id = $5 AND completed_at IS NULL",
    )
    .bind(now)
    .bind(completed.total_point)
    .bind(i64::from(completed.is_passed))
    .bind(seq)
    .bind(completed.attempt_id)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(ServiceError::conflict(MSG_ATTEMPT_COMPLETED));
    }
    Ok(())
}
