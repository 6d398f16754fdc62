//! Answers that carry a secret (an authenticator's key, recovery codes, a
//! printed first sign-in code, a service account's secret, session tokens):
//! never stored, so the keys' table never holds a secret in plaintext for
//! [`super::KEY_LIFETIME`]. A service marks each such method with what its
//! retry gets ([`super::Idempotent::with_secret_answers`]).

use crate::ServiceError;

pub const REASON_SECRET_NOT_REPLAYED: &str = "idempotent-secret-not-replayed";
pub const MSG_SECRET_NOT_REPLAYED: &str = "Запрос уже выполнен; повторите действие заново";

/// What the retry of a write whose answer carries a secret gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretAnswer {
    /// Nothing of the call is kept: a retry does the call again, as one
    /// without a key does. For a write whose second run is safe and whose
    /// fresh secret replaces the first (a new pending authenticator), or a
    /// sign-in's.
    Rerun,
    /// The key is kept with the request's hash and the answer's status, never
    /// the answer: a retry of a success is refused (FAILED_PRECONDITION,
    /// [`REASON_SECRET_NOT_REPLAYED`]), so the write is not done twice and
    /// the person repeats it knowingly. A refusal carries no secret and is
    /// replayed as any other. For a write that must not happen twice (a new
    /// service account, a printed code that would void the first) or cannot
    /// (a code already used).
    Refuse,
}

/// The answer to the retry of a [`SecretAnswer::Refuse`] write that succeeded.
pub(super) fn not_replayed() -> ServiceError {
    ServiceError::conflict(MSG_SECRET_NOT_REPLAYED).because(REASON_SECRET_NOT_REPLAYED)
}
