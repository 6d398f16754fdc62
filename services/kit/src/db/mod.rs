//! One database layer for both backends: sqlx's Any driver, migrations per backend
//! embedded in the binary and chosen from the connection at start.
//!
//! Through Any, BOOLEAN and TIMESTAMP columns do not decode: flags are INTEGER 0/1,
//! instants BIGINT Unix milliseconds, calendar dates TEXT `YYYY-MM-DD`.

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use sqlx::any::{Any, AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::pool::PoolConnection;
use sqlx::{AnyConnection, AnyPool, AssertSqlSafe, Connection, Executor, Transaction};

pub mod schema;

use crate::{ServiceError, ServiceResult};
use schema::{MigrateMode, Migrated, SchemaError};

/// How long a pooled connection may sit idle before it is pinged when handed out:
/// one idle through a database restart is broken, and is replaced rather than
/// failing a call once the database is back. A busy pool's are never pinged.
const IDLE_BEFORE_PING: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn of_url(url: &str) -> Option<Backend> {
        if url.starts_with("sqlite:") {
            Some(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Backend::Postgres)
        } else {
            None
        }
    }

    /// The backend `conn` talks to.
    pub fn of_connection(conn: &AnyConnection) -> Backend {
        // sqlx's names of its drivers (`Database::NAME`).
        if conn.backend_name() == "PostgreSQL" {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }
}

/// A service's migrations for each backend: `sqlx::migrate!("migrations/sqlite")`
/// and `sqlx::migrate!("migrations/postgres")`, with what its release promises
/// older binaries (`crate::schema`).
pub struct Migrations {
    pub sqlite: Migrator,
    pub postgres: Migrator,
    /// The release's version, named when a binary refuses a schema.
    pub release: &'static str,
    /// The oldest migration a binary must know (its newest at least this) to
    /// run on the schema this release leaves: the service's
    /// `OLDEST_COMPATIBLE_READER`.
    pub oldest_reader: i64,
}

/// A service's database as its start opens it.
#[derive(Clone, Debug)]
pub struct DatabaseSettings {
    pub url: SecretString,
    pub migrate: MigrateMode,
}

/// A URL alone migrates at start, as one machine does.
impl From<&str> for DatabaseSettings {
    fn from(url: &str) -> Self {
        DatabaseSettings {
            url: url.into(),
            migrate: MigrateMode::Auto,
        }
    }
}

impl From<String> for DatabaseSettings {
    fn from(url: String) -> Self {
        url.as_str().into()
    }
}

#[derive(Clone, Debug)]
pub struct Database {
    pub pool: AnyPool,
    pub backend: Backend,
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("unsupported database URL (expected sqlite: or postgres://)")]
    UnsupportedUrl,
    #[error("connecting to the database: {0}")]
    Connect(#[source] sqlx::Error),
    #[error(transparent)]
    Schema(#[from] SchemaError),
}

impl Database {
    /// Connects and brings the schema up to date.
    pub async fn connect(url: &str, migrations: &Migrations) -> Result<Database, DbError> {
        Database::open(&DatabaseSettings::from(url), migrations).await
    }

    /// Connects, then brings the schema up to date or, under
    /// `PORTAL_MIGRATE=check`, only checks that this binary may run on it.
    pub async fn open(
        settings: &DatabaseSettings,
        migrations: &Migrations,
    ) -> Result<Database, DbError> {
        let database = Database::connect_as_is(settings.url.expose_secret()).await?;
        match settings.migrate {
            MigrateMode::Auto => {
                database.migrate(migrations).await?;
            }
            MigrateMode::Check => database.check_schema(migrations).await?,
        }
        Ok(database)
    }

    /// Connects, leaving the schema as it is.
    async fn connect_as_is(url: &str) -> Result<Database, DbError> {
        let (pool, backend) = open_pool(url, POOL_CONNECTIONS).await?;
        crate::metrics::watch_pool(crate::metrics::database_name(url), &pool);
        Ok(Database { pool, backend })
    }

    /// A small pool of its own on the same database, for work that must not
    /// queue behind a flood on the shared pool (auth: a known device's sign-in
    /// while strangers guess). Its `connections` come on top of the shared
    /// pool's; its metrics are `name`'s.
    pub async fn lane(
        settings: &DatabaseSettings,
        connections: u32,
        name: &str,
    ) -> Result<AnyPool, DbError> {
        let url = settings.url.expose_secret();
        let (pool, _) = open_pool(url, connections).await?;
        crate::metrics::watch_pool(
            format!("{}-{name}", crate::metrics::database_name(url)),
            &pool,
        );
        Ok(pool)
    }

    /// Brings the schema up to date (`crate::schema`): `portal migrate`, or a
    /// start under `PORTAL_MIGRATE=auto`.
    pub async fn migrate(&self, migrations: &Migrations) -> Result<Migrated, DbError> {
        let mut connection = self.schema_connection().await?;
        Ok(schema::bring_up_to_date(&mut connection, self.backend, migrations).await?)
    }

    /// Checks that this binary may run on the schema, writing nothing.
    pub async fn check_schema(&self, migrations: &Migrations) -> Result<(), DbError> {
        let mut connection = self.schema_connection().await?;
        Ok(schema::check(&mut connection, self.backend, migrations).await?)
    }

    /// A connection of the pool that is closed after the schema step, not
    /// handed back: one that failed part-way may still hold the migration lock.
    async fn schema_connection(&self) -> Result<PoolConnection<Any>, DbError> {
        let mut connection = self.pool.acquire().await.map_err(DbError::Connect)?;
        connection.close_on_drop();
        Ok(connection)
    }
}

/// Makes a SQLite database file its owner's alone (it holds password hashes
/// and every record), created so before SQLite would create it under the
/// umask when the URL lets it be created.
fn own_sqlite_file(url: &str) -> std::io::Result<()> {
    use std::str::FromStr;
    let Ok(options) = sqlx::sqlite::SqliteConnectOptions::from_str(url) else {
        return Ok(()); // sqlx refuses the URL itself, with its own words
    };
    let path = options.get_filename();
    if url.contains("mode=memory") || path == std::path::Path::new(":memory:") {
        Ok(())
    } else if path.exists() {
        crate::private_fs::restrict(path, 0o600)
    } else if url.contains("mode=rwc") {
        crate::private_fs::own_file(path)
    } else {
        Ok(())
    }
}

/// The shared pool's connections: what a service's queries share.
const POOL_CONNECTIONS: u32 = 8;

/// A pool of at most `max_connections` on `url`, set up as every pool is.
async fn open_pool(url: &str, max_connections: u32) -> Result<(AnyPool, Backend), DbError> {
    install_default_drivers();
    let backend = Backend::of_url(url).ok_or(DbError::UnsupportedUrl)?;
    if backend == Backend::Sqlite {
        own_sqlite_file(url).map_err(|error| DbError::Connect(sqlx::Error::Io(error)))?;
    }
    let mut options = AnyPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(10))
        // sqlx pings every connection it hands out by default: a round trip
        // to the database (or SQLite's worker thread) per query, as dear as
        // the query. Only a connection idle long enough for a server or a
        // firewall to have dropped it is pinged; a busy pool's are not.
        .test_before_acquire(false)
        .before_acquire(|connection, meta| {
            Box::pin(async move {
                if meta.idle_for >= IDLE_BEFORE_PING {
                    connection.ping().await?;
                }
                Ok(true)
            })
        });
    if backend == Backend::Sqlite {
        options = options.after_connect(|connection, _| {
            Box::pin(async move {
                connection.execute("PRAGMA foreign_keys = ON").await?;
                connection.execute("PRAGMA busy_timeout = 5000").await?;
                // Reads through a mapping of the file, not a read call per
                // page into each connection's 2 MB cache: a search joins
                // thousands of index hits to their rows (issue 25's bench: a
                // common word's hits at 50,000 rows, 850 ms → 20 ms). The
                // pages are the kernel's cache, shared by every connection.
                connection.execute("PRAGMA mmap_size = 1073741824").await?;
                Ok(())
            })
        });
    }
    let pool = options.connect(url).await.map_err(DbError::Connect)?;
    if backend == Backend::Sqlite {
        pool.execute("PRAGMA journal_mode = WAL")
            .await
            .map_err(DbError::Connect)?;
    }
    Ok((pool, backend))
}

/// `portal migrate` of one database: connects, brings the schema up to date
/// and lets go.
pub async fn migrate(url: &str, migrations: &Migrations) -> Result<Migrated, DbError> {
    let database = Database::connect_as_is(url).await?;
    let migrated = database.migrate(migrations).await;
    database.pool.close().await;
    migrated
}

/// A service's [`Migrations`], from `migrations/sqlite` and `migrations/postgres`
/// of the crate that invokes it, of its crate's release, whose schema runs
/// binaries that know `$oldest_reader`.
#[macro_export]
macro_rules! migrations {
    ($oldest_reader:expr) => {
        $crate::db::Migrations {
            sqlite: ::sqlx::migrate!("migrations/sqlite"),
            postgres: ::sqlx::migrate!("migrations/postgres"),
            release: env!("CARGO_PKG_VERSION"),
            oldest_reader: $oldest_reader,
        }
    };
}

/// A write transaction on `pool` of `backend`. On SQLite it starts with
/// `BEGIN IMMEDIATE`, so two writers queue on the busy timeout instead of
/// failing to upgrade a read lock.
pub async fn begin_write(
    pool: &AnyPool,
    backend: Backend,
) -> ServiceResult<Transaction<'static, Any>> {
    Ok(match backend {
        Backend::Sqlite => pool.begin_with("BEGIN IMMEDIATE").await?,
        Backend::Postgres => pool.begin().await?,
    })
}

