//! The spec's REST routes. Each call becomes one RPC on the owning service with the
//! caller's bearer token; the answer comes back in the envelope
//! `{"success", "data", "errorMessage"}` (a refusal with a stable reason code adds
//! `"errorCode"`; every failure adds the machine `"reason"`, the status's
//! `google.rpc.ErrorInfo` reason) with the HTTP status of DESIGN §5.

mod audit;
mod auth;
mod body_value;
mod csv;
mod docs;
mod education;
mod files;
mod forward;
mod integration;
mod invitations;
mod notification;
mod oauth;
mod origin;
mod reference;
mod route;
mod search;
mod service_accounts;
mod wiki;

pub use auth::session_cookies;
pub use origin::Origin;

use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Request};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::{Code, Status};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::client_address::ClientAddress;
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

/// One REST route: the router and the API document are both made from these.
pub struct Endpoint {
    pub method: Method,
    pub path: &'static str,
    pub summary: &'static str,
    /// Its path and query parameters, for the document.
    pub params: docs::Params,
    /// What a POST reads as its body, for the document.
    pub input: docs::Input,
    pub route: MethodRouter<AppState>,
    /// The type of a successful answer's `data`, for the document (none for a
    /// file or the OAuth token endpoint).
    pub answer: Option<docs::AnswerFn>,
    /// The media type of a successful answer that is a file, not the envelope.
    pub file: Option<&'static str>,
    /// Statuses it answers beyond every call's (`docs`), e.g. 206 for a range.
    pub also: &'static [StatusCode],
    /// Answered without a bearer token (sign-in, public pages, downloads);
    /// every other route refuses an anonymous call before it reads anything.
    pub public: bool,
    /// Answers RFC 6749's JSON instead of the envelope: the OAuth token
    /// endpoint ([`oauth`]), which standard client libraries call; these are
    /// the RFC 6749 error codes it answers, for the document.
    pub oauth: Option<&'static [&'static str]>,
}

impl Endpoint {
    pub fn get(
        path: &'static str,
        summary: &'static str,
        params: docs::Params,
        route: impl Into<route::Route>,
    ) -> Self {
        let route = route.into();
        Endpoint {
            method: Method::GET,
            path,
            summary,
            params,
            input: docs::Input::Empty,
            route: route.router,
            answer: route.answer,
            file: None,
            also: &[],
            public: false,
            oauth: None,
        }
    }

    /// A GET whose successful answer is a file of `media_type`; failures are
    /// the envelope as everywhere.
    pub fn download(
        path: &'static str,
        summary: &'static str,
        params: docs::Params,
        media_type: &'static str,
        route: MethodRouter<AppState>,
    ) -> Self {
        Endpoint {
            file: Some(media_type),
            answer: None,
            ..Endpoint::get(path, summary, params, route)
        }
    }

    pub fn post(
        path: &'static str,
        summary: &'static str,
        input: docs::Input,
        route: impl Into<route::Route>,
    ) -> Self {
        Endpoint {
            method: Method::POST,
            input,
            ..Endpoint::get(path, summary, docs::none, route)
        }
    }

    /// Reads `params` too (a POST's query).
    pub fn params(self, params: docs::Params) -> Self {
        Endpoint { params, ..self }
    }

    /// Its successful answer's `data` is a `T`: for a handler that makes its
    /// own `Response`, whose type [`route`] cannot read.
    pub fn answers<T: docs::Answer>(self) -> Self {
        Endpoint {
            answer: Some(docs::answer_of::<T>),
            ..self
        }
    }

    /// Answers `statuses` too, beyond every call's.
    pub fn also(self, statuses: &'static [StatusCode]) -> Self {
        Endpoint {
            also: statuses,
            ..self
        }
    }

    /// Open to anonymous callers too: the service decides what they get.
    pub fn public(self) -> Self {
        Endpoint {
            public: true,
            ..self
        }
    }

    /// Answers RFC 6749's token and error JSON, not the envelope.
    pub fn oauth(self, errors: &'static [&'static str]) -> Self {
        Endpoint {
            oauth: Some(errors),
            ..self
        }
    }
}

/// The largest answer a service may give the gateway: lists of everyone
/// (100,000 people are about 11 MB) fit; no REST answer is a 413.
pub const MAX_ANSWER_BYTES: usize = 256 * 1024 * 1024;

