//! Two-step sign-in (issue 39.4) over the store: whether a sign-in needs a
//! code, the token between its two steps, checking a code once, and the
//! person's own enrolment. The policy `PORTAL_MFA_FOR_ADMINS` makes the factor
//! required of admin-type rights: such a person cannot turn it off, and
//! without one yet is let in and asked to enrol (the web client's banner)
//! rather than locked out; a person who enrolled is always asked.

use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::{ServiceError, ServiceResult};

use crate::app::checked::Method;
use crate::domain::seal::Seal;
use crate::domain::secret::{SecretHash, SecretToken};
use crate::domain::totp::{Code, MFA_TOKEN_TTL, TotpSecret, millis, new_recovery_codes};
use crate::store::Store;
use crate::store::mfa::{
    REASON_CODE_REUSED, REASON_WRONG_CODE, SecondStep, StepRefused, limited, token_invalid,
};
use crate::store::user::Credentials;

pub const MSG_CODE_INVALID: &str = "Неверный код. Проверьте время на телефоне и введите новый код.";
pub const REASON_CODE_INVALID: &str = "mfa-code-invalid";
pub const MSG_CODE_REQUIRED: &str = "Введите код из приложения или код восстановления";
pub const MSG_MFA_REQUIRED: &str =
    "Для администраторов двухэтапный вход обязателен: отключить его нельзя.";
pub const REASON_MFA_REQUIRED: &str = "mfa-required";
pub const MSG_MFA_OFF: &str = "Двухэтапный вход не включён.";
pub const REASON_MFA_OFF: &str = "mfa-off";

/// Which second factor proved a sign-in, as the audit log names it.
pub const BY_TOTP: &str = "totp";
pub const BY_RECOVERY_CODE: &str = "recovery-code";

/// A code checked against a person's confirmed authenticator.
#[derive(Debug, PartialEq, Eq)]
enum Checked {
    Right(&'static str),
    Wrong,
    Reused,
}

#[derive(Clone)]
pub struct SecondFactor {
    store: Store,
    seal: Seal,
    /// `PORTAL_MFA_FOR_ADMINS`.
    for_admins: bool,
}

/// A second step passed: whose sign-in it finishes, by what, and how its
/// first step checked the password.
pub struct Passed {
    pub user_id: i64,
    pub factor: &'static str,
    pub method: Method,
    /// The provider's session of a first step by single sign-on.
    pub sso_session: Option<String>,
}

/// How a sign-in's first step went, kept for its second.
#[derive(Clone, Copy)]
pub struct FirstStep<'a> {
    pub method: Method,
    /// The provider's session, for a first step by single sign-on.
    pub sso_session: Option<&'a str>,
}

impl SecondFactor {
    pub fn new(store: Store, seal: Seal, for_admins: bool) -> SecondFactor {
        SecondFactor {
            store,
            seal,
            for_admins,
        }
    }

    /// Whether policy requires a second factor of a holder of `rights`.
    pub fn required_for(&self, is_admin_type: bool) -> bool {
        self.for_admins && is_admin_type
    }

    /// The token of a second step for `user` on `device` (its hash), if
    /// their sign-in needs one; `None` if it does not. Its queries run on
    /// `lane`, the store the sign-in chose ([`Store::for_sign_in`]), so a
    /// known device's sign-in does not queue at the shared pool here either;
    /// a person without an authenticator (most people; the admins' policy
    /// lets one in to enrol) asks nothing of the database. `method` is how
    /// the password was checked, for the session the second step opens.
    pub async fn challenge(
        &self,
        lane: &Store,
        user: &Credentials,
        device: Option<&SecretHash>,
        first: FirstStep<'_>,
    ) -> ServiceResult<Option<SecretToken>> {
        if !user.second_factor {
            return Ok(None);
        }
        let now = now_millis();
        if !lane.second_step_needed(user.user_id, device, now).await? {
            return Ok(None);
        }
        let token = SecretToken::generate();
        let times = (now, now + millis(MFA_TOKEN_TTL));
        let first_step = (first.method.as_str(), first.sso_session);
        lane.open_second_step(user.user_id, &token.hash(), device, first_step, times)
            .await?;
        Ok(Some(token))
    }

    /// Checks the second step of the sign-in with `token` on `device` (the
    /// device token's hash the first step saw, if any).
    pub async fn pass(
        &self,
        token: &str,
        code: &str,
        device: Option<&SecretHash>,
        context: &AuditContext,
    ) -> ServiceResult<Passed> {
        let token = SecretToken::from_client(token);
        if token.is_empty() {
            return Err(token_invalid());
        }
        let code = Code::parse(code);
        if code == Code::Empty {
            return Err(ServiceError::invalid(MSG_CODE_REQUIRED));
        }
        let now = now_millis();
        let step = match self.store.begin_second_step(&token.hash(), now).await? {
            Ok(step) => step,
            Err(StepRefused::Token) => return Err(token_invalid()),
            Err(StepRefused::Limited { retry_after_millis }) => {
                return Err(limited(retry_after_millis));
            }
        };
        // Bound to the first step's device: a token carried elsewhere is void.
        if step.device_hash.as_deref() != device.map(SecretHash::as_str) {
            tracing::warn!(
                user_id = step.user_id,
                "a second step came from another device"
            );
            return Err(token_invalid());
        }
        self.settle(step, &code, now, context).await
    }

