//! Keys of HMAC-SHA256 read from a file, one a line: the first signs, every
//! one verifies, so a new key is published (second line) before it signs
//! (moved first) and an old one is dropped after what it signed has expired.
//! Documents' download links (`PORTAL_FILES_LINK_KEY_FILE`) and the services'
//! calls to each other (`PORTAL_INTERNAL_KEY_FILE`, [`crate::internal`]) use
//! them; `all` generates each file into the data dir on first start.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The shortest key accepted, in bytes: as long as the MAC.
pub const MIN_KEY_BYTES: usize = 32;

type HmacSha256 = Hmac<Sha256>;

#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path} must hold one key per line, each at least {MIN_KEY_BYTES} characters (openssl rand -base64 48)"
    )]
    Weak { path: String },
}

/// The keys of one file.
#[derive(Clone)]
pub struct HmacKeys {
    keys: Arc<[HmacSha256]>,
}

impl HmacKeys {
    /// The keys of `path`, one a line (blank lines and surrounding spaces
    /// ignored); refused when there is none or one is short.
    pub fn from_file(path: &Path) -> Result<HmacKeys, KeyFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeyFileError::Io {
            path: path.display().to_string(),
            source,
        })?;
        HmacKeys::parse(&text).ok_or_else(|| KeyFileError::Weak {
            path: path.display().to_string(),
        })
    }

    fn parse(text: &str) -> Option<HmacKeys> {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.is_empty() || lines.iter().any(|l| l.len() < MIN_KEY_BYTES) {
            return None;
        }
        let keys = lines
            .iter()
            .map(|line| HmacSha256::new_from_slice(line.as_bytes()).ok())
            .collect::<Option<Arc<[_]>>>()?;
        Some(HmacKeys { keys })
    }

    /// The MAC of `fields` under the signing key, `purpose` first so that
    /// nothing signed for another purpose passes for this one.
    pub fn sign(&self, purpose: &[u8], fields: &[&[u8]]) -> Vec<u8> {
        mac(&self.keys[0], purpose, fields)
            .finalize()
            .into_bytes()
            .to_vec()
    }

    /// A 256-bit key for `purpose` derived from each key (HMAC-SHA256 of the
    /// purpose), the signing key's first: what one key seals, any can open
    /// while its line stays in the file.
    pub fn derive(&self, purpose: &[u8]) -> Vec<[u8; 32]> {
        self.keys
            .iter()
            .map(|key| mac(key, purpose, &[]).finalize().into_bytes().into())
            .collect()
    }

    /// Whether `presented` is the MAC of `fields` under any of the keys,
    /// compared in constant time.
    pub fn verify(&self, purpose: &[u8], fields: &[&[u8]], presented: &[u8]) -> bool {
        self.keys
            .iter()
            .any(|key| mac(key, purpose, fields).verify_slice(presented).is_ok())
    }
}

fn mac(key: &HmacSha256, purpose: &[u8], fields: &[&[u8]]) -> HmacSha256 {
    let mut mac = key.clone();
    mac.update(purpose);
    for field in fields {
        mac.update(field);
    }
    mac
}

/// The key file `name` in `dir`, generated (one random key, readable by its
/// owner only) when there is none: the `all` target's default.
pub fn ensure(dir: &Path, name: &str, what: &str) -> Result<PathBuf, KeyFileError> {
    let path = dir.join(name);
    if path.exists() {
        return Ok(path);
    }
    let key = format!("{}\n", hex::encode(rand::random::<[u8; 32]>()));
    crate::private_fs::write_new(&path, key.as_bytes()).map_err(|source| KeyFileError::Io {
        path: path.display().to_string(),
        source,
    })?;
    tracing::info!(dir = %dir.display(), "generated a new key for {what}");
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PURPOSE: &[u8] = b"test\0";

    #[test]
    fn the_first_key_signs_and_every_key_verifies() {
        let old = "the-old-key-of-forty-characters-for-tests";
        let new = "the-new-key-of-forty-characters-for-tests";
        let signed_before = HmacKeys::parse(old).unwrap().sign(PURPOSE, &[b"7"]);
        let during = HmacKeys::parse(&format!("{new}\n\n  {old}\n")).unwrap();
        assert!(during.verify(PURPOSE, &[b"7"], &signed_before));
        let after = HmacKeys::parse(new).unwrap();
        assert!(after.verify(PURPOSE, &[b"7"], &during.sign(PURPOSE, &[b"7"])));
        assert!(!after.verify(PURPOSE, &[b"7"], &signed_before));
        assert!(!after.verify(b"other\0", &[b"7"], &after.sign(PURPOSE, &[b"7"])));
        assert!(!after.verify(PURPOSE, &[b"8"], &after.sign(PURPOSE, &[b"7"])));
    }

    #[test]
    fn a_short_or_missing_key_is_refused() {
        for text in [
            "",
            "\n\n",
            "short",
            "a-key-of-forty-characters-for-the-tests\nshort",
        ] {
            assert!(HmacKeys::parse(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn the_generated_key_is_made_once_and_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = ensure(dir.path(), "some.key", "tests").unwrap();
        let first = std::fs::read(&path).unwrap();
        assert_eq!(ensure(dir.path(), "some.key", "tests").unwrap(), path);
        assert_eq!(std::fs::read(&path).unwrap(), first);
        assert!(HmacKeys::from_file(&path).is_ok());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
