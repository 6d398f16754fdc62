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
//! - the resident memory of the process auth runs in after each burst vs its
//!   idle size.
//!
//! Each figure twice: on the portal (target `all`, SQLite), and, when
//! `PORTAL_TEST_POSTGRES_URL` names a server, on an auth service of its own on a
//! fresh PostgreSQL database behind a gateway of its own (the split topology;
//! the portal serves the other services). A figure that differs by more than 2×
//! between them gets a line saying why.
//!
//! Every load is `CONCURRENCY` calls in flight on one HTTP/2 connection, as a
//! gateway or a busy client holds them. A service adds its reads to
//! [`read_rows`] as they land, against its own health check.
//! `PORTAL_BENCH_READS` sets the calls per read row (20,000).

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

use support::{CONCURRENCY, Load, PORTAL, Portal, PostgresDatabase, Process, channel, load};

const LOGIN: &str = "nurse";
const PASSWORD: &str = "nurse-demo-password";
const SIGN_INS: usize = 48;
/// Calls per read row, after a warm-up of a tenth as many (`PORTAL_BENCH_READS`).
fn reads_per_row() -> usize {
    std::env::var("PORTAL_BENCH_READS")
        .ok()
        .and_then(|reads| reads.parse().ok())
        .unwrap_or(20_000)
}

/// Why a figure differs by more than 2× between the backends, by its row.
fn why_backends_differ(what: &str) -> &'static str {
    match what {
        w if w.contains("Health") => {
            "the split auth serves only itself, the portal's shares two cores with the gateway and three other services"
        }
        w if w.contains("storm") || w.contains("browser") => {
            "each sign-in's writes go to PostgreSQL over TCP with a fsync per commit; SQLite's are a local file in WAL mode"
        }
        _ => {
            "each query is a round trip to the PostgreSQL server over TCP; SQLite reads the file in the process"
        }
    }
}

