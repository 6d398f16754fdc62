//! Sign-in, refresh and sign-out: the rules of DESIGN §6 over the store.

use std::time::Duration;

use portal_kit::audit::{AuditActor, AuditContext};
use portal_kit::db::now_millis;
use portal_kit::token::{ACCESS_TOKEN_TTL, MSG_SESSION_EXPIRED, Subject, TokenIssuer};
use portal_kit::{ServiceError, ServiceResult};

use crate::app::limits::{Attempt, SignInLimits};
use crate::app::mfa::{FirstStep, SecondFactor};
use crate::app::password_check::{Checked, Method, PasswordCheck};
use crate::app::sso_sign_in::{SsoFound, SsoSignIn};
use crate::directory::REASON_DIRECTORY_UNAVAILABLE;
use crate::domain::device::DEVICE_TOKEN_TTL;
use crate::domain::login::{LoginKey, MAX_LOGIN_CHARS};
use crate::domain::password::Queue;
use crate::domain::rate_limit::{AttemptKeys, DEVICE_MAX_FAILURES};
use crate::domain::refresh::{REFRESH_TOKEN_TTL, expires_at};
use crate::domain::secret::SecretToken;
use crate::store::Store;
use crate::store::audit::REASON_BLOCKED;
use crate::store::session::{Rotation, SignInRecord, SignedOut, UsedFrom};
use crate::store::user::Credentials;

pub const MSG_CREDENTIALS_REQUIRED: &str = "Введите логин и пароль";
pub const MSG_BAD_CREDENTIALS: &str = "Неверный логин или пароль";
/// Shown only after the right password, so it tells a guesser nothing.
pub const MSG_ACCOUNT_BLOCKED: &str = "Учётная запись заблокирована. Обратитесь к администратору.";

/// What a person typed, and the device token their browser holds ("" if none).
#[derive(Clone, Copy)]
pub struct SignInForm<'a> {
    pub login: &'a str,
    pub password: &'a str,
    pub device_token: &'a str,
}

/// A signed-in session, and the device token to present at later sign-ins.
#[derive(Debug)]
pub struct SignedIn {
    pub tokens: IssuedTokens,
    pub device_token: SecretToken,
    /// Lifetime of the device token in seconds, from this sign-in.
    pub device_expires_in: i32,
}

/// What a right password leads to: a session, or first a second step.
#[derive(Debug)]
pub enum SignInOutcome {
    SignedIn(SignedIn),
    /// The person must give a code ([`Sessions::finish_sign_in`] with this
    /// token); no session yet.
    SecondStep {
        mfa_token: SecretToken,
    },
}

/// An access token and the refresh token that renews it.
#[derive(Debug)]
pub struct IssuedTokens {
    pub access_token: String,
    pub refresh_token: SecretToken,
    /// Lifetime of the access token in seconds.
    pub expires_in: i32,
    /// Lifetime of the refresh token in seconds.
    pub refresh_expires_in: i32,
}

/// What a right sign-in opens its session with.
struct Opening {
    user_id: i64,
    method: Method,
    /// The device token the browser presented ("" if none).
    device: SecretToken,
    /// The presented device is known to this person (its own connections).
    on_known_device: bool,
    /// The second factor given (`totp`, `recovery-code`); its device then
    /// skips the step for 30 days.
    second_factor: Option<&'static str>,
    /// Single sign-on's provider session (`sid`, "" if it named none).
    sso_session: Option<String>,
}

#[derive(Clone)]
pub struct Sessions {
    store: Store,
    check: PasswordCheck,
    limits: SignInLimits,
    issuer: TokenIssuer,
    second_factor: SecondFactor,
    /// Single sign-on, when PORTAL_OIDC_ISSUER is set.
    single_sign_on: Option<SsoSignIn>,
}

impl Sessions {
    pub fn new(
        store: Store,
        check: PasswordCheck,
        issuer: TokenIssuer,
        second_factor: SecondFactor,
        single_sign_on: Option<SsoSignIn>,
    ) -> Sessions {
        Sessions {
            limits: SignInLimits::new(store.clone()),
            store,
            check,
            issuer,
            second_factor,
            single_sign_on,
        }
    }

