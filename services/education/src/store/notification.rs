//! The bell's and the digest's rows: one person's assignments with what their
//! standing is counted from, read marks, the digest choice, and the
//! once-a-day lease of each person's digest.

use std::collections::HashSet;

use portal_kit::ServiceResult;
use portal_kit::audit::{self, AuditContext, Changes, Event, action};
use portal_kit::db::for_update;
use portal_kit::read_marks;

use super::{Store, audited};

/// Whether this replica may send a person's digest of a day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Ours until the lease ends: send, then record the outcome.
    Taken,
    /// Sent today already (by any replica).
    AlreadySent,
    /// Another replica holds the lease, or a failed send waits for its retry.
    Busy,
}

impl Store {
    /// The items `user_id` marked read.
    pub async fn read_marks(&self, user_id: i64) -> ServiceResult<HashSet<String>> {
        let mut conn = self.pool.acquire().await?;
        read_marks::read_marks(&mut conn, user_id).await
    }

    /// Marks `keys` read for `user_id`.
    pub async fn mark_read(
        &self,
        user_id: i64,
        keys: &[String],
        now: i64,
        audit: &AuditContext,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let marked = read_marks::mark_read(&mut tx, user_id, keys, now, audit).await;
        tx.end(marked).await
    }

    /// Whether `user_id` gets the daily digest (no row: yes).
    pub async fn digest_enabled(&self, user_id: i64) -> ServiceResult<bool> {
        let enabled: Option<i64> =
            sqlx::query_scalar("SELECT enabled FROM digest_preferences WHERE user_id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(enabled.is_none_or(|enabled| enabled != 0))
    }

    pub async fn set_digest_enabled(
        &self,
        user_id: i64,
        enabled: bool,
        now: i64,
        audit: &AuditContext,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let before: Option<i64> = sqlx::query_scalar(for_update(
            &tx,
            "SELECT enabled FROM digest_preferences WHERE user_id = $1",
            "digest_preferences",
        ))
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO digest_preferences (user_id, enabled, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (user_id) DO UPDATE SET enabled = $4, updated_at = $5",
        )
        .bind(user_id)
        .bind(i64::from(enabled))
        .bind(now)
        .bind(i64::from(enabled))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let changes = Changes::new().field(
            "digestEnabled",
            before.is_none_or(|enabled| enabled != 0),
            enabled,
        );
        let event = Event::new(audited::DIGEST_SETTINGS, user_id, action::UPDATE).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Everyone who turned the digest off.
    pub async fn digest_opted_out(&self) -> ServiceResult<HashSet<i64>> {
        let ids: Vec<i64> =
            sqlx::query_scalar("SELECT user_id FROM digest_preferences WHERE enabled = 0")
                .fetch_all(&self.pool)
                .await?;
        Ok(ids.into_iter().collect())
    }

    /// Takes the lease of `user_id`'s digest of `day` until `lease_until`,
    /// if no replica sent it or holds it now, and (`wait_for_retry`) a failed
    /// send's retry time has come. Each step is one statement, so
    /// of replicas asking at once exactly one gets [`Claim::Taken`]: the
    /// insert is decided by the primary key, the retake by a row write whose
    /// condition PostgreSQL checks again after a concurrent writer commits.
    pub async fn claim_digest(
        &self,
        user_id: i64,
        day: &str,
        now: i64,
        lease_until: i64,
        wait_for_retry: bool,
    ) -> ServiceResult<Claim> {
        let inserted = sqlx::query(
            "INSERT INTO digest_deliveries (user_id, day, lease_until, attempts) VALUES ($1, $2, $3, 1) ON CONFLICT (user_id, day) DO NOTHING",
        )
        .bind(user_id)
        .bind(day)
        .bind(lease_until)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 1 {
            return Ok(Claim::Taken);
        }
        let retaken = sqlx::query(
            "UPDATE digest_deliveries SET lease_until = $1, attempts = attempts + 1 \
             WHERE user_id = $2 AND day = $3 AND sent_at IS NULL AND lease_until <= $4 AND ($5 = 0 OR next_try_at <= $6)",
        )
        .bind(lease_until)
        .bind(user_id)
        .bind(day)
        .bind(now)
        .bind(i64::from(wait_for_retry))
        .bind(now)
        .execute(&self.pool)
        .await?;
        if retaken.rows_affected() == 1 {
            return Ok(Claim::Taken);
        }
        let sent: Option<Option<i64>> = sqlx::query_scalar(
            "SELECT sent_at FROM digest_deliveries WHERE user_id = $1 AND day = $2",
        )
        .bind(user_id)
        .bind(day)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match sent {
            Some(Some(_)) => Claim::AlreadySent,
            _ => Claim::Busy,
        })
    }

    /// The relay accepted `user_id`'s digest of `day`: recorded as sent (the
    /// leases before it are the replicas' bookkeeping, not recorded).
    pub async fn digest_sent(
        &self,
        user_id: i64,
        day: &str,
        now: i64,
        audit: &AuditContext,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE digest_deliveries SET sent_at = $1, last_error = NULL WHERE user_id = $2 AND day = $3",
        )
        .bind(now)
        .bind(user_id)
        .bind(day)
        .execute(&mut *tx)
        .await?;
        let changes = Changes::new().field("day", None::<&str>, day);
        let event = Event::new(audited::DIGEST, user_id, audited::SEND).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The send failed: the lease is released, and the daily job of any
    /// replica tries again from `retry_at`.
    pub async fn digest_failed(
        &self,
        user_id: i64,
        day: &str,
        (now, retry_at): (i64, i64),
        error: &str,
    ) -> ServiceResult<()> {
        sqlx::query(
            "UPDATE digest_deliveries SET lease_until = $1, next_try_at = $2, last_error = $3 WHERE user_id = $4 AND day = $5 AND sent_at IS NULL",
        )
        .bind(now)
        .bind(retry_at)
        .bind(error)
        .bind(user_id)
        .bind(day)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
