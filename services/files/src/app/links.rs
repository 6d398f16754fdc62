//! Download links: a document's address that opens it without a token, for a
//! short time, so that a browser can open it in a new tab, save it under its
//! name, or hand it to a colleague.
//!
//! GetFiles, having asked the wiki whether the caller sees the model, puts a
//! link on each document's URL:
//! `…/api/file/download/{id}?link={user}.{version}.{expires}.{mac}`, where
//! `mac` is HMAC-SHA256 over the file id, the user it was issued to, the
//! access version of the token it was issued to and the expiry (Unix
//! seconds), under a key every files replica reads from the same file
//! (`PORTAL_FILES_LINK_KEY_FILE`). A link thus proves that its file was listed
//! for that user until then; it reads that one file and nothing else. Like an
//! access token's claims, what it was checked against (the caller's
//! departments) may lag by up to its lifetime, but the link dies with its
//! person's access version: when they sign out (a shared ward PC keeps the
//! link in its history), are blocked or have their rights changed
//! (`FilesRpc` checks the version the link carries against auth's).
//!
//! A link that does not verify, or names another file, is NOT_FOUND exactly as
//! a file the caller may not see: it tells nothing about what exists. A genuine
//! one past its expiry says so, since only its holder's listing could have made it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
pub use portal_kit::key_file::KeyFileError as LinkKeyError;
use portal_kit::key_file::{self, HmacKeys};
use portal_kit::{ServiceError, ServiceResult};

pub use crate::domain::file::Issued;
use crate::domain::file::MSG_FILE_NOT_FOUND;

/// Its person signed out (or was blocked, or their rights changed) since.
pub const MSG_LINK_SIGNED_OUT: &str = "Ссылка на документ больше не действует: сеанс, в котором её открыли, завершён. Войдите и откройте документ снова";
pub const MSG_LINK_EXPIRED: &str =
    "Ссылка на документ устарела: откройте его снова со страницы оборудования";

/// The key file `all` generates into the data dir.
const KEY_FILE: &str = "files-link.key";
/// Put before the fields a MAC covers, so that nothing else signed with the key
/// could pass for a link (nor a link of the form before versions for one now).
const PURPOSE: &[u8] = b"portal.files.v1 download link with access version\0";

/// The key file in `dir`, generated on first use (the `all` target's default).
pub fn ensure_key_file(dir: &Path) -> Result<PathBuf, LinkKeyError> {
    key_file::ensure(dir, KEY_FILE, "documents' download links")
}

/// A link issued for one file: its text, and when it stops working.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub token: String,
    /// Unix seconds.
    pub expires_at: i64,
}

/// Signs and verifies links.
#[derive(Clone)]
pub struct LinkKeys {
    keys: HmacKeys,
    /// Seconds.
    lifetime: i64,
}

impl LinkKeys {
    /// The keys of `path`, one a line; links issued with them work for `lifetime`.
    pub fn from_file(path: &Path, lifetime: Duration) -> Result<LinkKeys, LinkKeyError> {
        Ok(LinkKeys {
            keys: HmacKeys::from_file(path)?,
            lifetime: i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX),
        })
    }

    /// When a link issued at `now` (Unix seconds) stops working.
    pub fn expiry(&self, now: i64) -> i64 {
        now.saturating_add(self.lifetime)
    }

    /// A link to file `file_id` as `issued` says: to whom, of which access
    /// version, working until when.
    pub fn issue(&self, file_id: i64, issued: Issued) -> Link {
        let fields = fields(file_id, &issued);
        let mac = self
            .keys
            .sign(PURPOSE, &fields.each_ref().map(<[u8; 8]>::as_slice));
        let Issued {
            issued_to,
            version,
            expires_at,
        } = issued;
        Link {
            token: format!(
                "{issued_to}.{version}.{expires_at}.{}",
                URL_SAFE_NO_PAD.encode(mac)
            ),
            expires_at,
        }
    }

    /// Whom a link to `file_id` was issued to, if `token` is one and has
    /// not expired at `now`: NOT_FOUND (as an unknown file) for anything that
    /// is not a link to that file, UNAUTHENTICATED for one that has expired.
    /// The MAC is compared in constant time.
    pub fn check(&self, file_id: i64, token: &str, now: i64) -> ServiceResult<Issued> {
        let not_found = || ServiceError::not_found(MSG_FILE_NOT_FOUND);
        let (issued, mac) = presented(token).ok_or_else(not_found)?;
        let fields = fields(file_id, &issued);
        if !self
            .keys
            .verify(PURPOSE, &fields.each_ref().map(<[u8; 8]>::as_slice), &mac)
        {
            return Err(not_found());
        }
        if issued.expires_at < now {
            return Err(ServiceError::Unauthenticated(MSG_LINK_EXPIRED.into()));
        }
        Ok(issued)
    }
}

