//! `make bench`: the identity paths of the release `portal` binary, each against a
//! baseline measured in the same run on the same machine. Figures are ratios to
//! read in a closing note; nothing here asserts a time.
//!
//! - sign-in over REST vs the bare argon2id check it is built around;
//! - a signed-in read vs the gRPC transport floor: the health check of the
//!   service itself (straight to its loopback port), then the same read direct,
//!   through the gateway as gRPC and as REST, with rates and latency under load;
//! - a sign-in storm: a person's sign-in while 1,000 wrong ones arrive from
//!   rotating addresses, vs the same sign-in on an idle portal;
//! - the process's resident memory after each burst vs its idle size.
//!
//! Every load is `CONCURRENCY` calls in flight on one HTTP/2 connection, as a
//! gateway or a busy client holds them. A service adds its reads to
//! [`read_rows`] as they land, against its own health check.

mod support;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use portal_auth::domain::password::{Password, Passwords, Queue};
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::auth::v1::{GetMeRequest, ListRightsRequest};
use serde_json::Value;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use support::{CONCURRENCY, Load, PORTAL, Portal, channel, load};

const LOGIN: &str = "nurse";
const PASSWORD: &str = "nurse-demo-password";
const SIGN_INS: usize = 48;
/// Calls per read row, after a warm-up of a tenth as many.
const READS: usize = 20_000;

/// A Markdown table of per-call times; the first row is the baseline.
fn table(title: &str, baseline: &str, rows: &[(&str, Load)]) {
    println!("\n| {title} | per call | vs {baseline} |\n|---|---|---|");
    let base = rows.first().map_or(1.0, |(_, load)| load.per_call_micros());
    for (what, load) in rows {
        let micros = load.per_call_micros();
        println!("| {what} | {micros:.1} µs | {:.2}× |", micros / base);
    }
}

/// The nurse signs in from her own browser (its device token), as every morning:
/// parallel sign-ins of one person from unknown devices count as guesses.
async fn sign_in(http: &reqwest::Client, base: &str, device: &str) -> String {
    let reply: Value = http
        .post(format!("{base}/api/auth/login"))
        .header("cookie", format!("portal_device={device}"))
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

/// Wrong sign-ins in the storm, and how many are in flight at once.
const STORM: usize = 1_000;
const STORM_CONCURRENCY: usize = 64;
/// A person's sign-ins measured on an idle portal, and at most during the storm.
const PERSON_SIGN_INS: usize = 12;

/// A sign-in's HTTP status and time; `device` is the browser's device token.
async fn timed_sign_in(
    http: &reqwest::Client,
    base: &str,
    (login, password): (&str, &str),
    device: Option<&str>,
    address: Option<String>,
) -> (u16, Duration, Option<String>) {
    let mut request = http
        .post(format!("{base}/api/auth/login"))
        .json(&serde_json::json!({ "login": login, "password": password }));
    if let Some(device) = device {
        request = request.header("cookie", format!("portal_device={device}"));
    }
    if let Some(address) = address {
        request = request.header("x-forwarded-for", address);
    }
    let began = Instant::now();
    let response = request.send().await.expect("sign-in answered");
    let elapsed = began.elapsed();
    let device = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| c.strip_prefix("portal_device="))
        .and_then(|c| c.split(';').next())
        .map(str::to_owned);
    (response.status().as_u16(), elapsed, device)
}

fn median_millis(mut times: Vec<Duration>) -> f64 {
    times.sort_unstable();
    times
        .get(times.len() / 2)
        .map_or(f64::NAN, |t| t.as_secs_f64() * 1e3)
}

