//! Group commit: SQLite's one writer commits many callers' writes at once.
//!
//! A SQLite commit waits for the disk (`synchronous = FULL` syncs the WAL:
//! 0.8 ms on the bench machine), and SQLite has one writer, so writers that
//! commit one by one pass at most about 1,200 commits a second whatever the
//! CPU: the exam morning's starts and hand-ins stopped there (issue 23).
//!
//! A [`GroupCommit`] on SQLite runs its callers' writes in a task of its own:
//! it takes every write queued while the last batch committed, runs them one
//! after the other in one transaction and commits once, and answers each
//! caller only after that commit, so what a caller is told is as durable as
//! before. A write that is refused rolls the batch back; the refused one is
//! answered and the others run again in a new transaction. That costs a
//! batch its work only on a refusal, where a savepoint around every write
//! cost two more statements each (two of seven, per start or hand-in). A
//! batch that cannot commit fails each of its writes. The writes run in that
//! task, so a caller that goes away (a cancelled request) leaves no write half
//! done.
//!
//! On PostgreSQL, whose writers run side by side and whose concurrent commits
//! already share a WAL flush, each write runs in its own transaction.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use portal_kit::db::{Backend, WriteError, begin_write, retry_on_collision};
use portal_kit::{ServiceError, ServiceResult};
use sqlx::{AnyConnection, AnyPool};
use tokio::sync::{Mutex, mpsc, oneshot};

/// A write's body: what it does in the transaction it is given.
pub type WriteBody<'c, T> = Pin<Box<dyn Future<Output = Result<T, WriteError>> + Send + 'c>>;

/// At most so many writes share a commit: a batch holds SQLite's one writer
/// until it commits, and every caller of it waits for the last write.
const MAX_BATCH: usize = 64;

/// Writes waiting for the writer task; a caller past this waits to queue.
const QUEUE: usize = 1_024;

/// Where a service's hot writes go: one task per SQLite database, the pool on
/// PostgreSQL.
#[derive(Clone)]
pub struct GroupCommit {
    pool: AnyPool,
    backend: Backend,
    queue: Option<mpsc::Sender<Box<dyn Queued>>>,
}

/// A write waiting in a batch: run (again, after another's refusal rolled
/// the batch back), then answered.
trait Queued: Send {
    /// Runs the write on the batch's transaction; whether it is kept.
    fn run<'c>(
        &'c mut self,
        conn: &'c mut AnyConnection,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + 'c>>;

    /// Tells the caller the outcome of its last run, or the batch's failure.
    fn answer(self: Box<Self>, failed: Option<Arc<sqlx::Error>>);
}

/// A caller's write, its last outcome and where its answer goes.
struct Pending<T, B> {
    body: Arc<B>,
    outcome: Option<Result<T, WriteError>>,
    caller: oneshot::Sender<Result<T, WriteError>>,
}

impl<T, B> Queued for Pending<T, B>
where
    T: Send + 'static,
    B: for<'c> Fn(&'c mut AnyConnection) -> WriteBody<'c, T> + Send + Sync + 'static,
{
    fn run<'c>(
        &'c mut self,
        conn: &'c mut AnyConnection,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + 'c>> {
        Box::pin(async move {
            let outcome = (self.body)(conn).await;
            let kept = outcome.is_ok();
            self.outcome = Some(outcome);
            kept
        })
    }

    fn answer(self: Box<Self>, failed: Option<Arc<sqlx::Error>>) {
        let answer = match (failed, self.outcome) {
            (Some(error), _) => Err(WriteError::Refused(ServiceError::from(error))),
            (None, Some(outcome)) => outcome,
            (None, None) => Err(abandoned()),
        };
        // A caller that went away no longer needs its answer.
        let _ = self.caller.send(answer);
    }
}

impl GroupCommit {
    /// The writer of `pool`. On SQLite its batches take `turn`, the turn every
    /// other writer of this process takes before it begins a transaction, so
    /// none of them waits on SQLite's busy time-out behind a batch.
    pub fn new(pool: AnyPool, backend: Backend, turn: Arc<Mutex<()>>) -> GroupCommit {
        let queue = (backend == Backend::Sqlite).then(|| {
            let (sender, receiver) = mpsc::channel(QUEUE);
            tokio::spawn(write_batches(pool.clone(), turn, receiver));
            sender
        });
        GroupCommit {
            pool,
            backend,
            queue,
        }
    }

    /// Runs `body` in a write transaction and returns its outcome once that
    /// transaction has committed; a refusal (`Err`) rolls back what the body
    /// wrote. `body` may run more than once, each time rolled back but the
    /// last: on SQLite after another write of its batch was refused, on
    /// PostgreSQL after it collided with a concurrent writer on a unique index
    /// ([`retry_on_collision`]). It decides from what it reads in the
    /// transaction.
    pub async fn write<T, B>(&self, body: B) -> ServiceResult<T>
    where
        T: Send + 'static,
        B: for<'c> Fn(&'c mut AnyConnection) -> WriteBody<'c, T> + Send + Sync + 'static,
    {
        let body = Arc::new(body);
        retry_on_collision(|| self.write_once(Arc::clone(&body))).await
    }

    async fn write_once<T, B>(&self, body: Arc<B>) -> Result<T, WriteError>
    where
        T: Send + 'static,
        B: for<'c> Fn(&'c mut AnyConnection) -> WriteBody<'c, T> + Send + Sync + 'static,
    {
        let Some(queue) = &self.queue else {
            let mut tx = begin_write(&self.pool, self.backend).await?;
            let outcome = body(&mut tx).await;
            return match outcome {
                Ok(done) => {
                    tx.commit().await?;
                    Ok(done)
                }
                Err(error) => {
                    tx.rollback().await?;
                    Err(error)
                }
            };
        };
        let (caller, answer) = oneshot::channel();
        let pending = Pending {
            body,
            outcome: None,
            caller,
        };
        queue
            .send(Box::new(pending))
            .await
            .map_err(|_| abandoned())?;
        answer.await.map_err(|_| abandoned())?
    }
}

