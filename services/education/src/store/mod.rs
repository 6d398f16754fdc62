//! Education's queries: one set for SQLite and PostgreSQL through sqlx's Any
//! driver, one module per aggregate, named as its domain module.
//!
//! Reads run on the pool; every write that touches more than one row runs in one
//! transaction (`Store::write`), which checks the links it writes so that an
//! unknown id becomes a Russian message rather than a foreign-key error. On
//! SQLite write transactions start with `BEGIN IMMEDIATE`, so writers queue on
//! the busy timeout instead of failing to upgrade a read lock; and this
//! process's writers first take their turn on `Store::writer` (see there).
//!
//! A read of one entity by id answers NOT_FOUND here when there is none, or
//! when the reader may not see it: a learner's reads ask only for what is
//! assigned to them (the `Assignable` shapes below), never for every row.

mod article;
mod assignment;
mod attempt;
mod compliance;
mod course;
mod cycle;
mod group_commit;
mod notification;
mod passes;
mod records;
mod revision;
pub mod search;
mod statistics;
mod test;

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

pub(crate) use portal_kit::audit::record_change;
use portal_kit::db::{Backend, for_update};
use portal_kit::{ServiceError, ServiceResult};
use sqlx::any::{Any, AnyArguments, AnyRow};
use sqlx::query::QueryAs;
use sqlx::{AnyConnection, AnyPool, FromRow, Transaction};
use tokio::sync::{Mutex, OwnedMutexGuard};

use self::group_commit::GroupCommit;
use crate::domain::article::MSG_ARTICLE_NOT_FOUND;
use crate::domain::course::MSG_COURSE_NOT_FOUND;
use crate::domain::test::MSG_TEST_NOT_FOUND;

pub use article::ArticleRecord;
pub use assignment::{AssignOutcome, AssigneeDeadline};
pub use attempt::{AttemptChoice, Completed, OpenAttempt, TriesUsed};
pub use compliance::{ComplianceRow, LatestPasses};
pub use course::CourseRecord;
pub use cycle::InProgress;
pub use notification::Claim;
pub use passes::PassRow;
pub use records::{RecordBell, TrainingRow};
pub use revision::{Editor, RevisionRecord, WriteContext};
pub use statistics::{QuestionStats, ResultRecord, ResultsPage};
pub use test::{AnswerRecord, AssignedTestRecord, FullQuestion, QuestionRecord, TestRecord};

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// Rung after each commit that records a result ([`records`]).
    recorded: Arc<RecordBell>,
    /// SQLite's one writer at a time, taken in turn by this process's writers
    /// before they ask the pool for a connection. Without it they all begin at
    /// once and the losers sleep in SQLite's busy handler (1, 2, 5, 10 … ms,
    /// not woken when the lock frees): the exam morning's p99 was those sleeps.
    /// A waiting writer holds no pooled connection, so reads go on. PostgreSQL's
    /// writers lock rows, not the database, and take no turn.
    writer: Arc<Mutex<()>>,
    /// Where the exam morning's writes go, starts and hand-ins: on SQLite
    /// many of them share one commit (the writer's turn included).
    group: GroupCommit,
}

/// A write transaction, holding the writer's turn on SQLite until it ends
/// (fields drop in order: the transaction rolls back before the turn passes).
pub(crate) struct WriteTransaction {
    tx: Transaction<'static, Any>,
    _turn: Option<OwnedMutexGuard<()>>,
}

impl WriteTransaction {
    pub(crate) async fn commit(self) -> ServiceResult<()> {
        Ok(self.tx.commit().await?)
    }

    /// Commits after an `outcome` that is Ok, else rolls back, before the
    /// writer's turn passes: a dropped transaction's rollback runs later, and
    /// the next writer would meet SQLite's lock still held.
    pub(crate) async fn end<T, E: From<ServiceError>>(self, outcome: Result<T, E>) -> Result<T, E> {
        match outcome {
            Ok(done) => {
                self.tx.commit().await.map_err(ServiceError::from)?;
                Ok(done)
            }
            Err(error) => {
                self.tx.rollback().await.map_err(ServiceError::from)?;
                Err(error)
            }
        }
    }
}

impl Deref for WriteTransaction {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        &self.tx
    }
}

impl DerefMut for WriteTransaction {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.tx
    }
}

/// Education's entity kinds and actions in the audit log beyond the
/// portal's shared ones ([`portal_kit::audit::entity`], [`action`]).
pub mod audited {
    /// A try at a test: started, then completed with its score.
    pub const ATTEMPT: &str = "attempt";
    /// A person's choice of the daily e-mail digest (the id: the person's).
    pub const DIGEST_SETTINGS: &str = "digest-settings";
    /// A daily e-mail digest the relay took (the id: its recipient's).
    pub const DIGEST: &str = "digest";
    /// An attempt scored.
    pub const COMPLETE: &str = "complete";
    /// A digest sent.
    pub const SEND: &str = "send";
}

/// Whose view a read is for: an education manager sees everything, anyone else
/// only what is assigned to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    Everything,
    Assignee(i64),
}

/// Articles in a course assigned to the user `$1`.
const ASSIGNED_ARTICLE_IDS: &str = "SELECT ca.article_id FROM course_articles ca JOIN course_users cu ON cu.course_id = ca.course_id WHERE cu.user_id = $1";

