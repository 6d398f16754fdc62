//! Access tokens: Ed25519-signed JWTs issued by auth and verified by every service.
//!
//! Keys are PEM files. The public-key file may hold several keys, one PEM block
//! each, so a rotation can publish the next key before auth starts signing with it;
//! tokens name their key with `kid`.
//!
//! A verified token is remembered, keyed by its whole text, until it expires:
//! the same token comes with every call a browser makes for 15 minutes, and an
//! Ed25519 check costs more than the rest of a small read. The cache only skips
//! repeating a check whose answer cannot change (same text, same keys), so it
//! accepts nothing the check would refuse; see [`TokenVerifier`].

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use ed25519_dalek::SigningKey;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use quick_cache::sync::Cache;
use serde::Serialize;
use sha2::{Digest, Sha256};
use tonic::{Request, Status};

use crate::access::Caller;
use crate::account_limits::AccountLimiter;
pub use crate::claims::{
    ACCESS_TOKEN_TTL, AUDIENCE, Claims, ISSUER, MSG_SESSION_EXPIRED, Principal,
    SERVICE_ACCOUNT_SUBJECT_PREFIX, SERVICE_TOKEN_TTL, ServiceAccountClaims, ServiceAccountSubject,
    Subject,
};
use crate::revocation::AccessVersions;

/// Clock skew between the issuing and the verifying host that a token's `exp` allows.
const EXPIRY_LEEWAY_SECS: u64 = 30;
/// Verified tokens remembered at once: each takes about 1 KiB (its text and
/// claims), so at most a few MiB; enough for every token signed in within one
/// token lifetime at a large hospital. Beyond it the least used are checked again.
const VERIFIED_TOKENS_CAPACITY: usize = 4096;
const PRIVATE_KEY_FILE: &str = "jwt-private.pem";
const PUBLIC_KEY_FILE: &str = "jwt-public.pem";

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} holds no usable Ed25519 key: {reason}")]
    Invalid { path: String, reason: String },
}

fn read(path: &Path) -> Result<String, KeyError> {
    std::fs::read_to_string(path).map_err(|source| KeyError::Io {
        path: path.display().to_string(),
        source,
    })
}

