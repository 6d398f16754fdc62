//! Secrets auth must read back (authenticator secrets) kept sealed at rest:
//! AES-256-GCM (ring) under keys derived from the services' internal key file
//! (`PORTAL_INTERNAL_KEY_FILE`), which is not in the database, so a dump of
//! it alone gives no secret away. The first key seals, every one opens, as
//! the file's own rotation has it; the person's id is bound in, so a sealed
//! value copied to another row does not open there.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

/// What the derivation is for, so no other use of the file's keys meets it.
pub const PURPOSE: &[u8] = b"portal auth: sealed mfa secrets\0";
const VERSION: &str = "v1.";

#[derive(Clone)]
pub struct Seal {
    keys: Arc<[LessSafeKey]>,
}

impl Seal {
    /// `keys` as [`portal_kit::internal::InternalKeys::derive`] gives them.
    pub fn new(keys: &[[u8; 32]]) -> Option<Seal> {
        let keys = keys
            .iter()
            .map(|key| {
                UnboundKey::new(&AES_256_GCM, key)
                    .ok()
                    .map(LessSafeKey::new)
            })
            .collect::<Option<Arc<[_]>>>()?;
        (!keys.is_empty()).then_some(Seal { keys })
    }

    /// `plain`, sealed for `owner` under the first key: `v1.` and base64url
    /// of the nonce, the ciphertext and its tag.
    pub fn seal(&self, owner: i64, plain: &[u8]) -> Option<String> {
        let mut nonce = [0_u8; NONCE_LEN];
        SystemRandom::new().fill(&mut nonce).ok()?;
        let mut sealed = plain.to_vec();
        self.keys[0]
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(owner.to_be_bytes()),
                &mut sealed,
            )
            .ok()?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Some(format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(out)))
    }

    /// What `sealed` holds, if one of the keys sealed it for `owner`.
    pub fn open(&self, owner: i64, sealed: &str) -> Option<Vec<u8>> {
        let bytes = URL_SAFE_NO_PAD.decode(sealed.strip_prefix(VERSION)?).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, body) = bytes.split_at(NONCE_LEN);
        self.keys.iter().find_map(|key| {
            let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
            let mut body = body.to_vec();
            let plain = key
                .open_in_place(nonce, Aad::from(owner.to_be_bytes()), &mut body)
                .ok()?;
            Some(plain.to_vec())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_for_its_owner_under_any_key_of_the_file() {
        let old = Seal::new(&[[1; 32]]).unwrap();
        let rotated = Seal::new(&[[2; 32], [1; 32]]).unwrap();
        let sealed = old.seal(7, b"secret").unwrap();
        assert!(!sealed.contains("secret"));
        assert_eq!(rotated.open(7, &sealed).unwrap(), b"secret");
        assert_eq!(rotated.open(8, &sealed), None);
        assert_eq!(Seal::new(&[[3; 32]]).unwrap().open(7, &sealed), None);
        assert_ne!(old.seal(7, b"secret").unwrap(), sealed);
        assert_eq!(old.open(7, "v1.AAAA"), None);
    }
}
