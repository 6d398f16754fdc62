//! Another service as a set of replicas that calls are balanced over: the
//! gateway's four upstreams (REST translation, gRPC and grpc-web forwarding,
//! health), files' calls to the wiki, and every service's following of auth
//! ([`portal_kit::revocation`]). In `all` the in-process services share the
//! gateway's upstreams rather than open their own.
//!
//! A gRPC connection is long-lived, so a channel to a Kubernetes ClusterIP
//! Service would stay on one pod. An upstream URL instead names every replica
//! (in a cluster, the headless Service, whose DNS name has one address per ready
//! pod; outside one, a comma-separated list of URLs). Each upstream re-resolves
//! its names every [`Discovery::interval`], keeps one lazily connected channel
//! per address, and watches each replica's `grpc.health.v1` status on it: a
//! killed replica's stream breaks at once and a draining one says NOT_SERVING,
//! so calls leave it before DNS catches up. Calls go round-robin over the
//! replicas that are SERVING; when none is (a lone replica restarting, or every
//! one's database away), over those whose health could be asked last time, so
//! a call gets the replica's own answer or succeeds the moment one is back. A
//! replica that cannot be reached at all takes no calls until its health
//! answers again (asked every [`WATCH_RETRY`]): with every pod of a service
//! gone, DNS names none and the addresses known are kept, and a call must be
//! refused at once, not after the connect time-out to a vanished host.
//!
//! Why not tonic's `Channel::balance_channel`: its endpoints reconnect behind a
//! `ready` that never fails, so a dead replica keeps its share of calls until
//! DNS drops it, and with no endpoint a call waits with no time limit.
//!
//! Channels carry no time-out of their own: each call says how long it may
//! wait ([`portal_kit::deadline`]), so the REST handlers and the forwarding set the
//! limit and an upload, answered after its last byte, goes without one on the
//! very same channel.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use portal_kit::serve::ServiceChannel;
use tokio::sync::Notify;
use tokio::task::AbortHandle;
use tonic::body::Body;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tower::{Service, ServiceExt};

/// How often upstream names are resolved again in production.
const RESOLVE_INTERVAL: Duration = Duration::from_secs(5);
/// The pause before watching a replica's health again after its stream ended.
const WATCH_RETRY: Duration = Duration::from_millis(250);

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

#[derive(Clone, Debug)]
pub struct Upstream {
    /// The full gRPC name of the service, e.g. `portal.auth.v1.AuthService`.
    pub service: &'static str,
    pub channel: Balanced,
}

/// Turns a host name into the addresses of its replicas.
pub trait Resolve: Send + Sync + 'static {
    fn resolve(&self, host: String, port: u16) -> BoxFuture<io::Result<Vec<SocketAddr>>>;
}

/// The system resolver (DNS, `/etc/hosts`): every A and AAAA record.
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, host: String, port: u16) -> BoxFuture<io::Result<Vec<SocketAddr>>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    }
}

/// How upstream names are resolved and how often again.
#[derive(Clone)]
pub struct Discovery {
    pub resolver: Arc<dyn Resolve>,
    pub interval: Duration,
}

impl Default for Discovery {
    fn default() -> Self {
        Discovery {
            resolver: Arc::new(SystemResolver),
            interval: RESOLVE_INTERVAL,
        }
    }
}

impl Upstream {
    /// `urls`: one or more comma-separated `http://host:port`.
    pub fn connect(
        service: &'static str,
        urls: &str,
        discovery: &Discovery,
    ) -> Result<Upstream, BadUrl> {
        let targets = urls
            .split(',')
            .map(|url| Target::parse(url.trim()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|reason| BadUrl {
                service,
                urls: urls.to_owned(),
                reason,
            })?;
        let replicas = Arc::new(Replicas {
            service,
            list: RwLock::new(Arc::new(Vec::new())),
            next: AtomicUsize::new(0),
            resolved: AtomicBool::new(false),
        });
        // Literal addresses are known now: no call waits for the first lookup.
        let literal: Vec<SocketAddr> = targets.iter().filter_map(Target::literal).collect();
        if literal.len() == targets.len() {
            replicas.update(&literal);
            replicas.resolved.store(true, Ordering::Relaxed);
        } else {
            tokio::spawn(discover(
                Arc::downgrade(&replicas),
                targets,
                discovery.clone(),
            ));
        }
        Ok(Upstream {
            service,
            channel: Balanced { replicas },
        })
    }

    /// This upstream as the channel one service calls another on.
    pub fn service_channel(&self) -> ServiceChannel {
        ServiceChannel::new(self.channel.clone().map_err(tonic::Status::from_error))
    }

    /// Whether its names have been looked up once, whatever the answer: from
    /// then on a call goes to the replicas found, or fails at once when there
    /// are none (a service with no ready pod has no address in DNS).
    pub fn resolved(&self) -> bool {
        self.channel.replicas.resolved.load(Ordering::Relaxed)
    }

    /// The addresses of the replicas known now, and whether each is SERVING.
    pub fn replicas(&self) -> Vec<(SocketAddr, bool)> {
        self.channel
            .replicas
            .snapshot()
            .iter()
            .map(|replica| (replica.addr, replica.serving.load(Ordering::Relaxed)))
            .collect()
    }
}

/// An upstream URL that names no replica.
#[derive(Debug, thiserror::Error)]
#[error("upstream URL of {service}: {urls}: {reason}")]
pub struct BadUrl {
    service: &'static str,
    urls: String,
    reason: String,
}

/// One `http://host:port` of an upstream URL.
#[derive(Debug)]
struct Target {
    host: String,
    port: u16,
}

impl Target {
    fn parse(url: &str) -> Result<Target, String> {
        let uri: http::Uri = url.parse().map_err(|error| format!("{error}"))?;
        if uri.scheme_str() != Some("http") {
            return Err("expected http://host:port".into());
        }
        let host = uri.host().ok_or("expected http://host:port")?;
        let port = uri.port_u16().ok_or("expected a port")?;
        Ok(Target {
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
        })
    }

