//! The gateway's HTTP serving loop: hyper's HTTP/1 + HTTP/2 server with the
//! limits a public port needs, which `axum::serve` does not set.
//!
//! - a connection cap: beyond it, connections wait in the kernel's listen queue
//!   instead of taking a file descriptor each;
//! - HTTP/1: the headers must arrive within the header time-out (hyper also runs
//!   it while a kept-alive connection waits for its next request);
//! - HTTP/2: keep-alive pings, and a peer that does not answer one is dropped;
//! - any connection with no request in flight for the idle time-out is closed,
//!   including one that never sends a byte;
//! - a request body must keep arriving, and one address has only so many
//!   arriving at once ([`crate::slow_body`]);
//! - on shutdown, requests in flight finish before the loop returns.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::IntoResponse;
use http::{Request, Response, StatusCode};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use portal_kit::net::TrustedProxies;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::client_address::client_of;
use crate::rest::ApiError;
use crate::slow_body::{MSG_TOO_MANY_BODIES, OpenBodies, Watched};
use crate::web::App;

/// How often an HTTP/2 connection is pinged, and how long its answer may take.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// A pause after a failed accept (e.g. out of file descriptors), so the loop
/// does not spin while the cause lasts.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// The limits, from `PORTAL_HTTP_*`.
#[derive(Clone, Debug)]
pub struct Limits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    /// How long a request body may go without [`crate::slow_body::MIN_PROGRESS_BYTES`] arriving.
    pub body_timeout: Duration,
    /// Request bodies one client address may be sending at once.
    pub max_bodies_per_address: usize,
    /// Whose `X-Forwarded-For` names the client (the ingress).
    pub trusted_proxies: TrustedProxies,
}

impl Limits {
    pub fn from_config(config: &crate::config::Config) -> Limits {
        let gateway = &config.gateway;
        Limits {
            header_timeout: Duration::from_secs(gateway.http_header_timeout),
            idle_timeout: Duration::from_secs(gateway.http_idle_timeout),
            max_connections: usize::try_from(gateway.http_max_connections)
                .unwrap_or(usize::MAX)
                .min(Semaphore::MAX_PERMITS),
            body_timeout: Duration::from_secs(gateway.http_body_timeout),
            max_bodies_per_address: usize::try_from(gateway.http_max_bodies_per_address)
                .unwrap_or(usize::MAX),
            trusted_proxies: config.shared.trusted_proxies.clone(),
        }
    }
}

/// Serves `app` on `listener` until `shutdown`, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    app: App,
    limits: Limits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let builder = connection_builder(&limits);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let bodies = OpenBodies::default();
    // Each connection holds a receiver; the sender sees none left once all are done.
    let (drained, connection_open) = watch::channel(());
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.map_err(std::io::Error::other)?,
            () = shutdown.cancelled() => break,
        };
        let (tcp, peer) = tokio::select! {
            accepted = accept(&listener) => match accepted {
                Some(accepted) => accepted,
                None => continue,
            },
            () = shutdown.cancelled() => break,
        };
        let (busy, idle) = watch::channel(Busy::idle());
        let service = TowerToHyperService::new(connection_service(
            app.clone(),
            peer,
            busy,
            Bodies {
                open: bodies.clone(),
                limits: limits.clone(),
            },
        ));
        let connection = builder
            .serve_connection(TokioIo::new(tcp), service)
            .into_owned();
        let (shutdown, open) = (shutdown.clone(), connection_open.clone());
        let idle_timeout = limits.idle_timeout;
        tokio::spawn(async move {
            tokio::pin!(connection);
            let ended = tokio::select! {
                ended = connection.as_mut() => Some(ended),
                () = shutdown.cancelled() => None,
                () = idle_for(idle, idle_timeout) => {
                    tracing::debug!(%peer, "closing an idle connection");
                    None
                }
            };
            // Stopping or idle: requests in flight finish, then the connection
            // closes (HTTP/2 says so with GOAWAY).
            let ended = match ended {
                Some(ended) => ended,
                None => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
            drop((slot, open));
        });
    }
    drop(listener);
    drop(connection_open);
    drained.closed().await;
    Ok(())
}

/// HTTP/1.1 and HTTP/2 on one port, each with its time limits.
fn connection_builder(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(KEEPALIVE_INTERVAL)
        .keep_alive_timeout(KEEPALIVE_TIMEOUT);
    builder
}