/// A POST whose body carries rich text (an article, an instruction): up to the
/// services' own limit, since images travel inside it, beyond axum's 2 MB
/// default.
pub fn rich_text_write<H, T, A>(handler: H) -> route::Route
where
    H: Handler<T, AppState> + docs::Answers<A>,
    T: 'static,
{
    route::post(handler).layer(DefaultBodyLimit::max(
        portal_kit::rich_text::MAX_MESSAGE_BYTES,
    ))
}

pub fn endpoints() -> Vec<Endpoint> {
    auth::endpoints()
        .into_iter()
        .chain(invitations::endpoints())
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<T> {
    success: bool,
    data: Option<T>,
    error_message: Option<String>,
    /// A failure's stable reason code for programs, where the service gave one
    /// (e.g. `access-revoked`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<String>,
    /// A failure's machine reason in UPPER_SNAKE (`NO_OPEN_ATTEMPT`,
    /// `NOT_FOUND`), the same as the gRPC status's `google.rpc.ErrorInfo`;
    /// absent on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// A successful answer: 200 with `data`.
pub struct Data<T>(pub T);

impl<T: Serialize> IntoResponse for Data<T> {
    fn into_response(self) -> Response {
        axum::Json(Envelope {
            success: true,
            data: Some(self.0),
            error_message: None,
            error_code: None,
            reason: None,
        })
        .into_response()
    }
}

/// A failed answer: the status of DESIGN §5 and a message for a person.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    retry_after: Option<HeaderValue>,
    /// The kebab reason of the `portal-reason` metadata (`errorCode`).
    error_code: Option<String>,
    /// The machine reason (`reason`).
    reason: String,
}

pub type ApiResult<T> = Result<Data<T>, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
            error_code: None,
            reason: reason_of_http(status).to_owned(),
        }
    }

    /// With a stable kebab reason (`errorCode`) a client can tell apart
    /// from other refusals of the same status.
    pub fn with_code(mut self, code: &str) -> Self {
        self.error_code = Some(code.to_owned());
        self
    }

    /// What the person reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<Status> for ApiError {
    fn from(status: Status) -> Self {
        let (code, fallback) = match status.code() {
            Code::InvalidArgument => (StatusCode::BAD_REQUEST, MSG_BAD_REQUEST),
            Code::Unauthenticated => (
                StatusCode::UNAUTHORIZED,
                portal_kit::token::MSG_SESSION_EXPIRED,
            ),
            Code::PermissionDenied => (StatusCode::FORBIDDEN, portal_kit::error::MSG_NO_RIGHTS),
            Code::NotFound => (StatusCode::NOT_FOUND, MSG_NOT_FOUND),
            Code::AlreadyExists | Code::FailedPrecondition | Code::Aborted => {
                (StatusCode::CONFLICT, MSG_BAD_REQUEST)
            }
            Code::OutOfRange => (StatusCode::PAYLOAD_TOO_LARGE, MSG_TOO_LARGE),
            Code::ResourceExhausted => (StatusCode::TOO_MANY_REQUESTS, MSG_BAD_REQUEST),
            Code::Unimplemented => (StatusCode::NOT_IMPLEMENTED, MSG_UNIMPLEMENTED),
            // A call cut at its time-out: the service is there but slow.
            Code::DeadlineExceeded => {
                tracing::warn!(cause = %status.message(), "upstream too slow");
                return ApiError::new(StatusCode::GATEWAY_TIMEOUT, crate::grpc::MSG_UPSTREAM_SLOW);
            }
            // An unreachable upstream says so in English from the transport: the
            // person gets the Russian message and the log gets the cause.
            Code::Unavailable | Code::Cancelled => {
                tracing::warn!(cause = %status.message(), "upstream unavailable");
                return ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    crate::grpc::MSG_UPSTREAM_DOWN,
                );
            }
            _ => {
                tracing::error!(code = ?status.code(), cause = %status.message(), "upstream failed");
                return ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, MSG_INTERNAL);
            }
        };
        // Services answer people in Russian; a message in no Russian is tonic's
        // or the transport's own ("failed to decode Protobuf message…"): logged,
        // and the person reads the status's Russian message instead.
        let message = if is_for_people(status.message()) {
            status.message()
        } else {
            if !status.message().is_empty() {
                tracing::warn!(code = ?status.code(), cause = %status.message(), "upstream status without a message for people");
            }
            fallback
        };
        let retry_after = status
            .metadata()
            .get(portal_kit::error::RETRY_AFTER_KEY)
            .and_then(|v| HeaderValue::from_bytes(v.as_bytes()).ok());
        let error_code = status
            .metadata()
            .get(portal_kit::error::REASON_KEY)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        ApiError {
            status: code,
            message: message.to_owned(),
            retry_after,
            error_code,
            reason: portal_kit::error::reason_of(&status),
        }
    }
}

