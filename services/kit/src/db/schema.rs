//! A service's schema across releases (ARCHITECTURE.md, invariants:
//! "Migrations: expand, then contract"): the step that brings a database up to date (`portal
//! migrate`, or a service's start under `PORTAL_MIGRATE=auto`), the check a
//! start makes under `PORTAL_MIGRATE=check`, and the mark by which a release
//! says which older binaries still run on the schema it leaves.
//!
//! The mark is kit's own table, `schema_releases`, outside every service's
//! migration set: one row per release that migrated the database, holding that
//! release's newest migration and the oldest migration a binary must know to
//! run on its schema. A binary refuses a database holding migrations it does not
//! know unless the release that applied them marked it compatible; it always
//! refuses a known migration whose applied text differs from its own.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use clap::ValueEnum;
use sqlx::AnyConnection;
use sqlx::migrate::{AppliedMigration, Migrate, MigrateError, Migrator};

use crate::db::{Backend, Migrations};

/// What a service's start does with its database's schema (`PORTAL_MIGRATE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MigrateMode {
    /// Applies its missing migrations first, as `portal migrate` would: one
    /// machine, where nothing else runs them.
    Auto,
    /// Never migrates: refuses to start unless its migrations are all applied
    /// (by `portal migrate`, an init container in Kubernetes).
    Check,
}

/// sqlx's record of applied migrations.
const APPLIED_TABLE: &str = "_sqlx_migrations";
/// Kit's record of the releases that migrated the database.
const RELEASES_TABLE: &str = "schema_releases";

#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("reading or writing the schema's records: {0}")]
    Database(#[from] sqlx::Error),
    #[error("applying migrations: {0}")]
    Migrate(#[from] MigrateError),
    #[error(
        "migration {version} failed part-way in an earlier run (unsuccessful in {APPLIED_TABLE}): repair the database by hand, then run `portal migrate`"
    )]
    Dirty { version: i64 },
    #[error(
        "migration {version} ({description}) was applied with other contents than this binary's: a released migration must never change"
    )]
    Changed { version: i64, description: String },
    #[error(
        "the schema is newer than this binary and not marked compatible with it: this binary is release {binary}; the database holds {database}. Deploy that release (or a newer one) again, or restore the database from before its migration"
    )]
    TooNew {
        binary: Release,
        database: DatabaseRelease,
    },
    #[error(
        "migrations {missing} of this binary (release {binary}) are not applied, and PORTAL_MIGRATE=check never migrates: run `portal migrate` with this service's settings first"
    )]
    NotMigrated { missing: Versions, binary: Release },
}

/// A release as a refusal names it: its version and its newest migration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub version: String,
    pub newest_migration: i64,
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (newest migration {})",
            self.version, self.newest_migration
        )
    }
}

/// What a database says of the release that last migrated it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseRelease {
    /// The newest migration applied.
    pub newest_migration: i64,
    /// The mark of the release that applied it, if that release left one.
    pub mark: Option<Mark>,
}

impl fmt::Display for DatabaseRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.mark {
            Some(mark) if mark.newest_migration >= self.newest_migration => write!(
                f,
                "migration {} of release {}, which runs binaries whose newest migration is {} or later",
                self.newest_migration, mark.release, mark.oldest_reader
            ),
            _ => write!(
                f,
                "migration {}, applied by a release that left no compatibility mark",
                self.newest_migration
            ),
        }
    }
}

/// One release's row of `schema_releases`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub release: String,
    pub newest_migration: i64,
    pub oldest_reader: i64,
}

/// Migration versions as a refusal lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versions(pub Vec<i64>);

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listed: Vec<String> = self.0.iter().map(i64::to_string).collect();
        f.write_str(&listed.join(", "))
    }
}

/// What bringing a database up to date did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migrated {
    /// This binary's migrations applied now, oldest first.
    pub applied: Vec<i64>,
    /// The newest migration the database holds afterwards (a newer release's
    /// when this binary is the older one).
    pub newest_migration: i64,
}

impl Migrations {
    fn for_backend(&self, backend: Backend) -> &Migrator {
        match backend {
            Backend::Sqlite => &self.sqlite,
            Backend::Postgres => &self.postgres,
        }
    }

