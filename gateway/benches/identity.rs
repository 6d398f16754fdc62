//! `make bench`: the identity paths of the release `portal` binary, each against a
//! baseline measured in the same run on the same machine. Figures are ratios to
//! read in a closing note; nothing here asserts a time.
//!
//! - sign-in over REST vs the bare argon2id check it is built around;
//! - an authenticated read (REST `get-me`, gRPC `GetMe`) vs the gateway's
//!   `/healthz`, which touches no service;
//! - the process's resident memory after each burst vs its idle size.

use std::future::Future;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream;
use portal_auth::domain::password::{Password, Passwords, Queue};
use portal_proto::auth::v1::GetMeRequest;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use serde_json::Value;

const PORTAL: &str = env!("CARGO_BIN_EXE_portal");
const LOGIN: &str = "nurse";
const PASSWORD: &str = "nurse-demo-password";
const SIGN_INS: usize = 48;
const READS: usize = 4000;
/// Callers in flight at once: more than the machine's cores, as on a ward morning.
const CONCURRENCY: usize = 16;

struct Portal {
    child: Child,
    base: String,
    _data: tempfile::TempDir,
}

impl Portal {
    async fn start() -> Portal {
        let data = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let child = Command::new(PORTAL)
            .env("PORTAL_DATA_DIR", data.path())
            .env("PORTAL_WEB_DIR", data.path())
            .env("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}"))
            .env("PORTAL_ADMIN_PASSWORD", "bench-admin-password")
            .env("PORTAL_SEED_DEMO", "true")
            .env("PORTAL_LOG", "warn")
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
            _data: data,
        }
    }

    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status");
        let kib: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS");
        kib / 1024.0
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wall time for `count` calls of `call`, `CONCURRENCY` at a time.
async fn timed<F, Fut>(count: usize, call: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let started = Instant::now();
    stream::iter(0..count)
        .map(|_| call())
        .buffer_unordered(CONCURRENCY)
        .collect::<Vec<()>>()
        .await;
    started.elapsed()
}

fn per_call(total: Duration, count: usize) -> f64 {
    total.as_secs_f64() * 1e6 / count as f64
}

/// A Markdown table of per-call times; the first row is the baseline.
fn table(title: &str, baseline: &str, rows: &[(&str, f64)]) {
    println!("\n| {title} | per call | vs {baseline} |\n|---|---|---|");
    let base = rows.first().map_or(1.0, |&(_, micros)| micros);
    for (what, micros) in rows {
        println!("| {what} | {micros:.1} µs | {:.2}× |", micros / base);
    }
}

async fn sign_in(http: &reqwest::Client, base: &str) -> String {
    let reply: Value = http
        .post(format!("{base}/api/auth/login"))
        .json(&serde_json::json!({ "login": LOGIN, "password": PASSWORD }))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("sign in")
        .json()
        .await
        .expect("sign-in JSON");
    reply["data"]["accessToken"]
        .as_str()
        .expect("data.accessToken")
        .to_owned()
}

#[tokio::main]
async fn main() {
    let portal = Portal::start().await;
    let http = reqwest::Client::new();
    let base = portal.base.as_str();
    let binary_mib = std::fs::metadata(PORTAL).map_or(0.0, |m| m.len() as f64 / 1048576.0);
    let idle = portal.rss_mib();

    // Sign-in: the same argon2id check, with the same bounded concurrency, in this process.
    let passwords = Passwords::new().await.expect("password hasher");
    let password = Password::parse(PASSWORD).expect("demo password");
    let stored = passwords.hash(&password).await.expect("hash");
    let argon2 = timed(SIGN_INS, || async {
        assert!(
            passwords
                .verify(PASSWORD, Some(&stored), Queue::Ordinary)
                .await
                .expect("verify")
        );
    })
    .await;
    let rest_sign_in = timed(SIGN_INS, || async {
        sign_in(&http, base).await;
    })
    .await;
    let after_sign_ins = portal.rss_mib();

    // Reads: the gateway alone, then through to the auth service and its database.
    let token = sign_in(&http, base).await;
    let healthz = timed(READS, || async {
        http.get(format!("{base}/healthz"))
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .expect("healthz");
    })
    .await;
    let rest_get_me = timed(READS, || async {
        http.get(format!("{base}/api/user/get-me"))
            .bearer_auth(&token)
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .expect("get-me");
    })
    .await;
    let channel = tonic::transport::Endpoint::from_shared(portal.base.clone())
        .expect("endpoint")
        .connect()
        .await
        .expect("gRPC connection");
    let bearer: tonic::metadata::MetadataValue<_> =
        format!("Bearer {token}").parse().expect("header");
    let grpc_get_me = timed(READS, || {
        let mut client = AuthServiceClient::new(channel.clone());
        let mut request = tonic::Request::new(GetMeRequest {});
        request
            .metadata_mut()
            .insert("authorization", bearer.clone());
        async move {
            client.get_me(request).await.expect("GetMe");
        }
    })
    .await;
    let after_reads = portal.rss_mib();

    println!("portal (target all), {CONCURRENCY} callers in flight");
    table(
        &format!("sign-in ({SIGN_INS} calls)"),
        "bare argon2id",
        &[
            ("argon2id verify (baseline)", per_call(argon2, SIGN_INS)),
            ("POST /api/auth/login", per_call(rest_sign_in, SIGN_INS)),
        ],
    );
    table(
        &format!("read ({READS} calls)"),
        "/healthz",
        &[
            ("GET /healthz (baseline)", per_call(healthz, READS)),
            ("GET /api/user/get-me", per_call(rest_get_me, READS)),
            ("gRPC AuthService/GetMe", per_call(grpc_get_me, READS)),
        ],
    );
    println!("\n| memory | RSS | vs idle |");
    println!("|---|---|---|");
    for (what, mib) in [
        ("idle after start (baseline)", idle),
        ("after the sign-ins", after_sign_ins),
        ("after the reads", after_reads),
    ] {
        println!("| {what} | {mib:.1} MiB | {:.2}× |", mib / idle);
    }
    println!("\nrelease binary: {binary_mib:.1} MiB");
}
