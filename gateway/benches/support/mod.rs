//! What the benches share: the release `portal` binary started on free ports with
//! demo data, single services of the split topology beside it (on a fresh
//! PostgreSQL database), and a bounded-concurrency load that records each
//! call's latency.
// Each bench compiles this module for itself and uses only part of it.
#![allow(dead_code)]

use std::future::Future;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream;
use sqlx::Connection;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

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
    /// The wiki's and the files service's, the two after.
    pub wiki: String,
    pub files: String,
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
        wait_until_ready("portal", || http_ready(&base)).await;
        let service = |offset: u16| format!("http://127.0.0.1:{}", loopback + offset);
        Portal {
            child,
            base,
            auth: service(0),
            education: service(1),
            wiki: service(2),
            files: service(3),
            data,
        }
    }

    /// The key its auth signs access tokens with, for an auth of its own.
    pub fn private_key_file(&self) -> String {
        self.data
            .path()
            .join("jwt-private.pem")
            .display()
            .to_string()
    }

    /// The key every service verifies access tokens with.
    pub fn public_key_file(&self) -> std::path::PathBuf {
        self.data.path().join("jwt-public.pem")
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
        proc_status_mib(self.child.id(), field)
    }
}

/// A memory `field` of `/proc/<pid>/status`, in MiB.
fn proc_status_mib(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a memory figure");
    kib / 1024.0
}

impl Drop for Portal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `ready` until it says so, for at most a minute.
async fn wait_until_ready<F, Fut>(what: &str, ready: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready().await {
        assert!(Instant::now() < deadline, "{what} not ready in 60 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn http_ready(base: &str) -> bool {
    reqwest::get(format!("{base}/readyz"))
        .await
        .is_ok_and(|r| r.status().is_success())
}

async fn grpc_ready(url: &str) -> bool {
    let Ok(channel) = Endpoint::from_shared(url.to_owned())
        .expect("endpoint")
        .connect()
        .await
    else {
        return false;
    };
    HealthClient::new(channel)
        .check(HealthCheckRequest::default())
        .await
        .is_ok()
}

/// The PostgreSQL server the benches also measure on (`PORTAL_TEST_POSTGRES_URL`),
/// if one is named.
pub fn postgres_server() -> Option<String> {
    std::env::var("PORTAL_TEST_POSTGRES_URL")
        .ok()
        .filter(|server| !server.is_empty())
}

/// A fresh database of its own on a PostgreSQL server, for one service.
pub struct PostgresDatabase {
    server: String,
    name: String,
    pub url: String,
}

impl PostgresDatabase {
    pub async fn create(server: &str, service: &str) -> PostgresDatabase {
        let name = format!("portal_bench_{service}_{}", std::process::id());
        let mut admin = sqlx::AnyConnection::connect(server)
            .await
            .expect("PORTAL_TEST_POSTGRES_URL: the PostgreSQL server");
        for statement in [
            format!("DROP DATABASE IF EXISTS {name}"),
            format!("CREATE DATABASE {name}"),
        ] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&mut admin)
                .await
                .expect("a fresh bench database");
        }
        let (address, options) = server.split_once('?').unwrap_or((server, ""));
        let (host, _) = address.rsplit_once('/').expect("a database URL");
        let url = match options {
            "" => format!("{host}/{name}"),
            options => format!("{host}/{name}?{options}"),
        };
        PostgresDatabase {
            server: server.to_owned(),
            name,
            url,
        }
    }

    /// Drops the database, once the services on it have stopped.
    pub async fn drop(self) {
        let mut admin = sqlx::AnyConnection::connect(&self.server)
            .await
            .expect("the PostgreSQL server");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .execute(&mut admin)
        .await
        .expect("drop the bench database");
    }
}

/// One process of the split topology (`PORTAL_TARGET`: a service or the
/// gateway) from the release binary, beside `portal`, whose tokens it
/// trusts; stopped when dropped.
pub struct Process {
    child: Child,
    /// A service's gRPC URL, or the gateway's HTTP base.
    pub url: String,
    /// Its `/metrics` address.
    pub metrics: String,
}

impl Process {
    /// The service `target` on the database at `database`, with `env` on top.
    pub async fn service(
        target: &str,
        portal: &Portal,
        database: &str,
        env: &[(&str, &str)],
    ) -> Process {
        let port = free_ports(2);
        let url = format!("http://127.0.0.1:{port}");
        let child = Self::spawn(
            target,
            portal,
            &[
                ("PORTAL_DATABASE_URL", database),
                ("PORTAL_GRPC_ADDR", &format!("127.0.0.1:{port}")),
            ],
            port + 1,
            env,
        );
        wait_until_ready(target, || grpc_ready(&url)).await;
        Process {
            child,
            url,
            metrics: format!("http://127.0.0.1:{}/metrics", port + 1),
        }
    }

    /// A gateway in front of `auth` and the portal's other services.
    pub async fn gateway(portal: &Portal, auth: &str, env: &[(&str, &str)]) -> Process {
        let port = free_ports(2);
        let url = format!("http://127.0.0.1:{port}");
        let child = Self::spawn(
            "gateway",
            portal,
            &[
                ("PORTAL_HTTP_ADDR", &format!("127.0.0.1:{port}")),
                ("PORTAL_WEB_DIR", &portal.data.path().display().to_string()),
                ("PORTAL_AUTH_URL", auth),
                ("PORTAL_EDUCATION_URL", &portal.education),
                ("PORTAL_WIKI_URL", &portal.wiki),
                ("PORTAL_FILES_URL", &portal.files),
            ],
            port + 1,
            env,
        );
        wait_until_ready("gateway", || http_ready(&url)).await;
        Process {
            child,
            url,
            metrics: format!("http://127.0.0.1:{}/metrics", port + 1),
        }
    }

    fn spawn(
        target: &str,
        portal: &Portal,
        listen: &[(&str, &str)],
        metrics_port: u16,
        env: &[(&str, &str)],
    ) -> Child {
        let data = portal.data.path().join(format!("{target}-of-its-own"));
        std::fs::create_dir_all(&data).expect("data dir");
        Command::new(PORTAL)
            .env("PORTAL_TARGET", target)
            .env("PORTAL_DATA_DIR", &data)
            .env("PORTAL_METRICS_ADDR", format!("127.0.0.1:{metrics_port}"))
            .env("PORTAL_JWT_PUBLIC_KEY_FILE", portal.public_key_file())
            .env("PORTAL_LOG", "warn")
            .envs(listen.iter().copied())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("spawn the {target} target: {error}"))
    }

    /// Resident memory now.
    pub fn rss_mib(&self) -> f64 {
        proc_status_mib(self.child.id(), "VmRSS:")
    }
}

impl Drop for Process {
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