/// `($first, $first+1, …)` for `count` binds: one row of a multi-row
/// INSERT, or an IN list (the Any driver binds no arrays).
pub fn placeholders(first: usize, count: usize) -> String {
    let list: Vec<String> = (first..first + count).map(|i| format!("${i}")).collect();
    format!("({})", list.join(", "))
}

/// `select` as a write transaction on `conn` reads rows it is about to
/// change, to decide on them or to record them as the audit log's "old": on
/// PostgreSQL with `FOR UPDATE OF rows` (a table or its alias; a joined
/// table's rows stay unlocked), so a concurrent writer of the same rows
/// waits for this one's commit and then reads what it wrote, rather than
/// both reading the same "old". SQLite's writers hold the whole database
/// from `BEGIN IMMEDIATE` ([`begin_write`]), and a read outside a
/// transaction would lock nothing beyond its statement: both are read as
/// they are.
pub fn for_update(conn: &AnyConnection, select: &str, rows: &str) -> AssertSqlSafe<String> {
    let locks = Backend::of_connection(conn) == Backend::Postgres && conn.is_in_transaction();
    AssertSqlSafe(if locks {
        format!("{select} FOR UPDATE OF {rows}")
    } else {
        select.to_owned()
    })
}

/// Whether a write was refused by a unique index: the one check that holds
/// against concurrent writers, so a write is tried and this read from its error.
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(database) if database.is_unique_violation())
}

