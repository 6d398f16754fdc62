//! Training records for other systems: completed attempts in the order they
//! were recorded, read after a cursor.
//!
//! Why a sequence of its own rather than attempt ids or completion times: an
//! attempt's id is given when it starts, and one started earlier may complete
//! later; a PostgreSQL identity is handed out before its transaction commits,
//! so two concurrent completions can commit in the other order, and a reader
//! who already read past the higher number would never look back for the lower
//! one. So the number is given in the completing transaction itself, in its
//! last two statements: raising the one row of `training_record_sequence`
//! ([`next_record_seq`]), then the completing UPDATE of the attempt that
//! writes it. The writer holds that row's lock until it commits (on
//! SQLite every writer already holds the database from `BEGIN IMMEDIATE`), so
//! the next writer gets its number only after the previous one committed:
//! numbers follow commit order, and once a reader sees `seq` n every record
//! below n is already visible. No lookback, no duplicates, no gaps left open;
//! the price is that completions commit one at a time for the last statement
//! or two of their transaction (a row update, well under a millisecond). A
//! rolled-back completion returns its number with it, so `seq` has no holes
//! either — clients must not rely on that, only on the order.

use portal_kit::ServiceResult;
use sqlx::{AnyConnection, FromRow};
use tokio::sync::watch;

use super::Store;

/// Rung by the write path after each commit that records a result, so a
/// watcher in this process reads at once instead of at its next poll.
pub struct RecordBell(watch::Sender<u64>);

impl Default for RecordBell {
    fn default() -> Self {
        RecordBell(watch::Sender::new(0))
    }
}

impl RecordBell {
    fn ring(&self) {
        self.0.send_modify(|rung| *rung = rung.wrapping_add(1));
    }
}

/// A completed attempt as other systems read it.
#[derive(Clone, Debug, FromRow)]
pub struct TrainingRow {
    pub seq: i64,
    pub user_id: i64,
    pub course_id: Option<i64>,
    pub course_title: Option<String>,
    pub test_id: i64,
    pub test_title: String,
    pub attempt_id: i64,
    pub try_number: i64,
    pub points: i64,
    pub max_points: i64,
    pub points_required: i64,
    pub passed: i64,
    pub completed_at: i64,
    /// The course's validity (0: never expires; also when no course links the test).
    pub validity_months: i64,
}

/// The records after `$1`, at most `$2`; the course of each is the first
/// (lowest id) course linking the test that is assigned to the learner, else
/// the first linking it.
const RECORDS_AFTER: &str = "SELECT x.seq, x.user_id, x.course_id, c.title AS course_title, x.test_id, x.test_title, x.attempt_id, x.try_number, x.points, x.max_points, x.points_required, x.passed, x.completed_at, COALESCE(c.validity_months, 0) AS validity_months FROM (\
     SELECT r.record_seq AS seq, r.user_id, r.test_id, t.title AS test_title, r.id AS attempt_id, r.try_number, COALESCE(r.total_point, 0) AS points, r.points_possible AS max_points, t.total_points_required AS points_required, COALESCE(r.is_passed, 0) AS passed, r.completed_at, \
     (SELECT ca.course_id FROM course_articles ca JOIN articles ar ON ar.id = ca.article_id LEFT JOIN course_users cu ON cu.course_id = ca.course_id AND cu.user_id = r.user_id \
      WHERE ar.test_id = r.test_id OR ar.id = t.article_id ORDER BY CASE WHEN cu.user_id IS NULL THEN 1 ELSE 0 END, ca.course_id LIMIT 1) AS course_id \
     FROM attempts r JOIN tests t ON t.id = r.test_id WHERE r.record_seq > $1 ORDER BY r.record_seq LIMIT $2\
     ) x LEFT JOIN courses c ON c.id = x.course_id ORDER BY x.seq";

impl Store {
    /// Up to `limit` records with a `seq` above `after`, in `seq` order.
    pub async fn records_after(&self, after: i64, limit: i64) -> ServiceResult<Vec<TrainingRow>> {
        Ok(sqlx::query_as(RECORDS_AFTER)
            .bind(after)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// A receiver that changes after each result recorded by this process.
    pub fn record_bell(&self) -> watch::Receiver<u64> {
        self.recorded.0.subscribe()
    }

    /// Tells this process's watchers that a result was committed.
    pub(super) fn ring_record_bell(&self) {
        self.recorded.ring();
    }
}

/// The next record number, for the attempt completed in the transaction on
/// `conn`. Must come after that transaction's other writes but the completing
/// one (see the module's comment): it holds the sequence's row until the commit.
pub(super) async fn next_record_seq(conn: &mut AnyConnection) -> ServiceResult<i64> {
    Ok(sqlx::query_scalar(
        "UPDATE training_record_sequence SET last_seq = last_seq + 1 WHERE id = 1 RETURNING last_seq",
    )
    .fetch_one(&mut *conn)
    .await?)
}