    /// This binary's release as refusals name it.
    fn release(&self, backend: Backend) -> Release {
        Release {
            version: self.release.to_owned(),
            newest_migration: newest(self.for_backend(backend)),
        }
    }
}

fn newest(migrator: &Migrator) -> i64 {
    migrator.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Applies this binary's missing migrations and records its mark, all under
/// the migration lock (PostgreSQL's advisory lock; SQLite's file is one
/// process's), so replicas and `portal migrate` runs take turns. A database one
/// release newer is left as it is when that release marked this binary
/// compatible, and refused otherwise.
pub async fn bring_up_to_date(
    connection: &mut AnyConnection,
    backend: Backend,
    migrations: &Migrations,
) -> Result<Migrated, SchemaError> {
    connection.lock().await?;
    let migrated = migrate_locked(connection, backend, migrations).await;
    // A failed run leaves the lock to the connection's end: the caller closes
    // it rather than reuse it (`Database::migrate`).
    if migrated.is_ok() {
        connection.unlock().await?;
    }
    migrated
}

async fn migrate_locked(
    connection: &mut AnyConnection,
    backend: Backend,
    migrations: &Migrations,
) -> Result<Migrated, SchemaError> {
    let own = migrations.for_backend(backend);
    connection.ensure_migrations_table(APPLIED_TABLE).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE TABLE IF NOT EXISTS {RELEASES_TABLE} (
            newest_migration BIGINT PRIMARY KEY,
            oldest_reader BIGINT NOT NULL,
            release_version TEXT NOT NULL,
            migrated_at BIGINT NOT NULL
        )"
    )))
    .execute(&mut *connection)
    .await?;
    let applied = applied_migrations(connection).await?;
    judge(&applied, migrations, backend, connection).await?;

    // Checked above: every known applied migration is unchanged, and any
    // unknown one is a newer release's that marked this binary compatible.
    let before: BTreeSet<i64> = applied.iter().map(|m| m.version).collect();
    let applied_now = not_among(own, &before);
    for migration in own.iter().filter(|m| applied_now.contains(&m.version)) {
        connection.apply(APPLIED_TABLE, migration).await?;
    }
    let own_newest = newest(own);
    // A restart of the same release leaves its row (and when it migrated) alone.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {RELEASES_TABLE} (newest_migration, oldest_reader, release_version, migrated_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (newest_migration) DO UPDATE SET oldest_reader = excluded.oldest_reader,
             release_version = excluded.release_version, migrated_at = excluded.migrated_at
         WHERE {RELEASES_TABLE}.oldest_reader <> excluded.oldest_reader
            OR {RELEASES_TABLE}.release_version <> excluded.release_version"
    )))
    .bind(own_newest)
    .bind(migrations.oldest_reader)
    .bind(migrations.release)
    .bind(crate::db::now_millis())
    .execute(&mut *connection)
    .await?;
    Ok(Migrated {
        applied: applied_now,
        newest_migration: before.last().map_or(own_newest, |&n| n.max(own_newest)),
    })
}

/// Checks, without writing anything, that this binary may run on the schema:
/// its own migrations all applied and unchanged, and anything newer marked
/// compatible with it.
pub async fn check(
    connection: &mut AnyConnection,
    backend: Backend,
    migrations: &Migrations,
) -> Result<(), SchemaError> {
    let applied = if table_exists(connection, backend, APPLIED_TABLE).await? {
        applied_migrations(connection).await?
    } else {
        Vec::new()
    };
    judge(&applied, migrations, backend, connection).await?;
    let present: BTreeSet<i64> = applied.iter().map(|m| m.version).collect();
    let missing = not_among(migrations.for_backend(backend), &present);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(SchemaError::NotMigrated {
            missing: Versions(missing),
            binary: migrations.release(backend),
        })
    }
}

/// The versions of `own` that `applied` lacks, oldest first (up migrations:
/// the services write no others).
fn not_among(own: &Migrator, applied: &BTreeSet<i64>) -> Vec<i64> {
    own.iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .map(|m| m.version)
        .filter(|version| !applied.contains(version))
        .collect()
}

