//! How a service account proves who it is when it asks for a token (the OAuth
//! 2.0 client-credentials grant, RFC 6749 §4.4): a client secret, or a client
//! assertion signed by its registered key (`private_key_jwt`, RFC 7523 §2.2),
//! and which scopes it gets.
//!
//! Every failed proof answers alike ([`invalid_client`]): an unknown client id,
//! a wrong or revoked secret, a bad assertion and a disabled account cannot be
//! told apart. Failures are limited per client id ([`failure_verdict`]), but a
//! right secret is always accepted: a secret holds 256 random bits, so the
//! limit is not what stops guessing (nothing can guess it); it keeps a flood
//! of wrong tries from filling the log and the database, and never stops the
//! real system, whatever strangers send under its client id.

use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use portal_kit::ServiceError;
use serde::Deserialize;

use super::service_account::Scopes;

pub const REASON_INVALID_CLIENT: &str = "invalid-client";
pub const REASON_INVALID_REQUEST: &str = "invalid-request";
pub const REASON_INVALID_SCOPE: &str = "invalid-scope";
pub const REASON_TOO_MANY_FAILURES: &str = "too-many-failures";

/// The `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
pub const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// The token endpoint's path under `PORTAL_PUBLIC_URL`: with it, an assertion's
/// accepted audiences.
pub const TOKEN_ENDPOINT_PATH: &str = "/api/oauth/token";
/// An assertion's `exp` may be at most this far ahead: it is made for one
/// request, now.
pub const MAX_ASSERTION_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// Clock skew between the system and the portal that `exp` allows.
const ASSERTION_LEEWAY_SECS: u64 = 30;
const MAX_JTI_CHARS: usize = 256;

/// Wrong credentials counted per client id within this window…
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// …beyond which wrong ones are turned away uncounted until the oldest ages out.
pub const MAX_FAILURES: i64 = 20;

pub const MSG_INVALID_CLIENT: &str = "Неверный идентификатор клиента или его секрет";
pub const MSG_CREDENTIALS_REQUIRED: &str =
    "Укажите идентификатор клиента и секрет либо подписанное утверждение клиента";
pub const MSG_TWO_KINDS_OF_CREDENTIALS: &str =
    "Укажите либо секрет клиента, либо подписанное утверждение клиента, но не оба";
pub const MSG_ASSERTION_TYPE: &str = "Неподдерживаемый тип утверждения клиента";
pub const MSG_INVALID_SCOPE: &str = "Запрошена область доступа, не разрешённая внешней системе";
pub const MSG_TOO_MANY_FAILURES: &str =
    "Слишком много неудачных попыток получить токен. Попробуйте позже.";
pub const MSG_BAD_PUBLIC_KEY: &str =
    "Открытый ключ должен быть в формате PEM: Ed25519 или RSA длиной от 2048 до 4096 бит";

/// The one refusal of every failed proof.
pub fn invalid_client() -> ServiceError {
    ServiceError::Unauthenticated(MSG_INVALID_CLIENT.into()).because(REASON_INVALID_CLIENT)
}

fn invalid_request(message: &str) -> ServiceError {
    ServiceError::invalid(message).because(REASON_INVALID_REQUEST)
}

/// What a token request proves its client with.
#[derive(Clone, PartialEq, Eq)]
pub enum Proof {
    Secret {
        client_id: String,
        secret: String,
    },
    /// The client id, from the request or else from the assertion's `iss`
    /// (checked against its signature later), and the assertion.
    Assertion {
        client_id: String,
        assertion: String,
    },
}

impl std::fmt::Debug for Proof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Proof::Secret { client_id, .. } => write!(f, "Secret({client_id}, …)"),
            Proof::Assertion { client_id, .. } => write!(f, "Assertion({client_id}, …)"),
        }
    }
}