    fn literal(&self) -> Option<SocketAddr> {
        let ip = self.host.parse().ok()?;
        Some(SocketAddr::new(ip, self.port))
    }
}

/// Resolves the targets until the upstream is dropped. A lookup that fails or
/// finds nothing keeps the replicas known so far (as gRPC's own resolvers do):
/// a DNS hiccup must not empty the upstream.
async fn discover(replicas: Weak<Replicas>, targets: Vec<Target>, discovery: Discovery) {
    loop {
        let mut found = Vec::new();
        let mut failure = None;
        for target in &targets {
            match discovery
                .resolver
                .resolve(target.host.clone(), target.port)
                .await
            {
                Ok(addrs) => found.extend(addrs),
                Err(error) => failure = Some((target.host.clone(), error)),
            }
        }
        let Some(replicas) = replicas.upgrade() else {
            return;
        };
        if let Some((host, error)) = failure {
            tracing::warn!(service = replicas.service, %host, %error, "cannot resolve an upstream");
        }
        if found.is_empty() {
            tracing::warn!(
                service = replicas.service,
                "upstream resolved to no address; keeping the replicas known"
            );
        } else {
            replicas.update(&found);
        }
        replicas.resolved.store(true, Ordering::Relaxed);
        drop(replicas);
        tokio::time::sleep(discovery.interval).await;
    }
}

/// The replicas of one upstream: what calls are balanced over.
#[derive(Debug)]
struct Replicas {
    service: &'static str,
    list: RwLock<Arc<Vec<Arc<Replica>>>>,
    next: AtomicUsize,
    /// The first lookup of every name has finished.
    resolved: AtomicBool,
}

#[derive(Debug)]
struct Replica {
    addr: SocketAddr,
    channel: Channel,
    serving: Arc<AtomicBool>,
    /// Its health could be asked last time (or has not been asked yet).
    reachable: Arc<AtomicBool>,
    recheck: Arc<Notify>,
    watch: AbortHandle,
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.watch.abort();
    }
}