/// The machine reason of a failure the gateway answers itself: that of the
/// gRPC code its HTTP status stands for (DESIGN §5 read backwards).
fn reason_of_http(status: StatusCode) -> &'static str {
    let code = match status {
        StatusCode::UNAUTHORIZED => Code::Unauthenticated,
        StatusCode::FORBIDDEN => Code::PermissionDenied,
        StatusCode::NOT_FOUND => Code::NotFound,
        StatusCode::CONFLICT => Code::FailedPrecondition,
        StatusCode::PAYLOAD_TOO_LARGE => Code::OutOfRange,
        StatusCode::TOO_MANY_REQUESTS => Code::ResourceExhausted,
        StatusCode::NOT_IMPLEMENTED => Code::Unimplemented,
        StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT => Code::Unavailable,
        status if status.is_client_error() => Code::InvalidArgument,
        _ => Code::Internal,
    };
    portal_kit::error::default_reason(code)
}

/// Whether a status message was written for people: Portal's are Russian.
pub fn is_for_people(message: &str) -> bool {
    message
        .chars()
        .any(|c| matches!(c, 'а'..='я' | 'А'..='Я' | 'ё' | 'Ё'))
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let envelope = Envelope::<()> {
            success: false,
            data: None,
            error_message: Some(self.message),
            error_code: self.error_code,
            reason: Some(self.reason),
        };
        let mut response = (self.status, axum::Json(envelope)).into_response();
        response.extensions_mut().insert(Enveloped);
        if let Some(retry_after) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, retry_after);
        }
        response
    }
}

/// A JSON body; a malformed one is a 400 envelope that names the wrong field
/// and says why, and one over the body limit a 413 envelope, not axum's plain
/// text. `null` is read as the field left out: "none", the field's default;
/// a whole number written as a float (`5.0`) as that integer (`body_value`).
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let mut value = match axum::Json::<serde_json::Value>::from_request(request, state).await {
            Ok(axum::Json(value)) => value,
            Err(rejection) => {
                tracing::debug!(%rejection, "rejected JSON body");
                return Err(if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, MSG_TOO_LARGE)
                } else if crate::slow_body::stalled(&rejection) {
                    ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        crate::slow_body::MSG_BODY_STALLED,
                    )
                } else {
                    ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_REQUEST)
                });
            }
        };
        body_value::as_read(&mut value);
        serde_path_to_error::deserialize(value)
            .map(Body)
            .map_err(|error| {
                tracing::debug!(%error, "JSON body of the wrong shape");
                let message = wrong_field(Input::Body, error.path(), &error.inner().to_string());
                ApiError::new(StatusCode::BAD_REQUEST, message)
            })
    }
}

/// Where a wrong value came from: the JSON body or the query string.
#[derive(Clone, Copy)]
enum Input {
    Body,
    Query,
}

/// Which field of the input is wrong and why, in Russian («Поле «title»:
/// ожидается строка»), from serde's `cause` at `path`.
fn wrong_field(input: Input, path: &serde_path_to_error::Path, cause: &str) -> String {
    let (field, whole) = match input {
        Input::Body => ("Поле", "Тело запроса"),
        Input::Query => ("Параметр", "Параметры запроса"),
    };
    let path = path.to_string();
    if let Some(missing) = cause
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        let name = if path == "." {
            missing.to_owned()
        } else {
            format!("{path}.{missing}")
        };
        return format!("{field} «{name}»: обязательное значение");
    }
    let expected = cause
        .rsplit_once(", expected ")
        .map(|(_, expected)| expected_in_russian(expected));
    let why = match expected {
        Some(expected) if cause.starts_with("invalid value") => {
            format!("ожидается {expected} в допустимых пределах")
        }
        Some(expected) => format!("ожидается {expected}"),
        // A query's number that does not parse (`str::parse`'s own words).
        None if cause.contains("invalid digit") || cause.contains("number too") => {
            "ожидается целое число".to_owned()
        }
        None => "недопустимое значение".to_owned(),
    };
    if path == "." {
        format!("{whole}: {why}")
    } else {
        format!("{field} «{path}»: {why}")
    }
}

