//! One error type for every service. Each variant knows its gRPC code; messages are
//! Russian because they reach people through the gateway's envelope; internal
//! causes are logged in English and never shown. A refusal a client acts on
//! carries a stable reason code beside its message (`because`): it travels as the
//! `portal-reason` metadata of the status and reaches the REST envelope's `errorCode`.
//!
//! Every error status also carries `google.rpc.ErrorInfo` in its details, for
//! machines (issue 21): `reason` is the refusal's own reason in UPPER_SNAKE
//! (`no-open-attempt` → `NO_OPEN_ATTEMPT`) or, without one, its kind's
//! ([`Code`]'s, see [`default_reason`]); `domain` is [`ERROR_DOMAIN`]. A rate
//! limit adds `google.rpc.RetryInfo` with its wait. The gateway puts the same
//! reason in the REST envelope's `reason`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

pub type ServiceResult<T> = Result<T, ServiceError>;

/// Metadata key carrying a rate limit's wait, in seconds, for the gateway's `Retry-After`.
pub const RETRY_AFTER_KEY: &str = "retry-after";
/// Metadata key carrying an error's stable reason code beside its Russian
/// message, for programs (the gateway puts it in the envelope's `errorCode`).
pub const REASON_KEY: &str = "portal-reason";
/// The reason of [`ServiceError::AccessRevoked`].
pub const REASON_ACCESS_REVOKED: &str = "access-revoked";
/// `google.rpc.ErrorInfo.domain` of every Portal error: the reasons are
/// unique within it.
pub const ERROR_DOMAIN: &str = "portal.hospital";

/// The machine reason of an error status without a reason of its own, by its
/// code: one per [`ServiceError`] kind (`Conflict` answers FAILED_PRECONDITION,
/// `TooLarge` OUT_OF_RANGE, `RateLimited` RESOURCE_EXHAUSTED).
pub fn default_reason(code: Code) -> &'static str {
    match code {
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::Unauthenticated => "UNAUTHENTICATED",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::NotFound => "NOT_FOUND",
        Code::FailedPrecondition | Code::AlreadyExists | Code::Aborted => "CONFLICT",
        Code::OutOfRange => "TOO_LARGE",
        Code::ResourceExhausted => "RATE_LIMITED",
        Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => "UNAVAILABLE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Ok | Code::Unknown | Code::Internal | Code::DataLoss => "INTERNAL",
    }
}

/// A reason code (`tries-exhausted`) as machines read it (`TRIES_EXHAUSTED`).
pub fn machine_reason(reason: &str) -> String {
    reason.replace('-', "_").to_ascii_uppercase()
}

/// The machine reason of an error status: its `google.rpc.ErrorInfo`'s, else
/// its code's (a status from tonic or the transport carries none).
pub fn reason_of(status: &Status) -> String {
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .filter(|reason| !reason.is_empty())
        .unwrap_or_else(|| default_reason(status.code()).to_owned())
}

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{0}")]
    InvalidInput(String),
    #[error("{0}")]
    Unauthenticated(String),
    /// A genuine access token signed before its person was blocked or their
    /// rights changed: UNAUTHENTICATED with [`REASON_ACCESS_REVOKED`], so the
    /// client renews its token (or, blocked, is signed out).
    #[error("{MSG_ACCESS_REVOKED}")]
    AccessRevoked,
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{message}")]
    RateLimited {
        message: String,
        retry_after: Duration,
    },
    #[error("{0}")]
    Unavailable(String),
    /// A refusal of any other kind with a stable reason code for clients.
    #[error("{error}")]
    Reasoned {
        error: Box<ServiceError>,
        reason: &'static str,
    },
    #[error("internal error: {0:#}")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

pub const MSG_NOT_SIGNED_IN: &str = "Требуется вход в систему";
pub const MSG_ACCESS_REVOKED: &str = "Ваши права доступа изменились. Пожалуйста, войдите снова.";
pub const MSG_NO_RIGHTS: &str = "У вас нет доступа к данному ресурсу";
pub const MSG_INTERNAL: &str =
    "Произошла ошибка при выполнении запроса. Пожалуйста, попробуйте позже.";
pub const MSG_OVERLOADED: &str = "Сервер перегружен. Попробуйте позже.";
/// What a person reads while a service or its database is away for a while.
pub const MSG_UNAVAILABLE: &str = "Сервис временно недоступен. Пожалуйста, попробуйте позже.";

impl ServiceError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound(message.into())
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::Conflict(message.into())
    }

    /// This refusal with a stable reason code (lower-case words joined by `-`).
    pub fn because(self, reason: &'static str) -> Self {
        Self::Reasoned {
            error: Box::new(self),
            reason,
        }
    }

    /// The stable reason code, if the refusal has one.
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            Self::Reasoned { reason, .. } => Some(reason),
            Self::AccessRevoked => Some(REASON_ACCESS_REVOKED),
            _ => None,
        }
    }

    /// How long a rate-limited caller waits, if this is a rate limit.
    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => Some(*retry_after),
            Self::Reasoned { error, .. } => error.retry_after(),
            _ => None,
        }
    }

    pub fn internal(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal(cause.into())
    }
}