/// Whether a write was refused by a foreign key.
pub fn is_foreign_key_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(database) if database.is_foreign_key_violation())
}

/// A write's error: a unique violation as the conflict `conflict` makes (a
/// login, a title taken), anything else as it is.
pub fn conflict_on_unique(
    error: sqlx::Error,
    conflict: impl FnOnce() -> ServiceError,
) -> ServiceError {
    if is_unique_violation(&error) {
        conflict()
    } else {
        error.into()
    }
}

/// Why a write transaction stopped: a refusal, or a collision on a unique index
/// with a concurrent writer, after which [`retry_on_collision`] runs it again.
#[derive(Debug)]
pub enum WriteError {
    Collided,
    Refused(ServiceError),
}

impl From<sqlx::Error> for WriteError {
    fn from(error: sqlx::Error) -> Self {
        if is_unique_violation(&error) {
            WriteError::Collided
        } else {
            WriteError::Refused(error.into())
        }
    }
}

impl From<ServiceError> for WriteError {
    fn from(error: ServiceError) -> Self {
        WriteError::Refused(error)
    }
}

/// Each collision means a concurrent writer's transaction committed first, so
/// the next try usually wins; a write that loses this often is refused as
/// overloaded (the caller may try again later) rather than held without end.
const MAX_TRIES: u32 = 12;
/// The pause before the second try; each later one doubles, up to
/// [`MAX_PAUSE`]. A random part of it is waited ("full jitter"), so writers
/// that collided spread out instead of meeting again at the same instant.
const FIRST_PAUSE: Duration = Duration::from_millis(2);
const MAX_PAUSE: Duration = Duration::from_millis(200);

