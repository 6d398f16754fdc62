//! `POST /api/oauth/token`: the OAuth 2.0 token endpoint for other hospital
//! systems, the client-credentials grant (RFC 6749 §4.4) as standard client
//! libraries speak it, so they work unchanged. It is auth's IssueServiceToken
//! over HTTP.
//!
//! Unlike every other route it answers RFC 6749's JSON, not the envelope: a
//! token `{access_token, token_type, expires_in, scope}` (§5.1) or an error
//! `{error, error_description}` (§5.2), never cached. Error descriptions are
//! English: §5.2 allows them no characters outside ASCII.
//!
//! The client authenticates with HTTP Basic (client id and secret, each
//! form-urlencoded first, §2.3.1), or `client_id`/`client_secret` in the body,
//! or a signed `client_assertion` (RFC 7523 §2.2); one way only. A bearer
//! `Authorization` is no client authentication and is ignored. The route
//! reads no cookie, so it needs none of the same-site checks of the cookie
//! calls ([`super::origin`]): a page elsewhere that posts to it can only
//! present credentials it already holds, and cannot read the answer.

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use portal_proto::auth::v1 as pb;
use serde::Serialize;
use tonic::Code;

use super::service_accounts::client;
use super::{AppState, CallContext, Endpoint, Enveloped, docs};

pub const TOKEN_PATH: &str = "/api/oauth/token";
const CLIENT_CREDENTIALS: &str = "client_credentials";
const FORM: &str = "application/x-www-form-urlencoded";
/// A token request is a few short fields and an assertion of a few KiB.
const MAX_BODY_BYTES: usize = 64 * 1024;
const WWW_AUTHENTICATE_BASIC: &str = "Basic realm=\"portal\"";

/// The form fields a token request may carry, for the document.
pub const FIELDS: &[docs::FormField] = &[
    docs::FormField::required("grant_type"),
    docs::FormField::text("scope"),
    docs::FormField::text("client_id"),
    docs::FormField::text("client_secret"),
    docs::FormField::text("client_assertion_type"),
    docs::FormField::text("client_assertion"),
];

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post(
            TOKEN_PATH,
            "OAuth 2.0: токен внешней системы по client credentials (RFC 6749 §4.4; ответ и ошибки по RFC 6749, без конверта)",
            docs::Input::UrlEncoded(FIELDS),
            post(token).layer(DefaultBodyLimit::max(MAX_BODY_BYTES)),
        )
        .public()
        .oauth(&ERROR_CODES),
    ]
}

/// RFC 6749 §5.1.
#[derive(Serialize)]
struct TokenJson {
    access_token: String,
    token_type: String,
    expires_in: i32,
    scope: String,
}

/// RFC 6749 §5.2's error codes that this grant can meet. `invalid_grant` and
/// `unauthorized_client` it cannot: the client-credentials grant carries no
/// grant but the client's own authentication, and every account may use it
/// (a disabled one fails authentication like an unknown one, `invalid_client`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OAuthError {
    InvalidRequest,
    InvalidClient,
    UnsupportedGrantType,
    InvalidScope,
    /// Beyond §5.2, as RFC 6749 §4.1.2.1 names them: the portal failed.
    ServerError,
    TemporarilyUnavailable,
}

impl OAuthError {
    pub const ALL: [OAuthError; 6] = [
        OAuthError::InvalidRequest,
        OAuthError::InvalidClient,
        OAuthError::UnsupportedGrantType,
        OAuthError::InvalidScope,
        OAuthError::ServerError,
        OAuthError::TemporarilyUnavailable,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            OAuthError::InvalidRequest => "invalid_request",
            OAuthError::InvalidClient => "invalid_client",
            OAuthError::UnsupportedGrantType => "unsupported_grant_type",
            OAuthError::InvalidScope => "invalid_scope",
            OAuthError::ServerError => "server_error",
            OAuthError::TemporarilyUnavailable => "temporarily_unavailable",
        }
    }
}

/// Every error code the endpoint answers, for the document.
const ERROR_CODES: [&str; OAuthError::ALL.len()] = {
    let mut codes = [""; OAuthError::ALL.len()];
    let mut at = 0;
    while at < codes.len() {
        codes[at] = OAuthError::ALL[at].as_str();
        at += 1;
    }
    codes
};

/// A refusal: its status, code, description, and headers it needs.
#[derive(Debug)]
struct Refusal {
    status: StatusCode,
    error: OAuthError,
    description: &'static str,
    /// Basic was used: a 401 names the scheme to retry with (RFC 6749 §5.2).
    basic: bool,
    retry_after: Option<HeaderValue>,
}

