//! Prometheus metrics: what every process measures and how it is rendered.
//!
//! Recording goes through the `metrics` facade; the Prometheus recorder is
//! installed only when `PORTAL_METRICS_ADDR` asks for it, so a process that
//! exposes nothing records nothing. Services count their RPCs ([`RpcLayer`]),
//! the gateway its HTTP routes, and every database pool its connections.
//!
//! | metric | labels |
//! |---|---|
//! | `portal_rpc_requests_total` (counter) | `server`, `method` (full gRPC path; `other` for a method the server does not have), `code` |
//! | `portal_rpc_duration_seconds` (histogram) | `server`, `method` |
//! | `portal_rpc_in_flight` (gauge) | `server` |
//! | `portal_http_requests_total` (counter) | `route` (the matched pattern), `method`, `status` |
//! | `portal_http_request_duration_seconds` (histogram) | `route`, `method` |
//! | `portal_http_requests_in_flight` (gauge) | — |
//! | `portal_db_pool_connections`, `portal_db_pool_idle_connections`, `portal_db_pool_max_connections` (gauges) | `database` |
//! | `portal_db_pool_timeouts_total` (counter: calls refused, no connection free in time) | — |
//! | `portal_sign_ins_total` (counter, auth) | `outcome`: `success`, `bad_credentials`, `blocked`, `rate_limited`, `incomplete` |
//! | `portal_uploads_total` (counter, files) | `kind` (`document`, `video`), `outcome` (`stored`, `refused`, `failed`) |
//! | `portal_upload_bytes_total` (counter, files: bytes stored) | `kind` |

use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use http_body_util::BodyExt;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use portal_proto::auth::v1::access_revocation_service_server;
use sqlx::AnyPool;
use tonic::Code;
use tracing::Instrument;

use crate::telemetry::{REQUEST_ID_HEADER, RequestId};

/// Histogram buckets in seconds: from a cached read to the 60 s upstream limit.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
static POOLS: Mutex<Vec<(String, AnyPool)>> = Mutex::new(Vec::new());

#[derive(Debug, thiserror::Error)]
#[error("installing the metrics recorder: {0}")]
pub struct MetricsError(String);

/// Installs the process's Prometheus recorder (once; later calls return it).
pub fn install() -> Result<&'static PrometheusHandle, MetricsError> {
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _once = INSTALLING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(handle) = HANDLE.get() {
        return Ok(handle);
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &BUCKETS)
        .map_err(|e| MetricsError(e.to_string()))?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).map_err(|e| MetricsError(e.to_string()))?;
    Ok(HANDLE.get_or_init(|| handle))
}

/// Whether this process records metrics.
pub fn enabled() -> bool {
    HANDLE.get().is_some()
}

/// Reports a database pool's size on every scrape (only where metrics are on:
/// the list keeps the pool alive).
pub fn watch_pool(database: String, pool: &AnyPool) {
    if enabled() {
        // Shown from the start, so the first time-out is an increase too.
        metrics::counter!("portal_db_pool_timeouts_total").increment(0);
        POOLS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((database, pool.clone()));
    }
}

/// Everything recorded, in Prometheus' text format (empty when metrics are off).
pub fn render() -> String {
    let Some(handle) = HANDLE.get() else {
        return String::new();
    };
    for (database, pool) in POOLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
    {
        let labels = [("database", database.clone())];
        metrics::gauge!("portal_db_pool_connections", &labels).set(pool.size());
        metrics::gauge!("portal_db_pool_idle_connections", &labels)
            .set(u32::try_from(pool.num_idle()).unwrap_or(u32::MAX));
        metrics::gauge!("portal_db_pool_max_connections", &labels)
            .set(pool.options().get_max_connections());
    }
    handle.run_upkeep();
    handle.render()
}

/// An RPC's span, the child of its caller's in a trace: named by its method
/// there (`portal.wiki.v1.WikiService/GetArticle`), a server span.
macro_rules! rpc_span {
    ($level:expr, $request_id:expr, $method:expr) => {
        tracing::span!(
            $level,
            "rpc",
            request_id = %$request_id,
            trace_id = tracing::field::Empty,
            otel.name = $method.trim_start_matches('/'),
            otel.kind = "server",
        )
    };
}
/// Counts, times and logs every RPC a gRPC server answers, inside a span that
/// carries the caller's request id (`x-request-id`, set by the gateway; one is
/// made for a call that came without) and continues the caller's trace
/// (`traceparent`, [`crate::traces`]).
#[derive(Clone, Copy, Debug)]
pub struct RpcLayer {
    /// The full gRPC name of the service the server runs.
    pub server: &'static str,
}

impl<S> tower::Layer<S> for RpcLayer {
    type Service = RpcService<S>;

