//! Calls between Portal's own services (issue 37): whose tokens are stale
//! (auth's `AccessRevocationService`), whom the digest writes to (auth's
//! `MailRecipientService`), each person's equipment items (wiki's
//! `DigestItemService`). They answer for no person, so no person's token can
//! open them: each call carries a credential the calling service mints with
//! the key every service target reads (`PORTAL_INTERNAL_KEY_FILE`; `all`
//! generates one into the data dir), and the serving side refuses a call
//! without a valid one. The gateway neither holds the key nor forwards these
//! services, so nothing outside reaches them, even on a port it can reach.
//!
//! A credential is `{expires_ms}.{mac}`, HMAC-SHA256 over its expiry: good
//! for [`LIFETIME`], minted afresh for every call (one MAC), so a copied one
//! is of little use and nothing has to be renewed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::{Request, Status};

use crate::key_file::{self, HmacKeys, KeyFileError};
use crate::serve::ServiceChannel;

/// A channel to another service whose every call carries a credential.
pub type InternalChannel = InterceptedService<ServiceChannel, InternalCredential>;

/// The metadata key of the credential.
pub const CREDENTIAL_KEY: &str = "x-portal-internal";
/// The key file `all` generates into the data dir.
pub const KEY_FILE: &str = "internal.key";
/// How long a credential is accepted after it was minted.
pub const LIFETIME: Duration = Duration::from_millis(LIFETIME_MS as u64);
/// What an internal service answers a call without a valid credential.
pub const MSG_INTERNAL_ONLY: &str = "Служебный сервис: доступен только сервисам портала";

const PURPOSE: &[u8] = b"portal internal call\0";
const LIFETIME_MS: i64 = 60_000;

/// The key file in `dir`, generated on first use (the `all` target's default).
pub fn ensure_key_file(dir: &Path) -> Result<PathBuf, KeyFileError> {
    key_file::ensure(dir, KEY_FILE, "calls between the portal's services")
}

/// Mints credentials (a client interceptor) and checks them (a server one).
#[derive(Clone)]
pub struct InternalKeys {
    keys: HmacKeys,
}

impl InternalKeys {
    pub fn from_file(path: &Path) -> Result<InternalKeys, KeyFileError> {
        Ok(InternalKeys {
            keys: HmacKeys::from_file(path)?,
        })
    }

    /// Keys for sealing a service's own secrets at rest, derived from these
    /// (never the keys themselves): the first seals, each opens.
    pub fn derive(&self, purpose: &[u8]) -> Vec<[u8; 32]> {
        self.keys.derive(purpose)
    }

    /// A credential good until `now_ms` + [`LIFETIME`].
    fn mint(&self, now_ms: i64) -> String {
        let expires = now_ms.saturating_add(LIFETIME_MS);
        let mac = self.keys.sign(PURPOSE, &[&expires.to_be_bytes()]);
        format!("{expires}.{}", hex::encode(mac))
    }

    /// Whether `credential` was minted with one of the keys and is still good at `now_ms`.
    fn accepts(&self, credential: &str, now_ms: i64) -> bool {
        let Some((expires, mac)) = credential.split_once('.') else {
            return false;
        };
        let (Ok(expires), Ok(mac)) = (expires.parse::<i64>(), hex::decode(mac)) else {
            return false;
        };
        expires >= now_ms
            && expires <= now_ms.saturating_add(LIFETIME_MS)
            && self.keys.verify(PURPOSE, &[&expires.to_be_bytes()], &mac)
    }

    /// The client side: every call through it carries a fresh credential.
    pub fn credential(&self) -> InternalCredential {
        InternalCredential(self.clone())
    }

    /// `channel` with a fresh credential on every call.
    pub fn channel(&self, channel: ServiceChannel) -> InternalChannel {
        InterceptedService::new(channel, self.credential())
    }

    /// The server side: refuses a call without a valid credential.
    pub fn guard(&self) -> InternalOnly {
        InternalOnly(self.clone())
    }
}

impl std::fmt::Debug for InternalKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InternalKeys(..)")
    }
}

fn now_ms() -> i64 {
    crate::db::now_millis()
}

/// Puts a credential on each call (`XClient::with_interceptor`).
#[derive(Clone)]
pub struct InternalCredential(InternalKeys);

impl Interceptor for InternalCredential {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let value = MetadataValue::try_from(self.0.mint(now_ms()))
            .map_err(|_| Status::internal("an internal credential is not ASCII"))?;
        request.metadata_mut().insert(CREDENTIAL_KEY, value);
        Ok(request)
    }
}

/// Lets through only calls with a valid credential (`InterceptedService`).
#[derive(Clone)]
pub struct InternalOnly(InternalKeys);

impl Interceptor for InternalOnly {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let genuine = request
            .metadata()
            .get(CREDENTIAL_KEY)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|credential| self.0.accepts(credential, now_ms()));
        if genuine {
            Ok(request)
        } else {
            tracing::warn!("an internal service was called without a valid credential");
            Err(Status::unauthenticated(MSG_INTERNAL_ONLY))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> InternalKeys {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("internal.key");
        std::fs::write(&path, text).unwrap();
        InternalKeys::from_file(&path).unwrap()
    }

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn a_credential_is_good_for_a_minute_under_the_same_keys_only() {
        let ours = keys("our-internal-key-of-forty-characters-long");
        let theirs = keys("another-internal-key-of-forty-characters");
        let credential = ours.mint(NOW);
        assert!(ours.accepts(&credential, NOW));
        assert!(ours.accepts(&credential, NOW + 60_000));
        assert!(!ours.accepts(&credential, NOW + 60_001));
        assert!(!theirs.accepts(&credential, NOW));
        // An expiry moved later, or far in the future, breaks it.
        let (expires, mac) = credential.split_once('.').unwrap();
        let later = expires.parse::<i64>().unwrap() + 1;
        assert!(!ours.accepts(&format!("{later}.{mac}"), NOW));
        let far = ours.mint(NOW + 3_600_000);
        assert!(!ours.accepts(&far, NOW));
        for junk in ["", ".", "1.", ".ab", "x.y", "1.2.3", &format!("{expires}.")] {
            assert!(!ours.accepts(junk, NOW), "{junk:?}");
        }
    }

    #[test]
    fn the_guard_lets_through_only_what_the_credential_put_on() {
        let ours = keys("our-internal-key-of-forty-characters-long");
        let with = ours.credential().call(Request::new(())).unwrap();
        assert!(ours.guard().call(with).is_ok());
        let refused = ours.guard().call(Request::new(())).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::Unauthenticated);
        assert_eq!(refused.message(), MSG_INTERNAL_ONLY);
        let mut forged = Request::new(());
        forged.metadata_mut().insert(
            CREDENTIAL_KEY,
            MetadataValue::from_static("9999999999999.00"),
        );
        assert!(ours.guard().call(forged).is_err());
    }
}
