//! The sign-in attempts the limits of [`crate::domain::rate_limit`] count.

use portal_kit::ServiceResult;
use portal_kit::audit::{self, AuditContext, Event, action, entity};
use sqlx::AnyConnection;

use super::Store;
use super::audit::{REASON_UNKNOWN_LOGIN, REASON_WRONG_PASSWORD};
use crate::domain::rate_limit::{AttemptKeys, Counts, window_start};

impl Store {
    /// Records an attempt before its password is checked and returns its id with
    /// what the window holds for its keys, itself and earlier attempts included:
    /// of parallel attempts, each sees those that started before it. A known
    /// device's attempt counts only its device key, in the same statement as
    /// its record ([`AttemptKeys::known_device`]); the other keys count zero.
    pub async fn begin_sign_in_attempt(
        &self,
        keys: &AttemptKeys,
        now: i64,
    ) -> ServiceResult<(i64, Counts)> {
        let mut conn = self.read().await?;
        if let Some(device_key) = keys.known_device() {
            // One statement, not two, while strangers' guesses queue at the pool
            // and the writer. On SQLite it sees every earlier attempt (one
            // writer at a time); on PostgreSQL not those inserted by a statement
            // running at the same moment, which a device's own connections
            // bound: at most one more per auth replica than the limit.
            let (id, device, device_failed): (i64, i64, i64) = sqlx::query_as(
                "INSERT INTO sign_in_attempts (at, address_key, device_key) VALUES ($1, $2, $3) \
                 RETURNING id, \
                   1 + (SELECT COUNT(*) FROM sign_in_attempts AS earlier \
                        WHERE earlier.device_key = $3 AND earlier.at > $4 \
                          AND earlier.id < sign_in_attempts.id), \
                   (SELECT COUNT(*) FROM sign_in_attempts AS earlier \
                    WHERE earlier.device_key = $3 AND earlier.at > $4 AND earlier.failed = 1 \
                      AND earlier.id < sign_in_attempts.id)",
            )
            .bind(now)
            .bind(keys.address.as_str())
            .bind(device_key)
            .bind(window_start(now))
            .fetch_one(&mut *conn)
            .await?;
            return Ok((
                id,
                Counts {
                    device,
                    device_failed,
                    ..Counts::default()
                },
            ));
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO sign_in_attempts (at, address_key, login_key, device_key) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(now)
        .bind(keys.address.as_str())
        .bind(keys.login.as_deref())
        .bind(keys.device.as_deref())
        .fetch_one(&mut *conn)
        .await?;
        let (login, address, pair, pair_latest_at): (i64, i64, i64, Option<i64>) = sqlx::query_as(
            "SELECT \
               COALESCE(SUM(CASE WHEN login_key = $1 THEN 1 ELSE 0 END), 0), \
               COALESCE(SUM(CASE WHEN address_key = $2 THEN 1 ELSE 0 END), 0), \
               COALESCE(SUM(CASE WHEN login_key = $1 AND address_key = $2 THEN 1 ELSE 0 END), 0), \
               MAX(CASE WHEN login_key = $1 AND address_key = $2 AND id < $4 THEN at END) \
             FROM sign_in_attempts \
             WHERE at > $3 AND id <= $4 AND (login_key = $1 OR address_key = $2)",
        )
        .bind(keys.login.as_deref())
        .bind(keys.address.as_str())
        .bind(window_start(now))
        .bind(id)
        .fetch_one(&mut *conn)
        .await?;
        Ok((
            id,
            Counts {
                login,
                address,
                pair,
                device: 0,
                device_failed: 0,
                pair_latest_at,
            },
        ))
    }

    /// A known device's attempts in the window before attempt `id` under its
    /// key `device_key`, itself included, and how many of the earlier failed:
    /// asked again by an attempt waiting for them to settle.
    pub async fn device_attempts_before(
        &self,
        device_key: &str,
        id: i64,
        now: i64,
    ) -> ServiceResult<Counts> {
        let (device, device_failed): (i64, i64) = sqlx::query_as(
            "SELECT 1 + COUNT(*), COALESCE(SUM(failed), 0) FROM sign_in_attempts \
             WHERE device_key = $1 AND at > $2 AND id < $3",
        )
        .bind(device_key)
        .bind(window_start(now))
        .bind(id)
        .fetch_one(&self.pool)
        .await?;
        Ok(Counts {
            device,
            device_failed,
            ..Counts::default()
        })
    }

    /// Counts a failed attempt and forgets the attempts no window holds any
    /// more, in one transaction: one turn at SQLite's single writer per guess,
    /// not two, during a storm of them. Returns how many were forgotten.
    /// The refusal is recorded in the audit log by the same transaction:
    /// `context` names the login tried, `user_id` its person if any.
    pub async fn fail_sign_in_attempt(
        &self,
        id: i64,
        now: i64,
        context: &AuditContext,
        user_id: Option<i64>,
    ) -> ServiceResult<u64> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE sign_in_attempts SET failed = 1 WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let reason = if user_id.is_some() {
            REASON_WRONG_PASSWORD
        } else {
            REASON_UNKNOWN_LOGIN
        };
        let event = Event::new(entity::USER, user_id, action::SIGN_IN_REFUSED).reason(reason);
        audit::record(&mut tx, context, event).await?;
        let purged = sqlx::query("DELETE FROM sign_in_attempts WHERE at <= $1")
            .bind(window_start(now))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(purged)
    }

    /// Forgets an attempt that was right, or never finished.
    pub async fn forget_sign_in_attempt(&self, id: i64) -> ServiceResult<()> {
        forget_attempt(&mut *self.read().await?, id).await
    }
}

pub(super) async fn forget_attempt(conn: &mut AnyConnection, id: i64) -> ServiceResult<()> {
    sqlx::query("DELETE FROM sign_in_attempts WHERE id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
