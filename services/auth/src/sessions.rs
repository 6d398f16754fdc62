//! Sign-in, refresh and sign-out: the rules of DESIGN §6 over the store.

use std::time::Instant;

use portal_kit::db::now_millis;
use portal_kit::token::{ACCESS_TOKEN_TTL, MSG_SESSION_EXPIRED, TokenIssuer};
use portal_kit::{ServiceError, ServiceResult};

use crate::domain::login::LoginKey;
use crate::domain::password::{MAX_PASSWORD_CHARS, Passwords};
use crate::domain::rate_limit::SignInLimiter;
use crate::domain::refresh::{RefreshToken, expires_at};
use crate::store::{Rotation, Store};

pub const MSG_CREDENTIALS_REQUIRED: &str = "Введите логин и пароль";
pub const MSG_BAD_CREDENTIALS: &str = "Неверный логин или пароль";
/// Shown only after the right password, so it tells a guesser nothing.
pub const MSG_ACCOUNT_BLOCKED: &str = "Учётная запись заблокирована. Обратитесь к администратору.";

/// An access token and the refresh token that renews it.
#[derive(Debug)]
pub struct IssuedTokens {
    pub access_token: String,
    pub refresh_token: RefreshToken,
    /// Lifetime of the access token in seconds.
    pub expires_in: i32,
}

#[derive(Clone)]
pub struct Sessions {
    store: Store,
    passwords: Passwords,
    limiter: SignInLimiter,
    issuer: TokenIssuer,
}

impl Sessions {
    pub fn new(store: Store, passwords: Passwords, issuer: TokenIssuer) -> Sessions {
        Sessions {
            store,
            passwords,
            limiter: SignInLimiter::new(),
            issuer,
        }
    }

    /// Signs `login` in from client `address`. An unknown login and a wrong
    /// password cost the same and answer the same; both count against the limits
    /// of the login and of the address.
    pub async fn sign_in(
        &self,
        login: &str,
        password: &str,
        address: &str,
    ) -> ServiceResult<IssuedTokens> {
        if login.trim().is_empty() || password.is_empty() {
            return Err(ServiceError::invalid(MSG_CREDENTIALS_REQUIRED));
        }
        let key = LoginKey::of(login);
        let attempt = self.limiter.begin(&key, address).await.inspect_err(|_| {
            tracing::warn!(
                login = key.as_str(),
                address,
                "sign-in refused: too many failures or unfinished attempts"
            );
        })?;
        let credentials = self.store.credentials(&key).await?;
        // No password can be this long, so it is not worth hashing.
        let plausible = password.chars().count() <= MAX_PASSWORD_CHARS;
        let stored = credentials
            .as_ref()
            .filter(|_| plausible)
            .map(|c| &c.password_hash);
        let matches = plausible && self.passwords.verify(password, stored).await?;
        let Some(user) = credentials.filter(|_| matches) else {
            attempt.failed(Instant::now());
            tracing::info!(login = key.as_str(), address, "sign-in failed");
            return Err(ServiceError::Unauthenticated(MSG_BAD_CREDENTIALS.into()));
        };
        attempt.succeeded();
        if user.blocked {
            tracing::info!(
                user_id = user.user_id,
                "sign-in refused: the user's status blocks it"
            );
            return Err(ServiceError::Unauthenticated(MSG_ACCOUNT_BLOCKED.into()));
        }
        let now = now_millis();
        let purged = self.store.purge_expired_sessions(now).await?;
        if purged > 0 {
            tracing::debug!(purged, "forgot expired sessions");
        }
        let refresh_token = RefreshToken::generate();
        self.store
            .start_session(user.user_id, &refresh_token.hash(), now, expires_at(now))
            .await?;
        tracing::info!(user_id = user.user_id, "signed in");
        self.issue(user.user_id, refresh_token).await
    }

    /// Exchanges a refresh token for a new access token and the token's successor.
    pub async fn refresh(&self, token: &str) -> ServiceResult<IssuedTokens> {
        let token = RefreshToken::from_client(token);
        if token.is_empty() {
            return Err(session_expired());
        }
        let next = RefreshToken::generate();
        let now = now_millis();
        match self
            .store
            .rotate(&token.hash(), &next.hash(), now, expires_at(now))
            .await?
        {
            Rotation::Rotated { user_id } => self.issue(user_id, next).await,
            Rotation::Reused { user_id, family_id } => {
                tracing::warn!(
                    user_id,
                    family_id,
                    "a used refresh token was presented again: session revoked"
                );
                Err(session_expired())
            }
            Rotation::Blocked { user_id } => {
                tracing::info!(user_id, "refresh refused: the user's status blocks sign-in");
                Err(session_expired())
            }
            Rotation::Invalid => Err(session_expired()),
        }
    }

    /// Ends the session of a refresh token; unknown or revoked tokens are fine.
    pub async fn sign_out(&self, token: &str) -> ServiceResult<()> {
        let token = RefreshToken::from_client(token);
        if !token.is_empty()
            && self
                .store
                .revoke_session_of(&token.hash(), now_millis())
                .await?
        {
            tracing::info!("signed out");
        }
        Ok(())
    }

    async fn issue(
        &self,
        user_id: i64,
        refresh_token: RefreshToken,
    ) -> ServiceResult<IssuedTokens> {
        let subject = self.store.subject(user_id).await?.ok_or_else(|| {
            ServiceError::internal(format!("user {user_id} of a session does not exist"))
        })?;
        let access_token = self.issuer.issue(subject).map_err(ServiceError::internal)?;
        Ok(IssuedTokens {
            access_token,
            refresh_token,
            expires_in: i32::try_from(ACCESS_TOKEN_TTL.as_secs()).unwrap_or(i32::MAX),
        })
    }
}

fn session_expired() -> ServiceError {
    ServiceError::Unauthenticated(MSG_SESSION_EXPIRED.into())
}