    /// Single sign-on, if it is on.
    pub fn single_sign_on(&self) -> Option<&SsoSignIn> {
        self.single_sign_on.as_ref()
    }

    /// The second factor of two-step sign-in, for the person's own settings.
    pub fn second_factor(&self) -> &SecondFactor {
        &self.second_factor
    }

    /// Refuses a sign-in that was no wrong guess with `error` (`refusal`: the
    /// person, the audit reason): recorded, and not counted against the limits.
    async fn refuse(
        &self,
        attempt: Option<Attempt>,
        tried: &AuditContext,
        (user_id, reason): (Option<i64>, &'static str),
        error: ServiceError,
    ) -> ServiceError {
        let recorded = async {
            if let Some(attempt) = attempt {
                attempt.succeeded().await?;
            }
            self.store
                .record_refused_sign_in(tried, user_id, reason)
                .await
        };
        if let Err(error) = recorded.await {
            return error;
        }
        count_sign_in(reason);
        tracing::info!(?user_id, reason, "sign-in refused");
        error
    }

    /// Signs a person in from client `address` (its limit key). An unknown login
    /// and a wrong password cost the same and answer the same; both count against
    /// the limits (see [`crate::domain::rate_limit`]). A sign-in, and a refusal
    /// after the password was checked, is recorded in the audit log with
    /// `context` (the request); a refusal names the login tried, never the
    /// password. Refusals by the limits are not recorded: a flood of them
    /// would write as much as the limits spare. Who checks the password is
    /// [`PasswordCheck`]'s rule (the portal's hash or the directory); a
    /// refusal after a right password, or for the directory's outage, is
    /// recorded but never counted.
    pub async fn sign_in(
        &self,
        form: SignInForm<'_>,
        address: &str,
        context: &AuditContext,
        used_from: &UsedFrom,
    ) -> ServiceResult<SignInOutcome> {
        let SignInForm {
            login,
            password,
            device_token,
        } = form;
        if login.trim().is_empty() || password.is_empty() {
            count_sign_in("incomplete");
            return Err(ServiceError::invalid(MSG_CREDENTIALS_REQUIRED));
        }
        let claimed = self.claimed(login, device_token).await?;
        let login_shown = shown(claimed.key.as_ref());
        let queue = match claimed.known_device {
            Some(_) => Queue::Priority,
            None => Queue::Ordinary,
        };
        self.check.passwords().check_room(queue)?;
        let keys = claimed.attempt_keys(address);
        let attempt = self.begin_attempt(&keys, login_shown, address).await?;
        let tried = context.acting_as(AuditActor::Anonymous {
            login: Some(login.trim().chars().take(MAX_LOGIN_CHARS).collect()),
        });
        let known = claimed.credentials.as_ref().map(|c| c.user_id);
        let checked = self
            .check
            .check(login, password, claimed.credentials, queue, &tried)
            .await;
        let shown = (login_shown, address);
        let (user, method, attempt) = self.settle(checked, attempt, &tried, known, shown).await?;
        let opening = Opening {
            user_id: user.user_id,
            method,
            device: claimed.device,
            on_known_device: claimed.known_device.is_some(),
            second_factor: None,
            sso_session: None,
        };
        self.after_password(&user, opening, attempt, context, used_from)
            .await
    }

    /// Who `login` names and whether `device_token` is their known device,
    /// read before the password is checked.
    async fn claimed(&self, login: &str, device_token: &str) -> ServiceResult<Claimed> {
        // No login can be this long: it matches nobody, and neither it nor its
        // length is kept or logged whole.
        let key = (login.chars().count() <= MAX_LOGIN_CHARS).then(|| LoginKey::of(login));
        let device = SecretToken::from_client(device_token);
        // Looked up on the shared pool: presenting a device token (any text)
        // proves nothing yet, so it never buys a place on the known devices'
        // connections; only a device found known below gets them.
        let lookups = self.store.for_sign_in(false);
        let credentials = match &key {
            Some(key) => lookups.credentials(key).await?,
            None => None,
        };
        let known_device = match (&credentials, device.is_empty()) {
            (Some(user), false) => known_device(&lookups, &device, user.user_id).await?,
            _ => None,
        };
        Ok(Claimed {
            key,
            device,
            credentials,
            known_device,
        })
    }

    /// The attempt the limits count, unless they refuse it.
    async fn begin_attempt(
        &self,
        keys: &AttemptKeys,
        login_shown: &str,
        address: &str,
    ) -> ServiceResult<Attempt> {
        self.limits.begin(keys).await.inspect_err(|error| {
            if matches!(error, ServiceError::RateLimited { .. }) {
                count_sign_in("rate_limited");
            }
            tracing::warn!(
                login = login_shown,
                address,
                "sign-in refused by the limits"
            );
        })
    }

    /// After a right password: a code asked of a person with a second
    /// factor on a device they do not trust, else the session `opening`.
    async fn after_password(
        &self,
        user: &Credentials,
        opening: Opening,
        attempt: Attempt,
        context: &AuditContext,
        used_from: &UsedFrom,
    ) -> ServiceResult<SignInOutcome> {
        let presented = (!opening.device.is_empty()).then(|| opening.device.hash());
        let lane = self.store.for_sign_in(opening.on_known_device);
        let challenge = self
            .second_factor
            .challenge(
                &lane,
                user,
                presented.as_ref(),
                FirstStep {
                    method: opening.method,
                    sso_session: None,
                },
            )
            .await?;
        if let Some(mfa_token) = challenge {
            attempt.succeeded().await?;
            count_sign_in("second_step");
            tracing::info!(user_id = user.user_id, "password right: a code is asked");
            return Ok(SignInOutcome::SecondStep { mfa_token });
        }
        let signed_in = self
            .open_session(opening, Some(attempt), context, used_from)
            .await?;
        Ok(SignInOutcome::SignedIn(signed_in))
    }

    /// The second step of a sign-in that asked for a code: the session, on
    /// the device of the first step (`device_token`), which then skips the
    /// step for 30 days. Recorded with the first step's method (the portal's
    /// password or the directory's), which its token's row kept.
    pub async fn finish_sign_in(
        &self,
        mfa_token: &str,
        code: &str,
        device_token: &str,
        context: &AuditContext,
        used_from: &UsedFrom,
    ) -> ServiceResult<SignedIn> {
        let device = SecretToken::from_client(device_token);
        let presented = (!device.is_empty()).then(|| device.hash());
        let passed = self
            .second_factor
            .pass(mfa_token, code, presented.as_ref(), context)
            .await?;
        let opening = Opening {
            user_id: passed.user_id,
            method: passed.method,
            device,
            on_known_device: false,
            second_factor: Some(passed.factor),
            sso_session: passed.sso_session,
        };
        let signed_in = self.open_session(opening, None, context, used_from).await?;
        tracing::info!(
            user_id = passed.user_id,
            factor = passed.factor,
            "second step passed"
        );
        Ok(signed_in)
    }

    /// Signs in the person single sign-on found (`found`): refused, and
    /// recorded, when blocked; a second step as after a password unless the
    /// provider checked a second factor itself.
    pub async fn sign_in_by_sso(
        &self,
        found: SsoFound,
        device_token: &str,
        context: &AuditContext,
        used_from: &UsedFrom,
    ) -> ServiceResult<SignInOutcome> {
        let SsoFound {
            user,
            provider_second_factor,
            sso_session,
        } = found;
        if user.blocked {
            let refusal = (Some(user.user_id), REASON_BLOCKED);
            let error =
                ServiceError::Unauthenticated(MSG_ACCOUNT_BLOCKED.into()).because(REASON_BLOCKED);
            return Err(self.refuse(None, context, refusal, error).await);
        }
        let device = SecretToken::from_client(device_token);
        if !provider_second_factor {
            let presented = (!device.is_empty()).then(|| device.hash());
            let challenge = self
                .second_factor
                .challenge(
                    &self.store,
                    &user,
                    presented.as_ref(),
                    FirstStep {
                        method: Method::Sso,
                        sso_session: Some(&sso_session),
                    },
                )
                .await?;
            if let Some(mfa_token) = challenge {
                count_sign_in("second_step");
                return Ok(SignInOutcome::SecondStep { mfa_token });
            }
        }
        let opening = Opening {
            user_id: user.user_id,
            method: Method::Sso,
            device,
            on_known_device: false,
            // The provider's own second factor counts for this sign-in only:
            // it does not make the device trusted for the portal's.
            second_factor: None,
            sso_session: Some(sso_session),
        };
        let signed_in = self.open_session(opening, None, context, used_from).await?;
        tracing::info!(
            user_id = user.user_id,
            provider_second_factor,
            "signed in by single sign-on"
        );
        Ok(SignInOutcome::SignedIn(signed_in))
    }

    /// The password step's outcome settled: the person to sign in with the
    /// attempt to forget, or the refusal recorded (`shown`: the login and
    /// address as logged).
    async fn settle(
        &self,
        checked: ServiceResult<Checked>,
        attempt: Attempt,
        tried: &AuditContext,
        known: Option<i64>,
        (login_shown, address): (&str, &str),
    ) -> ServiceResult<(Credentials, Method, Attempt)> {
        let checked = match checked {
            // The directory's outage is nobody's guess: never counted.
            Err(error) if error.reason() == Some(REASON_DIRECTORY_UNAVAILABLE) => {
                let refusal = (known, REASON_DIRECTORY_UNAVAILABLE);
                return Err(self.refuse(Some(attempt), tried, refusal, error).await);
            }
            other => other?,
        };
        match checked {
            Checked::Right { user, .. } if user.blocked => {
                let refusal = (Some(user.user_id), REASON_BLOCKED);
                let error = ServiceError::Unauthenticated(MSG_ACCOUNT_BLOCKED.into());
                Err(self.refuse(Some(attempt), tried, refusal, error).await)
            }
            Checked::Right { user, method } => Ok((user, method, attempt)),
            Checked::Refused {
                user_id,
                reason,
                message,
            } => {
                let error = ServiceError::Unauthenticated(message.into());
                Err(self
                    .refuse(Some(attempt), tried, (user_id, reason), error)
                    .await)
            }
            Checked::Wrong { known } => {
                attempt.failed(tried, known).await?;
                count_sign_in("bad_credentials");
                tracing::info!(login = login_shown, address, "sign-in failed");
                Err(ServiceError::Unauthenticated(MSG_BAD_CREDENTIALS.into()))
            }
        }
    }

    /// Opens the session of a sign-in whose `attempt` (none for a second
    /// step) was right.
    async fn open_session(
        &self,
        opening: Opening,
        attempt: Option<Attempt>,
        context: &AuditContext,
        used_from: &UsedFrom,
    ) -> ServiceResult<SignedIn> {
        let Opening {
            user_id,
            method,
            device,
            on_known_device,
            second_factor,
            sso_session,
        } = opening;
        let now = now_millis();
        let new_device = SecretToken::generate();
        let refresh_token = SecretToken::generate();
        let presented_device = (!device.is_empty()).then(|| device.hash());
        let recorded = self
            .store
            .for_sign_in(on_known_device)
            .record_sign_in(&SignInRecord {
                attempt_id: attempt.as_ref().map(Attempt::id),
                user_id,
                presented_device: presented_device.as_ref(),
                new_device: &new_device.hash(),
                refresh_token: &refresh_token.hash(),
                now,
                expires_at: expires_at(now),
                context,
                used_from,
                method: method.as_str(),
                second_factor,
                sso_session: sso_session.as_deref(),
            })
            .await?;
        if let Some(attempt) = attempt {
            attempt.forgotten();
        }
        if recorded.purged_sessions > 0 {
            tracing::debug!(purged = recorded.purged_sessions, "forgot expired sessions");
        }
        // The presented token if any person has signed in with it before (a
        // shared ward PC is known for all its staff), else a new one.
        let device_token = if recorded.kept_presented_device {
            device
        } else {
            new_device
        };
        let tokens = self.issue_to(
            user_id,
            recorded.session_id,
            recorded.subject,
            refresh_token,
        )?;
        count_sign_in("success");
        tracing::info!(user_id, method = method.as_str(), "signed in");
        Ok(SignedIn {
            tokens,
            device_token,
            device_expires_in: seconds(DEVICE_TOKEN_TTL),
        })
    }

    /// Exchanges a refresh token for a new access token and the token's
    /// successor; the session is now last seen `used_from`.
    pub async fn refresh(&self, token: &str, used_from: &UsedFrom) -> ServiceResult<IssuedTokens> {
        let token = SecretToken::from_client(token);
        if token.is_empty() {
            return Err(session_expired());
        }
        let next = SecretToken::generate();
        let now = now_millis();
        match self
            .store
            .rotate(&token.hash(), &next.hash(), now, expires_at(now), used_from)
            .await?
        {
            Rotation::Rotated { user_id, family_id } => {
                let subject = self.store.subject(user_id).await?;
                self.issue_to(user_id, family_id, subject, next)
            }
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

    /// Ends the session of a refresh token, recorded as its person's
    /// sign-out in `context`; unknown or revoked tokens are fine. Answers
    /// whose it was and their new access version (their tokens and download
    /// links of before are void).
    pub async fn sign_out(
        &self,
        token: &str,
        context: &AuditContext,
    ) -> ServiceResult<Option<SignedOut>> {
        let token = SecretToken::from_client(token);
        if token.is_empty() {
            return Ok(None);
        }
        let ended = self
            .store
            .revoke_session_of(context, &token.hash(), now_millis())
            .await?;
        if let Some(ended) = &ended {
            tracing::info!(user_id = ended.user_id, "signed out");
        }
        Ok(ended)
    }

    /// Tokens for `subject`, read as `user_id`'s, in session `session_id`.
    fn issue_to(
        &self,
        user_id: i64,
        session_id: i64,
        subject: Option<Subject>,
        refresh_token: SecretToken,
    ) -> ServiceResult<IssuedTokens> {
        let subject = subject.ok_or_else(|| {
            ServiceError::internal(format!("user {user_id} of a session does not exist"))
        })?;
        let access_token = self
            .issuer
            .issue_in(subject, Some(session_id))
            .map_err(ServiceError::internal)?;
        Ok(IssuedTokens {
            access_token,
            refresh_token,
            expires_in: seconds(ACCESS_TOKEN_TTL),
            refresh_expires_in: seconds(REFRESH_TOKEN_TTL),
        })
    }
}

/// Who a sign-in's form names, read before its password is checked.
struct Claimed {
    /// `None` for a login too long to be anyone's.
    key: Option<LoginKey>,
    device: SecretToken,
    credentials: Option<Credentials>,
    /// The limits' key of the person's known device the form presents.
    known_device: Option<String>,
}

impl Claimed {
    /// An attempt from a known device counts against that device; any
    /// other against the login.
    fn attempt_keys(&self, address: &str) -> AttemptKeys {
        AttemptKeys {
            address: address.to_owned(),
            login: match self.known_device {
                Some(_) => None,
                None => Some(self.key.as_ref().map_or("", LoginKey::as_str).to_owned()),
            },
            device: self.known_device.clone(),
        }
    }
}

/// The login as logs show it.
fn shown(key: Option<&LoginKey>) -> &str {
    key.map_or("(too long)", LoginKey::as_str)
}

/// The limit key of a device token that has signed in as `user_id` before
/// and has not failed too often since; `None` for any other. Read before the
/// attempt is recorded, so parallel guesses all pass it: the count taken with
/// the attempt's record ([`SignInLimits::begin`]) stops those beyond the limit.
async fn known_device(
    store: &Store,
    device: &SecretToken,
    user_id: i64,
) -> ServiceResult<Option<String>> {
    let hash = device.hash();
    let key = format!("{}:{user_id}", hash.as_str());
    let failures = store
        .known_device_failures(&hash, user_id, &key, now_millis())
        .await?;
    let Some(failures) = failures else {
        return Ok(None);
    };
    if failures >= DEVICE_MAX_FAILURES {
        tracing::info!(
            user_id,
            "a known device failed too often: treated as unknown for now"
        );
        return Ok(None);
    }
    Ok(Some(key))
}

/// A lifetime in the contract's whole seconds.
fn seconds(ttl: Duration) -> i32 {
    i32::try_from(ttl.as_secs()).unwrap_or(i32::MAX)
}

fn session_expired() -> ServiceError {
    ServiceError::Unauthenticated(MSG_SESSION_EXPIRED.into())
}

/// Counts a sign-in by how it ended (`portal_sign_ins_total`): a wave of
/// failures or limits is someone guessing, a stop in successes an outage.
fn count_sign_in(outcome: &'static str) {
    metrics::counter!("portal_sign_ins_total", "outcome" => outcome).increment(1);
}