    fn layer(&self, inner: S) -> RpcService<S> {
        RpcService {
            inner,
            server: self.server,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RpcService<S> {
    inner: S,
    server: &'static str,
}

type BoxFuture<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower::Service<http::Request<B>> for RpcService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let request_id = request
            .headers()
            .get(REQUEST_ID_HEADER)
            .and_then(RequestId::from_header)
            .unwrap_or_else(RequestId::generate);
        if let Ok(value) = request_id.as_str().parse() {
            request.headers_mut().insert(REQUEST_ID_HEADER, value);
        }
        let method = request.uri().path();
        // Timers and probes stay out of the traces (and out of an info log).
        let span = if is_background(method) {
            rpc_span!(tracing::Level::DEBUG, request_id, method)
        } else {
            rpc_span!(tracing::Level::INFO, request_id, method)
        };
        crate::traces::adopt(&span, request.headers());
        let call = Call {
            server: self.server,
            method: request.uri().path().to_owned(),
            started: Instant::now(),
            code: None,
            span: span.clone(),
        };
        metrics::gauge!("portal_rpc_in_flight", "server" => self.server).increment(1);
        let future = self.inner.call(request).instrument(span);
        Box::pin(async move {
            let mut call = call;
            let response = future.await?;
            let (parts, body) = response.into_parts();
            // A trailers-only answer (an error) has its status in the headers.
            call.code = code_of(&parts.headers);
            // The call ends with its body: the status comes in the trailers.
            let body = body.map_frame(move |frame| {
                call.saw(&frame);
                frame
            });
            Ok(http::Response::from_parts(
                parts,
                tonic::body::Body::new(body),
            ))
        })
    }
}

/// The status code in `grpc-status`, where a header map carries one.
fn code_of(headers: &http::HeaderMap) -> Option<Code> {
    let value = headers.get("grpc-status")?.to_str().ok()?;
    Some(Code::from_i32(value.parse().ok()?))
}

/// One RPC under way: recorded and logged when its response body is done
/// (or dropped: a cancelled call still leaves the in-flight gauge).
struct Call {
    server: &'static str,
    method: String,
    started: Instant,
    code: Option<Code>,
    span: tracing::Span,
}

impl Call {
    /// Takes the status from the trailers (a method, so the closure that
    /// calls it owns the whole call and records it when the body is dropped).
    fn saw(&mut self, frame: &http_body::Frame<tonic::codegen::Bytes>) {
        if let Some(code) = frame.trailers_ref().and_then(code_of) {
            self.code = Some(code);
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        let elapsed = self.started.elapsed();
        let code = self
            .code
            .map_or("Cancelled".to_owned(), |c| format!("{c:?}"));
        // A path the server has no method for is not a label of its own: a
        // caller could otherwise make as many series as it likes.
        let method = if self.code == Some(Code::Unimplemented) {
            "other".to_owned()
        } else {
            self.method.clone()
        };
        metrics::gauge!("portal_rpc_in_flight", "server" => self.server).decrement(1);
        metrics::counter!("portal_rpc_requests_total",
            "server" => self.server, "method" => method.clone(), "code" => code.clone())
        .increment(1);
        metrics::histogram!("portal_rpc_duration_seconds", "server" => self.server, "method" => method)
            .record(elapsed.as_secs_f64());
        let _inside = self.span.enter();
        let duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        if is_background(&self.method) {
            tracing::debug!(method = %self.method, %code, duration_ms, "rpc");
        } else {
            tracing::info!(method = %self.method, %code, duration_ms, "rpc");
        }
    }
}

/// Calls machines make on a timer: health checks, and the revocation poll
/// every replica of education, wiki and files sends auth each second. They are
/// counted like any call but logged only at debug, so a day's log is people's
/// calls, not 86,400 lines per replica.
fn is_background(method: &str) -> bool {
    let revocation = method
        .strip_prefix('/')
        .and_then(|path| path.strip_prefix(access_revocation_service_server::SERVICE_NAME))
        .is_some_and(|rest| rest.starts_with('/'));
    method.starts_with("/grpc.") || revocation
}

/// A database's name for the `database` label: PostgreSQL's database, or the
/// SQLite file's stem; never the user or password a URL may carry.
pub fn database_name(url: &str) -> String {
    let path = url.split('?').next().unwrap_or(url);
    let path = path
        .rsplit_once('@')
        .map_or(path, |(_, host_and_path)| host_and_path);
    let last = path.rsplit('/').next().unwrap_or(path);
    last.strip_suffix(".db").unwrap_or(last).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_and_the_revocation_poll_are_background_and_peoples_calls_are_not() {
        assert!(is_background("/grpc.health.v1.Health/Check"));
        assert!(is_background(
            "/portal.auth.v1.AccessRevocationService/ListAccessChanges"
        ));
        assert!(!is_background("/portal.auth.v1.AuthService/Login"));
        assert!(!is_background(
            "/portal.auth.v1.AccessRevocationServiceX/ListAccessChanges"
        ));
    }

    #[test]
    fn a_database_is_labelled_by_its_name() {
        assert_eq!(
            database_name("postgres://u:p@db:5432/auth?sslmode=require"),
            "auth"
        );
        assert_eq!(
            database_name("sqlite:///data/education.db?mode=rwc"),
            "education"
        );
        assert_eq!(database_name("postgres://u:pass/word@db"), "db");
    }
}
