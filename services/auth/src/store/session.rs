//! Sessions: one family of refresh tokens per sign-in, each token exchanged
//! once for its successor (see [`crate::domain::refresh`]).

use portal_kit::ServiceResult;
use portal_kit::audit::{self, AuditActor, AuditContext, Changes, Event, action, entity};
use portal_kit::token::Subject;
use sqlx::AnyConnection;

use super::Store;
use super::access::{raise_access_version, subject};
use super::device::{device_exists, remember_device};
use super::mfa::trust_device;
use super::sign_in_attempt::forget_attempt;
use crate::domain::secret::SecretHash;

/// The audit reason of a session ended from the person's list of their
/// devices or by an administrator, not by signing out on it.
pub const REASON_ENDED: &str = "session-ended";

/// What a sign-in with the right password writes ([`Store::record_sign_in`]).
pub struct SignInRecord<'a> {
    /// The attempt the limits recorded, forgotten: a right password does not
    /// count (none after a second step: its attempt was forgotten at the first).
    pub attempt_id: Option<i64>,
    pub user_id: i64,
    /// The device token the browser presented, kept if any person has signed
    /// in with it before (a shared ward PC is known for all its staff)...
    pub presented_device: Option<&'a SecretHash>,
    /// ...else this new one is remembered in its place.
    pub new_device: &'a SecretHash,
    pub refresh_token: &'a SecretHash,
    pub now: i64,
    pub expires_at: i64,
    /// The request, recorded in the audit log as the person's sign-in.
    pub context: &'a AuditContext,
    /// Where the new session is used from.
    pub used_from: &'a UsedFrom,
    /// How the password was checked (`password`, `directory`): the sign-in
    /// record's reason.
    pub method: &'a str,
    /// The second factor given (`totp`, `recovery-code`), recorded with the
    /// method (`password+totp`); its device then skips the step for 30 days.
    pub second_factor: Option<&'a str>,
    /// A session of single sign-on: the provider's session id (`sid`, ""
    /// when it named none), which its back-channel logout names.
    pub sso_session: Option<&'a str>,
}

/// A session a sign-out ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedOut {
    pub user_id: i64,
    /// The person's new access version.
    pub access_version: i64,
    /// The session came from single sign-on (the provider's is to end too).
    pub single_sign_on: bool,
}

/// Where a session is used from, for its person's list of their devices: the
/// browser's user agent and the client address of its latest sign-in or renewal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UsedFrom {
    pub user_agent: Option<String>,
    pub address: Option<String>,
}

/// `id, user_agent, address, created_at, last_seen_at` of a session row.
type SessionColumns = (i64, Option<String>, Option<String>, i64, Option<i64>);

/// One session a person can see and end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub id: i64,
    pub used_from: UsedFrom,
    pub created_at: i64,
    pub last_seen_at: i64,
}

/// Which of a person's sessions to end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// These, where they are the person's.
    Named(Vec<i64>),
    /// Every one but this (the caller's own; none: every one).
    AllBut(Option<i64>),
}

pub struct SignInRecorded {
    /// The new session's id.
    pub session_id: i64,
    /// Whether the presented device token was kept (else the new one was).
    pub kept_presented_device: bool,
    /// Expired sessions forgotten on the way.
    pub purged_sessions: u64,
    /// Who the access token speaks of ([`Store::subject`]).
    pub subject: Option<Subject>,
}

/// The outcome of exchanging a refresh token for its successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rotation {
    /// The successor is stored; the token sent is used up.
    Rotated { user_id: i64, family_id: i64 },
    /// The token had been exchanged before: someone holds a copy. Its family is
    /// now revoked.
    Reused { user_id: i64, family_id: i64 },
    /// The user's status blocks sign-in; the family is now revoked.
    Blocked { user_id: i64 },
    /// Unknown, expired or already revoked.
    Invalid,
}

