//! The spec's REST routes. Each call becomes one RPC on the owning service with the
//! caller's bearer token; the answer comes back in the envelope
//! `{"success", "data", "errorMessage"}` (a refusal with a stable reason code adds
//! `"errorCode"`; every failure adds the machine `"reason"`, the status's
//! `google.rpc.ErrorInfo` reason) with the HTTP status of DESIGN §5.

mod audit;
mod auth;
mod body_value;
mod caller;
mod csv;
mod disposition;
mod docs;
mod education;
mod endpoint;
mod error;
mod extract;
mod files;
mod forward;
mod integration;
mod invitations;
mod mfa;
mod notification;
mod oauth;
mod origin;
mod reference;
mod route;
mod search;
mod service_accounts;
mod sso;
mod wiki;

pub use auth::session_cookies;
pub use caller::{CallContext, cookie, left_out};
pub use endpoint::{Endpoint, MAX_ANSWER_BYTES, rich_text_write};
pub use error::{ApiError, ApiResult, Data, MSG_UPSTREAM_DOWN, MSG_UPSTREAM_SLOW, is_for_people};
pub use extract::{Body, Query};
pub use origin::Origin;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::upstream::Upstreams;

#[derive(Clone)]
pub struct AppState {
    pub upstreams: Upstreams,
    /// Cookies get `Secure` when people reach the portal over https.
    pub secure_cookies: bool,
    /// `PORTAL_PUBLIC_URL`'s origin, whose pages may make cookie-authenticated calls.
    pub public_origin: Option<Origin>,
}

pub const MSG_BAD_REQUEST: &str = "Некорректный запрос";
pub const MSG_TOO_LARGE: &str = "Слишком большой запрос";
pub const MSG_NOT_FOUND: &str = "Ресурс не найден";
pub const MSG_INTERNAL: &str =
    "Произошла ошибка при выполнении запроса. Пожалуйста, попробуйте позже.";
pub const MSG_UNIMPLEMENTED: &str = "Эта функция пока недоступна";
pub const MSG_METHOD_NOT_ALLOWED: &str = "Этот метод запроса здесь не поддерживается";
pub const MSG_UNSUPPORTED_MEDIA: &str = "Неподдерживаемый формат запроса";
pub const MSG_URI_TOO_LONG: &str = "Слишком длинный адрес запроса";
pub const MSG_HEADERS_TOO_LARGE: &str = "Слишком большие заголовки запроса";

/// The longest request target the gateway reads (nginx's default header buffer).
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The longest header line, name and value: the bearer token travels on to the
/// services as gRPC metadata, whose whole list they take up to 16 KiB.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// All request headers together.
pub const MAX_HEADERS_BYTES: usize = 32 * 1024;

pub fn endpoints() -> Vec<Endpoint> {
    auth::endpoints()
        .into_iter()
        .chain(mfa::endpoints())
        .chain(invitations::endpoints())
        .chain(sso::endpoints())
        .chain(service_accounts::endpoints())
        .chain(oauth::endpoints())
        .chain(education::endpoints())
        .chain(wiki::endpoints())
        .chain(reference::endpoints())
        .chain(files::endpoints())
        .chain(integration::endpoints())
        .chain(notification::endpoints())
        .chain(search::endpoints())
        .chain(audit::endpoints())
        .collect()
}

pub fn router(state: AppState) -> Router {
    let endpoints = endpoints();
    let document = docs::openapi(&endpoints);
    let mut router = Router::new();
    for endpoint in endpoints {
        let route = if endpoint.public {
            endpoint.route
        } else {
            endpoint
                .route
                .route_layer(axum::middleware::from_fn(signed_in))
        };
        router = router.route(endpoint.path, route);
    }
    router
        .merge(docs::router(document))
        .route(
            "/api/{*unknown}",
            axum::routing::any(|| async { ApiError::new(StatusCode::NOT_FOUND, MSG_NOT_FOUND) }),
        )
        .layer(axum::middleware::map_response(enveloped))
        // Answers carry tokens and personal data: no cache keeps them.
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .with_state(state)
}

/// A call without an `Authorization` header is 401 before its parameters or
/// body are judged: an anonymous caller learns nothing of a route but that it
/// needs a sign-in. A token that is there is judged by the service, as ever.
async fn signed_in(request: Request, next: axum::middleware::Next) -> Response {
    if request.headers().contains_key(header::AUTHORIZATION) {
        next.run(request).await
    } else {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            portal_kit::error::MSG_NOT_SIGNED_IN,
        )
        .into_response()
    }
}

