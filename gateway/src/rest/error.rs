//! The envelope and its failures: `Data` for a success, `ApiError` for a refusal,
//! mapped from a service's `Status` with the HTTP status of DESIGN §5.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tonic::{Code, Status};

use super::*;

/// A service that is away, or did not answer within the call's time: what a
/// person reads over REST, gRPC and grpc-web alike.
pub const MSG_UPSTREAM_DOWN: &str = portal_kit::error::MSG_UNAVAILABLE;
pub const MSG_UPSTREAM_SLOW: &str = "Сервис не ответил вовремя. Пожалуйста, попробуйте позже.";

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
                return ApiError::new(StatusCode::GATEWAY_TIMEOUT, MSG_UPSTREAM_SLOW);
            }
            // An unreachable upstream says so in English from the transport: the
            // person gets the Russian message and the log gets the cause.
            // ...but a service that names why it cannot answer (auth's
            // directory away) said so in Russian, with its reason code.
            Code::Unavailable
                if status
                    .metadata()
                    .contains_key(portal_kit::error::REASON_KEY) =>
            {
                (StatusCode::SERVICE_UNAVAILABLE, MSG_UPSTREAM_DOWN)
            }
            Code::Unavailable | Code::Cancelled => {
                tracing::warn!(cause = %status.message(), "upstream unavailable");
                return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, MSG_UPSTREAM_DOWN);
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

#[cfg(test)]
mod tests {
    use super::*;

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
            MSG_UPSTREAM_DOWN
        );
    }
}