impl Store {
    /// Writes what a right password leads to in one transaction, one turn at
    /// SQLite's single writer rather than four (each a long wait while a storm
    /// of guesses writes its attempts): the attempt forgotten, expired sessions
    /// purged, the device remembered, and a new session, a family holding its
    /// first refresh token; and reads the person's token subject.
    pub async fn record_sign_in(
        &self,
        sign_in: &SignInRecord<'_>,
    ) -> ServiceResult<SignInRecorded> {
        let mut tx = self.write().await?;
        if let Some(attempt_id) = sign_in.attempt_id {
            forget_attempt(&mut tx, attempt_id).await?;
        }
        let purged_sessions = sqlx::query("DELETE FROM refresh_families WHERE expires_at < $1")
            .bind(sign_in.now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let kept_presented_device = match sign_in.presented_device {
            Some(presented) => device_exists(&mut tx, presented).await?,
            None => false,
        };
        let device = match sign_in.presented_device {
            Some(presented) if kept_presented_device => presented,
            _ => sign_in.new_device,
        };
        remember_device(&mut tx, device, sign_in.user_id, sign_in.now).await?;
        let family_id: i64 = sqlx::query_scalar(
            "INSERT INTO refresh_families (user_id, created_at, expires_at, user_agent, address, last_seen_at, sso_session) \
             VALUES ($1, $2, $3, $4, $5, $2, $6) RETURNING id",
        )
        .bind(sign_in.user_id)
        .bind(sign_in.now)
        .bind(sign_in.expires_at)
        .bind(sign_in.used_from.user_agent.as_deref())
        .bind(sign_in.used_from.address.as_deref())
        .bind(sign_in.sso_session)
        .fetch_one(&mut *tx)
        .await?;
        insert_refresh_token(
            &mut tx,
            family_id,
            sign_in.refresh_token,
            sign_in.now,
            sign_in.expires_at,
        )
        .await?;
        let signed_in = sign_in
            .context
            .acting_as(AuditActor::Person(sign_in.user_id));
        let mut event =
            Event::new(entity::USER, sign_in.user_id, action::SIGN_IN).reason(sign_in.method);
        if let Some(factor) = sign_in.second_factor {
            trust_device(&mut tx, device, sign_in.user_id, sign_in.now).await?;
            let method = format!("{}+{factor}", sign_in.method);
            event = event.changes(Changes::new().field("method", None::<&str>, method));
        }
        audit::record(&mut tx, &signed_in, event).await?;
        // Read on the connection already held, rather than queueing for
        // another behind the guesses.
        let subject = subject(&mut tx, sign_in.user_id).await?;
        tx.commit().await?;
        Ok(SignInRecorded {
            session_id: family_id,
            kept_presented_device,
            purged_sessions,
            subject,
        })
    }

    /// Exchanges the token hashed `old` for the one hashed `new`, atomically: the
    /// first statement claims the old token, so of two concurrent exchanges only
    /// one succeeds and the other is treated as the reuse it is.
    pub async fn rotate(
        &self,
        old: &SecretHash,
        new: &SecretHash,
        now: i64,
        expires_at: i64,
        used_from: &UsedFrom,
    ) -> ServiceResult<Rotation> {
        let mut tx = self.write().await?;
        let claimed = sqlx::query(
            "UPDATE refresh_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL",
        )
        .bind(now)
        .bind(old.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        let row: Option<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "SELECT t.family_id, t.expires_at, f.user_id, f.revoked_at \
             FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id WHERE t.token_hash = $1",
        )
        .bind(old.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((family_id, token_expires_at, user_id, revoked_at)) = row else {
            return Ok(Rotation::Invalid);
        };
        if revoked_at.is_some() || token_expires_at <= now {
            tx.commit().await?;
            return Ok(Rotation::Invalid);
        }
        if !claimed {
            revoke_family(&mut tx, family_id, now).await?;
            tx.commit().await?;
            return Ok(Rotation::Reused { user_id, family_id });
        }
        let blocked: i64 = sqlx::query_scalar(
            "SELECT COALESCE(s.blocks_sign_in, 0) FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE u.id = $1",
        )
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
        if blocked != 0 {
            revoke_family(&mut tx, family_id, now).await?;
            tx.commit().await?;
            return Ok(Rotation::Blocked { user_id });
        }
        // A renewal that sent no user agent or address (a system calling
        // RefreshToken directly) keeps what was known.
        let extended = sqlx::query(
            "UPDATE refresh_families SET expires_at = $1, last_seen_at = $2, \
             user_agent = COALESCE($3, user_agent), address = COALESCE($4, address) \
             WHERE id = $5 AND revoked_at IS NULL",
        )
        .bind(expires_at)
        .bind(now)
        .bind(used_from.user_agent.as_deref())
        .bind(used_from.address.as_deref())
        .bind(family_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if extended != 1 {
            // Revoked while this exchange waited for the row.
            return Ok(Rotation::Invalid);
        }
        insert_refresh_token(&mut tx, family_id, new, now, expires_at).await?;
        tx.commit().await?;
        Ok(Rotation::Rotated { user_id, family_id })
    }

    /// Ends the session the token belongs to, recorded as its person's
    /// sign-out; an unknown token ends nothing.
    pub async fn revoke_session_of(
        &self,
        context: &AuditContext,
        token: &SecretHash,
        now: i64,
    ) -> ServiceResult<Option<SignedOut>> {
        let mut tx = self.write().await?;
        let revoked: Option<(i64, Option<String>)> = sqlx::query_as(
            "UPDATE refresh_families SET revoked_at = $1 \
             WHERE revoked_at IS NULL AND id IN (SELECT family_id FROM refresh_tokens WHERE token_hash = $2) \
             RETURNING user_id, sso_session",
        )
        .bind(now)
        .bind(token.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((user_id, sso_session)) = revoked else {
            return Ok(None);
        };
        let signed_out = context.acting_as(AuditActor::Person(user_id));
        let event = Event::new(entity::USER, user_id, action::SIGN_OUT);
        audit::record(&mut tx, &signed_out, event).await?;
        // What this session was given stops working with it: its access
        // tokens, and the download links they were handed (a ward PC's
        // history keeps those). The person's other sessions renew theirs.
        let access_version = raise_access_version(&mut tx, user_id, now).await?;
        tx.commit().await?;
        Ok(Some(SignedOut {
            user_id,
            access_version,
            single_sign_on: sso_session.is_some(),
        }))
    }

    /// `user_id`'s sessions neither ended nor expired at `now`, the most
    /// recently used first.
    pub async fn sessions_of(&self, user_id: i64, now: i64) -> ServiceResult<Vec<SessionRow>> {
        let rows: Vec<SessionColumns> = sqlx::query_as(
            "SELECT id, user_agent, address, created_at, last_seen_at FROM refresh_families \
             WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 \
             ORDER BY COALESCE(last_seen_at, created_at) DESC, id DESC",
        )
        .bind(user_id)
        .bind(now)
        .fetch_all(&mut *self.read().await?)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(id, user_agent, address, created_at, last_seen_at)| SessionRow {
                    id,
                    used_from: UsedFrom {
                        user_agent,
                        address,
                    },
                    created_at,
                    last_seen_at: last_seen_at.unwrap_or(created_at),
                },
            )
            .collect())
    }

    /// Ends `user_id`'s sessions that `ending` names, each recorded as a
    /// sign-out of that session by `context`'s actor. Answers how many ended
    /// and, if any did, the person's new access version: every access token
    /// they hold is stale (the sessions kept renew theirs), as at a sign-out.
    pub async fn end_sessions(
        &self,
        context: &AuditContext,
        user_id: i64,
        ending: &Ending,
        now: i64,
    ) -> ServiceResult<(u64, Option<i64>)> {
        let mut tx = self.write().await?;
        let alive: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM refresh_families WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id",
        )
        .bind(user_id)
        .fetch_all(&mut *tx)
        .await?;
        let chosen: Vec<i64> = alive
            .into_iter()
            .filter(|id| match ending {
                Ending::Named(ids) => ids.contains(id),
                Ending::AllBut(kept) => Some(*id) != *kept,
            })
            .collect();
        for &family_id in &chosen {
            revoke_family(&mut tx, family_id, now).await?;
            let event = Event::new(entity::USER, user_id, action::SIGN_OUT).reason(REASON_ENDED);
            audit::record(&mut tx, context, event).await?;
        }
        let version = if chosen.is_empty() {
            None
        } else {
            Some(raise_access_version(&mut tx, user_id, now).await?)
        };
        tx.commit().await?;
        Ok((chosen.len() as u64, version))
    }

    /// Records a sign-in refused after the password was checked (a blocked
    /// person's), which writes nothing else.
    pub async fn record_refused_sign_in(
        &self,
        context: &AuditContext,
        user_id: Option<i64>,
        reason: &str,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let event = Event::new(entity::USER, user_id, action::SIGN_IN_REFUSED).reason(reason);
        audit::record(&mut tx, context, event).await?;
        tx.commit().await?;
        Ok(())
    }
}

async fn insert_refresh_token(
    conn: &mut AnyConnection,
    family_id: i64,
    token: &SecretHash,
    now: i64,
    expires_at: i64,
) -> ServiceResult<()> {
    sqlx::query("INSERT INTO refresh_tokens (family_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(family_id)
        .bind(token.as_str())
        .bind(now)
        .bind(expires_at)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

async fn revoke_family(conn: &mut AnyConnection, family_id: i64, now: i64) -> ServiceResult<()> {
    sqlx::query("UPDATE refresh_families SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
        .bind(now)
        .bind(family_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
