//! «Забыли пароль?» (issue 39.3): the links sent, kept as the SHA-256 of their
//! token, and the requests the limits count. The invitations and first
//! sign-in codes of [`super::invitation`] share the tables, told apart by
//! their [`Purpose`], and set a password the same way ([`set_password`]).

use portal_kit::audit::{self, AuditContext, Event, action, entity};
use portal_kit::{ServiceError, ServiceResult};
use sqlx::AnyConnection;

use super::Store;
use super::access::raise_access_version;
use super::mfa::forget_trusted_devices;
use crate::domain::login::LoginKey;
use crate::domain::one_time::Purpose;
use crate::domain::password::PasswordHash;
use crate::domain::secret::SecretHash;

/// The tokens ResetPassword takes: reset links and invitations' links.
const LINK_PURPOSES: &str = "purpose IN ('reset', 'invitation')";
/// The window the limits count requests in.
pub const RESET_WINDOW_MILLIS: i64 = 60 * 60 * 1000;
/// Links a login is sent per window on the requests of one client address: a
/// stranger's requests from elsewhere never use up the person's own.
pub const RESETS_PER_LOGIN_AND_ADDRESS: i64 = 3;
/// Requests honoured per window from one client address, whatever the logins
/// (a ward PC's staff share one).
pub const RESETS_PER_ADDRESS: i64 = 20;
/// How long used and expired links are kept before they are deleted.
pub(super) const SPENT_LINKS_KEPT_MILLIS: i64 = 24 * 60 * 60 * 1000;

pub const MSG_RESET_LINK_INVALID: &str =
    "Ссылка для восстановления пароля недействительна или устарела. Запросите новую.";
/// The stable reason of an unknown, expired or used link.
pub const REASON_RESET_LINK_INVALID: &str = "password-reset-invalid";
/// The audit reasons of a request that sent nothing to a known person.
pub const REASON_BLOCKED: &str = "blocked";
pub const REASON_NO_EMAIL: &str = "no-email";
/// The person's password is the directory's: it is changed in the domain.
pub const REASON_DIRECTORY_PASSWORD: &str = "directory-password";

/// A request for a link, as the limits and the mail see it.
pub struct ResetAsked<'a> {
    pub login: &'a LoginKey,
    /// The client address's limit key.
    pub address: &'a str,
    /// The hash of the token a link would carry.
    pub token: &'a SecretHash,
    pub now: i64,
    /// The directory checks the passwords of people without a portal one:
    /// they get no link (their password is the domain's).
    pub directory: bool,
}

/// What a request came to.
#[derive(Debug, PartialEq, Eq)]
pub enum ResetRequested {
    /// Beyond a limit: nothing recorded, nothing sent.
    Limited,
    /// No such login, or the person is blocked or has no e-mail address.
    NoOne,
    /// A link to send to this address (its token is stored).
    Send { user_id: i64, email: String },
}

/// A link's token, unknown, expired or used.
pub fn invalid_link() -> ServiceError {
    ServiceError::conflict(MSG_RESET_LINK_INVALID).because(REASON_RESET_LINK_INVALID)
}

impl Store {
    /// Counts a request against the limits and, for a person who may sign in
    /// and has an e-mail address, stores a link's token.
    pub async fn request_password_reset(
        &self,
        context: &AuditContext,
        asked: &ResetAsked<'_>,
    ) -> ServiceResult<ResetRequested> {
        let ResetAsked {
            login,
            address,
            token,
            now,
            directory,
        } = *asked;
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM password_reset_tokens WHERE expires_at <= $1")
            .bind(now - SPENT_LINKS_KEPT_MILLIS)
            .execute(&mut *tx)
            .await?;
        let counted = Counted {
            purpose: Purpose::Reset,
            login: login.as_str(),
            address,
            now,
        };
        if counted.over_limit(&mut tx).await? {
            tx.commit().await?;
            return Ok(ResetRequested::Limited);
        }
        counted.record(&mut tx).await?;
        let person: Option<(i64, String, i64, String)> = sqlx::query_as(
            "SELECT u.id, u.email, COALESCE(s.blocks_sign_in, 0), u.password_hash \
             FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE u.login_key = $1",
        )
        .bind(login.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((user_id, email, blocked, password_hash)) = person else {
            tx.commit().await?;
            return Ok(ResetRequested::NoOne);
        };
        let event = Event::new(entity::USER, user_id, action::PASSWORD_RESET_REQUESTED);
        let refused = if blocked != 0 {
            Some(REASON_BLOCKED)
        } else if directory && password_hash.is_empty() {
            Some(REASON_DIRECTORY_PASSWORD)
        } else if email.trim().is_empty() {
            Some(REASON_NO_EMAIL)
        } else {
            None
        };
        if let Some(reason) = refused {
            audit::record(&mut tx, context, event.reason(reason)).await?;
            tx.commit().await?;
            return Ok(ResetRequested::NoOne);
        }
        store_token(&mut tx, user_id, Purpose::Reset, token, now).await?;
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok(ResetRequested::Send { user_id, email })
    }

    /// Whose link `token` is, if it still works: read before the new password
    /// is hashed, so a made-up token costs no hash.
    pub async fn password_reset_user(&self, token: &SecretHash, now: i64) -> ServiceResult<i64> {
        let found: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT t.user_id FROM password_reset_tokens t JOIN users u ON u.id = t.user_id \
             LEFT JOIN statuses s ON s.id = u.status_id \
             WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.expires_at > $2 \
             AND COALESCE(s.blocks_sign_in, 0) = 0 AND t.{LINK_PURPOSES}"
        )))
        .bind(token.as_str())
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        found.ok_or_else(invalid_link)
    }

    /// Sets the password of the link's person once: uses up every link of
    /// theirs, ends all their sessions and makes their access tokens stale.
    /// Returns the person and their new access version.
    pub async fn reset_password(
        &self,
        context: &AuditContext,
        token: &SecretHash,
        password: &PasswordHash,
        now: i64,
    ) -> ServiceResult<(i64, i64)> {
        let mut tx = self.write().await?;
        let used: Option<(i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "UPDATE password_reset_tokens SET used_at = $1 \
             WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $3 AND {LINK_PURPOSES} \
             RETURNING user_id, purpose"
        )))
        .bind(now)
        .bind(token.as_str())
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let (user_id, purpose) = used.ok_or_else(invalid_link)?;
        if is_blocked(&mut tx, user_id).await? {
            return Err(invalid_link());
        }
        let version = set_password(&mut tx, user_id, password, now).await?;
        let done = match Purpose::parse(&purpose) {
            Some(Purpose::Invitation) => action::INVITATION_ACCEPTED,
            _ => action::PASSWORD_RESET,
        };
        let event = Event::new(entity::USER, user_id, done);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok((user_id, version))
    }
}

