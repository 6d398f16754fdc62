//! Two-step sign-in (issue 39.4): each person's authenticator secret (sealed,
//! see [`crate::domain::seal`]), recovery codes (hashed), the sign-ins waiting
//! for their second step, the wrong codes the per-person limit counts, and
//! the devices that skip the step for a while.

use portal_kit::audit::{self, AuditContext, Event, action, entity};
use portal_kit::{ServiceError, ServiceResult};
use sqlx::AnyConnection;

use super::Store;
use crate::domain::secret::SecretHash;
use crate::domain::totp::{
    FAILURE_WINDOW, FAILURES_PER_PERSON, FAILURES_PER_TOKEN, TRUSTED_DEVICE_TTL, millis,
};

pub const MSG_MFA_ALREADY_ON: &str =
    "Двухэтапный вход уже включён. Чтобы подключить другое приложение, сначала отключите его.";
pub const REASON_MFA_ALREADY_ON: &str = "mfa-already-on";
pub const MSG_MFA_NOT_ENROLLING: &str =
    "Подключение приложения не начато или устарело. Начните заново.";
pub const REASON_MFA_NOT_ENROLLING: &str = "mfa-not-enrolling";
pub const MSG_MFA_TOKEN_INVALID: &str =
    "Время на ввод кода истекло или попыток было слишком много. Войдите снова.";
pub const REASON_MFA_TOKEN_INVALID: &str = "mfa-token-invalid";
/// The audit reasons of a refused second step.
pub const REASON_WRONG_CODE: &str = "wrong-code";
pub const REASON_CODE_REUSED: &str = "code-reused";
/// How long spent and expired second-step tokens are kept before deletion.
const SPENT_TOKENS_KEPT_MILLIS: i64 = 24 * 60 * 60 * 1000;

/// A person's authenticator, as stored.
#[derive(Clone, Debug)]
pub struct Factor {
    pub secret_sealed: String,
    pub confirmed: bool,
}

/// A second step begun: counted as a wrong code until it proves right
/// ([`Store::second_step_passed`]), so parallel guesses count.
#[derive(Debug)]
pub struct SecondStep {
    pub failure_id: i64,
    pub challenge_id: i64,
    pub user_id: i64,
    pub device_hash: Option<String>,
    /// How the first step's password was checked (`password`, `directory`,
    /// `sso`).
    pub method: String,
    /// The provider's session of a first step by single sign-on.
    pub sso_session: Option<String>,
}

/// `id, user_id, device_hash, method, sso_session` of a waiting sign-in.
type ChallengeRow = (i64, i64, Option<String>, String, Option<String>);

/// Why a second step may not even be tried.
#[derive(Debug)]
pub enum StepRefused {
    /// Unknown, expired, used or dead token.
    Token,
    /// The person is over the limit of wrong codes: the wait until one falls out.
    Limited { retry_after_millis: i64 },
}

pub fn token_invalid() -> ServiceError {
    ServiceError::Unauthenticated(MSG_MFA_TOKEN_INVALID.into()).because(REASON_MFA_TOKEN_INVALID)
}

