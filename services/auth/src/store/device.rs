//! Known devices: the browsers each person has signed in on, whose sign-ins
//! strangers' failed guesses do not hold up (see [`crate::domain::rate_limit`]).

use portal_kit::ServiceResult;
use sqlx::AnyConnection;

use super::Store;
use crate::domain::device::forgotten_before;
use crate::domain::rate_limit::window_start;
use crate::domain::secret::SecretHash;

impl Store {
    /// For the browser holding the device token hashed `device`: `None` if it
    /// has not signed in as `user_id` before, else the failed attempts under its
    /// limit key `device_key` within the window. One statement, as every sign-in
    /// from a device asks it, during a storm of guesses too.
    pub async fn known_device_failures(
        &self,
        device: &SecretHash,
        user_id: i64,
        device_key: &str,
        now: i64,
    ) -> ServiceResult<Option<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT (SELECT COUNT(*) FROM sign_in_attempts \
                     WHERE device_key = $3 AND failed = 1 AND at > $4) \
             FROM known_devices WHERE token_hash = $1 AND user_id = $2",
        )
        .bind(device.as_str())
        .bind(user_id)
        .bind(device_key)
        .bind(window_start(now))
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Forgets devices nobody has signed in on for a year; run at start, not on
    /// every sign-in, which is the path a flood contends on.
    pub async fn purge_unused_devices(&self, now: i64) -> ServiceResult<u64> {
        let before = forgotten_before(now);
        Ok(
            sqlx::query("DELETE FROM known_devices WHERE last_used_at < $1")
                .bind(before)
                .execute(&self.pool)
                .await?
                .rows_affected(),
        )
    }
}

/// Whether any person has signed in on the browser holding this device token.
pub(super) async fn device_exists(
    conn: &mut AnyConnection,
    device: &SecretHash,
) -> ServiceResult<bool> {
    let found: Option<i64> =
        sqlx::query_scalar("SELECT user_id FROM known_devices WHERE token_hash = $1 LIMIT 1")
            .bind(device.as_str())
            .fetch_optional(&mut *conn)
            .await?;
    Ok(found.is_some())
}

/// Notes that `user_id` signed in on the browser holding this device token.
pub(super) async fn remember_device(
    conn: &mut AnyConnection,
    device: &SecretHash,
    user_id: i64,
    now: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "INSERT INTO known_devices (token_hash, user_id, last_used_at) VALUES ($1, $2, $3) \
         ON CONFLICT (token_hash, user_id) DO UPDATE SET last_used_at = excluded.last_used_at",
    )
    .bind(device.as_str())
    .bind(user_id)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