/// serde's name of what it expected, as a Russian noun phrase.
fn expected_in_russian(expected: &str) -> &'static str {
    let expected = expected.trim();
    match expected {
        "a string" | "a borrowed string" | "a character" => "строка",
        "a boolean" => "true или false",
        "a sequence" => "список",
        "f32" | "f64" => "число",
        _ if expected.starts_with("struct ") || expected == "a map" => "объект",
        _ if matches!(expected.get(..1), Some("i" | "u"))
            && expected[1..].bytes().all(|b| b.is_ascii_digit())
            && expected.len() > 1 =>
        {
            "целое число"
        }
        _ => "значение другого вида",
    }
}

/// Query parameters (repeated keys make lists); malformed ones are a 400 envelope.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer =
            serde_html_form::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(deserializer)
            .map(Query)
            .map_err(|error| {
                tracing::debug!(%error, "rejected query");
                let message = wrong_field(Input::Query, error.path(), &error.inner().to_string());
                ApiError::new(StatusCode::BAD_REQUEST, message)
            })
    }
}

/// Who is calling, carried on to the service: the bearer token and the client
/// address (for auth's per-address rate limit), and how long a call may take.
/// A write's `Idempotency-Key` travels on as the `idempotency-key` metadata
/// (`portal_kit::idempotency`); a read's is dropped, reads need none.
#[derive(Clone)]
pub struct Caller {
    authorization: Option<HeaderValue>,
    idempotency_key: Option<HeaderValue>,
    client_address: Option<ClientAddress>,
    /// Set on every request by `observe`, so the service logs the same id.
    request_id: Option<HeaderValue>,
    /// The browser's, for the person's list of their signed-in devices.
    user_agent: Option<HeaderValue>,
    call_timeout: Duration,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    /// A write's malformed `Idempotency-Key` is refused here, whether or not
    /// the write reaches a service (a logout without a session does not).
    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let idempotency_key = parts
            .headers
            .get(portal_kit::idempotency::IDEMPOTENCY_KEY)
            .filter(|_| !parts.method.is_safe())
            .cloned();
        if let Some(key) = &idempotency_key {
            portal_kit::idempotency::key_of(key.as_bytes()).map_err(Status::from)?;
        }
        Ok(Caller {
            call_timeout: state.upstreams.call_timeout,
            authorization: parts.headers.get(header::AUTHORIZATION).cloned(),
            idempotency_key,
            client_address: parts.extensions.get::<ClientAddress>().copied(),
            request_id: parts
                .headers
                .get(portal_kit::telemetry::REQUEST_ID_HEADER)
                .cloned(),
            user_agent: parts.headers.get(header::USER_AGENT).cloned(),
        })
    }
}

impl Caller {
    /// `message` as a gRPC request on behalf of this caller, answered within
    /// the upstream call time-out (a 504 after it).
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = self.stream(message);
        portal_kit::deadline::limit(&mut request, self.call_timeout);
        request
    }

    /// As [`Caller::request`] with no time limit: an upload, answered after
    /// its last byte, or a download, as long as its file.
    pub fn stream<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let metadata = request.metadata_mut();
        let headers = [
            ("authorization", &self.authorization),
            (
                portal_kit::idempotency::IDEMPOTENCY_KEY,
                &self.idempotency_key,
            ),
            (portal_kit::telemetry::REQUEST_ID_HEADER, &self.request_id),
            (portal_kit::net::CLIENT_USER_AGENT, &self.user_agent),
        ];
        for (key, value) in headers {
            if let Some(value) = value
                .as_ref()
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok())
            {
                metadata.insert(key, value);
            }
        }
        if let Some(value) = self
            .client_address
            .and_then(|client| client.0.to_string().parse().ok())
        {
            metadata.insert(portal_kit::net::FORWARDED_FOR, value);
        }
        request
    }
}