/// The fields a link's MAC covers.
fn fields(file_id: i64, issued: &Issued) -> [[u8; 8]; 4] {
    [
        file_id.to_be_bytes(),
        issued.issued_to.to_be_bytes(),
        issued.version.to_be_bytes(),
        issued.expires_at.to_be_bytes(),
    ]
}

/// A link's text read into its fields and MAC; nothing about it is trusted yet.
fn presented(token: &str) -> Option<(Issued, Vec<u8>)> {
    let mut parts = token.split('.');
    let mut number = || {
        parts
            .next()
            .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))?
            .parse()
            .ok()
    };
    let issued = Issued {
        issued_to: number()?,
        version: number()?,
        expires_at: number()?,
    };
    let mac = URL_SAFE_NO_PAD.decode(parts.next()?).ok()?;
    parts.next().is_none().then_some((issued, mac))
}

#[cfg(test)]
mod tests {
    use tonic::Code;

    use super::*;

    const NOW: i64 = 1_800_000_000;

    fn keys_of(text: &str) -> Result<LinkKeys, LinkKeyError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, text).unwrap();
        LinkKeys::from_file(&path, Duration::from_secs(900))
    }

    fn keys() -> LinkKeys {
        keys_of("a-key-of-forty-characters-for-the-tests\n").unwrap()
    }

    /// A link for user 42 of access version 3, until `expires_at`.
    fn for_42(expires_at: i64) -> Issued {
        Issued {
            issued_to: 42,
            version: 3,
            expires_at,
        }
    }

    fn refused(result: ServiceResult<Issued>) -> (Code, String) {
        let status = tonic::Status::from(result.unwrap_err());
        (status.code(), status.message().to_owned())
    }

    #[test]
    fn a_link_opens_its_file_until_it_expires_and_names_whom_it_was_for() {
        let keys = keys();
        let link = keys.issue(7, for_42(keys.expiry(NOW)));
        assert_eq!(link.expires_at, NOW + 900);
        assert!(link.token.starts_with(&format!("42.3.{}.", NOW + 900)));
        let issued = for_42(NOW + 900);
        assert_eq!(keys.check(7, &link.token, NOW).unwrap(), issued);
        assert_eq!(keys.check(7, &link.token, NOW + 900).unwrap(), issued);
        assert_eq!(
            refused(keys.check(7, &link.token, NOW + 901)),
            (Code::Unauthenticated, MSG_LINK_EXPIRED.to_owned())
        );
    }

    #[test]
    fn another_file_a_changed_field_or_another_key_is_not_found() {
        let keys = keys();
        let link = keys.issue(7, for_42(keys.expiry(NOW))).token;
        let (user, rest) = link.split_once('.').unwrap();
        let (version, rest) = rest.split_once('.').unwrap();
        let (expires, mac) = rest.split_once('.').unwrap();
        let user = format!("{user}.{version}");
        let mut flipped = mac.as_bytes().to_vec();
        flipped[0] = if flipped[0] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap();
        let later = expires.parse::<i64>().unwrap() + 86_400;
        let other_key = keys_of("another-key-of-forty-characters-for-tests")
            .unwrap()
            .issue(7, for_42(keys.expiry(NOW)))
            .token;
        for (file, token) in [
            (8, link.clone()),
            (7, format!("43.{version}.{expires}.{mac}")),
            (7, format!("42.4.{expires}.{mac}")),
            (7, format!("42.{expires}.{mac}")),
            (7, format!("{user}.{later}.{mac}")),
            (7, format!("{user}.{expires}.{flipped}")),
            (7, other_key),
            (7, format!("{user}.{expires}.")),
            (7, format!("{user}.{expires}")),
            (7, format!("{link}.1")),
            (7, format!("-{link}")),
            (7, "недействительная".to_owned()),
            (7, String::new()),
        ] {
            assert_eq!(
                refused(keys.check(file, &token, NOW)),
                (Code::NotFound, MSG_FILE_NOT_FOUND.to_owned()),
                "{file} {token}"
            );
        }
    }

    #[test]
    fn the_first_key_signs_and_every_key_verifies() {
        let old = "the-old-key-of-forty-characters-for-tests";
        let new = "the-new-key-of-forty-characters-for-tests";
        let before = keys_of(old).unwrap().issue(7, for_42(NOW + 900));
        let during = keys_of(&format!("{new}\n\n{old}\n")).unwrap();
        assert_eq!(during.check(7, &before.token, NOW).unwrap().issued_to, 42);
        let after = keys_of(new).unwrap();
        assert_eq!(
            after
                .check(7, &during.issue(7, for_42(NOW + 900)).token, NOW)
                .unwrap()
                .issued_to,
            42
        );
        assert_eq!(
            refused(after.check(7, &before.token, NOW)).0,
            Code::NotFound
        );
    }
}
