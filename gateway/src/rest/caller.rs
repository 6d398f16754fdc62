//! Who is calling, carried on to the service, and the cookies a route reads.

use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use tonic::{Code, Status};

use crate::client_address::ClientAddress;

use super::*;

/// What the gateway carries on from an HTTP request to the service it calls:
/// the bearer token and the client address (for auth's per-address rate
/// limit), and how long a call may take. Who the caller is, the service
/// decides from the token (`portal_kit::access::Caller`).
/// A write's `Idempotency-Key` travels on as the `idempotency-key` metadata
/// (`portal_kit::idempotency`); a read's is dropped, reads need none.
#[derive(Clone)]
pub struct CallContext {
    authorization: Option<HeaderValue>,
    idempotency_key: Option<HeaderValue>,
    client_address: Option<ClientAddress>,
    /// Set on every request by `observe`, so the service logs the same id.
    request_id: Option<HeaderValue>,
    /// The browser's, for the person's list of their signed-in devices.
    user_agent: Option<HeaderValue>,
    call_timeout: Duration,
}

impl FromRequestParts<AppState> for CallContext {
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
        Ok(CallContext {
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

impl CallContext {
    /// The same caller without its `Authorization` header, for a call whose
    /// credentials travel in the message (the OAuth token endpoint's).
    pub fn without_authorization(self) -> CallContext {
        CallContext {
            authorization: None,
            ..self
        }
    }

    /// `message` as a gRPC request on behalf of this caller, answered within
    /// the upstream call time-out (a 504 after it).
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = self.request_without_deadline(message);
        portal_kit::deadline::limit(&mut request, self.call_timeout);
        request
    }

    /// As [`CallContext::request`] with no time limit, for a stream: an
    /// upload, answered after its last byte, or a download, as long as its file.
    pub fn request_without_deadline<T>(&self, message: T) -> tonic::Request<T> {
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