impl Proof {
    /// The request's credentials: exactly one kind, and an assertion of the
    /// one type this server knows.
    pub fn parse(
        client_id: &str,
        secret: &str,
        assertion_type: &str,
        assertion: &str,
    ) -> Result<Proof, ServiceError> {
        let client_id = client_id.trim();
        let assertion = assertion.trim();
        let with_assertion = !assertion.is_empty() || !assertion_type.trim().is_empty();
        match (secret.is_empty(), with_assertion) {
            (false, true) => Err(invalid_request(MSG_TWO_KINDS_OF_CREDENTIALS)),
            (false, false) if !client_id.is_empty() => Ok(Proof::Secret {
                client_id: client_id.to_owned(),
                secret: secret.to_owned(),
            }),
            (true, true) => {
                if assertion_type.trim() != JWT_BEARER_ASSERTION || assertion.is_empty() {
                    return Err(invalid_request(MSG_ASSERTION_TYPE));
                }
                let client_id = if client_id.is_empty() {
                    issuer_of(assertion).ok_or_else(invalid_client)?
                } else {
                    client_id.to_owned()
                };
                Ok(Proof::Assertion {
                    client_id,
                    assertion: assertion.to_owned(),
                })
            }
            _ => Err(invalid_request(MSG_CREDENTIALS_REQUIRED)),
        }
    }

    pub fn client_id(&self) -> &str {
        match self {
            Proof::Secret { client_id, .. } | Proof::Assertion { client_id, .. } => client_id,
        }
    }
}

/// The `iss` an assertion claims, read before its signature is checked: only
/// to find whose key checks it.
fn issuer_of(assertion: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Issuer {
        iss: String,
    }
    jsonwebtoken::dangerous::insecure_decode_claims::<Issuer>(assertion)
        .ok()
        .map(|claims| claims.iss)
}

/// The scopes a token gets: those asked for (separated by spaces), each of
/// which the account must be granted, or every granted one when none is asked.
pub fn granted_scopes(requested: &str, account: &Scopes) -> Result<Scopes, ServiceError> {
    let words: Vec<&str> = requested.split_whitespace().collect();
    if words.is_empty() {
        return Ok(account.clone());
    }
    let refused = || ServiceError::invalid(MSG_INVALID_SCOPE).because(REASON_INVALID_SCOPE);
    let asked = Scopes::parse(&words).map_err(|_| refused())?;
    if asked
        .as_slice()
        .iter()
        .all(|scope| account.contains(*scope))
    {
        Ok(asked)
    } else {
        Err(refused())
    }
}

/// Wrong credentials for one client id within the window: how many, and when
/// the oldest was (Unix ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Failures {
    pub count: i64,
    pub oldest_at: Option<i64>,
}

/// What a wrong proof gets, given the failures before it at `now` (Unix ms):
/// `Ok` to count it and answer [`invalid_client`], or, over the limit, the
/// refusal to answer uncounted, with the wait until the oldest ages out.
pub fn failure_verdict(failures: Failures, now: i64) -> Result<(), ServiceError> {
    if failures.count < MAX_FAILURES {
        return Ok(());
    }
    let oldest = failures.oldest_at.unwrap_or(now);
    let elapsed = Duration::from_millis(u64::try_from(now - oldest).unwrap_or(0));
    let retry_after = FAILURE_WINDOW
        .saturating_sub(elapsed)
        .max(Duration::from_secs(1));
    Err(ServiceError::RateLimited {
        message: MSG_TOO_MANY_FAILURES.into(),
        retry_after,
    }
    .because(REASON_TOO_MANY_FAILURES))
}

/// The start of the failure window that ends at `now` (Unix ms).
pub fn failure_window_start(now: i64) -> i64 {
    now.saturating_sub(i64::try_from(FAILURE_WINDOW.as_millis()).unwrap_or(i64::MAX))
}

/// The kind of a registered public key, which says how assertions are signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Ed25519,
    Rsa,
}

impl KeyKind {
    fn algorithms(self) -> Vec<Algorithm> {
        match self {
            KeyKind::Ed25519 => vec![Algorithm::EdDSA],
            KeyKind::Rsa => vec![
                Algorithm::RS256,
                Algorithm::RS384,
                Algorithm::RS512,
                Algorithm::PS256,
                Algorithm::PS384,
                Algorithm::PS512,
            ],
        }
    }
}