impl From<sqlx::Error> for ServiceError {
    fn from(error: sqlx::Error) -> Self {
        Self::from(Arc::new(error))
    }
}

/// A database error that may have failed several calls at once: a group
/// commit's (education's `store::group_commit`).
impl From<Arc<sqlx::Error>> for ServiceError {
    fn from(error: Arc<sqlx::Error>) -> Self {
        match &*error {
            // Every connection stayed busy past the acquire time-out: the service is
            // overloaded, not broken, and the caller may try again.
            sqlx::Error::PoolTimedOut => {
                metrics::counter!("portal_db_pool_timeouts_total").increment(1);
                tracing::warn!(
                    "database pool exhausted: no connection within the acquire time-out"
                );
                Self::Unavailable(MSG_OVERLOADED.into())
            }
            // The database went away (restarted, failed over, closed to new
            // sessions): it comes back, and the replica with it (`readiness`).
            lost if is_connection_lost(lost) => {
                tracing::warn!(error = %lost, "database unreachable");
                Self::Unavailable(MSG_UNAVAILABLE.into())
            }
            _ => Self::Internal(Box::new(error)),
        }
    }
}

/// Whether a database error means the session is gone rather than the query
/// refused: the connection broke, or the server ended the session (severity
/// FATAL: shut down, or the database refuses connections) or reports a
/// connection failure (SQLSTATE class 08).
fn is_connection_lost(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(database) => {
            let ended = database
                .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                .is_some_and(|postgres| {
                    matches!(
                        postgres.severity(),
                        sqlx::postgres::PgSeverity::Fatal | sqlx::postgres::PgSeverity::Panic
                    )
                });
            ended || database.code().is_some_and(|code| code.starts_with("08"))
        }
        _ => false,
    }
}

impl From<sqlx::migrate::MigrateError> for ServiceError {
    fn from(error: sqlx::migrate::MigrateError) -> Self {
        Self::Internal(Box::new(error))
    }
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let reason = error.reason().map(machine_reason);
        let retry_after = error.retry_after();
        let status = plain_status(error);
        let mut details = ErrorDetails::with_error_info(
            reason.unwrap_or_else(|| default_reason(status.code()).to_owned()),
            ERROR_DOMAIN,
            HashMap::new(),
        );
        if let Some(wait) = retry_after {
            details.set_retry_info(Some(wait));
        }
        Status::with_error_details_and_metadata(
            status.code(),
            status.message(),
            details,
            status.metadata().clone(),
        )
    }
}