impl Refusal {
    fn new(status: StatusCode, error: OAuthError, description: &'static str) -> Refusal {
        Refusal {
            status,
            error,
            description,
            basic: false,
            retry_after: None,
        }
    }

    fn request(description: &'static str) -> Refusal {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            OAuthError::InvalidRequest,
            description,
        )
    }

    fn client() -> Refusal {
        Refusal::new(
            StatusCode::UNAUTHORIZED,
            OAuthError::InvalidClient,
            "Client authentication failed",
        )
    }

    fn with_basic(self, basic: bool) -> Refusal {
        Refusal { basic, ..self }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct ErrorJson {
            error: &'static str,
            error_description: &'static str,
        }
        let body = ErrorJson {
            error: self.error.as_str(),
            error_description: self.description,
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        let headers = response.headers_mut();
        if self.basic && self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(WWW_AUTHENTICATE_BASIC),
            );
        }
        if let Some(retry_after) = self.retry_after {
            headers.insert(header::RETRY_AFTER, retry_after);
        }
        oauth_answer(response)
    }
}

/// Neither cached (RFC 6749 §5.1) nor wrapped in the envelope.
fn oauth_answer(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response.extensions_mut().insert(Enveloped);
    response
}

/// The fields of a form, each at most once (RFC 6749 §3.2).
fn form_fields(body: &[u8]) -> Result<Vec<(String, String)>, Refusal> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for (name, value) in form_urlencoded::parse(body) {
        if fields.iter().any(|(seen, _)| *seen == name) {
            return Err(Refusal::request("A parameter is repeated"));
        }
        fields.push((name.into_owned(), value.into_owned()));
    }
    Ok(fields)
}

/// Client id and secret of an HTTP Basic `Authorization` (RFC 6749 §2.3.1:
/// each form-urlencoded before being joined by `:`); `None` for another
/// scheme or none; a malformed one fails client authentication.
fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, Refusal> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let Some(encoded) = value.to_str().ok().and_then(|value| {
        let (scheme, rest) = value.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("basic").then_some(rest.trim())
    }) else {
        return Ok(None);
    };
    let malformed = || Refusal::client().with_basic(true);
    let decoded = STANDARD.decode(encoded).map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    let unescape = |text: &str| -> String {
        form_urlencoded::parse(format!("x={text}").as_bytes())
            .next()
            .map(|(_, value)| value.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((unescape(id), unescape(secret))))
}

/// The token request auth is asked, and whether Basic carried it.
fn token_request(
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(pb::IssueServiceTokenRequest, bool), Refusal> {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case(FORM));
    if !form {
        return Err(Refusal::request(
            "The body must be application/x-www-form-urlencoded",
        ));
    }
    let fields = form_fields(body)?;
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .unwrap_or_default()
    };
    match field("grant_type").as_str() {
        "" => return Err(Refusal::request("grant_type is required")),
        CLIENT_CREDENTIALS => {}
        _ => {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                OAuthError::UnsupportedGrantType,
                "Only the client_credentials grant is supported",
            ));
        }
    }
    let mut request = pb::IssueServiceTokenRequest {
        client_id: field("client_id"),
        client_secret: field("client_secret"),
        client_assertion_type: field("client_assertion_type"),
        client_assertion: field("client_assertion"),
        scope: field("scope"),
    };
    let basic = basic_credentials(headers)?;
    let used_basic = basic.is_some();
    if let Some((id, secret)) = basic {
        let in_body = !request.client_secret.is_empty()
            || !request.client_assertion.is_empty()
            || !request.client_assertion_type.is_empty();
        if in_body || (!request.client_id.is_empty() && request.client_id != id) {
            return Err(Refusal::request(
                "The client must authenticate one way only",
            ));
        }
        request.client_id = id;
        request.client_secret = secret;
    }
    if request.client_id.is_empty()
        && request.client_secret.is_empty()
        && request.client_assertion.is_empty()
    {
        return Err(Refusal::client().with_basic(used_basic));
    }
    Ok((request, used_basic))
}