/// The applied migrations, refused when one failed part-way.
async fn applied_migrations(
    connection: &mut AnyConnection,
) -> Result<Vec<AppliedMigration>, SchemaError> {
    if let Some(version) = connection.dirty_version(APPLIED_TABLE).await? {
        return Err(SchemaError::Dirty { version });
    }
    Ok(connection.list_applied_migrations(APPLIED_TABLE).await?)
}

/// Whether this binary may run on a schema holding `applied`: every migration
/// it knows is applied as it knows it, and any it does not know is covered by
/// a mark that names a reader no newer than it.
async fn judge(
    applied: &[AppliedMigration],
    migrations: &Migrations,
    backend: Backend,
    connection: &mut AnyConnection,
) -> Result<(), SchemaError> {
    let own = migrations.for_backend(backend);
    let known: BTreeMap<i64, _> = own.iter().map(|m| (m.version, m)).collect();
    let mut unknown_newest = None;
    for applied in applied {
        match known.get(&applied.version) {
            Some(migration) if migration.checksum != applied.checksum => {
                return Err(SchemaError::Changed {
                    version: applied.version,
                    description: migration.description.to_string(),
                });
            }
            Some(_) => {}
            None => unknown_newest = unknown_newest.max(Some(applied.version)),
        }
    }
    let Some(database_newest) = unknown_newest else {
        return Ok(());
    };
    let database = DatabaseRelease {
        newest_migration: database_newest,
        mark: newest_mark(connection, backend).await?,
    };
    let binary = migrations.release(backend);
    let compatible = database.mark.as_ref().is_some_and(|mark| {
        mark.newest_migration >= database_newest && mark.oldest_reader <= binary.newest_migration
    });
    if compatible {
        Ok(())
    } else {
        Err(SchemaError::TooNew { binary, database })
    }
}

/// The mark of the newest release that migrated the database.
async fn newest_mark(
    connection: &mut AnyConnection,
    backend: Backend,
) -> Result<Option<Mark>, SchemaError> {
    if !table_exists(connection, backend, RELEASES_TABLE).await? {
        return Ok(None);
    }
    let row: Option<(String, i64, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT release_version, newest_migration, oldest_reader FROM {RELEASES_TABLE}
         ORDER BY newest_migration DESC LIMIT 1"
    )))
    .fetch_optional(&mut *connection)
    .await?;
    Ok(row.map(|(release, newest_migration, oldest_reader)| Mark {
        release,
        newest_migration,
        oldest_reader,
    }))
}

async fn table_exists(
    connection: &mut AnyConnection,
    backend: Backend,
    table: &str,
) -> Result<bool, sqlx::Error> {
    let sql = match backend {
        Backend::Sqlite => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
        Backend::Postgres => {
            "SELECT COUNT(*) FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name = $1"
        }
    };
    let (count,): (i64,) = sqlx::query_as(sql)
        .bind(table)
        .fetch_one(&mut *connection)
        .await?;
    Ok(count > 0)
}

#[cfg(test)]
mod tests {
    use sqlx::migrate::{Migration, MigrationType};
    use sqlx::{Connection, SqlSafeStr};

    use super::*;
    use crate::testing::{TestDatabase, backends};

    /// Release N's migrations, and N+1's: an expand step (a nullable column, a
    /// new table) that keeps N running.
    const RELEASE_N: &[(i64, &str)] = &[
        (
            1,
            "CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT NOT NULL)",
        ),
        (2, "CREATE INDEX notes_by_body ON notes (body)"),
    ];
    const EXPAND: (i64, &str) = (
        3,
        "ALTER TABLE notes ADD COLUMN author TEXT; CREATE TABLE tags (note_id BIGINT NOT NULL, tag TEXT NOT NULL)",
    );