/// Whether a service's failure leaves it out of an answer several services
/// make (search, the audit log) rather than failing it: down, too slow, a
/// release without the call, or broken. A refusal of the caller (an expired
/// or revoked token, no right) is never left out.
pub fn left_out(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::Unimplemented
            | Code::Internal
            | Code::Unknown
            | Code::ResourceExhausted
    )
}

/// Reads a cookie's value from request headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
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

    fn body_error<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
        let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
        body_value::as_read(&mut value);
        let error = serde_path_to_error::deserialize::<_, T>(value).unwrap_err();
        wrong_field(Input::Body, error.path(), &error.inner().to_string())
    }

    #[derive(serde::Deserialize, Debug, Default)]
    #[serde(rename_all = "camelCase", default)]
    #[allow(dead_code)]
    struct Article {
        title: String,
        test_id: i64,
        user_ids: Vec<i64>,
        count: i32,
        nested: Option<Inner>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        id: i64,
    }

    #[test]
    fn a_wrong_body_names_its_field_and_says_why() {
        assert_eq!(
            body_error::<Article>(r#"{"title": 5}"#),
            "Поле «title»: ожидается строка"
        );
        assert_eq!(
            body_error::<Article>(r#"{"testId": "x"}"#),
            "Поле «testId»: ожидается целое число"
        );
        assert_eq!(
            body_error::<Article>(r#"{"userIds": [1, "b"]}"#),
            "Поле «userIds[1]»: ожидается целое число"
        );
        assert_eq!(
            body_error::<Article>(r#"{"count": 99999999999}"#),
            "Поле «count»: ожидается целое число в допустимых пределах"
        );
        assert_eq!(
            body_error::<Article>(r#"{"nested": {}}"#),
            "Поле «nested.id»: обязательное значение"
        );
        assert_eq!(
            body_error::<Article>(r#""текст""#),
            "Тело запроса: ожидается объект"
        );
    }

    #[test]
    fn null_is_a_field_left_out() {
        let mut value: serde_json::Value = serde_json::from_str(
            r#"{"title": null, "testId": null, "nested": null, "userIds": [null]}"#,
        )
        .unwrap();
        body_value::as_read(&mut value);
        assert_eq!(value, serde_json::json!({"userIds": [null]}));
    }

    #[test]
    fn statuses_map_to_http_as_designed() {
        let cases = [
            (Status::invalid_argument("x"), 400),
            (Status::unauthenticated("x"), 401),
            (Status::permission_denied("x"), 403),
            (Status::not_found("x"), 404),
            (Status::already_exists("x"), 409),
            (Status::failed_precondition("x"), 409),
            (Status::out_of_range("x"), 413),
            (Status::resource_exhausted("x"), 429),
            (Status::unavailable("tcp connect error"), 503),
            (Status::deadline_exceeded("no answer in time"), 504),
            (Status::internal("SELECT * FROM users"), 500),
        ];
        for (status, expected) in cases {
            assert_eq!(ApiError::from(status).status.as_u16(), expected);
        }
    }

    #[test]
    fn english_messages_from_tonic_are_replaced_by_the_statuses_russian_one() {
        let decode = Status::internal("failed to decode Protobuf message: invalid wire type");
        assert_eq!(ApiError::from(decode).message, MSG_INTERNAL);
        let too_long = Status::out_of_range(
            "Error, decoded message length too large: found 5000000 bytes, the limit is: 4194304 bytes",
        );
        assert_eq!(ApiError::from(too_long).message, MSG_TOO_LARGE);
        let unknown = Status::invalid_argument("invalid value for field");
        assert_eq!(ApiError::from(unknown).message, MSG_BAD_REQUEST);
        let russian = Status::invalid_argument("Введите логин и пароль");
        assert_eq!(ApiError::from(russian).message, "Введите логин и пароль");
    }

    #[test]
    fn internal_and_transport_causes_are_not_shown() {
        assert_eq!(
            ApiError::from(Status::internal("SELECT * FROM users")).message,
            MSG_INTERNAL
        );
        assert_eq!(
            ApiError::from(Status::unavailable("tcp connect error")).message,
            crate::grpc::MSG_UPSTREAM_DOWN
        );
    }
}