    async fn settle(
        &self,
        step: SecondStep,
        code: &Code,
        now: i64,
        context: &AuditContext,
    ) -> ServiceResult<Passed> {
        let user_id = step.user_id;
        match self.check(user_id, code, now).await? {
            Checked::Right(factor) => {
                if !self.store.second_step_passed(&step, now).await? {
                    return Err(token_invalid());
                }
                let method = Method::from_stored(&step.method);
                Ok(Passed {
                    user_id,
                    factor,
                    method,
                    sso_session: step.sso_session,
                })
            }
            refused => {
                let reason = match refused {
                    Checked::Reused => REASON_CODE_REUSED,
                    _ => REASON_WRONG_CODE,
                };
                self.store
                    .record_wrong_code(context, user_id, reason)
                    .await?;
                tracing::info!(user_id, reason, "second step refused");
                Err(code_invalid(ServiceError::Unauthenticated))
            }
        }
    }

    /// A code of the person's confirmed authenticator, or one of their
    /// recovery codes (used up if right). Each step's code works once.
    async fn check(&self, user_id: i64, code: &Code, now: i64) -> ServiceResult<Checked> {
        match code {
            Code::Empty => Ok(Checked::Wrong),
            Code::Recovery(hash) => {
                let taken = self.store.take_recovery_code(user_id, hash, now).await?;
                Ok(if taken {
                    Checked::Right(BY_RECOVERY_CODE)
                } else {
                    Checked::Wrong
                })
            }
            Code::Totp(digits) => {
                let Some(secret) = self.secret(user_id, true).await? else {
                    return Ok(Checked::Wrong);
                };
                let Some(step) = secret.step_of(digits, now) else {
                    return Ok(Checked::Wrong);
                };
                Ok(if self.store.take_totp_step(user_id, step).await? {
                    Checked::Right(BY_TOTP)
                } else {
                    Checked::Reused
                })
            }
        }
    }

    /// The person's authenticator secret (confirmed only, or pending too).
    async fn secret(&self, user_id: i64, confirmed: bool) -> ServiceResult<Option<TotpSecret>> {
        let Some(factor) = self.store.mfa_factor(user_id).await? else {
            return Ok(None);
        };
        if confirmed && !factor.confirmed {
            return Ok(None);
        }
        let opened = self.seal.open(user_id, &factor.secret_sealed).ok_or_else(|| {
            ServiceError::internal(format!(
                "the authenticator secret of user {user_id} does not open with PORTAL_INTERNAL_KEY_FILE's keys"
            ))
        })?;
        Ok(Some(TotpSecret::from_bytes(opened)))
    }

    /// A new pending secret for `user_id` (`login` names it in the app):
    /// its base32 and otpauth URL.
    pub async fn enrol(
        &self,
        context: &AuditContext,
        user_id: i64,
        login: &str,
    ) -> ServiceResult<(String, String)> {
        let secret = TotpSecret::generate();
        let sealed = self
            .seal
            .seal(user_id, secret.as_bytes())
            .ok_or_else(|| ServiceError::internal("an authenticator secret could not be sealed"))?;
        self.store
            .begin_enrolment(context, user_id, &sealed, now_millis())
            .await?;
        Ok((secret.base32(), secret.otpauth_url(login)))
    }

    /// Turns the pending secret on with a code it makes; the recovery codes.
    pub async fn confirm(
        &self,
        context: &AuditContext,
        user_id: i64,
        code: &str,
    ) -> ServiceResult<Vec<String>> {
        let now = now_millis();
        let check = self.store.begin_code_check(user_id, now).await?;
        let pending = match self.store.mfa_factor(user_id).await? {
            Some(factor) if !factor.confirmed => self.secret(user_id, false).await?,
            _ => None,
        };
        let Some(secret) = pending else {
            self.store.code_check_passed(check).await?;
            return Err(
                ServiceError::conflict(crate::store::mfa::MSG_MFA_NOT_ENROLLING)
                    .because(crate::store::mfa::REASON_MFA_NOT_ENROLLING),
            );
        };
        let typed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(step) = secret.step_of(&typed, now) else {
            return Err(code_invalid(ServiceError::InvalidInput));
        };
        self.store.code_check_passed(check).await?;
        let codes = new_recovery_codes();
        let hashes: Vec<SecretHash> = codes.iter().map(|(_, hash)| hash.clone()).collect();
        self.store
            .confirm_enrolment(context, user_id, step, &hashes, now)
            .await?;
        Ok(codes.into_iter().map(|(shown, _)| shown).collect())
    }

    /// A code of the caller's own, for turning the factor off or new
    /// recovery codes: counted against the same per-person limit.
    pub async fn prove(&self, user_id: i64, code: &str) -> ServiceResult<()> {
        let code = Code::parse(code);
        if code == Code::Empty {
            return Err(ServiceError::invalid(MSG_CODE_REQUIRED));
        }
        if !matches!(self.store.mfa_factor(user_id).await?, Some(f) if f.confirmed) {
            return Err(ServiceError::conflict(MSG_MFA_OFF).because(REASON_MFA_OFF));
        }
        let now = now_millis();
        let check = self.store.begin_code_check(user_id, now).await?;
        match self.check(user_id, &code, now).await? {
            Checked::Right(_) => self.store.code_check_passed(check).await,
            _ => Err(code_invalid(ServiceError::InvalidInput)),
        }
    }

    /// New recovery codes for the caller (after [`SecondFactor::prove`]).
    pub async fn renew_codes(
        &self,
        context: &AuditContext,
        user_id: i64,
    ) -> ServiceResult<Vec<String>> {
        let codes = new_recovery_codes();
        let hashes: Vec<SecretHash> = codes.iter().map(|(_, hash)| hash.clone()).collect();
        self.store
            .renew_recovery_codes(context, user_id, &hashes, now_millis())
            .await?;
        Ok(codes.into_iter().map(|(shown, _)| shown).collect())
    }
}

/// A wrong code, as the kind of refusal the call gives.
fn code_invalid(kind: fn(String) -> ServiceError) -> ServiceError {
    kind(MSG_CODE_INVALID.into()).because(REASON_CODE_INVALID)
}