/// A write that never ran: the writer task stopped.
fn abandoned() -> WriteError {
    WriteError::Refused(ServiceError::internal(
        "the group commit's writer stopped before this write ran",
    ))
}

/// The writer task: a batch at a time, until every sender is gone.
async fn write_batches(
    pool: AnyPool,
    turn: Arc<Mutex<()>>,
    mut queue: mpsc::Receiver<Box<dyn Queued>>,
) {
    while let Some(first) = queue.recv().await {
        let _turn = turn.lock().await;
        // The writes that queued meanwhile join the first.
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(write) => batch.push(write),
                Err(_) => break,
            }
        }
        metrics::histogram!("portal_db_group_commit_writes").record(batch.len() as f64);
        let writes = batch.len();
        let (kept, failed) = match run_batch(&pool, batch).await {
            Ok(kept) => (kept, None),
            Err((kept, error)) => {
                tracing::error!(%error, writes, "a group commit failed");
                (kept, Some(Arc::new(error)))
            }
        };
        for write in kept {
            write.answer(failed.clone());
        }
    }
}

/// Runs `batch` in one transaction and commits it: the writes kept, to be
/// answered. A refused write rolls the transaction back, is answered at once,
/// and the rest run again; on an error the writes left are returned with it.
async fn run_batch(
    pool: &AnyPool,
    mut batch: Vec<Box<dyn Queued>>,
) -> Result<Vec<Box<dyn Queued>>, (Vec<Box<dyn Queued>>, sqlx::Error)> {
    'batch: while !batch.is_empty() {
        let mut tx = match pool.begin_with("BEGIN IMMEDIATE").await {
            Ok(tx) => tx,
            Err(error) => return Err((batch, error)),
        };
        for index in 0..batch.len() {
            if !batch[index].run(&mut tx).await {
                if let Err(error) = tx.rollback().await {
                    return Err((batch, error));
                }
                batch.remove(index).answer(None);
                continue 'batch;
            }
        }
        return match tx.commit().await {
            Ok(()) => Ok(batch),
            Err(error) => Err((batch, error)),
        };
    }
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use portal_kit::testing::{TestDatabase, backends};
    use sqlx::Executor;

    use super::*;

    async fn table(backend: Backend) -> (AnyPool, TestDatabase) {
        let db = TestDatabase::new(backend).await;
        let pool = AnyPool::connect(&db.url).await.unwrap();
        if backend == Backend::Sqlite {
            pool.execute("PRAGMA journal_mode = WAL").await.unwrap();
        }
        pool.execute("CREATE TABLE writes (id BIGINT PRIMARY KEY, caller BIGINT NOT NULL)")
            .await
            .unwrap();
        (pool, db)
    }

    fn insert(
        caller: i64,
        refuse: bool,
    ) -> impl for<'c> Fn(&'c mut AnyConnection) -> WriteBody<'c, i64> + Send + 'static {
        move |conn| {
            Box::pin(async move {
                sqlx::query("INSERT INTO writes (id, caller) VALUES ($1, $1)")
                    .bind(caller)
                    .execute(&mut *conn)
                    .await?;
                if refuse {
                    return Err(WriteError::Refused(ServiceError::conflict("refused")));
                }
                Ok(caller)
            })
        }
    }

    async fn callers(pool: &AnyPool) -> Vec<i64> {
        sqlx::query_scalar("SELECT caller FROM writes ORDER BY caller")
            .fetch_all(pool)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn writes_queued_behind_a_writer_commit_together_and_a_refused_one_leaves_nothing() {
        let (pool, _db) = table(Backend::Sqlite).await;
        let turn = Arc::new(Mutex::new(()));
        let group = GroupCommit::new(pool.clone(), Backend::Sqlite, Arc::clone(&turn));

        // Another writer of the process holds the turn while ten writes queue.
        let held = turn.lock().await;
        let writes: Vec<_> = (0..10)
            .map(|caller| {
                let group = group.clone();
                tokio::spawn(async move { group.write(insert(caller, caller == 4)).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(callers(&pool).await.is_empty());
        drop(held);

        let mut writes = writes.into_iter();
        let first = writes.next().unwrap().await.unwrap();
        assert_eq!(first.unwrap(), 0);
        // The first caller is answered after the one commit of all ten.
        assert_eq!(callers(&pool).await, vec![0, 1, 2, 3, 5, 6, 7, 8, 9]);
        for (caller, write) in (1..).zip(writes) {
            match write.await.unwrap() {
                Ok(done) => assert_eq!(done, caller),
                Err(ServiceError::Conflict(_)) => assert_eq!(caller, 4),
                Err(other) => panic!("caller {caller}: {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn a_lone_write_is_committed_when_its_caller_hears_and_a_refused_one_leaves_nothing() {
        for backend in backends() {
            let (pool, _db) = table(backend).await;
            let group = GroupCommit::new(pool.clone(), backend, Arc::new(Mutex::new(())));
            for caller in 0..3 {
                assert_eq!(group.write(insert(caller, false)).await.unwrap(), caller);
                assert_eq!(callers(&pool).await, (0..=caller).collect::<Vec<_>>());
            }
            assert!(matches!(
                group.write(insert(9, true)).await,
                Err(ServiceError::Conflict(_))
            ));
            assert_eq!(callers(&pool).await, vec![0, 1, 2], "{backend:?}");
        }
    }
}
