//! The daily housekeeping every service runs beside its serving: audit
//! records past retention purged ([`crate::audit::purge`]) and, in a service
//! that keeps the bell's read marks, those too old to matter forgotten
//! ([`crate::read_marks::forget_old`]). Once at start, then once a day, until
//! the service's shutdown; every replica runs it, harmlessly at once.

use std::time::Duration;

use sqlx::AnyPool;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::audit::{self, AuditSettings};
use crate::db::{Backend, Database, now_millis};
use crate::read_marks;

/// How often a replica tidies.
const EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// What a service keeps tidy.
#[derive(Clone, Debug)]
pub struct Housekeeping {
    /// The service's name, in the log.
    pub service: &'static str,
    pub pool: AnyPool,
    pub backend: Backend,
    /// How long its audit records are kept.
    pub audit: AuditSettings,
    /// Whether it keeps read marks (a `notification_reads` table).
    pub read_marks: bool,
}

/// What one run removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tidied {
    pub audit_records: u64,
    pub read_marks: u64,
}

impl Housekeeping {
    /// Service `service`'s housekeeping of its `database`: the audit records
    /// `audit` keeps, and the read marks if `read_marks` (the service has a
    /// `notification_reads` table).
    pub fn of(
        service: &'static str,
        database: &Database,
        audit: &AuditSettings,
        read_marks: bool,
    ) -> Housekeeping {
        Housekeeping {
            service,
            pool: database.pool.clone(),
            backend: database.backend,
            audit: audit.clone(),
            read_marks,
        }
    }

    /// One run as of `now` (Unix ms). A part that fails is logged and the
    /// other still runs: tomorrow's run tries it again.
    pub async fn run(&self, now: i64) -> Tidied {
        let service = self.service;
        let mut tidied = Tidied::default();
        match audit::purge(&self.pool, self.backend, self.audit.purge_before(now)).await {
            Ok(purged) => tidied.audit_records = purged,
            Err(error) => tracing::warn!(service, %error, "audit purge failed"),
        }
        if self.read_marks {
            let forgotten = async {
                let mut conn = self.pool.acquire().await?;
                read_marks::forget_old(&mut conn, now).await
            };
            match forgotten.await {
                Ok(forgotten) => tidied.read_marks = forgotten,
                Err(error) => tracing::warn!(service, %error, "forgetting old read marks failed"),
            }
        }
        if tidied != Tidied::default() {
            tracing::info!(
                service,
                audit_records = tidied.audit_records,
                read_marks = tidied.read_marks,
                "housekeeping: purged audit records past retention, forgot old read marks"
            );
        }
        tidied
    }

    /// Runs now and then once a day until `shutdown` is cancelled, which
    /// also stops a run under way (its transaction rolls back).
    pub fn spawn(self, shutdown: CancellationToken) -> JoinHandle<()> {
        tokio::spawn(async move {
            let mut every = tokio::time::interval(EVERY);
            loop {
                tokio::select! {
                    _ = every.tick() => {}
                    () = shutdown.cancelled() => break,
                }
                tokio::select! {
                    _ = self.run(now_millis()) => {}
                    () = shutdown.cancelled() => break,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::TrustedProxies;
    use crate::testing::{TestDatabase, backends};
    use sqlx::Executor;

    const DAY: i64 = 24 * 60 * 60 * 1000;

    async fn database(backend: Backend) -> (TestDatabase, AnyPool) {
        let db = TestDatabase::new(backend).await;
        let pool = AnyPool::connect(&db.url).await.unwrap();
        pool.execute(sqlx::AssertSqlSafe(audit::schema(backend)))
            .await
            .unwrap();
        pool.execute(
            "CREATE TABLE notification_reads (user_id BIGINT NOT NULL, item_key TEXT NOT NULL, \
             read_at BIGINT NOT NULL, PRIMARY KEY (user_id, item_key))",
        )
        .await
        .unwrap();
        (db, pool)
    }

    fn housekeeping(pool: &AnyPool, backend: Backend) -> Housekeeping {
        Housekeeping {
            service: "test",
            pool: pool.clone(),
            backend,
            audit: AuditSettings {
                retention_days: 30,
                trusted_proxies: TrustedProxies::none(),
            },
            read_marks: true,
        }
    }

    #[tokio::test]
    async fn one_run_purges_old_audit_records_and_forgets_old_read_marks() {
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            let now = now_millis();
            for at in [now - 31 * DAY, now - DAY] {
                sqlx::query(
                    "INSERT INTO audit_records (at, actor_kind, entity, action, changes)
                     VALUES ($1, 'system', 'user', 'update', '[]')",
                )
                .bind(at)
                .execute(&pool)
                .await
                .unwrap();
            }
            for (key, at) in [("old", now - 91 * DAY), ("recent", now - 89 * DAY)] {
                sqlx::query(
                    "INSERT INTO notification_reads (user_id, item_key, read_at) VALUES (1, $1, $2)",
                )
                .bind(key)
                .bind(at)
                .execute(&pool)
                .await
                .unwrap();
            }
            let tidied = housekeeping(&pool, backend).run(now).await;
            assert_eq!(
                tidied,
                Tidied {
                    audit_records: 1,
                    read_marks: 1
                },
                "{backend:?}"
            );
            let kept: Vec<String> = sqlx::query_scalar("SELECT item_key FROM notification_reads")
                .fetch_all(&pool)
                .await
                .unwrap();
            assert_eq!(kept, ["recent"], "{backend:?}");
            let records: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM audit_records")
                .fetch_one(&pool)
                .await
                .unwrap();
            assert_eq!(records, 1, "{backend:?}");
        }
    }

    #[tokio::test]
    async fn the_loop_ends_promptly_when_the_service_shuts_down() {
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            let shutdown = CancellationToken::new();
            let running = housekeeping(&pool, backend).spawn(shutdown.clone());
            // Past its first run, waiting for tomorrow's.
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert!(!running.is_finished(), "{backend:?}");
            shutdown.cancel();
            tokio::time::timeout(Duration::from_secs(1), running)
                .await
                .expect("the loop ends within a second of the shutdown")
                .unwrap();
        }
    }
}