/// A request (or a wrong code) the limits count: per login from one client
/// address, and per client address.
pub(super) struct Counted<'a> {
    pub purpose: Purpose,
    pub login: &'a str,
    /// The client address's limit key.
    pub address: &'a str,
    pub now: i64,
}

impl Counted<'_> {
    /// Whether one more would pass a limit: [`RESETS_PER_LOGIN_AND_ADDRESS`]
    /// for the login from this address, [`RESETS_PER_ADDRESS`] from it.
    /// Forgets those older than the window first.
    pub async fn over_limit(&self, tx: &mut AnyConnection) -> ServiceResult<bool> {
        let since = self.now - RESET_WINDOW_MILLIS;
        sqlx::query("DELETE FROM password_reset_requests WHERE at <= $1")
            .bind(since)
            .execute(&mut *tx)
            .await?;
        let (from_address, pair): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN login_key = $2 THEN 1 ELSE 0 END), 0) \
             FROM password_reset_requests WHERE address_key = $1 AND at > $3 AND purpose = $4",
        )
        .bind(self.address)
        .bind(self.login)
        .bind(since)
        .bind(self.purpose.as_str())
        .fetch_one(&mut *tx)
        .await?;
        Ok(pair >= RESETS_PER_LOGIN_AND_ADDRESS || from_address >= RESETS_PER_ADDRESS)
    }

    pub async fn record(&self, tx: &mut AnyConnection) -> ServiceResult<()> {
        sqlx::query(
            "INSERT INTO password_reset_requests (at, login_key, address_key, purpose) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(self.now)
        .bind(self.login)
        .bind(self.address)
        .bind(self.purpose.as_str())
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

/// Stores a token of `purpose` for `user_id`, good for the purpose's lifetime.
pub(super) async fn store_token(
    tx: &mut AnyConnection,
    user_id: i64,
    purpose: Purpose,
    token: &SecretHash,
    now: i64,
) -> ServiceResult<i64> {
    let expires_at = now + purpose.lifetime_millis();
    sqlx::query(
        "INSERT INTO password_reset_tokens (user_id, token_hash, created_at, expires_at, purpose) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(user_id)
    .bind(token.as_str())
    .bind(now)
    .bind(expires_at)
    .bind(purpose.as_str())
    .execute(&mut *tx)
    .await?;
    Ok(expires_at)
}

/// Whether the person's status blocks sign-in.
pub(super) async fn is_blocked(tx: &mut AnyConnection, user_id: i64) -> ServiceResult<bool> {
    let blocked: i64 = sqlx::query_scalar(
        "SELECT COALESCE(s.blocks_sign_in, 0) FROM users u \
         LEFT JOIN statuses s ON s.id = u.status_id WHERE u.id = $1",
    )
    .bind(user_id)
    .fetch_one(&mut *tx)
    .await?;
    Ok(blocked != 0)
}

/// Sets a person's password without an administrator: uses up every
/// one-time token of theirs (links and codes), ends all their sessions and
/// makes their access tokens stale. Returns their new access version.
pub(super) async fn set_password(
    tx: &mut AnyConnection,
    user_id: i64,
    password: &PasswordHash,
    now: i64,
) -> ServiceResult<i64> {
    sqlx::query(
        "UPDATE password_reset_tokens SET used_at = $1 WHERE user_id = $2 AND used_at IS NULL",
    )
    .bind(now)
    .bind(user_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3")
        .bind(password.as_str())
        .bind(now)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    // As an administrator's new password does (Store::update_user).
    forget_trusted_devices(tx, user_id).await?;
    sqlx::query(
        "UPDATE refresh_families SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(user_id)
    .execute(&mut *tx)
    .await?;
    raise_access_version(tx, user_id, now).await
}
