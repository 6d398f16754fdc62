//! Refresh tokens: 256 random bits handed to the client once, kept only as a
//! SHA-256 digest. Each sign-in starts a family; every refresh replaces the token
//! with the next one of its family, and a token presented twice reveals a copy,
//! so its whole family is revoked.

use std::fmt;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

pub const REFRESH_TOKEN_TTL: Duration = Duration::from_secs(14 * 24 * 60 * 60);

/// A refresh token as the client holds it (base64url, no padding).
#[derive(Clone)]
pub struct RefreshToken(String);

/// What is stored instead of the token: its SHA-256 as lower-case hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshTokenHash(String);

impl RefreshToken {
    pub fn generate() -> RefreshToken {
        let mut bytes = [0_u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        RefreshToken(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Whatever a client sent; an unknown value simply matches no stored hash.
    pub fn from_client(value: &str) -> RefreshToken {
        RefreshToken(value.trim().to_owned())
    }

    pub fn hash(&self) -> RefreshTokenHash {
        RefreshTokenHash(hex::encode(Sha256::digest(self.0.as_bytes())))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Debug for RefreshToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RefreshToken(…)")
    }
}

impl RefreshTokenHash {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The expiry, in Unix milliseconds, of a refresh token issued at `now`.
pub fn expires_at(now_millis: i64) -> i64 {
    now_millis.saturating_add(i64::try_from(REFRESH_TOKEN_TTL.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_carries_256_random_bits_in_base64url() {
        let token = RefreshToken::generate().into_string();
        assert_eq!(token.len(), 43);
        assert_eq!(URL_SAFE_NO_PAD.decode(&token).unwrap().len(), 32);
        assert_ne!(token, RefreshToken::generate().into_string());
    }

    #[test]
    fn the_stored_form_is_the_sha256_hex_of_the_token() {
        let token = RefreshToken::from_client("abc");
        assert_eq!(
            token.hash().as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(RefreshToken::from_client(" abc ").hash(), token.hash());
    }

    #[test]
    fn a_token_lives_fourteen_days() {
        assert_eq!(expires_at(1_000), 1_000 + 14 * 24 * 3600 * 1000);
    }

    #[test]
    fn a_token_never_shows_in_debug_output() {
        let token = RefreshToken::generate();
        assert!(!format!("{token:?}").contains(&token.clone().into_string()));
    }
}
