//! Opaque secrets handed to a client once and kept only as a SHA-256 digest:
//! refresh tokens (one per session, rotated on every use), device tokens (a
//! browser that has signed in as a person before) and service accounts'
//! client secrets.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A secret as the client holds it: 256 random bits, base64url without padding.
#[derive(Clone)]
pub struct SecretToken(String);

/// What is stored instead of the secret: its SHA-256 as lower-case hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretHash(String);

impl SecretToken {
    pub fn generate() -> SecretToken {
        let mut bytes = [0_u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        SecretToken(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Whatever a client sent; an unknown value simply matches no stored hash.
    pub fn from_client(value: &str) -> SecretToken {
        SecretToken(value.trim().to_owned())
    }

    pub fn hash(&self) -> SecretHash {
        SecretHash(hex::encode(Sha256::digest(self.0.as_bytes())))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Debug for SecretToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretToken(…)")
    }
}

impl SecretHash {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the digest `stored`, compared in constant time: how
    /// long the comparison takes tells nothing of where they differ.
    pub fn matches(&self, stored: &str) -> bool {
        use subtle::ConstantTimeEq as _;
        self.0.len() == stored.len() && bool::from(self.0.as_bytes().ct_eq(stored.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_carries_256_random_bits_in_base64url() {
        let token = SecretToken::generate().into_string();
        assert_eq!(token.len(), 43);
        assert_eq!(URL_SAFE_NO_PAD.decode(&token).unwrap().len(), 32);
        assert_ne!(token, SecretToken::generate().into_string());
    }

    #[test]
    fn the_stored_form_is_the_sha256_hex_of_the_token() {
        let token = SecretToken::from_client("abc");
        assert_eq!(
            token.hash().as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(SecretToken::from_client(" abc ").hash(), token.hash());
    }

    #[test]
    fn a_hash_matches_only_its_own_digest() {
        let hash = SecretToken::from_client("abc").hash();
        assert!(hash.matches(hash.as_str()));
        assert!(!hash.matches(SecretToken::from_client("abd").hash().as_str()));
        assert!(!hash.matches(""));
    }

    #[test]
    fn a_token_never_shows_in_debug_output() {
        let token = SecretToken::generate();
        assert!(!format!("{token:?}").contains(&token.clone().into_string()));
    }
}