/// Marks a response that already is the envelope, or must not become one
/// (the OAuth token endpoint's).
#[derive(Clone, Copy)]
struct Enveloped;

/// An error status axum answered by itself (405, 415, …) becomes the envelope
/// with a Russian message; its headers (e.g. `Allow`) stay.
async fn enveloped(response: Response) -> Response {
    let status = response.status();
    if response.extensions().get::<Enveloped>().is_some()
        || !(status.is_client_error() || status.is_server_error())
    {
        return response;
    }
    let message = match status {
        StatusCode::NOT_FOUND => MSG_NOT_FOUND,
        StatusCode::METHOD_NOT_ALLOWED => MSG_METHOD_NOT_ALLOWED,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => MSG_UNSUPPORTED_MEDIA,
        StatusCode::PAYLOAD_TOO_LARGE => MSG_TOO_LARGE,
        StatusCode::URI_TOO_LONG => MSG_URI_TOO_LONG,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => MSG_HEADERS_TOO_LARGE,
        status if status.is_server_error() => MSG_INTERNAL,
        _ => MSG_BAD_REQUEST,
    };
    tracing::debug!(%status, "enveloped a bare error answer");
    let (mut parts, _) = response.into_parts();
    let envelope = ApiError::new(status, message).into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.extend(envelope.headers().clone());
    Response::from_parts(parts, envelope.into_body())
}

/// A request whose target or headers pass the gateway's bounds is answered
/// 414 or 431 in the envelope before anything reads it, whichever route it
/// asked for. Beyond hyper's own bounds (a 64 KiB target, 400 KiB of head)
/// hyper answers bare before the gateway sees the request.
pub async fn within_head_limits(request: Request, next: axum::middleware::Next) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > MAX_URI_BYTES {
        tracing::debug!("request target too long");
        return ApiError::new(StatusCode::URI_TOO_LONG, MSG_URI_TOO_LONG).into_response();
    }
    let lines = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len());
    let (mut longest, mut total) = (0, 0);
    for line in lines {
        longest = longest.max(line);
        total += line;
    }
    if longest > MAX_HEADER_BYTES || total > MAX_HEADERS_BYTES {
        tracing::debug!(longest, total, "request headers too large");
        return ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            MSG_HEADERS_TOO_LARGE,
        )
        .into_response();
    }
    next.run(request).await
}

/// The spec's backend matched the resource segment case-insensitively
/// (`/api/User/…` = `/api/user/…`); routing is exact, so it is lowered first.
pub fn lowercase_resource_segment<B>(mut request: http::Request<B>) -> http::Request<B> {
    let uri = request.uri();
    let Some(rest) = uri.path().strip_prefix("/api/") else {
        return request;
    };
    let (resource, tail) = rest.split_once('/').unwrap_or((rest, ""));
    if !resource.chars().any(|c| c.is_ascii_uppercase()) {
        return request;
    }
    let mut lowered = format!("/api/{}", resource.to_ascii_lowercase());
    if !tail.is_empty() || rest.contains('/') {
        lowered.push('/');
        lowered.push_str(tail);
    }
    if let Some(query) = uri.query() {
        lowered.push('?');
        lowered.push_str(query);
    }
    let mut parts = uri.clone().into_parts();
    if let Ok(path_and_query) = lowered.parse() {
        parts.path_and_query = Some(path_and_query);
        if let Ok(rewritten) = http::Uri::from_parts(parts) {
            *request.uri_mut() = rewritten;
        }
    }
    request
}
#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(uri: &str) -> String {
        let request = http::Request::builder().uri(uri).body(()).unwrap();
        lowercase_resource_segment(request).uri().to_string()
    }

    #[test]
    fn the_resource_segment_is_lowered_and_nothing_else() {
        assert_eq!(lowered("/api/User/get-all-user"), "/api/user/get-all-user");
        assert_eq!(
            lowered("/api/User/get-user?idUser=5"),
            "/api/user/get-user?idUser=5"
        );
        assert_eq!(
            lowered("/api/department/get-all"),
            "/api/department/get-all"
        );
        assert_eq!(lowered("/courses/Abc"), "/courses/Abc");
    }
}
