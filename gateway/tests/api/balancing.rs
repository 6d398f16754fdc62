//! The gateway balances an upstream's calls over every replica its name resolves
//! to, and follows replicas as they come and go. Replicas are real gRPC servers
//! on loopback addresses of their own (127.0.0.2, .3, .4: Linux routes all of
//! 127/8 to loopback), behind one name that a test resolver answers for.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portal_gateway::{Discovery, Resolve, Upstream};
use tonic_health::ServingStatus;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const SERVICE: &str = portal_education::SERVICE_NAME;
const NAME: &str = "education-headless";

/// What the name resolves to now, as a headless Service's DNS would say.
#[derive(Default)]
struct Hosts(Mutex<Vec<SocketAddr>>);

impl Hosts {
    fn set(&self, addrs: &[SocketAddr]) {
        *self.0.lock().unwrap() = addrs.to_vec();
    }
}

impl Resolve for Hosts {
    fn resolve(
        &self,
        host: String,
        _port: u16,
    ) -> std::pin::Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send>> {
        let found = if host == NAME {
            Ok(self.0.lock().unwrap().clone())
        } else {
            Err(io::Error::new(io::ErrorKind::NotFound, host))
        };
        Box::pin(async move { found })
    }
}

/// One replica: a gRPC server with the standard health service, counting the
/// health checks it answers, on its own runtime so that dropping it ends every
/// connection at once, as a killed process does.
struct Replica {
    addr: SocketAddr,
    checks: Arc<AtomicUsize>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Replica {
    fn start(addr: SocketAddr) -> Replica {
        let checks = Arc::new(AtomicUsize::new(0));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        // A killed replica's runtime closes its listener in the background.
        let deadline = Instant::now() + Duration::from_secs(5);
        let listener = loop {
            match std::net::TcpListener::bind(addr) {
                Ok(listener) => break listener,
                Err(error) if Instant::now() < deadline => {
                    assert_eq!(error.kind(), io::ErrorKind::AddrInUse, "{error}");
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(error) => panic!("{addr}: {error}"),
            }
        };
        listener.set_nonblocking(true).unwrap();
        let counted = checks.clone();
        let count = tower::util::MapRequestLayer::new(move |request: http::Request<_>| {
            if request.uri().path() == "/grpc.health.v1.Health/Check" {
                counted.fetch_add(1, Ordering::Relaxed);
            }
            request
        });
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let (reporter, health) = tonic_health::server::health_reporter();
            reporter
                .set_service_status(SERVICE, ServingStatus::Serving)
                .await;
            tonic::transport::Server::builder()
                .layer(count)
                .add_service(health)
                .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener))
                .await
                .unwrap();
        });
        Replica {
            addr,
            checks,
            runtime: Some(runtime),
        }
    }

    fn checks(&self) -> usize {
        self.checks.load(Ordering::Relaxed)
    }

    /// Gone at once: its runtime and every socket it held are dropped.
    fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A port free on each of `ips`.
fn common_port(ips: &[IpAddr]) -> u16 {
    for _ in 0..50 {
        let first = std::net::TcpListener::bind((ips[0], 0)).unwrap();
        let port = first.local_addr().unwrap().port();
        if ips[1..]
            .iter()
            .all(|ip| std::net::TcpListener::bind((*ip, port)).is_ok())
        {
            return port;
        }
    }
    panic!("no port free on every loopback address");
}

async fn check(upstream: &Upstream) -> Result<(), tonic::Status> {
    let request = HealthCheckRequest {
        service: SERVICE.to_owned(),
    };
    HealthClient::new(upstream.channel.clone())
        .check(request)
        .await
        .map(|_| ())
}