    fn release(
        version: &'static str,
        oldest_reader: i64,
        steps: &[(i64, &'static str)],
    ) -> Migrations {
        let migrator = || {
            Migrator::with_migrations(
                steps
                    .iter()
                    .map(|&(number, sql)| {
                        Migration::new(
                            number,
                            format!("step {number}").into(),
                            MigrationType::Simple,
                            sql.into_sql_str(),
                            false,
                        )
                    })
                    .collect(),
            )
        };
        Migrations {
            sqlite: migrator(),
            postgres: migrator(),
            release: version,
            oldest_reader,
        }
    }

    fn next_release(oldest_reader: i64) -> Migrations {
        let mut steps = RELEASE_N.to_vec();
        steps.push(EXPAND);
        release("0.2.0", oldest_reader, &steps)
    }

    fn release_n() -> Migrations {
        release("0.1.0", 2, RELEASE_N)
    }

    /// A fresh database of `backend` and a connection to it.
    async fn fresh(backend: Backend) -> (TestDatabase, AnyConnection) {
        sqlx::any::install_default_drivers();
        let db = TestDatabase::new(backend).await;
        let connection = AnyConnection::connect(&db.url).await.expect("connect");
        (db, connection)
    }

    /// A fresh database of `backend` that release N migrated.
    async fn migrated_by_release_n(backend: Backend) -> (TestDatabase, AnyConnection) {
        let (db, mut connection) = fresh(backend).await;
        bring_up_to_date(&mut connection, backend, &release_n())
            .await
            .unwrap();
        (db, connection)
    }

    #[tokio::test]
    async fn a_fresh_database_is_migrated_once_and_then_passes_the_check() {
        for backend in backends() {
            let (_db, mut connection) = fresh(backend).await;
            let n = release_n();
            let first = bring_up_to_date(&mut connection, backend, &n)
                .await
                .unwrap();
            assert_eq!((first.applied, first.newest_migration), (vec![1, 2], 2));
            let migrated_at = || {
                sqlx::query_scalar::<_, i64>(
                    "SELECT migrated_at FROM schema_releases WHERE newest_migration = 2",
                )
            };
            let first_at = migrated_at().fetch_one(&mut connection).await.unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            let again = bring_up_to_date(&mut connection, backend, &n)
                .await
                .unwrap();
            assert_eq!((again.applied, again.newest_migration), (vec![], 2));
            let again_at = migrated_at().fetch_one(&mut connection).await.unwrap();
            assert_eq!(again_at, first_at, "a restart rewrote the release's row");
            check(&mut connection, backend, &n).await.unwrap();
            assert_eq!(
                newest_mark(&mut connection, backend).await.unwrap(),
                Some(Mark {
                    release: "0.1.0".into(),
                    newest_migration: 2,
                    oldest_reader: 2
                })
            );
        }
    }

    #[tokio::test]
    async fn the_check_refuses_missing_migrations_naming_them_and_writes_nothing() {
        for backend in backends() {
            let (_db, mut connection) = fresh(backend).await;
            let n = release_n();
            let refused = check(&mut connection, backend, &n).await.unwrap_err();
            assert!(
                matches!(&refused, SchemaError::NotMigrated { missing, .. } if missing.0 == [1, 2]),
                "{refused:?}"
            );
            assert!(
                refused.to_string().contains("run `portal migrate`"),
                "{refused}"
            );
            for table in [APPLIED_TABLE, RELEASES_TABLE] {
                assert!(!table_exists(&mut connection, backend, table).await.unwrap());
            }
            // The release before N, migrated: N's check names the one it lacks.
            let before = release("0.0.9", 1, &RELEASE_N[..1]);
            bring_up_to_date(&mut connection, backend, &before)
                .await
                .unwrap();
            let refused = check(&mut connection, backend, &n).await.unwrap_err();
            assert_eq!(
                refused.to_string(),
                "migrations 2 of this binary (release 0.1.0 (newest migration 2)) are not applied, and PORTAL_MIGRATE=check never migrates: run `portal migrate` with this service's settings first"
            );
        }
    }

    #[tokio::test]
    async fn a_schema_one_release_newer_runs_the_older_binary_when_marked_compatible() {
        for backend in backends() {
            let (_db, mut connection) = migrated_by_release_n(backend).await;
            let n = release_n();
            let upgraded = bring_up_to_date(&mut connection, backend, &next_release(2))
                .await
                .unwrap();
            assert_eq!(upgraded.applied, vec![3]);

            // Rolled back: N's start checks, N's `portal migrate` does nothing,
            // and N+1's migration and mark stay.
            check(&mut connection, backend, &n).await.unwrap();
            let rolled_back = bring_up_to_date(&mut connection, backend, &n)
                .await
                .unwrap();
            assert_eq!(
                (rolled_back.applied, rolled_back.newest_migration),
                (vec![], 3)
            );
            let mark = newest_mark(&mut connection, backend)
                .await
                .unwrap()
                .unwrap();
            assert_eq!((mark.release.as_str(), mark.newest_migration), ("0.2.0", 3));
            let applied = applied_migrations(&mut connection).await.unwrap();
            assert_eq!(
                applied.iter().map(|m| m.version).collect::<Vec<_>>(),
                [1, 2, 3]
            );
        }
    }

    #[tokio::test]
    async fn a_newer_schema_not_marked_compatible_is_refused_naming_both_releases() {
        for backend in backends() {
            let (_db, mut connection) = migrated_by_release_n(backend).await;
            let n = release_n();
            // N+1 says only binaries that know its own migration 3 may run.
            bring_up_to_date(&mut connection, backend, &next_release(3))
                .await
                .unwrap();
            let expected = "the schema is newer than this binary and not marked compatible with it: this binary is release 0.1.0 (newest migration 2); the database holds migration 3 of release 0.2.0, which runs binaries whose newest migration is 3 or later. Deploy that release (or a newer one) again, or restore the database from before its migration";
            let refused = check(&mut connection, backend, &n).await.unwrap_err();
            assert_eq!(refused.to_string(), expected);
            let refused = bring_up_to_date(&mut connection, backend, &n)
                .await
                .unwrap_err();
            assert_eq!(refused.to_string(), expected);
        }
    }

    #[tokio::test]
    async fn a_newer_schema_without_a_mark_is_refused() {
        for backend in backends() {
            let (_db, mut connection) = fresh(backend).await;
            // A release that migrates with sqlx alone, as every release before
            // the mark did.
            let unmarked = next_release(2);
            unmarked
                .for_backend(backend)
                .run(&mut connection)
                .await
                .unwrap();
            let refused = check(&mut connection, backend, &release_n())
                .await
                .unwrap_err();
            assert!(
                refused
                    .to_string()
                    .contains("the database holds migration 3, applied by a release that left no compatibility mark"),
                "{refused}"
            );
        }
    }

    #[tokio::test]
    async fn a_changed_migration_is_refused_even_when_the_newer_release_allows_older_binaries() {
        for backend in backends() {
            let (_db, mut connection) = fresh(backend).await;
            bring_up_to_date(&mut connection, backend, &next_release(1))
                .await
                .unwrap();
            let edited = release(
                "0.1.0",
                2,
                &[RELEASE_N[0], (2, "CREATE INDEX notes_by_id ON notes (id)")],
            );
            for refused in [
                check(&mut connection, backend, &edited).await.unwrap_err(),
                bring_up_to_date(&mut connection, backend, &edited)
                    .await
                    .unwrap_err(),
            ] {
                assert!(
                    matches!(refused, SchemaError::Changed { version: 2, .. }),
                    "{refused:?}"
                );
            }
        }
    }

    /// PostgreSQL's advisory lock; SQLite's file belongs to one process.
    #[tokio::test]
    async fn replicas_migrating_at_once_take_turns() {
        if !backends().contains(&Backend::Postgres) {
            return;
        }
        let (db, _) = fresh(Backend::Postgres).await;
        let n = release_n();
        let run = || async {
            let mut connection = AnyConnection::connect(&db.url).await.unwrap();
            bring_up_to_date(&mut connection, Backend::Postgres, &n).await
        };
        let (a, b, c, d) = tokio::join!(run(), run(), run(), run());
        let mut applied: Vec<i64> = [a, b, c, d]
            .into_iter()
            .flat_map(|run| run.unwrap().applied)
            .collect();
        applied.sort_unstable();
        assert_eq!(applied, [1, 2], "each migration applied once");
    }
}