/// Ids of the tests linked (either way) to an article in a course assigned to
/// `$1` (bound twice, as `$1` and `$2`).
const ASSIGNED_TEST_IDS: &str = "SELECT a.test_id FROM course_users cu JOIN course_articles ca ON ca.course_id = cu.course_id JOIN articles a ON a.id = ca.article_id WHERE cu.user_id = $1 AND a.test_id IS NOT NULL UNION SELECT t.id FROM course_users cu JOIN course_articles ca ON ca.course_id = cu.course_id JOIN tests t ON t.article_id = ca.article_id WHERE cu.user_id = $2";

/// A kind of content a learner sees only where a course assigned to them
/// leads to it: its columns, its table's alias and id column, the ids
/// assigned to user `$1` (bound `user_binds` times, as `$1`, `$2`, …) and the
/// NOT_FOUND message for one that is missing or hidden.
struct Assignable {
    columns: &'static str,
    alias: &'static str,
    id: &'static str,
    assigned_ids: &'static str,
    user_binds: usize,
    not_found: &'static str,
}

const ARTICLES: Assignable = Assignable {
    columns: article::ARTICLE_COLUMNS,
    alias: "a",
    id: "a.id",
    assigned_ids: ASSIGNED_ARTICLE_IDS,
    user_binds: 1,
    not_found: MSG_ARTICLE_NOT_FOUND,
};

const COURSES: Assignable = Assignable {
    columns: course::COURSE_COLUMNS,
    alias: "c",
    id: "c.id",
    assigned_ids: "SELECT cu.course_id FROM course_users cu WHERE cu.user_id = $1",
    user_binds: 1,
    not_found: MSG_COURSE_NOT_FOUND,
};

const TESTS: Assignable = Assignable {
    columns: test::TEST_COLUMNS,
    alias: "t",
    id: "t.id",
    assigned_ids: ASSIGNED_TEST_IDS,
    user_binds: 2,
    not_found: MSG_TEST_NOT_FOUND,
};

impl Assignable {
    /// The rows `viewer` sees (only the row `one`, if given): the user's binds
    /// come first, then `one` as the next `$n`.
    fn query<'q, T>(&self, viewer: Viewer, one: Option<i64>) -> QueryAs<'q, Any, T, AnyArguments>
    where
        T: for<'r> FromRow<'r, AnyRow>,
    {
        let Assignable {
            columns,
            alias: _,
            id,
            assigned_ids,
            user_binds,
            not_found: _,
        } = self;
        let (mut conditions, users) = match viewer {
            Viewer::Everything => (Vec::new(), 0),
            Viewer::Assignee(_) => (vec![format!("{id} IN ({assigned_ids})")], *user_binds),
        };
        if one.is_some() {
            conditions.push(format!("{id} = ${}", users + 1));
        }
        let filter = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{columns}{filter} ORDER BY {id}"
        )));
        if let Viewer::Assignee(user_id) = viewer {
            for _ in 0..users {
                query = query.bind(user_id);
            }
        }
        match one {
            Some(one) => query.bind(one),
            None => query,
        }
    }
}

impl Store {
    pub fn new(pool: AnyPool, backend: Backend) -> Store {
        let writer = Arc::new(Mutex::new(()));
        Store {
            group: GroupCommit::new(pool.clone(), backend, Arc::clone(&writer)),
            pool,
            backend,
            recorded: Arc::new(RecordBell::default()),
            writer,
        }
    }

    async fn visible_rows<T>(&self, kind: &Assignable, viewer: Viewer) -> ServiceResult<Vec<T>>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        Ok(kind.query(viewer, None).fetch_all(&self.pool).await?)
    }

    /// The row `id` if `viewer` may see it, else NOT_FOUND.
    async fn visible_row<T>(&self, kind: &Assignable, viewer: Viewer, id: i64) -> ServiceResult<T>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        kind.query(viewer, Some(id))
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| ServiceError::not_found(kind.not_found))
    }

    /// The row `id` of `kind` as a write's transaction sees it, whoever may
    /// see it: what the audit log compares before and after, locked until
    /// the write ends ([`for_update`]).
    async fn row_in<T>(conn: &mut AnyConnection, kind: &Assignable, id: i64) -> ServiceResult<T>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        let Assignable {
            columns,
            alias,
            id: id_column,
            ..
        } = kind;
        let select = format!("{columns} WHERE {id_column} = $1");
        sqlx::query_as(for_update(conn, &select, alias))
            .bind(id)
            .fetch_optional(conn)
            .await?
            .ok_or_else(|| ServiceError::not_found(kind.not_found))
    }

    async fn write(&self) -> ServiceResult<WriteTransaction> {
        let turn = match self.backend {
            Backend::Sqlite => Some(Arc::clone(&self.writer).lock_owned().await),
            Backend::Postgres => None,
        };
        Ok(WriteTransaction {
            tx: portal_kit::db::begin_write(&self.pool, self.backend).await?,
            _turn: turn,
        })
    }

    /// Whether anything is stored yet (demo data goes only into an empty database).
    pub async fn is_empty(&self) -> ServiceResult<bool> {
        let courses: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM courses")
            .fetch_one(&self.pool)
            .await?;
        let tests: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tests")
            .fetch_one(&self.pool)
            .await?;
        Ok(courses == 0 && tests == 0)
    }
}
