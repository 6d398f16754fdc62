//! Single sign-on by OpenID Connect (issue 39.2): the provider's discovery
//! document and keys (kept, and read again when a token names a key they do
//! not hold: the provider rotated them), the authorization request with
//! PKCE, `state` and `nonce`, the code exchanged and the ID token checked by
//! `openidconnect`; the back-channel [`logout`] tokens. Which person a
//! verified [`Identity`] is, is [`crate::app::sso_sign_in`]'s rule.

pub mod config;
pub mod logout;

use std::sync::Arc;
use std::time::{Duration, Instant};

use openidconnect::core::{CoreAuthenticationFlow, CoreClient};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken,
    EndpointMaybeSet, EndpointNotSet, EndpointSet, Nonce, PkceCodeChallenge, PkceCodeVerifier,
    ProviderMetadataWithLogout, RedirectUrl, Scope, SignatureVerificationError, TokenResponse,
};
use portal_kit::ServiceError;
use secrecy::ExposeSecret;
use serde_json::{Map, Value};
use tokio::sync::RwLock;

pub use config::{SsoArgs, SsoSettings};

pub const MSG_SSO_UNAVAILABLE: &str =
    "Служба единого входа сейчас недоступна. Войдите по логину и паролю или попробуйте позже.";
pub const MSG_SSO_FAILED: &str =
    "Не удалось войти через единую учётную запись. Попробуйте ещё раз.";
pub const REASON_SSO_UNAVAILABLE: &str = "sso-unavailable";
/// The provider's answer failed a check (signature, issuer, audience,
/// expiry, nonce): someone's forgery or a misconfiguration, never a session.
pub const REASON_SSO_TOKEN_INVALID: &str = "sso-token-invalid";

/// How long a provider's discovery document and keys are kept before they
/// are read again; a token signed by a key they lack reads them at once.
const PROVIDER_TTL: Duration = Duration::from_secs(3600);
/// How long one call to the provider may take.
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);

/// The client as discovery makes it: authorization, and token and userinfo
/// endpoints where the provider has them.
type Client = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// What the provider said, as read at `read_at`.
struct Provider {
    client: Client,
    metadata: ProviderMetadataWithLogout,
    read_at: Instant,
}

/// A flow begun: where to send the browser, and what its callback is checked by.
pub struct Begun {
    pub authorization_url: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// Who the provider says signed in, after every check of its ID token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    pub issuer: String,
    pub subject: String,
    /// The provider's session (`sid`), if it named one.
    pub session: Option<String>,
    /// The claim PORTAL_OIDC_MATCH_CLAIM names (the employee number).
    pub match_value: Option<String>,
    pub preferred_username: Option<String>,
    pub given_name: Option<String>,
    pub family_name: Option<String>,
    /// The `groups` claim.
    pub groups: Vec<String>,
    /// The provider checked a second factor (`amr` or `acr`).
    pub second_factor: bool,
}

#[derive(Clone)]
pub struct SingleSignOn {
    settings: Arc<SsoSettings>,
    http: openidconnect::reqwest::Client,
    provider: Arc<RwLock<Option<Arc<Provider>>>>,
}