/// A service account's registered public key (PEM), checked when registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    pem: String,
    kind: KeyKind,
}

/// Accepted RSA moduli, in bits.
const RSA_BITS: std::ops::RangeInclusive<usize> = 2048..=4096;

impl PublicKey {
    /// A PEM public key as an admin pastes it: Ed25519, or RSA of 2048 to
    /// 4096 bits (SPKI `PUBLIC KEY` or PKCS#1 `RSA PUBLIC KEY`). Blank is none.
    pub fn parse(pem: &str) -> Result<Option<PublicKey>, ServiceError> {
        let pem = pem.trim();
        if pem.is_empty() {
            return Ok(None);
        }
        Self::read(pem)
            .map(Some)
            .ok_or_else(|| ServiceError::invalid(MSG_BAD_PUBLIC_KEY))
    }

    fn read(pem: &str) -> Option<PublicKey> {
        use ed25519_dalek::pkcs8::DecodePublicKey as _;
        use rsa::pkcs1::DecodeRsaPublicKey as _;
        use rsa::traits::PublicKeyParts as _;
        let kind = if ed25519_dalek::VerifyingKey::from_public_key_pem(pem).is_ok() {
            KeyKind::Ed25519
        } else {
            let rsa = rsa::RsaPublicKey::from_public_key_pem(pem)
                .or_else(|_| rsa::RsaPublicKey::from_pkcs1_pem(pem))
                .ok()?;
            if !RSA_BITS.contains(&(rsa.size() * 8)) {
                return None;
            }
            KeyKind::Rsa
        };
        let key = PublicKey {
            pem: pem.to_owned(),
            kind,
        };
        key.decoding_key().map(|_| key)
    }

    /// A stored key; `None` for none ('').
    pub fn from_stored(pem: &str) -> Option<PublicKey> {
        if pem.is_empty() {
            return None;
        }
        let key = Self::read(pem);
        if key.is_none() {
            tracing::error!("a stored public key of a service account does not read");
        }
        key
    }

    pub fn pem(&self) -> &str {
        &self.pem
    }

    fn decoding_key(&self) -> Option<DecodingKey> {
        match self.kind {
            KeyKind::Ed25519 => DecodingKey::from_ed_pem(self.pem.as_bytes()).ok(),
            KeyKind::Rsa => DecodingKey::from_rsa_pem(self.pem.as_bytes()).ok(),
        }
    }

    /// Checks a client assertion (RFC 7523 §3) at `now` (Unix seconds):
    /// signed by this key with an algorithm of its kind, `iss` and `sub` the
    /// client id, `aud` one of `audiences`, unexpired, `exp` at most
    /// [`MAX_ASSERTION_LIFETIME`] ahead, not before its `nbf` nor its `iat`
    /// (either may be left out), with a `jti`. The `jti` and `exp` to
    /// remember it by until then; `None` for any failure.
    pub fn verify_assertion(
        &self,
        assertion: &str,
        client_id: &str,
        audiences: &[&str],
        now: u64,
    ) -> Option<AssertionId> {
        #[derive(Deserialize)]
        struct Claims {
            jti: String,
            exp: u64,
            nbf: Option<u64>,
            iat: Option<u64>,
        }
        let key = self.decoding_key()?;
        let mut validation = Validation::new(self.kind.algorithms()[0]);
        validation.algorithms = self.kind.algorithms();
        validation.set_issuer(&[client_id]);
        validation.sub = Some(client_id.to_owned());
        validation.set_audience(audiences);
        validation.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
        validation.leeway = ASSERTION_LEEWAY_SECS;
        // Checked below against `now`, which tests set.
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<Claims>(assertion, &key, &validation)
            .ok()?
            .claims;
        let latest = now + MAX_ASSERTION_LIFETIME.as_secs() + ASSERTION_LEEWAY_SECS;
        let unexpired = claims.exp + ASSERTION_LEEWAY_SECS >= now;
        let jti_ok = !claims.jti.is_empty() && claims.jti.chars().count() <= MAX_JTI_CHARS;
        // Made for later (or dated in the future): not yet good.
        let begun = [claims.nbf, claims.iat]
            .into_iter()
            .flatten()
            .all(|start| start <= now + ASSERTION_LEEWAY_SECS);
        (unexpired && begun && claims.exp <= latest && jti_ok).then(|| AssertionId {
            jti: claims.jti,
            expires_at: claims.exp + ASSERTION_LEEWAY_SECS,
        })
    }
}

