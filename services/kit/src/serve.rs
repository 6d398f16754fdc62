//! The scaffold every gRPC service runs in: its routes plus the standard health
//! check (liveness and readiness, [`crate::readiness`]) and reflection, drained on
//! shutdown.

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::Status;
use tonic::body::Body;
use tonic::service::Routes;
use tonic::transport::server::TcpIncoming;
use tonic_health::ServingStatus;

use crate::account_limits::{AccountLimiter, ServiceAccountLimits};
use crate::readiness::Readiness;
use tower::util::BoxCloneSyncService;

/// A channel from one service to another: in the portal binary the
/// gateway's `Upstream` (every replica of the other service), in tests a plain
/// tonic channel. Its failures are statuses (not boxed errors, whose erased
/// lifetime async-trait's `Send` check rejects).
pub type ServiceChannel = BoxCloneSyncService<http::Request<Body>, http::Response<Body>, Status>;

/// Reflection over every Portal contract and the health protocol.
pub fn reflection() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(portal_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
}

fn with_reflection(routes: Routes) -> Result<Routes, tonic_reflection::server::Error> {
    Ok(routes
        .add_service(reflection().build_v1()?)
        .add_service(reflection().build_v1alpha()?))
}

/// Serves `routes` (one Portal service, `service_name` being its full gRPC name) on
/// `listener` until `shutdown` is cancelled, then finishes in-flight calls.
/// Its health says SERVING under the empty name (liveness) until then, and under
/// `service_name` (readiness) while `readiness` says so too.
/// Service accounts' calls are held to `limits` (the token interceptor spends
/// from the replica's [`AccountLimiter`], put on every request).
pub async fn serve_grpc(
    listener: TcpListener,
    service_name: &'static str,
    routes: Routes,
    mut readiness: Readiness,
    limits: ServiceAccountLimits,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let limiter = AccountLimiter::new(limits);
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter
        .set_service_status("", ServingStatus::Serving)
        .await;
    reporter
        .set_service_status(service_name, serving(readiness.now()))
        .await;

    let address = listener.local_addr().map_err(ServeError::Io)?;
    tracing::info!(service = service_name, %address, "gRPC service listening");
    let routes = with_reflection(routes.add_service(health))?;
    // Readiness is followed here, in the future that also marks the drain, so
    // nothing can say SERVING again once the drain has begun.
    let stopping = {
        let shutdown = shutdown.clone();
        async move {
            loop {
                tokio::select! {
                    () = readiness.changed() => {}
                    () = shutdown.cancelled() => break,
                }
                reporter
                    .set_service_status(service_name, serving(readiness.now()))
                    .await;
            }
            reporter
                .set_service_status(service_name, ServingStatus::NotServing)
                .await;
            reporter
                .set_service_status("", ServingStatus::NotServing)
                .await;
        }
    };
    tonic::transport::Server::builder()
        // A client-streaming upload (files: 1 MiB messages) stalls on hyper's
        // 1 MiB windows: the sender waits for every message to be read before
        // the next may go. A window is only an allowance, nothing is allocated.
        .initial_stream_window_size(STREAM_WINDOW_BYTES)
        .initial_connection_window_size(CONNECTION_WINDOW_BYTES)
        // Bigger frames: a 1 MiB message in 4 frames, not 64 of h2's 16 KiB.
        .max_frame_size(FRAME_BYTES)
        .layer(crate::metrics::RpcLayer {
            server: service_name,
        })
        .layer(tower::util::MapRequestLayer::new(
            move |mut request: http::Request<Body>| {
                request.extensions_mut().insert(limiter.clone());
                request
            },
        ))
        .add_routes(routes)
        .serve_with_incoming_shutdown(
            // Small gRPC frames must not wait for Nagle's algorithm.
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            stopping,
        )
        .await?;
    tracing::info!(service = service_name, "gRPC service stopped");
    Ok(())
}

/// HTTP/2 flow-control windows a service grants its callers: several of the
/// largest upload messages per stream, a few such streams per connection.
const STREAM_WINDOW_BYTES: u32 = 4 * 1024 * 1024;
const CONNECTION_WINDOW_BYTES: u32 = 16 * 1024 * 1024;
/// The largest HTTP/2 frame a service accepts.
const FRAME_BYTES: u32 = 256 * 1024;

fn serving(ready: bool) -> ServingStatus {
    if ready {
        ServingStatus::Serving
    } else {
        ServingStatus::NotServing
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("listener: {0}")]
    Io(#[source] std::io::Error),
    #[error("building reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Resolves on Ctrl-C or SIGTERM (what Kubernetes sends before it kills a pod).
/// Listens from the call on, not from the first poll: a caller listens before it
/// serves, since a SIGTERM between its first ready probe and a late listener
/// would end the process undrained, by the signal's default action.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            received(signal(SignalKind::interrupt()), "Ctrl-C"),
            received(signal(SignalKind::terminate()), "SIGTERM"),
        )
    };
    #[cfg(not(unix))]
    let (interrupt, terminate) = (
        async {
            if let Err(error) = tokio::signal::ctrl_c().await {
                tracing::warn!(%error, "cannot listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
        },
        std::future::pending::<()>(),
    );
    async move {
        tokio::select! {
            () = interrupt => {},
            () = terminate => {},
        }
        tracing::info!("shutting down: draining in-flight requests");
    }
}

/// Waits for a signal already listened for; one that could not be listened for
/// never comes.
#[cfg(unix)]
async fn received(listener: std::io::Result<tokio::signal::unix::Signal>, name: &'static str) {
    match listener {
        Ok(mut signal) => {
            signal.recv().await;
        }
        Err(error) => {
            tracing::warn!(%error, "cannot listen for {name}");
            std::future::pending::<()>().await;
        }
    }
}