fn invalid(path: &Path, reason: impl ToString) -> KeyError {
    KeyError::Invalid {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

fn key_id(public_key: &ed25519_dalek::VerifyingKey) -> String {
    hex::encode(&Sha256::digest(public_key.as_bytes())[..8])
}

/// The key files in `dir`, generated on first use (the `all` target's default).
pub fn ensure_key_pair(dir: &Path) -> Result<(std::path::PathBuf, std::path::PathBuf), KeyError> {
    let private_path = dir.join(PRIVATE_KEY_FILE);
    let public_path = dir.join(PUBLIC_KEY_FILE);
    if private_path.exists() && public_path.exists() {
        return Ok((private_path, public_path));
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| KeyError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let signing = SigningKey::generate(&mut rand::rngs::OsRng);
    let private_pem = signing
        .to_pkcs8_pem(LineEnding::LF)
        .map_err(|e| invalid(&private_path, e))?;
    let public_pem = signing
        .verifying_key()
        .to_public_key_pem(LineEnding::LF)
        .map_err(|e| invalid(&public_path, e))?;
    crate::private_fs::write_new(&private_path, private_pem.as_bytes())
        .map_err(io(&private_path))?;
    std::fs::write(&public_path, public_pem).map_err(io(&public_path))?;
    // Public, but in the data directory every file is its owner's alone.
    crate::private_fs::restrict(&public_path, 0o600).map_err(io(&public_path))?;
    tracing::info!(dir = %dir.display(), "generated a new Ed25519 key pair for access tokens");
    Ok((private_path, public_path))
}

/// Signs access tokens; only the auth service holds one.
#[derive(Clone)]
pub struct TokenIssuer {
    key: Arc<EncodingKey>,
    kid: String,
}

impl TokenIssuer {
    pub fn from_pem_file(path: &Path) -> Result<Self, KeyError> {
        use ed25519_dalek::pkcs8::DecodePrivateKey;
        let pem = read(path)?;
        let signing = SigningKey::from_pkcs8_pem(&pem).map_err(|e| invalid(path, e))?;
        let key = EncodingKey::from_ed_pem(pem.as_bytes()).map_err(|e| invalid(path, e))?;
        Ok(Self {
            key: Arc::new(key),
            kid: key_id(&signing.verifying_key()),
        })
    }

    /// A signed access token for `subject`, valid for [`ACCESS_TOKEN_TTL`].
    pub fn issue(&self, subject: Subject) -> Result<String, jsonwebtoken::errors::Error> {
        self.issue_in(subject, None)
    }

    /// As [`TokenIssuer::issue`], naming the session (`sid`) it is issued in.
    pub fn issue_in(
        &self,
        subject: Subject,
        session: Option<i64>,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let now = unix_now();
        let claims = Claims {
            user_id: subject.user_id,
            login: subject.login,
            name: subject.name,
            surname: subject.surname,
            last_name: subject.last_name,
            rights: subject.rights,
            departments: subject.departments,
            ver: subject.access_version,
            sid: session,
            iat: now,
            exp: now + ACCESS_TOKEN_TTL.as_secs(),
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
        };
        self.sign(&claims)
    }

    /// A signed token for a service account, valid for [`SERVICE_TOKEN_TTL`].
    pub fn issue_service_account(
        &self,
        subject: ServiceAccountSubject,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let now = unix_now();
        self.sign(&ServiceAccountClaims {
            account_id: subject.account_id,
            name: subject.name,
            scopes: subject
                .scopes
                .iter()
                .map(|scope| scope.as_str().to_owned())
                .collect(),
            client_id: subject.client_id,
            ver: subject.access_version,
            iat: now,
            exp: now + SERVICE_TOKEN_TTL.as_secs(),
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
        })
    }

    fn sign(&self, claims: &impl Serialize) -> Result<String, jsonwebtoken::errors::Error> {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.key)
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// Checks access tokens against the published public keys; every service has one.
///
/// Verified tokens are cached by their whole text until their `exp`, so:
/// - a forged token is refused as before: its text differs from every cached
///   one (a different signature is a different key), so it is checked in full;
/// - an expired one is refused as before: `exp` is compared with the clock on
///   every call, cached or not, and an expired entry is dropped;
/// - a revoked key: keys are read from the public-key file at start, and the
///   cache lives and dies with them, so the restart that drops a key from the
///   file also forgets every token it verified;
/// - nothing goes staler than the token already is: its claims (rights,
///   departments) are those signed into it, whether checked once or on every
///   call, and they lag the database by at most the token's lifetime either way.
///   A block or a change of rights is enforced apart from the signature, on
///   every call: the interceptor refuses a token older than its person's
///   access version ([`AccessVersions`], a map read).
#[derive(Clone)]
pub struct TokenVerifier {
    keys: Arc<HashMap<String, DecodingKey>>,
    validation: Arc<Validation>,
    verified: Arc<Cache<String, Principal>>,
    versions: AccessVersions,
}

impl TokenVerifier {
    pub fn from_pem_file(path: &Path) -> Result<Self, KeyError> {
        let text = read(path)?;
        let mut keys = HashMap::new();
        for block in text
            .split_inclusive("-----END PUBLIC KEY-----")
            .filter(|b| b.contains("BEGIN"))
        {
            let public = ed25519_dalek::VerifyingKey::from_public_key_pem(block.trim())
                .map_err(|e| invalid(path, e))?;
            let key =
                DecodingKey::from_ed_pem(block.trim().as_bytes()).map_err(|e| invalid(path, e))?;
            keys.insert(key_id(&public), key);
        }
        if keys.is_empty() {
            return Err(invalid(path, "no PUBLIC KEY block"));
        }
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.leeway = EXPIRY_LEEWAY_SECS;
        Ok(Self {
            keys: Arc::new(keys),
            validation: Arc::new(validation),
            verified: Arc::new(Cache::new(VERIFIED_TOKENS_CAPACITY)),
            versions: AccessVersions::default(),
        })
    }

    /// Refuses, on every call, tokens older than their person's version in
    /// `versions` (kept current by [`AccessVersions::follow`]).
    pub fn with_access_versions(self, versions: AccessVersions) -> Self {
        Self { versions, ..self }
    }

    /// The claims of a person's valid token: signed by a published key, for
    /// this issuer and audience, not expired.
    pub fn verify(&self, token: &str) -> Option<Arc<Claims>> {
        match self.verify_principal(token)? {
            Principal::Person(claims) => Some(claims),
            Principal::ServiceAccount(_) => None,
        }
    }

    /// Whom a valid token names, a person or a service account.
    pub fn verify_principal(&self, token: &str) -> Option<Principal> {
        self.verify_at(token, unix_now())
    }

    fn verify_at(&self, token: &str, now: u64) -> Option<Principal> {
        if let Some(principal) = self.verified.get(token) {
            if unexpired(principal.exp(), now) {
                return Some(principal);
            }
            self.verified.remove(token);
            return None;
        }
        let principal = self.check_signature(token)?;
        if !unexpired(principal.exp(), now) {
            return None;
        }
        self.verified.insert(token.to_owned(), principal.clone());
        Some(principal)
    }

    /// The signature and standard claims are checked once; then `sub` tells
    /// which kind of claims the token must hold in full.
    fn check_signature(&self, token: &str) -> Option<Principal> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        let key = self.keys.get(header.kid.as_deref()?)?;
        let claims = jsonwebtoken::decode::<serde_json::Value>(token, key, &self.validation)
            .ok()?
            .claims;
        let is_service_account = claims
            .get("sub")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|sub| sub.starts_with(SERVICE_ACCOUNT_SUBJECT_PREFIX));
        if is_service_account {
            serde_json::from_value(claims)
                .ok()
                .map(|claims| Principal::ServiceAccount(Arc::new(claims)))
        } else {
            serde_json::from_value(claims)
                .ok()
                .map(|claims| Principal::Person(Arc::new(claims)))
        }
    }
}

/// The expiry rule of the token check itself (`exp` plus the leeway), applied
/// again on every call so that a cached token ends on time.
fn unexpired(exp: u64, now: u64) -> bool {
    exp.saturating_add(EXPIRY_LEEWAY_SECS) >= now
}

/// Puts the [`Caller`] on every request: anonymous without `authorization`, signed
/// in with a valid bearer token of the person's current access version,
/// [`Caller::Revoked`] with a valid older one, [`Caller::InvalidToken`] with
/// any other (each RPC that needs a caller then answers UNAUTHENTICATED).
/// A service account's call spends from its bucket of the replica's
/// [`AccountLimiter`] (on the request where the server put one), and is
/// refused RESOURCE_EXHAUSTED once it is empty.
impl tonic::service::Interceptor for TokenVerifier {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let caller = match request.metadata().get("authorization") {
            None => Caller::anonymous(),
            Some(value) => value
                .to_str()
                .ok()
                .and_then(|v| {
                    v.strip_prefix("Bearer ")
                        .or_else(|| v.strip_prefix("bearer "))
                })
                .and_then(|token| self.verify_principal(token.trim()))
                .map_or(Caller::InvalidToken, |principal| match principal {
                    Principal::Person(claims) if self.versions.is_current(&claims) => {
                        Caller::signed_in(claims)
                    }
                    Principal::ServiceAccount(claims)
                        if self.versions.is_current_account(&claims) =>
                    {
                        Caller::ServiceAccount(claims)
                    }
                    Principal::Person(_) | Principal::ServiceAccount(_) => Caller::Revoked,
                }),
        };
        if let (Caller::ServiceAccount(claims), Some(limiter)) =
            (&caller, request.extensions().get::<AccountLimiter>())
        {
            limiter.spend(claims.account_id)?;
        }
        request.extensions_mut().insert(caller);
        Ok(request)
    }
}

#[cfg(test)]
mod tests;