/// One figure on both backends; a line of why when they differ by over 2×.
fn compare(what: &str, sqlite: f64, postgres: Option<f64>, notes: &mut Vec<String>) {
    let Some(postgres) = postgres else { return };
    let ratio = (postgres / sqlite).max(sqlite / postgres);
    if ratio > 2.0 {
        notes.push(format!(
            "- {what}: {ratio:.1}× between SQLite and PostgreSQL: {}",
            why_backends_differ(what)
        ));
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
/// A person's sign-ins measured on an idle portal.
const PERSON_SIGN_INS: usize = 12;
/// At most so many sign-ins of each browser during the storm.
const PERSON_SIGN_INS_IN_STORM: usize = 200;

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

/// A person's sign-ins during the storm: how many got in, of how many, and
/// their median time.
#[derive(Clone, Copy)]
struct Person {
    ok: usize,
    all: usize,
    median_ms: f64,
}

struct Storm {
    took: Duration,
    idle_ms: f64,
    own: Person,
    new_device: Person,
    statuses: Vec<u16>,
}

/// A person's sign-ins from their own browser and from a new one, on an idle
/// portal and while `STORM` wrong sign-ins from rotating addresses arrive.
async fn sign_in_storm(http: &reqwest::Client, base: &str) -> Storm {
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
    // Each browser signs in again and again until the storm ends, beside the
    // other: a new browser's slow sign-in must not leave the own browser one
    // sample of the whole storm.
    let (own, new_device) = tokio::join!(
        sign_ins_during(&storm, http, base, person, Some(&device)),
        sign_ins_during(&storm, http, base, person, None),
    );
    let (storm_time, statuses) = storm.await.expect("storm");

    let succeeded = |runs: &[(u16, Duration, Option<String>)]| {
        let ok: Vec<Duration> = runs.iter().filter(|r| r.0 == 200).map(|r| r.1).collect();
        Person {
            ok: ok.len(),
            all: runs.len(),
            median_ms: median_millis(ok),
        }
    };
    Storm {
        took: storm_time,
        idle_ms: median_millis(idle),
        own: succeeded(&own),
        new_device: succeeded(&new_device),
        statuses,
    }
}

/// A person's sign-ins from `device` (a new browser without) one after the
/// other until `storm` ends, at most `PERSON_SIGN_INS_IN_STORM`.
async fn sign_ins_during<T>(
    storm: &tokio::task::JoinHandle<T>,
    http: &reqwest::Client,
    base: &str,
    person: (&str, &str),
    device: Option<&str>,
) -> Vec<(u16, Duration, Option<String>)> {
    let mut runs = Vec::new();
    while !storm.is_finished() && runs.len() < PERSON_SIGN_INS_IN_STORM {
        runs.push(timed_sign_in(http, base, person, device, None).await);
    }
    runs
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

/// Where one backend's figures come from: a gateway and the auth behind it,
/// and the process auth runs in (for its memory).
struct Setup<'a> {
    base: &'a str,
    auth: &'a str,
    rss_mib: &'a dyn Fn() -> f64,
}

/// Everything measured on one backend.
struct Figures {
    argon2: Load,
    rest_sign_in: Load,
    storm: Storm,
    reads: Vec<(&'static str, Load)>,
    /// Idle, after the sign-ins, after the storm, after the reads.
    memory: [f64; 4],
}

impl Figures {
    fn rate(&self, wanted: &str) -> f64 {
        self.reads
            .iter()
            .find(|(what, _)| *what == wanted)
            .map_or(f64::NAN, |(_, load)| load.per_second())
    }

    fn floor(&self) -> f64 {
        self.reads
            .first()
            .map_or(1.0, |(_, load)| load.per_second())
    }
}

async fn measure(setup: &Setup<'_>) -> Figures {
    let http = reqwest::Client::new();
    let base = setup.base;
    let idle = (setup.rss_mib)();

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
    let after_sign_ins = (setup.rss_mib)();
    let storm = sign_in_storm(&http, base).await;
    let after_storm = (setup.rss_mib)();

    // Reads: the transport floor, then a signed-in read direct and through the gateway.
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let connections = Connections {
        service: channel(setup.auth).await,
        gateway: channel(base).await,
        rest: Client::builder(TokioExecutor::new())
            .http2_only(true)
            .build(connector),
        gateway_base: base.to_owned(),
        bearer: format!("Bearer {}", sign_in(&http, base, &device).await)
            .parse()
            .expect("bearer header"),
    };
    let calls = reads_per_row();
    let mut reads = Vec::new();
    for (what, via, read) in read_rows() {
        let channel = match via {
            Via::Service => &connections.service,
            Via::Gateway => &connections.gateway,
        };
        load(calls / 10, || connections.call(read, channel)).await;
        reads.push((what, load(calls, || connections.call(read, channel)).await));
    }
    Figures {
        argon2,
        rest_sign_in,
        storm,
        reads,
        memory: [idle, after_sign_ins, after_storm, (setup.rss_mib)()],
    }
}

#[tokio::main]
async fn main() {
    sqlx::any::install_default_drivers();
    // Metrics recorded as in production, in both columns (a process of its
    // own always serves them).
    let metrics_addr = format!("127.0.0.1:{}", support::free_ports(1));
    let portal = Portal::start(&[
        ("PORTAL_SEED_DEMO", "true"),
        // The storm's rotating addresses arrive as X-Forwarded-For from loopback.
        ("PORTAL_TRUSTED_PROXIES", "127.0.0.1/32"),
        ("PORTAL_METRICS_ADDR", &metrics_addr),
    ])
    .await;
    let binary_mib = std::fs::metadata(PORTAL).map_or(0.0, |m| m.len() as f64 / 1048576.0);
    let sqlite = measure(&Setup {
        base: &portal.base,
        auth: &portal.auth,
        rss_mib: &|| portal.rss_mib(),
    })
    .await;
    let postgres = match support::postgres_server() {
        Some(server) => {
            let database = PostgresDatabase::create(&server, "auth").await;
            let private_key = portal.private_key_file();
            // The gateway forwards the storm's addresses, as it does in a cluster.
            let trusted = ("PORTAL_TRUSTED_PROXIES", "127.0.0.1/32");
            let auth = Process::service(
                "auth",
                &portal,
                &database.url,
                &[
                    ("PORTAL_JWT_PRIVATE_KEY_FILE", &private_key),
                    ("PORTAL_SEED_DEMO", "true"),
                    ("PORTAL_ADMIN_PASSWORD", "bench-admin-password"),
                    trusted,
                ],
            )
            .await;
            let gateway = Process::gateway(&portal, &auth.url, &[trusted]).await;
            let figures = measure(&Setup {
                base: &gateway.url,
                auth: &auth.url,
                rss_mib: &|| auth.rss_mib(),
            })
            .await;
            drop((gateway, auth));
            database.drop().await;
            Some(figures)
        }
        None => None,
    };
    report(&sqlite, postgres.as_ref());
    println!("\nrelease binary: {binary_mib:.1} MiB");
}

/// Which of a backend's figures a row shows.
type LoadOf = fn(&Figures) -> &Load;
type PersonOf = fn(&Storm) -> Person;
type ShareOf = fn(&Figures) -> f64;

/// The tables, a column per backend; "not measured" without PostgreSQL.
fn report(sqlite: &Figures, postgres: Option<&Figures>) {
    let mut notes = Vec::new();
    let absent = "not measured (set PORTAL_TEST_POSTGRES_URL)";
    println!(
        "identity, {CONCURRENCY} callers in flight: SQLite is the portal (target all, demo data); PostgreSQL an auth of its own behind a gateway of its own (split topology)"
    );

    println!(
        "\n| sign-in ({SIGN_INS} calls) | SQLite per call | vs bare argon2id | PostgreSQL per call | vs bare argon2id |\n|---|---|---|---|---|"
    );
    let sign_in_rows: [(&str, LoadOf); 2] = [
        ("argon2id verify (baseline)", |f| &f.argon2),
        ("POST /api/auth/login (a known device)", |f| &f.rest_sign_in),
    ];
    for (what, load) in sign_in_rows {
        let cells = |figures: &Figures| {
            let micros = load(figures).per_call_micros();
            format!(
                "{micros:.1} µs | {:.2}×",
                micros / figures.argon2.per_call_micros()
            )
        };
        println!(
            "| {what} | {} | {} |",
            cells(sqlite),
            postgres.map_or(format!("{absent} |"), cells)
        );
        compare(
            what,
            load(sqlite).per_call_micros(),
            postgres.map(|f| load(f).per_call_micros()),
            &mut notes,
        );
    }

    let storm_time = |figures: &Figures| format!("{:.1} s", figures.storm.took.as_secs_f64());
    println!(
        "\n| sign-in storm: {STORM} wrong sign-ins, {STORM_CONCURRENCY} in flight, rotating addresses (SQLite {}, PostgreSQL {}) | SQLite signed in | median | vs idle | PostgreSQL signed in | median | vs idle |\n|---|---|---|---|---|---|---|",
        storm_time(sqlite),
        postgres.map_or("-".to_owned(), storm_time),
    );
    let person_rows: [(&str, PersonOf); 3] = [
        ("a person's own browser, idle portal (baseline)", |s| {
            Person {
                ok: PERSON_SIGN_INS,
                all: PERSON_SIGN_INS,
                median_ms: s.idle_ms,
            }
        }),
        ("the same browser during the storm", |s| s.own),
        ("a new browser during the storm", |s| s.new_device),
    ];
    for (what, person) in person_rows {
        let cells = |figures: &Figures| {
            let p = person(&figures.storm);
            format!(
                "{} of {} | {:.1} ms | {:.2}×",
                p.ok,
                p.all,
                p.median_ms,
                p.median_ms / figures.storm.idle_ms
            )
        };
        println!(
            "| {what} | {} | {} |",
            cells(sqlite),
            postgres.map_or(format!("{absent} | |"), cells)
        );
        compare(
            what,
            person(&sqlite.storm).median_ms,
            postgres.map(|f| person(&f.storm).median_ms),
            &mut notes,
        );
    }
    let answers = |figures: &Figures| {
        let statuses = &figures.storm.statuses;
        let count = |code: u16| statuses.iter().filter(|&&s| s == code).count();
        format!(
            "{} × 401 wrong password, {} × 503 hashing queue full, {} × 429 limited, {} other",
            count(401),
            count(503),
            count(429),
            statuses.len() - count(401) - count(503) - count(429)
        )
    };
    println!("\nthe storm's answers on SQLite: {}", answers(sqlite));
    if let Some(postgres) = postgres {
        println!("the storm's answers on PostgreSQL: {}", answers(postgres));
    }

    let calls = reads_per_row();
    println!(
        "\n| read ({calls} calls, one HTTP/2 connection) | SQLite req/s | share of the floor | p50 | p99 | PostgreSQL req/s | share of the floor | p50 | p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (index, (what, load)) in sqlite.reads.iter().enumerate() {
        let cells = |figures: &Figures, load: &Load| {
            format!(
                "{:.0} | {:.0} % | {:.2} ms | {:.2} ms",
                load.per_second(),
                load.per_second() / figures.floor() * 100.0,
                load.percentile_millis(50),
                load.percentile_millis(99),
            )
        };
        let on_postgres = postgres.map(|f| (f, &f.reads[index].1));
        println!(
            "| {what} | {} | {} |",
            cells(sqlite, load),
            on_postgres.map_or(format!("{absent} | | |"), |(f, load)| cells(f, load))
        );
        compare(
            what,
            load.per_second(),
            on_postgres.map(|(_, load)| load.per_second()),
            &mut notes,
        );
    }
    const DIRECT: &str = "auth: GetMe signed in, direct";
    const REST: &str = "gateway → auth: REST GET /api/user/get-me";
    let targets: [(&str, ShareOf); 2] = [
        ("signed-in read direct ≥ 50 % of the floor", |f| {
            f.rate(DIRECT) / f.floor()
        }),
        ("REST through the gateway ≥ 80 % of direct gRPC", |f| {
            f.rate(REST) / f.rate(DIRECT)
        }),
    ];
    println!("\n| target | SQLite | PostgreSQL |\n|---|---|---|");
    for (what, share) in targets {
        let percent = |figures: &Figures| format!("{:.0} %", share(figures) * 100.0);
        println!(
            "| {what} | {} | {} |",
            percent(sqlite),
            postgres.map_or(absent.to_owned(), percent)
        );
    }

    println!(
        "\n| memory of the process auth runs in | SQLite (the portal) RSS | vs idle | PostgreSQL (auth alone) RSS | vs idle |\n|---|---|---|---|---|"
    );
    let stages = [
        "idle after start (baseline)",
        "after the sign-ins",
        "after the sign-in storm",
        "after the reads",
    ];
    for (index, what) in stages.into_iter().enumerate() {
        let cells = |figures: &Figures| {
            let mib = figures.memory[index];
            format!("{mib:.1} MiB | {:.2}×", mib / figures.memory[0])
        };
        println!(
            "| {what} | {} | {} |",
            cells(sqlite),
            postgres.map_or(format!("{absent} |"), cells)
        );
    }
    if !notes.is_empty() {
        println!("\nfigures that differ by more than 2× between the backends:");
        for note in notes {
            println!("{note}");
        }
    }
}