impl SingleSignOn {
    pub fn new(settings: SsoSettings) -> Result<SingleSignOn, String> {
        // No redirects: a provider's answer is taken from where it was asked
        // (openidconnect's advice against SSRF).
        let mut http = openidconnect::reqwest::ClientBuilder::new()
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(PROVIDER_TIMEOUT);
        if let Some(pem) = &settings.ca_pem {
            let certificates = openidconnect::reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| format!("PORTAL_OIDC_CA_FILE: not PEM certificates: {e}"))?;
            for certificate in certificates {
                http = http.add_root_certificate(certificate);
            }
        }
        let http = http
            .build()
            .map_err(|e| format!("PORTAL_OIDC_ISSUER: no HTTP client: {e}"))?;
        Ok(SingleSignOn {
            settings: Arc::new(settings),
            http,
            provider: Arc::default(),
        })
    }

    pub fn settings(&self) -> &SsoSettings {
        &self.settings
    }

    /// The provider as last read, or read now: when kept too long, or when
    /// `stale` (the one a token named a key it did not hold) is still the
    /// one kept.
    async fn provider(&self, stale: Option<&Arc<Provider>>) -> Result<Arc<Provider>, ServiceError> {
        let usable = |kept: &Arc<Provider>| match stale {
            Some(stale) => !Arc::ptr_eq(kept, stale),
            None => kept.read_at.elapsed() < PROVIDER_TTL,
        };
        if let Some(provider) = self.provider.read().await.as_ref()
            && usable(provider)
        {
            return Ok(provider.clone());
        }
        let mut kept = self.provider.write().await;
        // Another call may have read it while this one waited.
        if let Some(provider) = kept.as_ref()
            && usable(provider)
        {
            return Ok(provider.clone());
        }
        let issuer = openidconnect::IssuerUrl::new(self.settings.issuer.clone())
            .map_err(|e| unavailable(&e))?;
        let metadata = ProviderMetadataWithLogout::discover_async(issuer, &self.http)
            .await
            .map_err(|e| unavailable(&e))?;
        let client = CoreClient::from_provider_metadata(
            metadata.clone(),
            ClientId::new(self.settings.client_id.clone()),
            Some(ClientSecret::new(
                self.settings.client_secret.expose_secret().to_owned(),
            )),
        )
        .set_redirect_uri(RedirectUrl::from_url(self.settings.redirect_url.clone()));
        let provider = Arc::new(Provider {
            client,
            metadata,
            read_at: Instant::now(),
        });
        *kept = Some(provider.clone());
        tracing::info!(issuer = %self.settings.issuer, "read the OpenID provider's discovery document and keys");
        Ok(provider)
    }

    /// The authorization request of a new flow.
    pub async fn begin(&self) -> Result<Begun, ServiceError> {
        let provider = self.provider(None).await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = provider.client.authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for scope in &self.settings.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        Ok(Begun {
            authorization_url: url.to_string(),
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.secret().clone(),
        })
    }

    /// Exchanges a callback's `code` with the flow's `pkce_verifier`, and
    /// checks the ID token it brings against the flow's `nonce`.
    pub async fn finish(
        &self,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
    ) -> Result<Identity, ServiceError> {
        let provider = self.provider(None).await?;
        let exchange = provider
            .client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| unavailable(&e))?
            .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier.to_owned()));
        let answer = exchange.request_async(&self.http).await.map_err(|e| {
            // The provider refused the code (used, expired, another client's):
            // no session, as for a forged callback.
            if matches!(e, openidconnect::RequestTokenError::ServerResponse(_)) {
                invalid(&e)
            } else {
                unavailable(&format!("{e:?}"))
            }
        })?;
        let id_token = answer
            .id_token()
            .ok_or_else(|| invalid(&"the token answer carries no ID token"))?;
        let nonce = Nonce::new(nonce.to_owned());
        let checked = id_token
            .claims(&provider.client.id_token_verifier(), &nonce)
            .map(drop);
        let verified_by = provider;
        let verified = match checked {
            Ok(()) => verified_by,
            // Signed by a key not read yet: the provider rotated its keys.
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                let fresh = self.provider(Some(&verified_by)).await?;
                id_token
                    .claims(&fresh.client.id_token_verifier(), &nonce)
                    .map_err(|e| invalid(&e))?;
                fresh
            }
            Err(error) => return Err(invalid(&error)),
        };
        let payload = verified_payload(&id_token.to_string())?;
        Ok(self.identity(verified.metadata.issuer().as_str(), &payload))
    }

    /// The claims of a verified ID token the portal reads: which of them
    /// names the person is a setting, so they are read from the JSON rather
    /// than a type fixed at build time.
    fn identity(&self, issuer: &str, claims: &Map<String, Value>) -> Identity {
        let text = |name: &str| {
            claims
                .get(name)
                .and_then(|value| match value {
                    Value::String(text) => Some(text.trim().to_owned()),
                    Value::Number(number) => Some(number.to_string()),
                    _ => None,
                })
                .filter(|text| !text.is_empty())
        };
        let list = |name: &str| -> Vec<String> {
            match claims.get(name) {
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                Some(Value::String(one)) => vec![one.clone()],
                _ => Vec::new(),
            }
        };
        let amr = list("amr");
        let acr = text("acr");
        let settings = &self.settings;
        Identity {
            issuer: issuer.to_owned(),
            subject: text("sub").unwrap_or_default(),
            session: text("sid"),
            match_value: text(&settings.match_claim),
            preferred_username: text("preferred_username"),
            given_name: text("given_name"),
            family_name: text("family_name"),
            groups: list("groups"),
            second_factor: amr.iter().any(|method| settings.mfa_amr.contains(method))
                || acr.is_some_and(|acr| settings.mfa_acr.contains(&acr)),
        }
    }

    /// Where to send a browser whose session came from single sign-on, so
    /// the provider's ends too; `None` when the provider has no such endpoint.
    pub async fn end_session_url(&self) -> Option<String> {
        let provider = self.provider(None).await.ok()?;
        let endpoint = provider
            .metadata
            .additional_metadata()
            .end_session_endpoint
            .clone()?;
        let request = openidconnect::LogoutRequest::from(endpoint)
            .set_client_id(ClientId::new(self.settings.client_id.clone()))
            .set_post_logout_redirect_uri(openidconnect::PostLogoutRedirectUrl::from_url(
                self.settings.post_logout_url.clone(),
            ));
        Some(request.http_get_url().to_string())
    }
}