/// What auth's refusal is as RFC 6749 says it.
fn refusal_of(status: &tonic::Status) -> Refusal {
    let reason = status
        .metadata()
        .get(portal_kit::error::REASON_KEY)
        .and_then(|value| value.to_str().ok());
    match (status.code(), reason) {
        (Code::Unauthenticated, _) => Refusal::client(),
        (Code::ResourceExhausted, _) => Refusal {
            retry_after: status
                .metadata()
                .get(portal_kit::error::RETRY_AFTER_KEY)
                .and_then(|value| HeaderValue::from_bytes(value.as_bytes()).ok()),
            ..Refusal::new(
                StatusCode::TOO_MANY_REQUESTS,
                OAuthError::InvalidClient,
                "Too many failed client authentications; retry later",
            )
        },
        (Code::InvalidArgument, Some("invalid-scope")) => Refusal::new(
            StatusCode::BAD_REQUEST,
            OAuthError::InvalidScope,
            "The requested scope is not granted to this client",
        ),
        (Code::InvalidArgument, _) => Refusal::request("The client authentication is malformed"),
        (Code::Unavailable | Code::Cancelled, _) => Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            OAuthError::TemporarilyUnavailable,
            "The service is unavailable; retry later",
        ),
        (Code::DeadlineExceeded, _) => Refusal::new(
            StatusCode::GATEWAY_TIMEOUT,
            OAuthError::TemporarilyUnavailable,
            "The service did not answer in time; retry later",
        ),
        _ => {
            tracing::error!(code = ?status.code(), cause = %status.message(), "token request failed");
            Refusal::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                OAuthError::ServerError,
                "The token could not be issued",
            )
        }
    }
}

async fn token(
    State(state): State<AppState>,
    caller: CallContext,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let Ok(body) = body else {
        return Refusal::request("The body cannot be read or is too large").into_response();
    };
    let (request, basic) = match token_request(&headers, &body) {
        Ok(request) => request,
        Err(refusal) => return refusal.into_response(),
    };
    // The client's credentials travel in the message; its `Authorization`
    // (Basic, or a bearer token that is no client authentication) does not.
    let caller = caller.without_authorization();
    match client(&state)
        .issue_service_token(caller.request(request))
        .await
    {
        Ok(reply) => {
            let reply = reply.into_inner();
            oauth_answer(
                axum::Json(TokenJson {
                    access_token: reply.access_token,
                    token_type: reply.token_type,
                    expires_in: reply.expires_in,
                    scope: reply.scope,
                })
                .into_response(),
            )
        }
        Err(status) => refusal_of(&status).with_basic(basic).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        headers
    }

    const FORM_TYPE: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");

    #[test]
    fn basic_credentials_are_form_decoded_after_base64() {
        // "svc-1:a+b%3Ac" → id svc-1, secret "a b:c".
        let encoded = STANDARD.encode("svc-1:a+b%3Ac");
        let auth = format!("Basic {encoded}");
        let (request, basic) = token_request(
            &headers(&[FORM_TYPE, ("authorization", &auth)]),
            b"grant_type=client_credentials&scope=staff.read",
        )
        .unwrap();
        assert!(basic);
        assert_eq!(
            (request.client_id.as_str(), request.client_secret.as_str()),
            ("svc-1", "a b:c")
        );
        assert_eq!(request.scope, "staff.read");
    }

    #[test]
    fn each_malformed_request_gets_its_rfc_error() {
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a [u8], OAuthError);
        let cases: [Case; 7] = [
            (
                &[],
                b"grant_type=client_credentials",
                OAuthError::InvalidRequest,
            ),
            (
                &[FORM_TYPE],
                b"grant_type=client_credentials&grant_type=client_credentials",
                OAuthError::InvalidRequest,
            ),
            (
                &[FORM_TYPE],
                b"client_id=a&client_secret=b",
                OAuthError::InvalidRequest,
            ),
            (
                &[FORM_TYPE],
                b"grant_type=password&client_id=a&client_secret=b",
                OAuthError::UnsupportedGrantType,
            ),
            (
                &[FORM_TYPE],
                b"grant_type=client_credentials",
                OAuthError::InvalidClient,
            ),
            (
                &[FORM_TYPE, ("authorization", "Basic !!!")],
                b"grant_type=client_credentials",
                OAuthError::InvalidClient,
            ),
            (
                &[FORM_TYPE, ("authorization", "Basic YTpi")],
                b"grant_type=client_credentials&client_secret=c",
                OAuthError::InvalidRequest,
            ),
        ];
        for (pairs, body, expected) in cases {
            let refusal = token_request(&headers(pairs), body).unwrap_err();
            assert_eq!(
                refusal.error,
                expected,
                "{pairs:?} {:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_bearer_token_is_no_client_authentication() {
        let (request, basic) = token_request(
            &headers(&[FORM_TYPE, ("authorization", "Bearer abc")]),
            b"grant_type=client_credentials&client_id=svc-1&client_secret=s",
        )
        .unwrap();
        assert!(!basic);
        assert_eq!(request.client_secret, "s");
    }
}