impl Store {
    /// The person's authenticator, confirmed or pending.
    pub async fn mfa_factor(&self, user_id: i64) -> ServiceResult<Option<Factor>> {
        let row: Option<(String, Option<i64>)> = sqlx::query_as(
            "SELECT secret_sealed, confirmed_at FROM mfa_factors WHERE user_id = $1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(secret_sealed, confirmed_at)| Factor {
            secret_sealed,
            confirmed: confirmed_at.is_some(),
        }))
    }

    /// Recovery codes of the person not used yet.
    pub async fn recovery_codes_left(&self, user_id: i64) -> ServiceResult<i64> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM mfa_recovery_codes WHERE user_id = $1 AND used_at IS NULL",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Whether a sign-in of `user_id` on the device hashed `device` must give
    /// a code: the person confirmed an authenticator, and the device has not
    /// given one as this person within the last 30 days.
    pub async fn second_step_needed(
        &self,
        user_id: i64,
        device: Option<&SecretHash>,
        now: i64,
    ) -> ServiceResult<bool> {
        let (on, trusted): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM mfa_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL), \
                    (SELECT COUNT(*) FROM mfa_trusted_devices \
                     WHERE user_id = $1 AND device_hash = $2 AND verified_at > $3)",
        )
        .bind(user_id)
        .bind(device.map(SecretHash::as_str))
        .bind(now - millis(TRUSTED_DEVICE_TTL))
        .fetch_one(&self.pool)
        .await?;
        Ok(on > 0 && trusted == 0)
    }

    /// Stores a sign-in waiting for its second step, with how its password
    /// was checked (`method`), which the session it opens is recorded with.
    pub async fn open_second_step(
        &self,
        user_id: i64,
        token: &SecretHash,
        device: Option<&SecretHash>,
        (method, sso_session): (&str, Option<&str>),
        (now, expires_at): (i64, i64),
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM mfa_challenges WHERE expires_at <= $1")
            .bind(now - SPENT_TOKENS_KEPT_MILLIS)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO mfa_challenges (user_id, token_hash, device_hash, method, sso_session, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(user_id)
        .bind(token.as_str())
        .bind(device.map(SecretHash::as_str))
        .bind(method)
        .bind(sso_session)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Begins the second step of the sign-in whose token is hashed `token`:
    /// refused for a token that no longer works or a person over the limit,
    /// else counted as a wrong code (and one more on the token) until
    /// [`Store::second_step_passed`] forgets it.
    pub async fn begin_second_step(
        &self,
        token: &SecretHash,
        now: i64,
    ) -> ServiceResult<Result<SecondStep, StepRefused>> {
        let mut tx = self.write().await?;
        let found: Option<ChallengeRow> = sqlx::query_as(
            "SELECT id, user_id, device_hash, method, sso_session FROM mfa_challenges \
             WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 AND failures < $3",
        )
        .bind(token.as_str())
        .bind(now)
        .bind(FAILURES_PER_TOKEN)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((challenge_id, user_id, device_hash, method, sso_session)) = found else {
            return Ok(Err(StepRefused::Token));
        };
        if let Some(retry_after_millis) = person_limited(&mut tx, user_id, now).await? {
            return Ok(Err(StepRefused::Limited { retry_after_millis }));
        }
        let failure_id = count_failure(&mut tx, user_id, now).await?;
        sqlx::query("UPDATE mfa_challenges SET failures = failures + 1 WHERE id = $1")
            .bind(challenge_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Ok(SecondStep {
            failure_id,
            challenge_id,
            user_id,
            device_hash,
            method,
            sso_session,
        }))
    }

    /// The code was right: the step is not a failure, and its token is used
    /// up. False if another call used the token first.
    pub async fn second_step_passed(&self, step: &SecondStep, now: i64) -> ServiceResult<bool> {
        let mut tx = self.write().await?;
        forget_failure(&mut tx, step.failure_id).await?;
        let claimed =
            sqlx::query("UPDATE mfa_challenges SET used_at = $1 WHERE id = $2 AND used_at IS NULL")
                .bind(now)
                .bind(step.challenge_id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
        tx.commit().await?;
        Ok(claimed)
    }

    /// A wrong code, recorded in the audit log as a refused sign-in of
    /// `user_id` (the failure itself was counted when the step began).
    pub async fn record_wrong_code(
        &self,
        context: &AuditContext,
        user_id: i64,
        reason: &'static str,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let event = Event::new(entity::SESSION, None, action::SIGN_IN_REFUSED).reason(reason);
        audit::record(
            &mut tx,
            &context.acting_as(audit::AuditActor::Person(user_id)),
            event,
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A code checked outside sign-in (turning the factor off, new recovery
    /// codes): refused past the person's limit, else counted until forgotten.
    pub async fn begin_code_check(&self, user_id: i64, now: i64) -> ServiceResult<i64> {
        let mut tx = self.write().await?;
        if let Some(retry_after_millis) = person_limited(&mut tx, user_id, now).await? {
            return Err(limited(retry_after_millis));
        }
        let id = count_failure(&mut tx, user_id, now).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// The code proved right: it does not count.
    pub async fn code_check_passed(&self, failure_id: i64) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        forget_failure(&mut tx, failure_id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes TOTP step `step` of the person's authenticator (confirmed, or
    /// pending with `pending`): false if this step or a later one was taken
    /// already, so a code works once.
    pub async fn take_totp_step(&self, user_id: i64, step: i64) -> ServiceResult<bool> {
        Ok(sqlx::query(
            "UPDATE mfa_factors SET last_step = $1 \
             WHERE user_id = $2 AND confirmed_at IS NOT NULL AND last_step < $1",
        )
        .bind(step)
        .bind(user_id)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1)
    }

    /// Uses up one of the person's recovery codes: false if it is not one
    /// of theirs or was used.
    pub async fn take_recovery_code(
        &self,
        user_id: i64,
        code: &SecretHash,
        now: i64,
    ) -> ServiceResult<bool> {
        Ok(sqlx::query(
            "UPDATE mfa_recovery_codes SET used_at = $1 \
             WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL",
        )
        .bind(now)
        .bind(user_id)
        .bind(code.as_str())
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1)
    }

    /// A new pending authenticator for the person (one pending before is
    /// replaced); refused while a confirmed one is on.
    pub async fn begin_enrolment(
        &self,
        context: &AuditContext,
        user_id: i64,
        sealed: &str,
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let confirmed: Option<Option<i64>> =
            sqlx::query_scalar("SELECT confirmed_at FROM mfa_factors WHERE user_id = $1")
                .bind(user_id)
                .fetch_optional(&mut *tx)
                .await?;
        if matches!(confirmed, Some(Some(_))) {
            return Err(ServiceError::conflict(MSG_MFA_ALREADY_ON).because(REASON_MFA_ALREADY_ON));
        }
        sqlx::query("DELETE FROM mfa_factors WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO mfa_factors (user_id, secret_sealed, created_at) VALUES ($1, $2, $3)",
        )
        .bind(user_id)
        .bind(sealed)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let event = Event::new(entity::USER, user_id, action::MFA_ENROL);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Turns the pending authenticator on with its first code's step, and
    /// gives the person these recovery codes.
    pub async fn confirm_enrolment(
        &self,
        context: &AuditContext,
        user_id: i64,
        step: i64,
        codes: &[SecretHash],
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let confirmed = sqlx::query(
            "UPDATE mfa_factors SET confirmed_at = $1, last_step = $2 \
             WHERE user_id = $3 AND confirmed_at IS NULL AND last_step < $2",
        )
        .bind(now)
        .bind(step)
        .bind(user_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if confirmed != 1 {
            return Err(
                ServiceError::conflict(MSG_MFA_NOT_ENROLLING).because(REASON_MFA_NOT_ENROLLING)
            );
        }
        replace_recovery_codes(&mut tx, user_id, codes, now).await?;
        let event = Event::new(entity::USER, user_id, action::MFA_CONFIRM);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok(())
    }

    /// New recovery codes for the person; the old ones stop working.
    pub async fn renew_recovery_codes(
        &self,
        context: &AuditContext,
        user_id: i64,
        codes: &[SecretHash],
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        replace_recovery_codes(&mut tx, user_id, codes, now).await?;
        let event = Event::new(entity::USER, user_id, action::MFA_RECOVERY_CODES);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Removes the person's authenticator, recovery codes, waiting second
    /// steps and trusted devices, recorded as `action` (their own turning
    /// off, or an administrator's reset). Whether there was an authenticator.
    pub async fn remove_factor(
        &self,
        context: &AuditContext,
        user_id: i64,
        action: &'static str,
    ) -> ServiceResult<bool> {
        let mut tx = self.write().await?;
        let removed = sqlx::query("DELETE FROM mfa_factors WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        for statement in [
            "DELETE FROM mfa_recovery_codes WHERE user_id = $1",
            "DELETE FROM mfa_challenges WHERE user_id = $1",
            "DELETE FROM mfa_trusted_devices WHERE user_id = $1",
        ] {
            sqlx::query(statement)
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
        }
        audit::record(&mut tx, context, Event::new(entity::USER, user_id, action)).await?;
        tx.commit().await?;
        Ok(removed)
    }
}

/// The wait before the person's oldest wrong code in the window falls out
/// of it, if they are at the limit; old failures are forgotten on the way.
async fn person_limited(
    conn: &mut AnyConnection,
    user_id: i64,
    now: i64,
) -> ServiceResult<Option<i64>> {
    let since = now - millis(FAILURE_WINDOW);
    sqlx::query("DELETE FROM mfa_failures WHERE at <= $1")
        .bind(since)
        .execute(&mut *conn)
        .await?;
    let (count, oldest): (i64, Option<i64>) =
        sqlx::query_as("SELECT COUNT(*), MIN(at) FROM mfa_failures WHERE user_id = $1 AND at > $2")
            .bind(user_id)
            .bind(since)
            .fetch_one(&mut *conn)
            .await?;
    Ok(
        (count >= FAILURES_PER_PERSON)
            .then(|| oldest.unwrap_or(now) + millis(FAILURE_WINDOW) - now),
    )
}

async fn count_failure(conn: &mut AnyConnection, user_id: i64, now: i64) -> ServiceResult<i64> {
    Ok(
        sqlx::query_scalar("INSERT INTO mfa_failures (user_id, at) VALUES ($1, $2) RETURNING id")
            .bind(user_id)
            .bind(now)
            .fetch_one(&mut *conn)
            .await?,
    )
}

async fn forget_failure(conn: &mut AnyConnection, id: i64) -> ServiceResult<()> {
    sqlx::query("DELETE FROM mfa_failures WHERE id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

async fn replace_recovery_codes(
    conn: &mut AnyConnection,
    user_id: i64,
    codes: &[SecretHash],
    now: i64,
) -> ServiceResult<()> {
    sqlx::query("DELETE FROM mfa_recovery_codes WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    for code in codes {
        sqlx::query(
            "INSERT INTO mfa_recovery_codes (user_id, code_hash, created_at) VALUES ($1, $2, $3)",
        )
        .bind(user_id)
        .bind(code.as_str())
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Notes, in a sign-in's transaction, that the device hashed `device` gave
/// the second step as `user_id` now: it skips the step for 30 days.
pub(super) async fn trust_device(
    conn: &mut AnyConnection,
    device: &SecretHash,
    user_id: i64,
    now: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "INSERT INTO mfa_trusted_devices (device_hash, user_id, verified_at) VALUES ($1, $2, $3) \
         ON CONFLICT (device_hash, user_id) DO UPDATE SET verified_at = excluded.verified_at",
    )
    .bind(device.as_str())
    .bind(user_id)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Forgets, in the transaction that sets `user_id`'s password (by an
/// administrator, a reset link or a first sign-in code), every device that
/// skips their second step: whoever learnt the old password on one of them
/// must not get in with the new one and no code.
pub(super) async fn forget_trusted_devices(
    conn: &mut AnyConnection,
    user_id: i64,
) -> ServiceResult<()> {
    sqlx::query("DELETE FROM mfa_trusted_devices WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The refusal of a person over the limit of wrong codes, with the wait.
pub fn limited(retry_after_millis: i64) -> ServiceError {
    let seconds = u64::try_from(retry_after_millis.max(1000))
        .unwrap_or(1000)
        .div_ceil(1000);
    ServiceError::RateLimited {
        message: format!(
            "Слишком много попыток ввести код. Попробуйте через {} мин.",
            seconds.div_ceil(60)
        ),
        retry_after: std::time::Duration::from_secs(seconds),
    }
}