/// The status of `error` with its code, message and metadata, without details.
fn plain_status(error: ServiceError) -> Status {
    match error {
        ServiceError::InvalidInput(m) => Status::invalid_argument(m),
        ServiceError::Unauthenticated(m) => Status::unauthenticated(m),
        ServiceError::AccessRevoked => plain_status(
            ServiceError::Unauthenticated(MSG_ACCESS_REVOKED.into()).because(REASON_ACCESS_REVOKED),
        ),
        ServiceError::PermissionDenied(m) => Status::permission_denied(m),
        ServiceError::NotFound(m) => Status::not_found(m),
        ServiceError::Conflict(m) => Status::failed_precondition(m),
        ServiceError::TooLarge(m) => Status::out_of_range(m),
        ServiceError::RateLimited {
            message,
            retry_after,
        } => {
            let mut status = Status::resource_exhausted(message);
            if let Ok(value) = retry_after.as_secs().max(1).to_string().parse() {
                status.metadata_mut().insert(RETRY_AFTER_KEY, value);
            }
            status
        }
        ServiceError::Unavailable(m) => Status::unavailable(m),
        ServiceError::Reasoned { error, reason } => {
            let mut status = plain_status(*error);
            if let Ok(value) = reason.parse() {
                status.metadata_mut().insert(REASON_KEY, value);
            }
            status
        }
        ServiceError::Internal(cause) => {
            tracing::error!(error = %cause, "internal error");
            Status::new(Code::Internal, MSG_INTERNAL)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_exhausted_pool_is_an_overload_to_retry_counted_not_an_internal_error() {
        sqlx::any::install_default_drivers();
        let pool = sqlx::any::AnyPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_millis(50))
            .connect("sqlite::memory:")
            .await
            .unwrap();
        let _busy = pool.acquire().await.unwrap();
        let timed_out = sqlx::query("SELECT 1").execute(&pool).await.unwrap_err();
        let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
        let status =
            metrics::with_local_recorder(&recorder, || Status::from(ServiceError::from(timed_out)));
        assert_eq!(status.code(), Code::Unavailable);
        assert_eq!(status.message(), MSG_OVERLOADED);
        let page = recorder.handle().render();
        assert!(page.contains("portal_db_pool_timeouts_total 1"), "{page}");
    }

    #[test]
    fn a_broken_database_connection_is_unavailable_not_internal() {
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        for error in [sqlx::Error::Io(reset), sqlx::Error::PoolClosed] {
            let status = Status::from(ServiceError::from(error));
            assert_eq!(status.code(), Code::Unavailable);
            assert_eq!(status.message(), MSG_UNAVAILABLE);
            assert_eq!(reason_of(&status), "UNAVAILABLE");
        }
    }

    #[test]
    fn internal_causes_are_never_shown() {
        let status = Status::from(ServiceError::from(sqlx::Error::RowNotFound));
        assert_eq!(status.code(), Code::Internal);
        assert_eq!(status.message(), MSG_INTERNAL);
    }

    #[test]
    fn a_reason_code_travels_beside_the_message() {
        let status =
            Status::from(ServiceError::conflict("Нет начатой попытки").because("no-open-attempt"));
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert_eq!(status.message(), "Нет начатой попытки");
        assert_eq!(
            status.metadata().get(REASON_KEY).unwrap(),
            "no-open-attempt"
        );
    }

    #[test]
    fn a_revoked_token_is_unauthenticated_with_its_reason() {
        let status = Status::from(ServiceError::AccessRevoked);
        assert_eq!(status.code(), Code::Unauthenticated);
        assert_eq!(status.message(), MSG_ACCESS_REVOKED);
        assert_eq!(
            status.metadata().get(REASON_KEY).unwrap(),
            REASON_ACCESS_REVOKED
        );
    }

    #[test]
    fn rate_limits_carry_their_wait() {
        let status = Status::from(ServiceError::RateLimited {
            message: "Слишком много попыток".into(),
            retry_after: Duration::from_secs(90),
        });
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(status.metadata().get(RETRY_AFTER_KEY).unwrap(), "90");
        assert_eq!(reason_of(&status), "RATE_LIMITED");
        assert_eq!(
            status.get_details_retry_info().unwrap().retry_delay,
            Some(Duration::from_secs(90))
        );
    }

    #[test]
    fn every_error_carries_error_info_with_its_kinds_reason() {
        let kinds = [
            (ServiceError::invalid("Неверно"), "INVALID_ARGUMENT"),
            (
                ServiceError::Unauthenticated(MSG_NOT_SIGNED_IN.into()),
                "UNAUTHENTICATED",
            ),
            (
                ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()),
                "PERMISSION_DENIED",
            ),
            (ServiceError::not_found("Нет"), "NOT_FOUND"),
            (ServiceError::conflict("Занято"), "CONFLICT"),
            (ServiceError::TooLarge("Велико".into()), "TOO_LARGE"),
            (
                ServiceError::RateLimited {
                    message: "Подождите".into(),
                    retry_after: Duration::from_secs(1),
                },
                "RATE_LIMITED",
            ),
            (
                ServiceError::Unavailable(MSG_OVERLOADED.into()),
                "UNAVAILABLE",
            ),
            (ServiceError::from(sqlx::Error::RowNotFound), "INTERNAL"),
        ];
        for (error, reason) in kinds {
            let status = Status::from(error);
            let info = status.get_details_error_info().expect("ErrorInfo");
            assert_eq!(
                (info.reason.as_str(), info.domain.as_str()),
                (reason, ERROR_DOMAIN)
            );
            assert_eq!(reason_of(&status), reason);
            // Only explicit reasons travel as `portal-reason` (the REST `errorCode`).
            assert!(status.metadata().get(REASON_KEY).is_none(), "{reason}");
        }
    }

    #[test]
    fn an_explicit_reason_is_the_error_infos_in_upper_snake_and_stays_kebab_beside_it() {
        let status = Status::from(
            ServiceError::RateLimited {
                message: "Попытки исчерпаны".into(),
                retry_after: Duration::from_secs(30),
            }
            .because("tries-exhausted"),
        );
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(reason_of(&status), "TRIES_EXHAUSTED");
        assert_eq!(
            status.metadata().get(REASON_KEY).unwrap(),
            "tries-exhausted"
        );
        assert_eq!(
            status.get_details_retry_info().unwrap().retry_delay,
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            reason_of(&Status::from(ServiceError::AccessRevoked)),
            "ACCESS_REVOKED"
        );
    }

    #[test]
    fn a_status_without_error_info_has_its_codes_reason() {
        assert_eq!(
            reason_of(&Status::invalid_argument("bad")),
            "INVALID_ARGUMENT"
        );
        assert_eq!(reason_of(&Status::aborted("x")), "CONFLICT");
        assert_eq!(reason_of(&Status::unknown("x")), "INTERNAL");
    }
}
