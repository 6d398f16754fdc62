//! What operators see of the gateway: a request id and a trace on every
//! request, its log line, its metrics, and `/metrics` on a port of its own.

use std::net::SocketAddr;
use std::time::Instant;

use anyhow::Context;
use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use portal_kit::telemetry::{REQUEST_ID_HEADER, RequestId};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// A request's span: its request id, its trace id, and in the trace its
/// method and route (`GET /api/wiki/get-article`), a server span.
macro_rules! request_span {
    ($level:expr, $id:expr, $name:expr) => {
        tracing::span!(
            $level,
            "request",
            request_id = %$id,
            trace_id = tracing::field::Empty,
            otel.name = %$name,
            otel.kind = "server",
        )
    };
}

/// The caller's request id if sane, else a new one: set on the request (so it
/// travels to the service as gRPC metadata) and on the response; the request
/// is counted, timed to its response headers, and logged with it.
pub async fn observe(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(RequestId::from_header)
        .unwrap_or_else(RequestId::generate);
    let id_header = HeaderValue::from_str(id.as_str()).ok();
    if let Some(value) = &id_header {
        request
            .headers_mut()
            .insert(REQUEST_ID_HEADER, value.clone());
    }
    // The route's pattern, never the path itself: paths are as many as callers like.
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("static", MatchedPath::as_str)
        .to_owned();
    let method = request.method().to_string();
    let logged = route.starts_with("/api/") || is_grpc(&request);
    // One span per request, the root of the portal's part of its trace (a
    // child of the caller's `traceparent`, when valid): probes and the web
    // client's files only at debug, outside the traces.
    let name = format!("{method} {route}");
    let span = if logged {
        request_span!(tracing::Level::INFO, id, name)
    } else {
        request_span!(tracing::Level::DEBUG, id, name)
    };
    portal_kit::traces::adopt(&span, request.headers());
    let started = Instant::now();
    let _in_flight = InFlight::enter();
    let mut response = next.run(request).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16().to_string();
    metrics::counter!("portal_http_requests_total",
        "route" => route.clone(), "method" => method.clone(), "status" => status.clone())
    .increment(1);
    metrics::histogram!("portal_http_request_duration_seconds",
        "route" => route.clone(), "method" => method.clone())
    .record(elapsed.as_secs_f64());
    if let Some(value) = id_header {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    let duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    let _inside = span.enter();
    if logged {
        tracing::info!(%method, %route, %status, duration_ms, "request");
    } else {
        tracing::debug!(%method, %route, %status, duration_ms, "request");
    }
    response
}

fn is_grpc(request: &Request) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

/// Counts a request in flight until dropped (also when the caller goes away).
struct InFlight;

impl InFlight {
    fn enter() -> InFlight {
        metrics::gauge!("portal_http_requests_in_flight").increment(1);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics::gauge!("portal_http_requests_in_flight").decrement(1);
    }
}

/// Installs the recorder and serves `/metrics` on `addr` until `shutdown`.
pub async fn serve_metrics(
    addr: SocketAddr,
    shutdown: CancellationToken,
) -> anyhow::Result<(SocketAddr, impl Future<Output = anyhow::Result<()>>)> {
    portal_kit::metrics::install()?;
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("PORTAL_METRICS_ADDR: cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    let app = Router::new().route("/metrics", get(metrics));
    let serving = async move {
        tracing::info!(addr = %bound, "metrics listening");
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await
            .context("serving /metrics")
    };
    Ok((bound, serving))
}

async fn metrics() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        portal_kit::metrics::render(),
    )
        .into_response()
}