/// The next connection, ready for small frames; none after a failed accept
/// (logged, and waited out a moment: out of descriptors, say).
async fn accept(listener: &TcpListener) -> Option<(TcpStream, SocketAddr)> {
    let (tcp, peer) = match listener.accept().await {
        Ok(accepted) => accepted,
        Err(error) => {
            tracing::warn!(%error, "cannot accept a connection");
            tokio::time::sleep(ACCEPT_RETRY).await;
            return None;
        }
    };
    // Small gRPC frames must not wait for Nagle's algorithm.
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::debug!(%error, "TCP_NODELAY not set on a connection");
    }
    Some((tcp, peer))
}

/// Whether a connection has requests in flight, and since when it has none.
#[derive(Clone, Copy)]
struct Busy {
    in_flight: usize,
    idle_since: Instant,
}

impl Busy {
    fn idle() -> Busy {
        Busy {
            in_flight: 0,
            idle_since: Instant::now(),
        }
    }
}

/// Resolves once the connection has had no request in flight for `limit`.
async fn idle_for(mut busy: watch::Receiver<Busy>, limit: Duration) {
    loop {
        let now = *busy.borrow_and_update();
        if now.in_flight == 0 {
            tokio::select! {
                () = tokio::time::sleep_until(now.idle_since + limit) => return,
                changed = busy.changed() => if changed.is_err() { return },
            }
        } else if busy.changed().await.is_err() {
            return;
        }
    }
}

/// One request in flight on a connection, until its response body is done or dropped.
struct InFlight(Arc<watch::Sender<Busy>>);

impl InFlight {
    fn start(busy: &Arc<watch::Sender<Busy>>) -> InFlight {
        busy.send_modify(|b| b.in_flight += 1);
        InFlight(busy.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|b| {
            b.in_flight = b.in_flight.saturating_sub(1);
            if b.in_flight == 0 {
                b.idle_since = Instant::now();
            }
        });
    }
}

/// What a connection needs to hold request bodies to the limits.
#[derive(Clone)]
struct Bodies {
    open: OpenBodies,
    limits: Limits,
}

impl Bodies {
    /// The request with its body watched, or the refusal of one body too many.
    fn watch(
        &self,
        request: Request<Incoming>,
        peer: SocketAddr,
    ) -> Result<Request<Body>, Box<Response<Body>>> {
        if http_body::Body::is_end_stream(request.body()) {
            return Ok(request.map(Body::new));
        }
        let client = client_of(&self.limits.trusted_proxies, peer.ip(), request.headers());
        match self.open.open(client, self.limits.max_bodies_per_address) {
            Some(slot) => {
                let timeout = self.limits.body_timeout;
                Ok(request.map(|body| Body::new(Watched::new(body, slot, timeout))))
            }
            None => {
                tracing::warn!(%client, "too many request bodies arriving from one address");
                let mut refused = ApiError::new(StatusCode::TOO_MANY_REQUESTS, MSG_TOO_MANY_BODIES)
                    .into_response();
                refused.headers_mut().insert(
                    http::header::RETRY_AFTER,
                    http::HeaderValue::from_static("5"),
                );
                Err(Box::new(refused))
            }
        }
    }
}

/// The app for one connection: each request knows the peer, and counts as in
/// flight until its response has been sent.
fn connection_service(
    app: App,
    peer: SocketAddr,
    busy: watch::Sender<Busy>,
    bodies: Bodies,
) -> impl tower::Service<
    Request<Incoming>,
    Response = Response<Body>,
    Error = Infallible,
    Future = impl Future<Output = Result<Response<Body>, Infallible>> + Send,
> + Clone {
    let busy = Arc::new(busy);
    tower::service_fn(move |request: Request<Incoming>| {
        let in_flight = InFlight::start(&busy);
        let watched = bodies.watch(request, peer).map(|mut request| {
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request)
        });
        async move {
            let response = match watched {
                Ok(response) => response.await?,
                Err(refused) => *refused,
            };
            Ok(response.map(|body| {
                Body::new(Tracked {
                    body,
                    _in_flight: in_flight,
                })
            }))
        }
    })
}

/// A response body that keeps its request in flight while it is being sent.
struct Tracked {
    body: Body,
    _in_flight: InFlight,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