/// Runs a write transaction (`run` begins and commits it) until it does not
/// collide with a concurrent writer on a unique index (PostgreSQL's writers do
/// not queue as SQLite's do), pausing a little longer after each collision.
pub async fn retry_on_collision<T, F>(mut run: impl FnMut() -> F) -> ServiceResult<T>
where
    F: Future<Output = Result<T, WriteError>>,
{
    let mut pause = FIRST_PAUSE;
    for attempt in 1..=MAX_TRIES {
        match run().await {
            Ok(done) => return Ok(done),
            Err(WriteError::Collided) if attempt < MAX_TRIES => {
                tokio::time::sleep(jittered(pause)).await;
                pause = (pause * 2).min(MAX_PAUSE);
            }
            Err(WriteError::Collided) => break,
            Err(WriteError::Refused(error)) => return Err(error),
        }
    }
    tracing::warn!(
        tries = MAX_TRIES,
        "a write kept colliding with concurrent writers"
    );
    Err(
        ServiceError::Unavailable(crate::error::MSG_OVERLOADED.into())
            .because(REASON_WRITE_CONTENDED),
    )
}

/// The reason of a write refused after [`MAX_TRIES`] collisions.
pub const REASON_WRITE_CONTENDED: &str = "write-contended";

fn jittered(pause: Duration) -> Duration {
    use rand::Rng;
    pause.mul_f64(rand::thread_rng().r#gen::<f64>())
}

/// A table whose rows carry a uniquely indexed key computed in Rust from a
/// text: names unique as people read them (SQLite's `lower` folds only ASCII).
pub struct Keyed {
    pub table: &'static str,
    pub text: &'static str,
    pub key: &'static str,
}

/// Sets each row's key column to `key` of its text where it differs (rows from
/// before the key existed, or keyed by an older rule), run at start. A key
/// another row holds already is left unset, and the log names the row, for an
/// admin to rename one of the pair.
pub async fn rekey(
    pool: &AnyPool,
    keyed: &Keyed,
    key: impl Fn(&str) -> String,
) -> ServiceResult<()> {
    let Keyed {
        table,
        text,
        key: key_column,
    } = keyed;
    let rows: Vec<(i64, String, Option<String>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT id, {text}, {key_column} FROM {table} ORDER BY id"
    )))
    .fetch_all(pool)
    .await?;
    for (id, value, stored) in rows {
        let wanted = key(&value);
        if stored.as_deref() == Some(wanted.as_str()) {
            continue;
        }
        let updated = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE {table} SET {key_column} = $1 WHERE id = $2"
        )))
        .bind(&wanted)
        .bind(id)
        .execute(pool)
        .await;
        match updated {
            Ok(_) => {}
            Err(error) if is_unique_violation(&error) => {
                tracing::warn!(table, id, %value, "another row reads the same; rename one of them");
            }
            Err(error) => return Err(error.into()),
        }
    }
    Ok(())
}

