//! Two-step sign-in's codes (issue 39.4): TOTP per RFC 6238 (HMAC-SHA-1,
//! 6 digits, 30-second steps, one step either side for a slow hand or a
//! clock a little off) by the `totp-rs` crate, and one-time recovery codes.

use std::time::Duration;

use rand::RngCore;
use totp_rs::{Algorithm, Builder, Secret, Totp};

use crate::domain::secret::{SecretHash, SecretToken};

/// The issuer an authenticator app shows beside the login.
pub const ISSUER: &str = "Портал";
/// Recovery codes a person gets at a time.
pub const RECOVERY_CODES: usize = 10;
/// How long the token between a sign-in's two steps is good.
pub const MFA_TOKEN_TTL: Duration = Duration::from_secs(5 * 60);
/// Wrong codes one such token takes before it dies (sign in again).
pub const FAILURES_PER_TOKEN: i64 = 5;
/// Wrong codes one person may give in [`FAILURE_WINDOW`], whatever the
/// token or address; past it that person waits, nobody else does.
pub const FAILURES_PER_PERSON: i64 = 10;
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a device that finished the second step skips it.
pub const TRUSTED_DEVICE_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

const SECRET_BYTES: usize = 20;
const STEP_SECONDS: u64 = 30;
/// The recovery codes' letters: base32's, 5 bits each.
const RECOVERY_ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
/// 16 letters, 80 bits: beyond guessing, so a plain SHA-256 keeps them.
const RECOVERY_LETTERS: usize = 16;

/// A person's authenticator secret (160 random bits, as RFC 4226 advises).
pub struct TotpSecret(Vec<u8>);

impl TotpSecret {
    pub fn generate() -> TotpSecret {
        let mut bytes = vec![0_u8; SECRET_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        TotpSecret(bytes)
    }

    pub fn from_bytes(bytes: Vec<u8>) -> TotpSecret {
        TotpSecret(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The secret as a person types it into an app: base32, no padding.
    pub fn base32(&self) -> String {
        Secret::from(self.0.clone()).to_base32()
    }

    /// `otpauth://totp/Портал:{login}?secret=…&issuer=Портал`, for the QR code.
    /// A login with a colon (none can have one) names the app's entry without it.
    pub fn otpauth_url(&self, login: &str) -> String {
        let account = login.replace(':', "");
        let url = self
            .totp(&account)
            .and_then(|totp| totp.to_url().map_err(|e| e.to_string()));
        url.unwrap_or_else(|error| {
            tracing::warn!(%error, "an otpauth URL could not be made");
            String::new()
        })
    }

    /// The step (Unix seconds / 30) whose code `code` is, within one step of
    /// `now_millis`; `None` for any other code.
    pub fn step_of(&self, code: &str, now_millis: i64) -> Option<i64> {
        let now = u64::try_from(now_millis / 1000).ok()?;
        let totp = self.totp("").ok()?;
        totp.check(code, now)
            .and_then(|step| i64::try_from(step).ok())
    }

    fn totp(&self, account: &str) -> Result<Totp, String> {
        Builder::new()
            .with_algorithm(Algorithm::SHA1)
            .with_digits(6)
            .with_skew(1)
            .with_step_duration(STEP_SECONDS)
            .with_secret(self.0.clone())
            .with_issuer(Some(ISSUER))
            .with_account_name(account)
            .build()
            .map_err(|error| error.to_string())
    }
}

impl std::fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TotpSecret(…)")
    }
}

/// What a person typed at the second step.
#[derive(Debug, PartialEq, Eq)]
pub enum Code {
    /// Six digits: the authenticator's code.
    Totp(String),
    /// Anything else: a recovery code, by the hash it is kept as.
    Recovery(SecretHash),
    /// Nothing.
    Empty,
}

impl Code {
    /// Spaces and dashes aside, as people copy codes; a recovery code's case too.
    pub fn parse(typed: &str) -> Code {
        let kept: String = typed
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect();
        if kept.is_empty() {
            Code::Empty
        } else if kept.len() == 6 && kept.chars().all(|c| c.is_ascii_digit()) {
            Code::Totp(kept)
        } else {
            Code::Recovery(recovery_hash(&kept.to_lowercase()))
        }
    }
}

/// New recovery codes as shown once (`abcd-efgh-ijkl-mnop`), with the hashes kept.
pub fn new_recovery_codes() -> Vec<(String, SecretHash)> {
    (0..RECOVERY_CODES)
        .map(|_| {
            let mut bytes = [0_u8; RECOVERY_LETTERS];
            rand::rngs::OsRng.fill_bytes(&mut bytes);
            let letters: String = bytes
                .iter()
                .map(|b| char::from(RECOVERY_ALPHABET[usize::from(b % 32)]))
                .collect();
            let hash = recovery_hash(&letters);
            let shown = letters
                .as_bytes()
                .chunks(4)
                .map(|chunk| String::from_utf8_lossy(chunk).into_owned())
                .collect::<Vec<_>>()
                .join("-");
            (shown, hash)
        })
        .collect()
}

fn recovery_hash(letters: &str) -> SecretHash {
    SecretToken::from_client(letters).hash()
}

/// A duration in Unix milliseconds.
pub fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B's SHA-1 seed and vectors (the last 6 of 8 digits).
    #[test]
    fn codes_are_rfc_6238s() {
        let secret = TotpSecret::from_bytes(b"12345678901234567890".to_vec());
        for (seconds, code) in [
            (59_i64, "287082"),
            (1_111_111_109, "081804"),
            (1_234_567_890, "005924"),
            (2_000_000_000, "279037"),
        ] {
            assert_eq!(
                secret.step_of(code, seconds * 1000),
                Some(seconds / 30),
                "{seconds}"
            );
        }
    }

    #[test]
    fn a_code_holds_one_step_either_side_and_no_more() {
        let secret = TotpSecret::from_bytes(b"12345678901234567890".to_vec());
        let at = 1_111_111_109_000;
        assert_eq!(secret.step_of("081804", at + 30_000), Some(37_037_036));
        assert_eq!(secret.step_of("081804", at - 30_000), Some(37_037_036));
        assert_eq!(secret.step_of("081804", at + 61_000), None);
        assert_eq!(secret.step_of("081805", at), None);
    }

    #[test]
    fn the_url_names_the_issuer_and_the_login() {
        let secret = TotpSecret::from_bytes(b"12345678901234567890".to_vec());
        assert_eq!(secret.base32(), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        let url = secret.otpauth_url("nurse");
        assert!(url.starts_with("otpauth://totp/"), "{url}");
        assert!(
            url.contains("nurse?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"),
            "{url}"
        );
        assert!(
            url.contains("issuer=%D0%9F%D0%BE%D1%80%D1%82%D0%B0%D0%BB"),
            "{url}"
        );
    }

    #[test]
    fn recovery_codes_are_read_as_people_copy_them() {
        let codes = new_recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        let (shown, hash) = &codes[0];
        assert_eq!(shown.len(), 19);
        assert_eq!(Code::parse(shown), Code::Recovery(hash.clone()));
        assert_eq!(
            Code::parse(&format!(" {} ", shown.to_uppercase().replace('-', " "))),
            Code::Recovery(hash.clone())
        );
        assert_eq!(Code::parse("123 456"), Code::Totp("123456".into()));
        assert_eq!(Code::parse(" - "), Code::Empty);
        assert_ne!(codes[0].0, codes[1].0);
    }
}