impl Replicas {
    fn snapshot(&self) -> Arc<Vec<Arc<Replica>>> {
        match self.list.read() {
            Ok(list) => list.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Keeps the replicas still at `addrs`, adds new ones, drops the rest.
    fn update(&self, addrs: &[SocketAddr]) {
        let current = self.snapshot();
        let mut next: Vec<Arc<Replica>> = Vec::with_capacity(addrs.len());
        for addr in addrs {
            if next.iter().any(|replica| replica.addr == *addr) {
                continue;
            }
            match current.iter().find(|replica| replica.addr == *addr) {
                Some(replica) => next.push(replica.clone()),
                None => match Replica::start(self.service, *addr) {
                    Ok(replica) => {
                        tracing::info!(service = self.service, %addr, "upstream replica added");
                        next.push(Arc::new(replica));
                    }
                    Err(error) => {
                        tracing::error!(service = self.service, %addr, %error, "bad replica address");
                    }
                },
            }
        }
        for gone in current.iter().filter(|r| !addrs.contains(&r.addr)) {
            tracing::info!(service = self.service, addr = %gone.addr, "upstream replica removed");
        }
        let next = Arc::new(next);
        match self.list.write() {
            Ok(mut list) => *list = next,
            Err(poisoned) => *poisoned.into_inner() = next,
        }
    }

    /// The next SERVING replica in turn; when none is, the next reachable one;
    /// none when no replica can be reached.
    fn pick(&self) -> Option<Arc<Replica>> {
        let list = self.snapshot();
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        let those = |flag: fn(&Replica) -> &AtomicBool| -> Vec<&Arc<Replica>> {
            list.iter()
                .filter(|replica| flag(replica).load(Ordering::Relaxed))
                .collect()
        };
        let mut candidates = those(|replica| &replica.serving);
        if candidates.is_empty() {
            candidates = those(|replica| &replica.reachable);
        }
        let picked = candidates.get(turn % candidates.len().max(1))?;
        Some((*picked).clone())
    }
}

impl Replica {
    fn start(service: &'static str, addr: SocketAddr) -> Result<Replica, tonic::transport::Error> {
        let channel = Endpoint::from_shared(format!("http://{addr}"))?
            .connect_timeout(Duration::from_secs(2))
            .tcp_keepalive(Some(Duration::from_secs(30)))
            .tcp_nodelay(true)
            // A replica whose host vanished (no RST) is noticed within 40 s.
            .http2_keep_alive_interval(Duration::from_secs(30))
            .keep_alive_timeout(Duration::from_secs(10))
            .connect_lazy();
        let serving = Arc::new(AtomicBool::new(false));
        let reachable = Arc::new(AtomicBool::new(true));
        let recheck = Arc::new(Notify::new());
        let watch = tokio::spawn(watch_health(
            service,
            channel.clone(),
            serving.clone(),
            reachable.clone(),
            recheck.clone(),
        ));
        Ok(Replica {
            addr,
            channel,
            serving,
            reachable,
            recheck,
            watch: watch.abort_handle(),
        })
    }
}

/// Follows one replica's health stream: SERVING while it says so; anything
/// else, a broken stream or a refused connection makes it not serving until it
/// answers again, and no answer at all (no connection) unreachable. A
/// NOT_SERVING replica is draining or without its database: the stream is
/// dropped so a graceful shutdown does not wait for it, and asked again. A
/// failed call asks for a fresh look (`recheck`): a live replica says SERVING
/// again at once.
async fn watch_health(
    service: &'static str,
    channel: Channel,
    serving: Arc<AtomicBool>,
    reachable: Arc<AtomicBool>,
    recheck: Arc<Notify>,
) {
    let mut client = HealthClient::new(channel);
    loop {
        let request = HealthCheckRequest {
            service: service.to_owned(),
        };
        let mut rechecking = false;
        let watched = client.watch(request).await;
        // A status the replica sent has no local cause; one made of a
        // connection that failed has.
        reachable.store(
            watched.as_ref().map_or_else(
                |status| std::error::Error::source(status).is_none(),
                |_| true,
            ),
            Ordering::Relaxed,
        );
        if let Ok(response) = watched {
            let mut stream = response.into_inner();
            loop {
                tokio::select! {
                    message = stream.message() => match message {
                        Ok(Some(update)) => {
                            let now = update.status() == ServingStatus::Serving;
                            serving.store(now, Ordering::Relaxed);
                            if !now {
                                break;
                            }
                        }
                        Ok(None) | Err(_) => break,
                    },
                    () = recheck.notified() => {
                        rechecking = true;
                        break;
                    }
                }
            }
        }
        serving.store(false, Ordering::Relaxed);
        if !rechecking {
            tokio::time::sleep(WATCH_RETRY).await;
        }
    }
}

/// A channel over an upstream's replicas: a tower service the generated gRPC
/// clients and the forwarding proxy call like any tonic channel.
#[derive(Clone, Debug)]
pub struct Balanced {
    replicas: Arc<Replicas>,
}

/// A status as the error tonic's clients take as it is (not wrapped again).
fn as_error(status: tonic::Status) -> BoxError {
    Box::new(status)
}

/// Whether a channel's error is the call's `grpc-timeout` running out.
fn timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(error), |error| error.source())
        .any(|error| error.is::<tonic::TimeoutExpired>())
}

impl Service<http::Request<Body>> for Balanced {
    type Response = http::Response<Body>;
    type Error = BoxError;
    type Future = BoxFuture<Result<http::Response<Body>, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        // Every call to another service goes on with the caller's trace.
        portal_kit::traces::inject(request.headers_mut());
        let picked = self.replicas.pick();
        let service = self.replicas.service;
        Box::pin(async move {
            let Some(replica) = picked else {
                // As for a replica that is down: the caller may retry.
                let status =
                    tonic::Status::unavailable(format!("no replica of {service} is reachable"));
                return Err(as_error(status));
            };
            let channel = replica.channel.clone();
            match channel.oneshot(request).await {
                Ok(response) => Ok(response),
                // The call's own `grpc-timeout` ran out: a slow answer, not a
                // replica gone, so it stays in the rotation.
                Err(error) if timed_out(&error) => Err(as_error(tonic::Status::deadline_exceeded(
                    format!("{service}: no answer within the call's time-out"),
                ))),
                Err(error) => {
                    // The connection failed or timed out (a gRPC status would be
                    // a response): the next calls go elsewhere until its health
                    // says SERVING again.
                    replica.serving.store(false, Ordering::Relaxed);
                    replica.recheck.notify_one();
                    // tonic calls a reset connection UNKNOWN; for the caller it
                    // is a replica that went away, and retrying may succeed.
                    let status = tonic::Status::from_error(Box::new(error));
                    let status = match status.code() {
                        tonic::Code::Unknown => {
                            tonic::Status::unavailable(format!("{service}: {}", status.message()))
                        }
                        _ => status,
                    };
                    Err(as_error(status))
                }
            }
        })
    }
}
