//! OpenID Connect Back-Channel Logout 1.0: the provider's logout token,
//! checked against the same keys as its ID tokens. `openidconnect` reads no
//! logout tokens, so jsonwebtoken checks this one (signature, issuer,
//! audience, expiry), and the rules of the spec's section 2.6 are here.

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use portal_kit::ServiceError;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::SingleSignOn;

pub const MSG_LOGOUT_TOKEN_INVALID: &str = "Недействительный токен выхода";
pub const REASON_LOGOUT_TOKEN_INVALID: &str = "sso-logout-token-invalid";
/// The event a logout token must carry (section 2.4).
const LOGOUT_EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";
/// The signatures a provider's keys may make: asymmetric only, as its ID
/// tokens' (a shared-secret one would let anyone with the secret forge it).
const ALGORITHMS: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

/// Whom a checked logout token ends: the provider's session, its subject, or both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logout {
    pub issuer: String,
    pub subject: Option<String>,
    pub session: Option<String>,
    /// The token's id, used once until `expires_at` (seconds).
    pub jti: String,
    pub expires_at: i64,
}

#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: Option<String>,
    sid: Option<String>,
    jti: Option<String>,
    exp: i64,
    iat: Option<i64>,
    nonce: Option<Value>,
    events: Option<Map<String, Value>>,
}

impl SingleSignOn {
    /// Checks a logout token; the provider's keys are read again once when it
    /// names a key they do not hold.
    pub async fn check_logout_token(&self, token: &str) -> Result<Logout, ServiceError> {
        let header = jsonwebtoken::decode_header(token).map_err(|e| refused(&e))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(refused(&format!("algorithm {:?}", header.alg)));
        }
        let mut provider = self.provider(None).await?;
        let mut keys = key_set(&provider.metadata)?;
        if !holds_key(&keys, header.kid.as_deref()) {
            provider = self.provider(Some(&provider)).await?;
            keys = key_set(&provider.metadata)?;
        }
        let candidates: Vec<_> = keys
            .keys
            .iter()
            .filter(|key| header.kid.is_none() || key.common.key_id == header.kid)
            .collect();
        let issuer = provider.metadata.issuer().as_str().to_owned();
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&issuer]);
        validation.set_audience(&[&self.settings.client_id]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let mut last_error = None;
        for key in candidates {
            let Ok(decoding) = DecodingKey::from_jwk(key) else {
                continue;
            };
            match jsonwebtoken::decode::<Claims>(token, &decoding, &validation) {
                Ok(data) => return logout_of(data.claims),
                Err(error) => last_error = Some(error),
            }
        }
        Err(match last_error {
            Some(error) => refused(&error),
            None => refused(&"no key of the provider verifies it"),
        })
    }
}

/// The rules of section 2.6 beyond the signature's.
fn logout_of(claims: Claims) -> Result<Logout, ServiceError> {
    let has_event = claims
        .events
        .as_ref()
        .is_some_and(|events| events.contains_key(LOGOUT_EVENT));
    if !has_event {
        return Err(refused(&"no back-channel logout event"));
    }
    if claims.nonce.is_some() {
        return Err(refused(&"a logout token carries no nonce"));
    }
    if claims.iat.is_none() {
        return Err(refused(&"no iat"));
    }
    let subject = claims.sub.filter(|sub| !sub.is_empty());
    let session = claims.sid.filter(|sid| !sid.is_empty());
    if subject.is_none() && session.is_none() {
        return Err(refused(&"neither sub nor sid"));
    }
    let jti = claims
        .jti
        .filter(|jti| !jti.is_empty())
        .ok_or_else(|| refused(&"no jti"))?;
    Ok(Logout {
        issuer: claims.iss,
        subject,
        session,
        jti,
        expires_at: claims.exp,
    })
}

/// The provider's keys as jsonwebtoken reads them.
fn key_set(metadata: &openidconnect::ProviderMetadataWithLogout) -> Result<JwkSet, ServiceError> {
    let value = serde_json::to_value(metadata.jwks()).map_err(ServiceError::internal)?;
    serde_json::from_value(value).map_err(ServiceError::internal)
}

fn holds_key(keys: &JwkSet, kid: Option<&str>) -> bool {
    match kid {
        Some(kid) => keys.find(kid).is_some(),
        None => !keys.keys.is_empty(),
    }
}

fn refused(error: &dyn std::fmt::Display) -> ServiceError {
    tracing::warn!(%error, "a back-channel logout token was refused");
    ServiceError::invalid(MSG_LOGOUT_TOKEN_INVALID).because(REASON_LOGOUT_TOKEN_INVALID)
}