/// The claims of a JWT whose signature was verified.
fn verified_payload(jwt: &str) -> Result<Map<String, Value>, ServiceError> {
    use base64::Engine as _;
    let payload = jwt
        .split('.')
        .nth(1)
        .ok_or_else(|| invalid(&"the ID token is not a JWT"))?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|e| invalid(&e))?;
    serde_json::from_slice(&bytes).map_err(|e| invalid(&e))
}

fn unavailable(error: &dyn std::fmt::Display) -> ServiceError {
    tracing::warn!(%error, "the OpenID provider cannot be reached");
    metrics::counter!("portal_sso_errors_total", "kind" => "unavailable").increment(1);
    ServiceError::Unavailable(MSG_SSO_UNAVAILABLE.into()).because(REASON_SSO_UNAVAILABLE)
}

fn invalid(error: &dyn std::fmt::Display) -> ServiceError {
    tracing::warn!(%error, "an OpenID provider's answer failed its checks");
    metrics::counter!("portal_sso_errors_total", "kind" => "invalid").increment(1);
    ServiceError::Unauthenticated(MSG_SSO_FAILED.into()).because(REASON_SSO_TOKEN_INVALID)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sso(acr: Option<&str>) -> SingleSignOn {
        let args = SsoArgs {
            oidc_issuer: Some("https://sso.hospital.local/realms/hospital".into()),
            oidc_client_id: Some("portal".into()),
            oidc_client_secret: Some("secret".into()),
            oidc_name: config::DEFAULT_NAME.into(),
            oidc_match_claim: "employeeID".into(),
            oidc_scopes: config::DEFAULT_SCOPES.into(),
            oidc_mfa_amr: config::DEFAULT_MFA_AMR.into(),
            oidc_mfa_acr: acr.map(str::to_owned),
            ..SsoArgs::default()
        };
        let settings = args
            .settings("https://portal.hospital.local")
            .unwrap()
            .unwrap();
        SingleSignOn::new(settings).unwrap()
    }

    fn claims(value: serde_json::Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn the_claims_are_read_by_the_settings_names() {
        let identity = sso(None).identity(
            "https://sso",
            &claims(json!({
                "sub": "f3c1", "sid": "s-1", "employeeID": 2001,
                "preferred_username": " olga ", "groups": "/portal-admins",
                "given_name": "Ольга", "amr": ["pwd"]
            })),
        );
        assert_eq!(identity.match_value.as_deref(), Some("2001"));
        assert_eq!(identity.preferred_username.as_deref(), Some("olga"));
        assert_eq!(identity.session.as_deref(), Some("s-1"));
        assert_eq!(identity.groups, ["/portal-admins"]);
        assert!(!identity.second_factor, "a password alone");
    }

    #[test]
    fn the_providers_second_factor_counts_by_amr_or_the_acr_named() {
        let by_amr = sso(None).identity("i", &claims(json!({"sub": "a", "amr": ["pwd", "otp"]})));
        assert!(by_amr.second_factor);
        let acr = claims(json!({"sub": "a", "acr": "2"}));
        assert!(!sso(None).identity("i", &acr).second_factor);
        assert!(sso(Some("1, 2")).identity("i", &acr).second_factor);
    }
}