/// Waits until the upstream knows exactly `addrs`, each SERVING.
async fn wait_for(upstream: &Upstream, addrs: &[SocketAddr]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut known = upstream.replicas();
        known.sort();
        let mut wanted: Vec<(SocketAddr, bool)> = addrs.iter().map(|a| (*a, true)).collect();
        wanted.sort();
        if known == wanted {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "replicas {known:?}, expected {wanted:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn calls_spread_over_every_replica_and_follow_them_as_they_come_and_go() {
    let ips: Vec<IpAddr> = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
        .iter()
        .map(|ip| ip.parse().unwrap())
        .collect();
    let port = common_port(&ips);
    let addr = |i: usize| SocketAddr::new(ips[i], port);
    let mut a = Replica::start(addr(0));
    let mut b = Replica::start(addr(1));
    let hosts = Arc::new(Hosts::default());
    hosts.set(&[a.addr, b.addr]);
    let discovery = Discovery {
        resolver: hosts.clone(),
        interval: Duration::from_millis(100),
    };
    let upstream =
        Upstream::connect(SERVICE, &format!("http://{NAME}:{port}"), &discovery).unwrap();
    wait_for(&upstream, &[a.addr, b.addr]).await;

    // Both replicas serve: calls alternate between them.
    for _ in 0..20 {
        check(&upstream).await.unwrap();
    }
    assert_eq!((a.checks(), b.checks()), (10, 10));

    // One replica dies under a steady stream of calls: at most the call that
    // was on its way to it fails; the rest go to the other.
    let mut failed = 0;
    for i in 0..200 {
        if i == 50 {
            b.kill();
        }
        if check(&upstream).await.is_err() {
            failed += 1;
        }
    }
    assert!(failed <= 1, "{failed} calls failed when a replica died");
    let on_a = a.checks();
    assert!(on_a >= 10 + 150, "the survivor took the calls: {on_a}");

    // DNS stops naming the dead one and names a new replica: calls reach it.
    let c = Replica::start(addr(2));
    hosts.set(&[a.addr, c.addr]);
    wait_for(&upstream, &[a.addr, c.addr]).await;
    for _ in 0..20 {
        check(&upstream).await.unwrap();
    }
    assert_eq!(c.checks(), 10, "the new replica takes its share");

    // A lookup that finds nothing keeps the replicas known (a DNS hiccup).
    hosts.set(&[]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    wait_for(&upstream, &[a.addr, c.addr]).await;
    a.kill();
}

#[tokio::test]
async fn a_lone_replica_that_restarts_is_called_again_at_once() {
    let ip: IpAddr = "127.0.0.5".parse().unwrap();
    let port = common_port(&[ip]);
    let addr = SocketAddr::new(ip, port);
    let mut replica = Replica::start(addr);
    let upstream =
        Upstream::connect(SERVICE, &format!("http://{addr}"), &Discovery::default()).unwrap();
    wait_for(&upstream, &[addr]).await;
    check(&upstream).await.unwrap();
    replica.kill();
    let down = check(&upstream).await.unwrap_err();
    assert_eq!(down.code(), tonic::Code::Unavailable, "{down:?}");
    // Not yet SERVING by its health stream, the one replica is still tried.
    let back = Replica::start(addr);
    let started = Instant::now();
    while check(&upstream).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "not called again"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(back.checks() >= 1);
}

/// A call is refused UNAVAILABLE at once, not after any time-out.
async fn assert_refused_at_once(upstream: &Upstream) {
    let asked = Instant::now();
    let refused = check(upstream).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert!(
        asked.elapsed() < Duration::from_millis(100),
        "refused after {:?}",
        asked.elapsed()
    );
}

/// Answers nothing until let through, then that the name does not exist, as
/// cluster DNS says of a headless Service with no ready pod.
struct NoPodYet(Arc<tokio::sync::Notify>);

impl Resolve for NoPodYet {
    fn resolve(
        &self,
        host: String,
        _port: u16,
    ) -> std::pin::Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send>> {
        let answer = self.0.clone();
        Box::pin(async move {
            answer.notified().await;
            Err(io::Error::new(io::ErrorKind::NotFound, host))
        })
    }
}

#[tokio::test]
async fn an_upstream_with_no_pod_is_resolved_once_asked_and_refuses_calls_at_once() {
    let answer = Arc::new(tokio::sync::Notify::new());
    let discovery = Discovery {
        resolver: Arc::new(NoPodYet(answer.clone())),
        interval: Duration::from_millis(50),
    };
    let upstream = Upstream::connect(SERVICE, &format!("http://{NAME}:50052"), &discovery).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!upstream.resolved(), "not before its first lookup answered");
    answer.notify_one();
    let deadline = Instant::now() + Duration::from_secs(1);
    while !upstream.resolved() {
        assert!(
            Instant::now() < deadline,
            "not resolved after its lookup answered"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(upstream.replicas().is_empty());
    assert_refused_at_once(&upstream).await;
}

#[tokio::test]
async fn a_replica_that_cannot_be_reached_takes_no_calls_once_its_health_says_so() {
    // A listener that never accepts, its queue full: the kernel drops further
    // connection attempts unanswered, as for a pod whose host vanished.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.6:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut queued = Vec::new();
    for _ in 0..3 {
        let connect = tokio::net::TcpStream::connect(addr);
        if let Ok(Ok(stream)) = tokio::time::timeout(Duration::from_millis(200), connect).await {
            queued.push(stream);
        }
    }
    let upstream =
        Upstream::connect(SERVICE, &format!("http://{addr}"), &Discovery::default()).unwrap();
    // Its health watch gives up at the connect time-out (2 s); from then on a
    // call is refused at once rather than waiting for that time-out again.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_refused_at_once(&upstream).await;
    drop((queued, listener));
}