/// A person's sign-ins from their own browser and from a new one, on an idle
/// portal and while `STORM` wrong sign-ins from rotating addresses arrive: the
/// report's lines.
async fn sign_in_storm(http: &reqwest::Client, base: &str) -> Vec<String> {
    let person = ("doctor", "doctor-demo-password");
    let (_, _, device) = timed_sign_in(http, base, person, None, None).await;
    let device = device.expect("a device token");
    let mut idle = Vec::new();
    for _ in 0..PERSON_SIGN_INS {
        let (status, took, _) = timed_sign_in(http, base, person, Some(&device), None).await;
        assert_eq!(status, 200, "idle sign-in");
        idle.push(took);
    }

    let storm = tokio::spawn({
        let (http, base) = (http.clone(), base.to_owned());
        async move {
            let started = Instant::now();
            let statuses: Vec<u16> = stream::iter(0..STORM)
                .map(|i| {
                    let (http, base) = (&http, base.as_str());
                    async move {
                        let address = format!("198.18.{}.{}", i / 250, i % 250 + 1);
                        let guess = format!("guess{i}");
                        let wrong = (guess.as_str(), "wrong-password");
                        timed_sign_in(http, base, wrong, None, Some(address))
                            .await
                            .0
                    }
                })
                .buffer_unordered(STORM_CONCURRENCY)
                .collect()
                .await;
            (started.elapsed(), statuses)
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (mut own, mut new_device) = (Vec::new(), Vec::new());
    for _ in 0..PERSON_SIGN_INS {
        if storm.is_finished() {
            break;
        }
        own.push(timed_sign_in(http, base, person, Some(&device), None).await);
        new_device.push(timed_sign_in(http, base, person, None, None).await);
    }
    let (storm_time, statuses) = storm.await.expect("storm");

    let idle_ms = median_millis(idle);
    let succeeded = |runs: &[(u16, Duration, Option<String>)]| {
        let ok: Vec<Duration> = runs.iter().filter(|r| r.0 == 200).map(|r| r.1).collect();
        (ok.len(), runs.len(), median_millis(ok))
    };
    let mut lines = vec![
        format!(
            "\n| sign-in storm: {STORM} wrong sign-ins, {STORM_CONCURRENCY} in flight, rotating addresses, {:.1} s | signed in | median | vs idle |",
            storm_time.as_secs_f64()
        ),
        "|---|---|---|---|".to_owned(),
        format!(
            "| a person's own browser, idle portal (baseline) | {PERSON_SIGN_INS} of {PERSON_SIGN_INS} | {idle_ms:.1} ms | 1.00× |"
        ),
    ];
    for (what, runs) in [
        ("the same browser during the storm", &own),
        ("a new browser during the storm", &new_device),
    ] {
        let (ok, all, median) = succeeded(runs);
        lines.push(format!(
            "| {what} | {ok} of {all} | {median:.1} ms | {:.2}× |",
            median / idle_ms
        ));
    }
    let count = |code: u16| statuses.iter().filter(|&&s| s == code).count();
    lines.push(format!(
        "\nthe storm's answers: {} × 401 wrong password, {} × 503 hashing queue full, {} × 429 limited, {} other",
        count(401),
        count(503),
        count(429),
        statuses.len() - count(401) - count(503) - count(429)
    ));
    lines
}

/// How one read row calls: a gRPC method on a channel, or a REST GET.
#[derive(Clone, Copy)]
enum Read {
    Health,
    ListRights,
    GetMe,
    Rest(&'static str),
}

/// One HTTP/2 connection each to a service's own port and to the gateway.
struct Connections {
    service: Channel,
    gateway: Channel,
    rest: Client<HttpConnector, Empty<Bytes>>,
    gateway_base: String,
    bearer: MetadataValue<Ascii>,
}

impl Connections {
    async fn call(&self, read: Read, channel: &Channel) {
        match read {
            Read::Health => {
                let reply = HealthClient::new(channel.clone())
                    .check(HealthCheckRequest::default())
                    .await
                    .expect("Health/Check");
                assert_eq!(reply.into_inner().status(), ServingStatus::Serving);
            }
            Read::ListRights => {
                AuthServiceClient::new(channel.clone())
                    .list_rights(self.authorized(ListRightsRequest {}))
                    .await
                    .expect("ListRights");
            }
            Read::GetMe => {
                AuthServiceClient::new(channel.clone())
                    .get_me(self.authorized(GetMeRequest {}))
                    .await
                    .expect("GetMe");
            }
            Read::Rest(path) => {
                let request = http::Request::get(format!("{}{path}", self.gateway_base))
                    .header(http::header::AUTHORIZATION, self.bearer.as_bytes())
                    .body(Empty::new())
                    .expect("REST request");
                let response = self.rest.request(request).await.expect("REST call");
                assert!(response.status().is_success(), "{path}");
                response.into_body().collect().await.expect("REST body");
            }
        }
    }

    fn authorized<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request
            .metadata_mut()
            .insert("authorization", self.bearer.clone());
        request
    }
}

/// Where a read row goes: straight to the service, or through the gateway.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    Service,
    Gateway,
}

/// The reads of the table, the floor first. A service adds its rows here as its
/// reads land (its own health check as its floor, beside auth's).
fn read_rows() -> Vec<(&'static str, Via, Read)> {
    vec![
        (
            "auth: grpc.health.v1.Health/Check (the floor)",
            Via::Service,
            Read::Health,
        ),
        (
            "auth: ListRights signed in (token check + one small query)",
            Via::Service,
            Read::ListRights,
        ),
        ("auth: GetMe signed in, direct", Via::Service, Read::GetMe),
        ("gateway → auth: GetMe (gRPC)", Via::Gateway, Read::GetMe),
        (
            "gateway → auth: REST GET /api/user/get-me",
            Via::Gateway,
            Read::Rest("/api/user/get-me"),
        ),
    ]
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
    let argon2 = load(SIGN_INS, || async {
        assert!(
            passwords
                .verify(PASSWORD, Some(&stored), Queue::Ordinary)
                .await
                .expect("verify")
        );
    })
    .await;
    let (_, _, device) = timed_sign_in(&http, base, (LOGIN, PASSWORD), None, None).await;
    let device = device.expect("a device token");
    let rest_sign_in = load(SIGN_INS, || async {
        sign_in(&http, base, &device).await;
    })
    .await;
    let after_sign_ins = portal.rss_mib();
    let storm = sign_in_storm(&http, base).await;
    let after_storm = portal.rss_mib();

    // Reads: the transport floor, then a signed-in read direct and through the gateway.
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let connections = Connections {
        service: channel(&portal.auth).await,
        gateway: channel(base).await,
        rest: Client::builder(TokioExecutor::new())
            .http2_only(true)
            .build(connector),
        gateway_base: portal.base.clone(),
        bearer: format!("Bearer {}", sign_in(&http, base, &device).await)
            .parse()
            .expect("bearer header"),
    };
    let mut reads = Vec::new();
    for (what, via, read) in read_rows() {
        let channel = match via {
            Via::Service => &connections.service,
            Via::Gateway => &connections.gateway,
        };
        load(READS / 10, || connections.call(read, channel)).await;
        reads.push((what, load(READS, || connections.call(read, channel)).await));
    }
    let after_reads = portal.rss_mib();

    println!("portal (target all, SQLite, demo data), {CONCURRENCY} callers in flight");
    table(
        &format!("sign-in ({SIGN_INS} calls)"),
        "bare argon2id",
        &[
            ("argon2id verify (baseline)", argon2),
            ("POST /api/auth/login (a known device)", rest_sign_in),
        ],
    );
    for line in storm {
        println!("{line}");
    }

    println!(
        "\n| read ({READS} calls, one HTTP/2 connection) | req/s | share of the floor | p50 | p99 |"
    );
    println!("|---|---|---|---|---|");
    let floor = reads.first().map_or(1.0, |(_, load)| load.per_second());
    for (what, load) in &reads {
        println!(
            "| {what} | {:.0} | {:.0} % | {:.2} ms | {:.2} ms |",
            load.per_second(),
            load.per_second() / floor * 100.0,
            load.percentile_millis(50),
            load.percentile_millis(99),
        );
    }
    let rate = |wanted: &str| {
        reads
            .iter()
            .find(|(what, _)| *what == wanted)
            .map_or(f64::NAN, |(_, load)| load.per_second())
    };
    let direct = rate("auth: GetMe signed in, direct");
    let rest = rate("gateway → auth: REST GET /api/user/get-me");
    println!("\n| target | now |\n|---|---|");
    println!(
        "| signed-in read direct ≥ 50 % of the floor | {:.0} % |",
        direct / floor * 100.0
    );
    println!(
        "| REST through the gateway ≥ 80 % of direct gRPC | {:.0} % |",
        rest / direct * 100.0
    );

    println!("\n| memory | RSS | vs idle |");
    println!("|---|---|---|");
    for (what, mib) in [
        ("idle after start (baseline)", idle),
        ("after the sign-ins", after_sign_ins),
        ("after the sign-in storm", after_storm),
        ("after the reads", after_reads),
    ] {
        println!("| {what} | {mib:.1} MiB | {:.2}× |", mib / idle);
    }
    println!("\nrelease binary: {binary_mib:.1} MiB");
}