/// Milliseconds since the Unix epoch, the stored form of an instant.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// A stored instant as a protobuf timestamp.
pub fn timestamp_from_millis(millis: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: millis.div_euclid(1000),
        nanos: i32::try_from(millis.rem_euclid(1000) * 1_000_000).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{TestDatabase, backends};

    #[tokio::test(start_paused = true)]
    async fn a_collision_is_tried_again_after_a_pause() {
        let mut runs = 0;
        let started = tokio::time::Instant::now();
        let written = retry_on_collision(|| {
            runs += 1;
            let collided = runs < 3;
            async move {
                if collided {
                    Err(WriteError::Collided)
                } else {
                    Ok(runs)
                }
            }
        })
        .await;
        assert_eq!(written.ok(), Some(3));
        assert!(
            started.elapsed() <= FIRST_PAUSE * 3,
            "two short pauses at most"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_that_keeps_colliding_is_refused_as_overloaded_after_a_bounded_wait() {
        let mut runs = 0;
        let started = tokio::time::Instant::now();
        let refused = retry_on_collision(|| {
            runs += 1;
            async { Err::<(), _>(WriteError::Collided) }
        })
        .await;
        assert_eq!(runs, MAX_TRIES);
        let refusal = refused.expect_err("refused");
        assert_eq!(refusal.reason(), Some(REASON_WRITE_CONTENDED));
        assert_eq!(
            tonic::Status::from(refusal).code(),
            tonic::Code::Unavailable
        );
        assert!(
            started.elapsed() <= MAX_PAUSE * MAX_TRIES,
            "the pauses are bounded"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_refusal_is_not_tried_again() {
        let mut runs = 0;
        let refused = retry_on_collision(|| {
            runs += 1;
            async { Err::<(), _>(WriteError::Refused(ServiceError::conflict("taken"))) }
        })
        .await;
        assert_eq!(runs, 1);
        assert!(matches!(refused, Err(ServiceError::Conflict(_))));
    }

    async fn name_of(conn: &mut AnyConnection) -> String {
        sqlx::query_scalar(for_update(
            conn,
            "SELECT name FROM things WHERE id = 1",
            "things",
        ))
        .fetch_one(&mut *conn)
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_write_reading_for_update_waits_for_the_write_before_it_and_reads_its_result() {
        for backend in backends() {
            let db = TestDatabase::new(backend).await;
            let pool = AnyPool::connect(&db.url).await.unwrap();
            pool.execute("CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT NOT NULL)")
                .await
                .unwrap();
            pool.execute("INSERT INTO things (id, name) VALUES (1, 'old')")
                .await
                .unwrap();
            let mut first = begin_write(&pool, backend).await.unwrap();
            assert_eq!(name_of(&mut first).await, "old");
            let second = tokio::spawn({
                let pool = pool.clone();
                async move {
                    let mut second = begin_write(&pool, backend).await.unwrap();
                    let read = name_of(&mut second).await;
                    second.commit().await.unwrap();
                    read
                }
            });
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert!(!second.is_finished(), "{backend:?}: the second read waits");
            sqlx::query("UPDATE things SET name = 'new' WHERE id = 1")
                .execute(&mut *first)
                .await
                .unwrap();
            first.commit().await.unwrap();
            assert_eq!(second.await.unwrap(), "new", "{backend:?}");
            // Outside a transaction nothing is locked: the read is as written.
            let mut conn = pool.acquire().await.unwrap();
            assert_eq!(name_of(&mut conn).await, "new");
        }
    }

    #[test]
    fn placeholders_number_on_from_the_first() {
        assert_eq!(placeholders(3, 2), "($3, $4)");
    }
}
