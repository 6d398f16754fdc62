//! An online copy of a live SQLite database, and what a copy says of itself.
//!
//! A service's database is in WAL mode: its newest commits may live only in
//! the `-wal` file, and a file copy taken while a writer checkpoints can tear.
//! `VACUUM INTO` runs inside one read transaction on a read-only connection,
//! so the copy is the database as of one commit, whole, while the service
//! keeps reading and writing (WAL readers block no writer).

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, SqliteConnection};

/// How long a copy waits for a lock (a checkpoint that restarts the WAL).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("{path}: {source}")]
    Sqlite {
        path: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("{path}: integrity check failed: {report}")]
    Damaged { path: String, report: String },
}

fn sqlite_error(path: &Path) -> impl FnOnce(sqlx::Error) -> SnapshotError + '_ {
    move |source| SnapshotError::Sqlite {
        path: path.display().to_string(),
        source,
    }
}

/// Opens `path` as it is, never creating it; read-only unless `writable`.
pub async fn open(path: &Path, writable: bool) -> Result<SqliteConnection, SnapshotError> {
    SqliteConnectOptions::new()
        .filename(path)
        .read_only(!writable)
        .create_if_missing(false)
        .busy_timeout(BUSY_TIMEOUT)
        .connect()
        .await
        .map_err(sqlite_error(path))
}

/// Writes a consistent copy of the live database `live` to `copy` (which must
/// not exist), one self-contained file (rollback journal, no `-wal` beside
/// it), then checks the copy's integrity.
pub async fn copy(live: &Path, copy: &Path) -> Result<(), SnapshotError> {
    let mut source = open(live, false).await?;
    sqlx::query("VACUUM INTO ?")
        .bind(copy.display().to_string())
        .execute(&mut source)
        .await
        .map_err(sqlite_error(live))?;
    source.close().await.map_err(sqlite_error(live))?;
    let mut written = open(copy, true).await?;
    sqlx::query("PRAGMA journal_mode = DELETE")
        .execute(&mut written)
        .await
        .map_err(sqlite_error(copy))?;
    let report: Vec<String> = sqlx::query_scalar("PRAGMA quick_check")
        .fetch_all(&mut written)
        .await
        .map_err(sqlite_error(copy))?;
    written.close().await.map_err(sqlite_error(copy))?;
    if report != ["ok"] {
        return Err(SnapshotError::Damaged {
            path: copy.display().to_string(),
            report: report.join("; "),
        });
    }
    Ok(())
}

/// The version of the newest migration applied to the database at `path`
/// (sqlx's `_sqlx_migrations`), or `None` for a database never migrated.
pub async fn newest_migration(path: &Path) -> Result<Option<i64>, SnapshotError> {
    let mut connection = open(path, false).await?;
    let migrated: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(&mut connection)
    .await
    .map_err(sqlite_error(path))?;
    let newest = if migrated {
        sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
            .fetch_one(&mut connection)
            .await
            .map_err(sqlite_error(path))?
    } else {
        None
    };
    connection.close().await.map_err(sqlite_error(path))?;
    Ok(newest)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

    use sqlx::Executor;

    use super::*;

    async fn live_database(path: &Path) -> sqlx::SqlitePool {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        pool.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            .await
            .unwrap();
        pool
    }

    #[tokio::test]
    async fn a_copy_taken_under_writes_holds_every_commit_before_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("live.db");
        let pool = live_database(&live).await;
        let committed = Arc::new(AtomicI64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (pool, committed, stop) = (pool.clone(), committed.clone(), stop.clone());
            tokio::spawn(async move {
                let mut id = 0;
                while !stop.load(Ordering::Relaxed) {
                    id += 1;
                    sqlx::query("INSERT INTO rows (id, body) VALUES (?, ?)")
                        .bind(id)
                        .bind("x".repeat(2000))
                        .execute(&pool)
                        .await
                        .unwrap();
                    committed.store(id, Ordering::SeqCst);
                }
            })
        };
        while committed.load(Ordering::SeqCst) < 200 {
            tokio::task::yield_now().await;
        }
        let before = committed.load(Ordering::SeqCst);
        let snapshot = dir.path().join("copy.db");
        copy(&live, &snapshot).await.unwrap();
        let after = committed.load(Ordering::SeqCst);
        stop.store(true, Ordering::Relaxed);
        writer.await.unwrap();

        let mut copied = open(&snapshot, false).await.unwrap();
        let (count, max): (i64, i64) = sqlx::query_as("SELECT COUNT(*), MAX(id) FROM rows")
            .fetch_one(&mut copied)
            .await
            .unwrap();
        // Every row up to one commit, none missing in between.
        assert_eq!(count, max);
        assert!(
            (before..=after).contains(&max),
            "{before} ≤ {max} ≤ {after}"
        );
        assert_eq!(newest_migration(&snapshot).await.unwrap(), None);
        copied.close().await.unwrap();
        assert!(!dir.path().join("copy.db-wal").exists(), "one file");
    }

    #[tokio::test]
    async fn a_missing_database_is_refused_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("auth.db");
        let error = copy(&missing, &dir.path().join("copy.db"))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("auth.db"), "{error}");
        assert!(!missing.exists());
    }
}
