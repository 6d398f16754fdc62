//! What the benches share: the release `portal` binary started on free ports with
//! demo data, and a bounded-concurrency load that records each call's latency.
// Each bench compiles this module for itself and uses only part of it.
#![allow(dead_code)]

use std::future::Future;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream;
use tonic::transport::{Channel, Endpoint};

pub const PORTAL: &str = env!("CARGO_BIN_EXE_portal");
/// Callers in flight at once: more than the machine's cores, as on a ward morning.
pub const CONCURRENCY: usize = 16;

pub struct Portal {
    child: Child,
    pub base: String,
    /// The auth service's own port inside `all` (`PORTAL_LOOPBACK_PORT`).
    pub auth: String,
    /// The education service's own port inside `all` (the next one).
    pub education: String,
    /// `PORTAL_DATA_DIR`: the SQLite files and the generated key pair.
    pub data: tempfile::TempDir,
}

impl Portal {
    /// Starts the release binary (target `all`) with `env` on top of the
    /// defaults here, and waits until it is ready.
    pub async fn start(env: &[(&str, &str)]) -> Portal {
        let data = tempfile::tempdir().expect("temp dir");
        // The four services' loopback ports, then the gateway's.
        let loopback = free_ports(5);
        let port = loopback + 4;
        let child = Command::new(PORTAL)
            .env("PORTAL_DATA_DIR", data.path())
            .env("PORTAL_WEB_DIR", data.path())
            .env("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}"))
            .env("PORTAL_LOOPBACK_PORT", loopback.to_string())
            .env("PORTAL_ADMIN_PASSWORD", "bench-admin-password")
            .env("PORTAL_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn portal");
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while !reqwest::get(format!("{base}/readyz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            assert!(Instant::now() < deadline, "portal not ready in 60 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Portal {
            child,
            base,
            auth: format!("http://127.0.0.1:{loopback}"),
            education: format!("http://127.0.0.1:{}", loopback + 1),
            data,
        }
    }

    /// Resident memory now.
    pub fn rss_mib(&self) -> f64 {
        self.status_mib("VmRSS:")
    }

    /// The highest resident memory since the start.
    pub fn peak_rss_mib(&self) -> f64 {
        self.status_mib("VmHWM:")
    }

    fn status_mib(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status");
        let kib: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a memory figure");
        kib / 1024.0
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first of `count` consecutive ports free on loopback right now.
pub fn free_ports(count: u16) -> u16 {
    loop {
        let first = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let Some(last) = first.checked_add(count - 1) else {
            continue;
        };
        let listeners: Result<Vec<_>, _> = (first..=last)
            .map(|port| std::net::TcpListener::bind(("127.0.0.1", port)))
            .collect();
        if listeners.is_ok() {
            return first;
        }
    }
}

/// `count` calls, `CONCURRENCY` at a time: the wall time and each call's latency.
pub struct Load {
    pub elapsed: Duration,
    /// Sorted.
    pub latencies: Vec<Duration>,
}

impl Load {
    pub fn per_call_micros(&self) -> f64 {
        self.elapsed.as_secs_f64() * 1e6 / self.latencies.len() as f64
    }

    pub fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

    pub fn percentile_millis(&self, percent: usize) -> f64 {
        let index = (self.latencies.len() * percent / 100).min(self.latencies.len() - 1);
        self.latencies[index].as_secs_f64() * 1e3
    }
}

pub async fn load<F, Fut>(count: usize, call: F) -> Load
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let started = Instant::now();
    let mut latencies: Vec<Duration> = stream::iter(0..count)
        .map(|_| {
            let call = call();
            async move {
                let began = Instant::now();
                call.await;
                began.elapsed()
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Load { elapsed, latencies }
}

pub async fn channel(url: &str) -> Channel {
    Endpoint::from_shared(url.to_owned())
        .expect("endpoint")
        .tcp_nodelay(true)
        .connect()
        .await
        .expect("gRPC connection")
}

/// `count` questions on hand hygiene, four answers each, the first correct.
pub fn questions(count: usize) -> Vec<portal_proto::education::v1::Question> {
    use portal_proto::education::v1 as pb;
    (1..=count)
        .map(|i| pb::Question {
            id: 0,
            title: format!("Вопрос {i} о гигиене рук"),
            answers: (1..=4)
                .map(|a| pb::Answer {
                    id: 0,
                    title: format!("Ответ {a}"),
                    is_correct: a == 1,
                })
                .collect(),
        })
        .collect()
}