/// An assertion's `jti`, kept until `expires_at` (Unix seconds) so that it
/// gets one token only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssertionId {
    pub jti: String,
    pub expires_at: u64,
}

/// The audiences an assertion may name: the token endpoint under `public_url`
/// and the portal's own name.
pub fn assertion_audiences(public_url: &str) -> [String; 2] {
    [
        format!("{}{TOKEN_ENDPOINT_PATH}", public_url.trim_end_matches('/')),
        portal_kit::token::AUDIENCE.to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
    use ed25519_dalek::pkcs8::{EncodePrivateKey, EncodePublicKey};
    use jsonwebtoken::{EncodingKey, Header};
    use portal_kit::access::Scope;

    fn reason(error: &ServiceError) -> Option<&'static str> {
        error.reason()
    }

    #[test]
    fn a_request_proves_its_client_one_way_only() {
        assert!(matches!(
            Proof::parse("svc-1", "s3cret", "", ""),
            Ok(Proof::Secret { .. })
        ));
        let both = Proof::parse("svc-1", "s3cret", JWT_BEARER_ASSERTION, "a.b.c").unwrap_err();
        assert_eq!(reason(&both), Some(REASON_INVALID_REQUEST));
        let none = Proof::parse("svc-1", "", "", "").unwrap_err();
        assert_eq!(reason(&none), Some(REASON_INVALID_REQUEST));
        let no_id = Proof::parse("", "s3cret", "", "").unwrap_err();
        assert_eq!(reason(&no_id), Some(REASON_INVALID_REQUEST));
        let other_type = Proof::parse("svc-1", "", "urn:other", "a.b.c").unwrap_err();
        assert_eq!(reason(&other_type), Some(REASON_INVALID_REQUEST));
        // An assertion that is no JWT names no client.
        let garbage = Proof::parse("", "", JWT_BEARER_ASSERTION, "garbage").unwrap_err();
        assert_eq!(reason(&garbage), Some(REASON_INVALID_CLIENT));
        assert!(!format!("{:?}", Proof::parse("svc-1", "s3cret", "", "")).contains("s3cret"));
    }

    #[test]
    fn scopes_asked_must_be_granted_and_none_asked_is_all() {
        let granted = Scopes::of(&[Scope::StaffRead, Scope::TrainingRead]);
        assert_eq!(granted_scopes("  ", &granted).unwrap(), granted);
        assert_eq!(
            granted_scopes("training.read", &granted)
                .unwrap()
                .to_stored(),
            "training.read"
        );
        for refused in ["staff.write", "training.read staff.write", "everything"] {
            let error = granted_scopes(refused, &granted).unwrap_err();
            assert_eq!(reason(&error), Some(REASON_INVALID_SCOPE), "{refused}");
        }
    }

    #[test]
    fn wrong_tries_are_turned_away_past_the_limit_until_the_oldest_ages_out() {
        let now = 10_000_000;
        assert!(failure_verdict(Failures::default(), now).is_ok());
        let under = Failures {
            count: MAX_FAILURES - 1,
            oldest_at: Some(now - 1000),
        };
        assert!(failure_verdict(under, now).is_ok());
        let over = Failures {
            count: MAX_FAILURES,
            oldest_at: Some(now - 60_000),
        };
        match failure_verdict(over, now).unwrap_err() {
            ServiceError::Reasoned { error, reason } => {
                assert_eq!(reason, REASON_TOO_MANY_FAILURES);
                assert!(matches!(
                    *error,
                    ServiceError::RateLimited { retry_after, .. }
                        if retry_after == FAILURE_WINDOW - Duration::from_secs(60)
                ));
            }
            other => panic!("{other:?}"),
        }
    }

    struct Signer {
        encoding: EncodingKey,
        public_pem: String,
    }

    fn ed25519() -> Signer {
        let signing = ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng);
        let private = signing.to_pkcs8_pem(LineEnding::LF).unwrap();
        Signer {
            encoding: EncodingKey::from_ed_pem(private.as_bytes()).unwrap(),
            public_pem: signing
                .verifying_key()
                .to_public_key_pem(LineEnding::LF)
                .unwrap(),
        }
    }

    fn assertion(signer: &Signer, claims: serde_json::Value) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::EdDSA), &claims, &signer.encoding).unwrap()
    }

    const NOW: u64 = 2_000_000_000;
    const AUDIENCES: [&str; 2] = ["https://portal.example/api/oauth/token", "portal"];

    fn claims(aud: &str, exp: u64) -> serde_json::Value {
        serde_json::json!({"iss": "svc-1", "sub": "svc-1", "aud": aud, "exp": exp, "jti": "j1"})
    }

    #[test]
    fn an_assertion_must_be_signed_by_the_key_for_this_client_and_server_and_short_lived() {
        let signer = ed25519();
        let key = PublicKey::parse(&signer.public_pem).unwrap().unwrap();
        let good = assertion(&signer, claims(AUDIENCES[0], NOW + 60));
        assert_eq!(
            key.verify_assertion(&good, "svc-1", &AUDIENCES, NOW),
            Some(AssertionId {
                jti: "j1".into(),
                expires_at: NOW + 60 + ASSERTION_LEEWAY_SECS
            })
        );
        let named_portal = assertion(&signer, claims("portal", NOW + 60));
        assert!(
            key.verify_assertion(&named_portal, "svc-1", &AUDIENCES, NOW)
                .is_some()
        );
        assert!(
            key.verify_assertion(&good, "svc-2", &AUDIENCES, NOW)
                .is_none(),
            "another client's"
        );
        let starting = |field: &str, at: u64| {
            let mut claims = claims(AUDIENCES[0], NOW + 60);
            claims[field] = at.into();
            claims
        };
        for begun in [starting("nbf", NOW), starting("iat", NOW - 30)] {
            let token = assertion(&signer, begun.clone());
            assert!(
                key.verify_assertion(&token, "svc-1", &AUDIENCES, NOW)
                    .is_some(),
                "{begun}"
            );
        }
        for refused in [
            claims("https://elsewhere.example/token", NOW + 60),
            claims(AUDIENCES[0], NOW - 3600),
            claims(AUDIENCES[0], NOW + 3600),
            starting("nbf", NOW + 3600),
            starting("iat", NOW + 3600),
            serde_json::json!({"iss": "svc-1", "sub": "svc-1", "aud": "portal", "exp": NOW + 60}),
        ] {
            let token = assertion(&signer, refused.clone());
            assert!(
                key.verify_assertion(&token, "svc-1", &AUDIENCES, NOW)
                    .is_none(),
                "{refused}"
            );
        }
        let stranger = assertion(&ed25519(), claims(AUDIENCES[0], NOW + 60));
        assert!(
            key.verify_assertion(&stranger, "svc-1", &AUDIENCES, NOW)
                .is_none()
        );
        assert_eq!(issuer_of(&good).as_deref(), Some("svc-1"));
    }

    #[test]
    fn only_ed25519_and_rsa_public_keys_in_pem_are_registered() {
        assert_eq!(PublicKey::parse("  ").unwrap(), None);
        for bad in [
            "not a key",
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----",
        ] {
            assert_eq!(
                PublicKey::parse(bad).unwrap_err().to_string(),
                MSG_BAD_PUBLIC_KEY
            );
        }
        let signer = ed25519();
        let key = PublicKey::parse(&format!("\n{}\n", signer.public_pem))
            .unwrap()
            .unwrap();
        assert_eq!(key.pem(), signer.public_pem.trim());
        assert_eq!(PublicKey::from_stored(key.pem()), Some(key));
    }
    /// A 2048-bit RSA public key (SPKI and PKCS#1), and an RS256 assertion
    /// its private key signed once, for `svc-1` and "portal", expiring at
    /// `NOW + 60` (made with openssl; the private key is kept nowhere).
    const RSA_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEApBGF5nyRfGzMdx3kxTpF\nbslLfnEFi/e1JnOnFPsbcmHIggw0CUBbzPoByFZxq1qG/C9tz3R115HGkqJKS7hr\nqa5aA3c7PRkUhQU9CMVQkEOASzFE++dwtHhRgSAgPUyPYMqK38VMHv1FiX698zWE\nJ3fUBItLd4adElrfRhwF5UbTi838QJ9DDRImF1oojKz9yh7XWooM3IcmSeRzieLP\nLje9Zuv6piSBlL3k9/QiKvMOqtMSuJ6AssrKJquqJzE/O9+Xo7L3P/Uj+SbVMEwN\n0Q6d/OYu4BVMIalkVbUq9bG3iSppb2R6DjzZEVvlj1VApyAbcBRz1qIh9+csf3UX\n8QIDAQAB\n-----END PUBLIC KEY-----";
    const RSA_PUBLIC_PKCS1: &str = "-----BEGIN RSA PUBLIC KEY-----\nMIIBCgKCAQEApBGF5nyRfGzMdx3kxTpFbslLfnEFi/e1JnOnFPsbcmHIggw0CUBb\nzPoByFZxq1qG/C9tz3R115HGkqJKS7hrqa5aA3c7PRkUhQU9CMVQkEOASzFE++dw\ntHhRgSAgPUyPYMqK38VMHv1FiX698zWEJ3fUBItLd4adElrfRhwF5UbTi838QJ9D\nDRImF1oojKz9yh7XWooM3IcmSeRzieLPLje9Zuv6piSBlL3k9/QiKvMOqtMSuJ6A\nssrKJquqJzE/O9+Xo7L3P/Uj+SbVMEwN0Q6d/OYu4BVMIalkVbUq9bG3iSppb2R6\nDjzZEVvlj1VApyAbcBRz1qIh9+csf3UX8QIDAQAB\n-----END RSA PUBLIC KEY-----";
    const RSA_ASSERTION: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdmMtMSIsInN1YiI6InN2Yy0xIiwiYXVkIjoicG9ydGFsIiwiZXhwIjoyMDAwMDAwMDYwLCJqdGkiOiJyc2EtMSJ9.IjgMUmE5KcSjY2efq0TuYU2otVmteLd-kbUcHberZsf3ViQswQgk6SU2kXnEVonP0qkkgu-1mPGohxA6MjmBl4Iyz6kuX7NDMDGCs3T9NR2Y1K11GNpt2HwRrdzgxmjcrgbnVrl50L7qwDPibc3_eFE5d1jRg4EihszoTzptG9YPb49aXssxpjS6jnKAgHNtS_J8xTS_GqLJNWRvc0SfIe_WrVQUECwAQDCLDT4fycgeYWHH5Qf949u2IOzkvVPD6Kq1cS2p77XVHsCdWs2W5Hu7rYIBnw6nmXGvnmjyCJCByud1WoZjswNTEtGN8ZFZ_yPIvuwb3BGFiZYl0e6RMA";

    #[test]
    fn an_rsa_key_checks_its_rs256_assertions() {
        for pem in [RSA_PUBLIC, RSA_PUBLIC_PKCS1] {
            let key = PublicKey::parse(pem).unwrap().unwrap();
            assert_eq!(
                key.verify_assertion(RSA_ASSERTION, "svc-1", &AUDIENCES, NOW),
                Some(AssertionId {
                    jti: "rsa-1".into(),
                    expires_at: NOW + 60 + ASSERTION_LEEWAY_SECS
                })
            );
            assert!(
                key.verify_assertion(RSA_ASSERTION, "svc-1", &AUDIENCES, NOW + 3600)
                    .is_none(),
                "expired"
            );
        }
        let ed = PublicKey::parse(&ed25519().public_pem).unwrap().unwrap();
        assert!(
            ed.verify_assertion(RSA_ASSERTION, "svc-1", &AUDIENCES, NOW)
                .is_none(),
            "another key's"
        );
    }
}
