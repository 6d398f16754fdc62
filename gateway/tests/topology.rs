//! The split topology, as Kubernetes runs it: auth, education (two replicas),
//! wiki, files and two gateways as separate processes of the real binary, each
//! service on a PostgreSQL database of its own, with the settings the manifests
//! give them (`k8s/base/*.env` read as they are, plus what each Deployment sets).
//! Only what a cluster supplies by name differs: listen addresses, the upstream
//! URLs (two education replicas on 127.0.0.2 and 127.0.0.3, where a cluster's
//! headless Service would name them), key files and database URLs (Secrets),
//! and the trusted proxy range (the pod CIDR; here loopback).
//!
//! A smoke flow (auth, education, a wiki read) goes through REST, native gRPC
//! and grpc-web on both gateways and must reach both education replicas (their
//! own /metrics tell). A right taken away is refused by both education
//! replicas, asked directly, once each has learned it from auth (the time is
//! printed). Then, under a steady write load, one education replica is
//! killed with SIGKILL (only calls in flight on it may fail; restarted, it takes
//! calls again), and so is auth, the lone replica, which is started again: the
//! time until writes succeed again is printed, and every write a client saw
//! acknowledged must be there afterwards.
//!
//! Each service process starts as its pod does: `portal migrate` first (the
//! init container), then the service with `PORTAL_MIGRATE=check`. Last, a
//! rollout and a rollback ([`roll_out_and_back`] says what is simulated).
//!
//! Needs PostgreSQL (`PORTAL_TEST_POSTGRES_URL`); without it the test says
//! SKIPPED, and fails instead under `PORTAL_REQUIRE_E2E=1` (CI).

mod support;

use std::collections::{BTreeMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portal_kit::db::Migrations;
use portal_kit::testing::TestKeys;
use portal_proto::auth::v1 as auth_pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::education::v1 as education_pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use prost::Message;
use serde_json::{Value, json};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{Connection, Executor, SqlSafeStr};

const PORTAL: &str = env!("CARGO_BIN_EXE_portal");
const ADMIN_PASSWORD: &str = "topology-admin-password";
const EDUCATION: &str = "portal.education.v1.EducationService";

/// `KEY=VALUE` lines of a kustomize env file (a ConfigMap's content).
fn env_file(name: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../k8s/base")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (key, value) = line.split_once('=').expect("KEY=VALUE");
            (key.to_owned(), value.to_owned())
        })
        .collect()
}

fn free_port(ip: IpAddr) -> u16 {
    std::net::TcpListener::bind((ip, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn loopback(last: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, last])
}

/// Fresh databases on the test server, dropped at the end.
struct Databases {
    admin_url: String,
    server: String,
    prefix: String,
    names: Vec<String>,
}

impl Databases {
    async fn create(admin_url: &str, services: &[&str]) -> Databases {
        sqlx::any::install_default_drivers();
        let prefix = format!("portal_topology_{}", rand_suffix());
        let mut admin = sqlx::AnyConnection::connect(admin_url).await.unwrap();
        let mut names = Vec::new();
        for service in services {
            let name = format!("{prefix}_{service}");
            admin
                .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .await
                .unwrap();
            names.push(name);
        }
        let base = admin_url.split('?').next().unwrap();
        let (server, _) = base.rsplit_once('/').unwrap();
        Databases {
            admin_url: admin_url.to_owned(),
            server: server.to_owned(),
            prefix,
            names,
        }
    }

    fn url(&self, service: &str) -> String {
        format!("{}/{}_{service}", self.server, self.prefix)
    }

    async fn drop_all(self) {
        let mut admin = sqlx::AnyConnection::connect(&self.admin_url).await.unwrap();
        for name in &self.names {
            admin
                .execute(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .await
                .unwrap();
        }
    }
}

fn rand_suffix() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
            ^ u128::from(std::process::id())
    )
}

/// One OS process of the real binary, its output in a log file.
struct Process {
    name: String,
    env: Vec<(String, String)>,
    log: PathBuf,
    child: Child,
}

impl Process {
    fn spawn(name: &str, env: Vec<(String, String)>, logs: &Path) -> Process {
        let log = logs.join(format!("{name}.log"));
        let child = Self::start(&env, &log);
        Process {
            name: name.to_owned(),
            env,
            log,
            child,
        }
    }

    /// A service's pod: `portal migrate` with its settings (the init
    /// container), then the service.
    fn pod(name: &str, env: Vec<(String, String)>, logs: &Path) -> Process {
        if let Err(output) = portal_migrate(&env) {
            panic!("{name}: portal migrate failed:\n{output}");
        }
        Process::spawn(name, env, logs)
    }

    fn start(env: &[(String, String)], log: &Path) -> Child {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        Command::new(PORTAL)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap()
    }

    fn setting(&self, key: &str) -> &str {
        &self.env.iter().rev().find(|(k, _)| k == key).unwrap().1
    }

    fn kill_9(&mut self) {
        let status = Command::new("kill")
            .args(["-KILL", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        self.child.wait().unwrap();
    }

    fn restart(&mut self) {
        self.child = Self::start(&self.env, &self.log);
    }

    fn assert_alive(&mut self) {
        if let Some(status) = self.child.try_wait().unwrap() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            panic!("{} exited ({status}):\n{log}", self.name);
        }
    }

    async fn metrics(&self, http: &reqwest::Client) -> String {
        let url = format!("http://{}/metrics", self.setting("PORTAL_METRICS_ADDR"));
        http.get(url).send().await.unwrap().text().await.unwrap()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Calls of `server`'s own RPCs (not health) in a replica's /metrics.
fn rpc_calls(page: &str, server: &str) -> f64 {
    page.lines()
        .filter(|l| l.starts_with("portal_rpc_requests_total{"))
        .filter(|l| l.contains(&format!("server=\"{server}\"")))
        .filter(|l| l.contains(&format!("method=\"/{server}/")))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

struct Gateway {
    base: String,
}

impl Gateway {
    async fn post(
        &self,
        http: &reqwest::Client,
        path: &str,
        token: &str,
        body: Value,
    ) -> Result<Value, String> {
        support::post_as(http, &format!("{}{path}", self.base), token, &body).await
    }

    async fn get(&self, http: &reqwest::Client, path: &str, token: &str) -> Value {
        let response = http
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .header("x-request-id", "topology-read-1")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        response.json::<Value>().await.unwrap()["data"].clone()
    }

    async fn grpc(&self) -> tonic::transport::Channel {
        tonic::transport::Endpoint::from_shared(self.base.clone())
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    /// A unary call in grpc-web's binary framing, as the browser sends it.
    async fn grpc_web<Reply: Message + Default>(
        &self,
        http: &reqwest::Client,
        method: &str,
        request: impl Message,
        token: &str,
    ) -> Reply {
        let payload = request.encode_to_vec();
        let mut frame = vec![0u8];
        frame.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
        frame.extend_from_slice(&payload);
        let response = http
            .post(format!("{}/{method}", self.base))
            .header("content-type", "application/grpc-web+proto")
            .header("x-grpc-web", "1")
            .bearer_auth(token)
            .body(frame)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let body = response.bytes().await.unwrap();
        let (mut reply, mut trailers) = (None, String::new());
        let mut rest = &body[..];
        while rest.len() >= 5 {
            let length = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
            let data = &rest[5..5 + length];
            if rest[0] & 0x80 == 0 {
                reply = Some(Reply::decode(data).unwrap());
            } else {
                trailers = String::from_utf8_lossy(data).into_owned();
            }
            rest = &rest[5 + length..];
        }
        assert!(trailers.contains("grpc-status:0"), "{method}: {trailers}");
        reply.unwrap()
    }
}

async fn wait_ready(http: &reqwest::Client, base: &str, processes: &mut [&mut Process]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = http
            .get(format!("{base}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if ready {
            return;
        }
        for process in processes.iter_mut() {
            process.assert_alive();
        }
        assert!(Instant::now() < deadline, "{base} not ready in 60 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What a steady write load saw.
#[derive(Default)]
struct Load {
    acknowledged: Vec<String>,
    failed: usize,
    first_error: Option<String>,
    /// Per writer, its first acknowledged write after the mark.
    first_success_after: BTreeMap<u8, Instant>,
}

/// Four writers, two on each gateway, each writing one new titled row after
/// another (`path` with `body(title)`), recording what was acknowledged.
struct Writers {
    load: Arc<Mutex<Load>>,
    mark: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    tasks: tokio::task::JoinSet<()>,
}

const WRITERS: u8 = 4;

impl Writers {
    fn start(
        gateways: &[Gateway; 2],
        http: &reqwest::Client,
        token: &str,
        path: &'static str,
        body: fn(&str) -> Value,
    ) -> Writers {
        let load = Arc::new(Mutex::new(Load::default()));
        let mark = Arc::new(Mutex::new(None::<Instant>));
        let stop = Arc::new(AtomicBool::new(false));
        let mut tasks = tokio::task::JoinSet::new();
        for worker in 0..WRITERS {
            let gateway = Gateway {
                base: gateways[usize::from(worker) % 2].base.clone(),
            };
            let (http, token) = (http.clone(), token.to_owned());
            let (load, mark, stop) = (load.clone(), mark.clone(), stop.clone());
            tasks.spawn(async move {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    i += 1;
                    let title = format!("Запись {worker}-{i}");
                    let result = gateway.post(&http, path, &token, body(&title)).await;
                    let now = Instant::now();
                    {
                        let mut load = load.lock().unwrap();
                        match result {
                            Ok(_) => {
                                load.acknowledged.push(title);
                                if mark.lock().unwrap().is_some_and(|m| now > m) {
                                    load.first_success_after.entry(worker).or_insert(now);
                                }
                            }
                            Err(error) => {
                                load.failed += 1;
                                load.first_error.get_or_insert(error);
                            }
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            });
        }
        Writers {
            load,
            mark,
            stop,
            tasks,
        }
    }

    /// Asserts the load is writing, after a while to get going.
    async fn assert_writing(&self) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let load = self.load.lock().unwrap();
        assert!(
            !load.acknowledged.is_empty(),
            "not writing: {:?}",
            load.first_error
        );
    }

    fn failed(&self) -> usize {
        self.load.lock().unwrap().failed
    }

    /// From now on, each writer's first acknowledged write is noted.
    fn mark(&self) -> Instant {
        let now = Instant::now();
        *self.mark.lock().unwrap() = Some(now);
        now
    }

    fn all_back(&self) -> bool {
        self.load.lock().unwrap().first_success_after.len() == usize::from(WRITERS)
    }

    async fn stop(mut self) -> Load {
        self.stop.store(true, Ordering::Relaxed);
        while self.tasks.join_next().await.is_some() {}
        std::mem::take(&mut *self.load.lock().unwrap())
    }
}

/// The acknowledged titles missing from `stored`.
fn lost<'a>(load: &'a Load, stored: &Value) -> Vec<&'a String> {
    let stored: HashSet<&str> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["title"].as_str().unwrap())
        .collect();
    load.acknowledged
        .iter()
        .filter(|title| !stored.contains(title.as_str()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_split_topology_serves_balances_and_recovers_from_a_killed_service() {
    let Some(admin_url) = std::env::var("PORTAL_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        if std::env::var("PORTAL_REQUIRE_E2E").as_deref() == Ok("1") {
            panic!("PORTAL_REQUIRE_E2E=1 but PORTAL_TEST_POSTGRES_URL is not set");
        }
        // Straight to stderr: the test harness swallows a passing test's eprintln!.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the split topology test needs PostgreSQL (set PORTAL_TEST_POSTGRES_URL)"
        );
        return;
    };
    let services = ["auth", "education", "wiki", "files"];
    let databases = Databases::create(&admin_url, &services).await;
    let keys = TestKeys::new();
    let work = tempfile::tempdir().unwrap();
    let web = work.path().join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("index.html"), "<!doctype html>portal").unwrap();
    let logs = work.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();

    // Addresses: services on 127.0.0.1, education's replicas on .2 and .3.
    let one = loopback(1);
    let auth_addr = SocketAddr::new(one, free_port(one));
    let education_port = free_port(loopback(2));
    let education_addrs = [2, 3].map(|i| SocketAddr::new(loopback(i), education_port));
    let wiki_addr = SocketAddr::new(one, free_port(one));
    let files_addr = SocketAddr::new(one, free_port(one));

    // What the image sets (Containerfile `ENV`), with its directories here.
    let data = work.path().join("data");
    let image_env = || {
        vec![
            ("PORTAL_WEB_DIR".to_owned(), web.display().to_string()),
            ("PORTAL_DATA_DIR".to_owned(), data.display().to_string()),
            ("PORTAL_HTTP_ADDR".to_owned(), "0.0.0.0:8080".to_owned()),
            ("PORTAL_LOG_FORMAT".to_owned(), "json".to_owned()),
        ]
    };
    let service_env = |target: &str, grpc: SocketAddr| {
        let mut env = image_env();
        env.extend(env_file("service.env"));
        env.extend(
            [
                ("PORTAL_TARGET", target.to_owned()),
                ("PORTAL_DATABASE_URL", databases.url(target)),
                (
                    "PORTAL_JWT_PUBLIC_KEY_FILE",
                    keys.public_key_file.display().to_string(),
                ),
                ("PORTAL_GRPC_ADDR", grpc.to_string()),
                (
                    "PORTAL_METRICS_ADDR",
                    SocketAddr::new(grpc.ip(), free_port(grpc.ip())).to_string(),
                ),
                ("PORTAL_TRUSTED_PROXIES", "127.0.0.0/8".to_owned()),
                // The init container migrated (`Process::pod`).
                ("PORTAL_MIGRATE", "check".to_owned()),
            ]
            .map(|(k, v)| (k.to_owned(), v)),
        );
        if target != "auth" {
            // Every replica asks auth whose tokens are stale (k8s/base/*.yaml).
            env.push(("PORTAL_AUTH_URL".to_owned(), format!("http://{auth_addr}")));
        }
        env
    };
    let mut auth_env = service_env("auth", auth_addr);
    auth_env.extend(
        [
            (
                "PORTAL_JWT_PRIVATE_KEY_FILE",
                keys.private_key_file.display().to_string(),
            ),
            ("PORTAL_ADMIN_PASSWORD", ADMIN_PASSWORD.to_owned()),
        ]
        .map(|(k, v)| (k.to_owned(), v)),
    );
    let mut files_env = service_env("files", files_addr);
    files_env.extend([
        (
            "PORTAL_FILES_STORE".to_owned(),
            work.path().join("blobs").display().to_string(),
        ),
        // Files asks the wiki who sees a document's model (k8s/base/files.yaml).
        ("PORTAL_WIKI_URL".to_owned(), format!("http://{wiki_addr}")),
        // The Secret `portal-files-link`, shared by every files replica.
        (
            "PORTAL_FILES_LINK_KEY_FILE".to_owned(),
            portal_files::app::links::ensure_key_file(work.path())
                .unwrap()
                .display()
                .to_string(),
        ),
    ]);

    let started = Instant::now();
    let mut auth = Process::pod("auth", auth_env, &logs);
    let mut education_a = Process::pod(
        "education-a",
        service_env("education", education_addrs[0]),
        &logs,
    );
    let mut education_b = Process::pod(
        "education-b",
        service_env("education", education_addrs[1]),
        &logs,
    );
    let mut wiki = Process::pod("wiki", service_env("wiki", wiki_addr), &logs);
    let mut files = Process::pod("files", files_env, &logs);
    let gateway_env = |port: u16| {
        let mut env = image_env();
        env.extend(env_file("gateway.env"));
        env.extend(
            [
                ("PORTAL_TARGET", "gateway".to_owned()),
                ("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}")),
                (
                    "PORTAL_METRICS_ADDR",
                    format!("127.0.0.1:{}", free_port(one)),
                ),
                ("PORTAL_AUTH_URL", format!("http://{auth_addr}")),
                (
                    "PORTAL_EDUCATION_URL",
                    education_addrs.map(|a| format!("http://{a}")).join(","),
                ),
                ("PORTAL_WIKI_URL", format!("http://{wiki_addr}")),
                ("PORTAL_FILES_URL", format!("http://{files_addr}")),
                ("PORTAL_TRUSTED_PROXIES", "127.0.0.0/8".to_owned()),
            ]
            .map(|(k, v)| (k.to_owned(), v)),
        );
        env
    };
    let ports = [free_port(one), free_port(one)];
    let mut gateway_processes =
        ports.map(|port| Process::spawn("gateway", gateway_env(port), &logs));
    let gateways = ports.map(|port| Gateway {
        base: format!("http://127.0.0.1:{port}"),
    });
    let http = reqwest::Client::new();
    for gateway in &gateways {
        let [g1, g2] = &mut gateway_processes;
        wait_ready(
            &http,
            &gateway.base,
            &mut [
                &mut auth,
                &mut education_a,
                &mut education_b,
                &mut wiki,
                &mut files,
                g1,
                g2,
            ],
        )
        .await;
    }
    println!(
        "topology: 7 processes ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Until each gateway's health streams have seen both education replicas
    // SERVING, calls alternate over all known ones anyway.

    // --- Smoke: sign in, read and write through REST, gRPC and grpc-web, on both gateways.
    let token = support::sign_in_admin(&http, &gateways[0].base, ADMIN_PASSWORD).await;
    let mut course_ids = HashSet::new();
    for (i, gateway) in gateways.iter().enumerate() {
        let department = gateway
            .post(
                &http,
                "/api/department/create",
                &token,
                json!({"title": format!("Отделение {i}"), "users": []}),
            )
            .await
            .unwrap();
        assert!(department["id"].as_i64().is_some());
        for j in 0..4 {
            let course = gateway
                .post(
                    &http,
                    "/api/course/create-course-with-user-and-articles",
                    &token,
                    json!({
                        "title": format!("Курс {i}-{j}"),
                        "description": "Обязательный курс",
                        "dateDeadline": "2030-01-31",
                        "userIds": [1],
                        "articleIds": [],
                    }),
                )
                .await
                .unwrap();
            course_ids.insert(course["id"].as_i64().unwrap());
        }
        let departments = gateway.get(&http, "/api/department/get-all", &token).await;
        assert_eq!(departments.as_array().unwrap().len(), i + 1);
        let courses = gateway
            .get(&http, "/api/course/get-all-courses", &token)
            .await;
        assert_eq!(courses.as_array().unwrap().len(), 4 * (i + 1));
        // The wiki answers from its own database (no equipment yet).
        let models = gateway
            .get(&http, "/api/environment-model/get-all", &token)
            .await;
        assert_eq!(models, json!([]));

        let channel = gateway.grpc().await;
        let mut request = tonic::Request::new(auth_pb::ListDepartmentsRequest {});
        request
            .metadata_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        let listed = AuthServiceClient::new(channel.clone())
            .list_departments(request)
            .await
            .unwrap()
            .into_inner();
        assert_eq!(listed.departments.len(), i + 1);
        for _ in 0..4 {
            let mut request = tonic::Request::new(education_pb::ListCoursesRequest {});
            request
                .metadata_mut()
                .insert("authorization", format!("Bearer {token}").parse().unwrap());
            let courses = EducationServiceClient::new(channel.clone())
                .list_courses(request)
                .await
                .unwrap()
                .into_inner();
            assert_eq!(courses.courses.len(), 4 * (i + 1));
        }

        let listed: auth_pb::ListDepartmentsResponse = gateway
            .grpc_web(
                &http,
                "portal.auth.v1.AuthService/ListDepartments",
                auth_pb::ListDepartmentsRequest {},
                &token,
            )
            .await;
        assert_eq!(listed.departments.len(), i + 1);
        for _ in 0..4 {
            let courses: education_pb::ListCoursesResponse = gateway
                .grpc_web(
                    &http,
                    &format!("{EDUCATION}/ListCourses"),
                    education_pb::ListCoursesRequest {},
                    &token,
                )
                .await;
            assert_eq!(courses.courses.len(), 4 * (i + 1));
        }
    }
    assert_eq!(course_ids.len(), 8);

    // Both education replicas took calls: each one's own /metrics says so.
    let counts = [
        rpc_calls(&education_a.metrics(&http).await, EDUCATION),
        rpc_calls(&education_b.metrics(&http).await, EDUCATION),
    ];
    println!(
        "topology: education calls per replica: {} at {}, {} at {}",
        counts[0], education_addrs[0], counts[1], education_addrs[1]
    );
    assert_eq!(counts[0] + counts[1], 2.0 * (4.0 + 1.0 + 4.0 + 4.0));
    assert!(
        counts.iter().all(|&c| c >= 4.0),
        "calls did not spread: {counts:?}"
    );
    // The request id the caller sent is in a service's JSON log line.
    let logged = [&education_a, &education_b].iter().any(|p| {
        std::fs::read_to_string(&p.log)
            .unwrap()
            .lines()
            .any(|l| l.starts_with('{') && l.contains("\"request_id\":\"topology-read-1\""))
    });
    assert!(logged, "no education log line carries the request id");

    // --- A right taken away: both education replicas refuse the old token,
    // each once it has asked auth (every second); the time is printed.
    let statuses = gateways[0]
        .get(&http, "/api/user/get-all-statuses", &token)
        .await;
    let working = statuses
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Работает")
        .unwrap()["id"]
        .clone();
    let editor = |rights: Value| {
        json!({
            "name": "Ольга", "surname": "Петрова", "lastName": "Ивановна",
            "login": "petrova", "password": "petrova-password",
            "email": "petrova@hospital.example", "status": { "id": working },
            "departments": [], "positions": [], "rights": rights,
        })
    };
    let created = gateways[0]
        .post(&http, "/api/user/create-user", &token, editor(json!([2])))
        .await
        .unwrap();
    let login = http
        .post(format!("{}/api/auth/login", gateways[1].base))
        .json(&json!({"login": "petrova", "password": "petrova-password"}))
        .send()
        .await
        .unwrap();
    let editor_token = login.json::<Value>().await.unwrap()["data"]["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut replicas = Vec::new();
    for addr in education_addrs {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        replicas.push(EducationServiceClient::new(channel));
    }
    let list_courses = |mut client: EducationServiceClient<tonic::transport::Channel>| {
        let mut request = tonic::Request::new(education_pb::ListCoursesRequest {});
        request.metadata_mut().insert(
            "authorization",
            format!("Bearer {editor_token}").parse().unwrap(),
        );
        async move { client.list_courses(request).await }
    };
    for replica in &replicas {
        list_courses(replica.clone()).await.unwrap();
    }
    let mut without_right = editor(json!([]));
    without_right["id"] = created["id"].clone();
    without_right["password"] = json!("");
    gateways[0]
        .post(&http, "/api/user/update-user", &token, without_right)
        .await
        .unwrap();
    let changed = Instant::now();
    let mut refused_after = [None, None];
    while refused_after.iter().any(Option::is_none) {
        for (replica, refused) in replicas.iter().zip(&mut refused_after) {
            if refused.is_some() {
                continue;
            }
            if let Err(status) = list_courses(replica.clone()).await {
                assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
                assert_eq!(
                    status
                        .metadata()
                        .get(portal_kit::error::REASON_KEY)
                        .unwrap(),
                    portal_kit::error::REASON_ACCESS_REVOKED
                );
                *refused = Some(changed.elapsed());
            }
        }
        assert!(
            changed.elapsed() < Duration::from_secs(30),
            "a removed right still accepted after 30 s: {refused_after:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let [a, b] = refused_after.map(|d| d.unwrap().as_millis());
    println!(
        "topology: a removed right refused by education at {} after {a} ms, at {} after {b} ms (both by {} ms)",
        education_addrs[0],
        education_addrs[1],
        a.max(b)
    );
    drop(replicas);

    // --- Kill -9 one education replica under a steady write load: the other
    // takes the calls; at most those in flight on the killed one fail.
    let writers = Writers::start(
        &gateways,
        &http,
        &token,
        "/api/course/create-course-with-user-and-articles",
        |title| json!({"title": title, "description": "Под нагрузкой", "dateDeadline": "2030-01-31", "userIds": [1], "articleIds": []}),
    );
    writers.assert_writing().await;
    education_b.kill_9();
    tokio::time::sleep(Duration::from_secs(1)).await;
    education_b.restart();
    // Back in the rotation: its new process takes calls again.
    let deadline = Instant::now() + Duration::from_secs(15);
    let rejoined = loop {
        education_b.assert_alive();
        let url = format!(
            "http://{}/metrics",
            education_b.setting("PORTAL_METRICS_ADDR")
        );
        if let Ok(response) = http.get(url).send().await {
            let calls = rpc_calls(&response.text().await.unwrap(), EDUCATION);
            if calls > 0.0 {
                break calls;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the restarted replica got no calls"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let load = writers.stop().await;
    println!(
        "topology: education-b killed (SIGKILL) under load: {} course writes acknowledged, {} failed (at most the {WRITERS} in flight may); restarted, it took calls again ({rejoined} by then)",
        load.acknowledged.len(),
        load.failed,
    );
    assert!(
        load.failed <= usize::from(WRITERS),
        "{} calls failed when one replica of two died",
        load.failed
    );
    let courses = gateways[0]
        .get(&http, "/api/course/get-all-courses", &token)
        .await;
    let missing = lost(&load, &courses);
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");

    // --- Kill -9 auth (one replica) under a steady write load, start it again.
    let writers = Writers::start(
        &gateways,
        &http,
        &token,
        "/api/department/create",
        |title| json!({"title": title, "users": []}),
    );
    writers.assert_writing().await;
    auth.kill_9();
    let kill_time = Instant::now();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let failed_while_down = writers.failed();
    let restart_time = writers.mark();
    auth.restart();
    let deadline = restart_time + Duration::from_secs(30);
    while !writers.all_back() {
        auth.assert_alive();
        assert!(Instant::now() < deadline, "writes did not recover in 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A little more steady load after recovery, then stop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let load = writers.stop().await;

    let first_back = *load.first_success_after.values().min().unwrap();
    let all_back = *load.first_success_after.values().max().unwrap();
    let recovery = first_back - restart_time;
    println!(
        "topology: auth killed (SIGKILL), started again {:.0} ms later; writes succeeded again {:.2} s after the restart ({:.2} s after the kill; every writer back after {:.2} s); {} refused while auth was down",
        (restart_time - kill_time).as_secs_f64() * 1000.0,
        recovery.as_secs_f64(),
        (first_back - kill_time).as_secs_f64(),
        (all_back - restart_time).as_secs_f64(),
        failed_while_down,
    );
    assert!(
        recovery < Duration::from_secs(5),
        "recovery took {recovery:?}"
    );
    // Every acknowledged write is there.
    let departments = gateways[1]
        .get(&http, "/api/department/get-all", &token)
        .await;
    let missing = lost(&load, &departments);
    println!(
        "topology: {} department writes acknowledged, {} lost",
        load.acknowledged.len(),
        missing.len()
    );
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");

    roll_out_and_back(
        &databases,
        &mut [
            &mut auth,
            &mut education_a,
            &mut education_b,
            &mut wiki,
            &mut files,
        ],
        &gateways,
        &http,
        &token,
    )
    .await;
    println!(
        "topology: finished in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    drop((
        auth,
        education_a,
        education_b,
        wiki,
        files,
        gateway_processes,
    ));
    databases.drop_all().await;
}

/// `portal migrate` with a service's settings, as its init container runs it:
/// what it printed, as `Ok` when it exited 0.
fn portal_migrate(env: &[(String, String)]) -> Result<String, String> {
    let output = Command::new(PORTAL)
        .arg("migrate")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(printed)
    } else {
        Err(printed)
    }
}

const SERVICES: [&str; 4] = ["auth", "education", "wiki", "files"];
/// The version the simulated release N+1 records in its mark.
const NEXT_RELEASE: &str = "next-release-fixture";

/// Release N+1 of `service`'s schema: this release's PostgreSQL migrations and
/// one more, `tests/fixtures/next-release/<service>.sql` (an expand step),
/// numbered after this release's newest. Compatible, it keeps this release's
/// oldest compatible reader, as an expand-only release does; otherwise it
/// names its own migration, as a release that contracts would.
fn next_release(service: &str, compatible: bool) -> (Migrations, i64) {
    let this_release = match service {
        "auth" => portal_auth::migrations(),
        "education" => portal_education::migrations(),
        "wiki" => portal_wiki::migrations(),
        "files" => portal_files::migrations(),
        _ => unreachable!("{service}"),
    };
    let mut steps: Vec<Migration> = this_release.postgres.iter().cloned().collect();
    let version = steps.iter().map(|m| m.version).max().unwrap() + 1;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/next-release")
        .join(format!("{service}.sql"));
    let sql = std::fs::read_to_string(&fixture).unwrap();
    steps.push(Migration::new(
        version,
        "next release: expand".into(),
        MigrationType::Simple,
        sqlx::AssertSqlSafe(sql).into_sql_str(),
        false,
    ));
    let migrations = Migrations {
        // The topology runs on PostgreSQL only.
        sqlite: Migrator::with_migrations(Vec::new()),
        postgres: Migrator::with_migrations(steps),
        release: NEXT_RELEASE,
        oldest_reader: if compatible {
            this_release.oldest_reader
        } else {
            version
        },
    };
    (migrations, version)
}

/// Reads and writes of every service through both gateways: a department
/// (auth), a course (education), an equipment model (wiki) and a document of it
/// (files), each listed back.
async fn serve_reads_and_writes(
    gateways: &[Gateway; 2],
    http: &reqwest::Client,
    token: &str,
    when: &str,
) {
    for (i, gateway) in gateways.iter().enumerate() {
        let title = format!("{when} {i}");
        let post = |path: &'static str, body: Value| async move {
            gateway
                .post(http, path, token, body)
                .await
                .unwrap_or_else(|e| panic!("{when}: {path}: {e}"))
        };
        post(
            "/api/department/create",
            json!({"title": title, "users": []}),
        )
        .await;
        let course = post(
            "/api/course/create-course-with-user-and-articles",
            json!({"title": title, "description": when, "dateDeadline": "2030-01-31", "userIds": [1], "articleIds": []}),
        )
        .await;
        let model = post(
            "/api/environment-model/create",
            json!({"name": title, "brandName": "Dräger", "description": when}),
        )
        .await;
        let model_id = model["id"].as_i64().unwrap();
        let document = reqwest::multipart::Form::new()
            .text("idRelated", model_id.to_string())
            .text("title", title.clone())
            .part(
                "file",
                reqwest::multipart::Part::bytes(b"%PDF-1.7\n%%EOF\n".to_vec())
                    .file_name("passport.pdf"),
            );
        let saved = http
            .post(format!("{}/api/file/save", gateway.base))
            .bearer_auth(token)
            .multipart(document)
            .send()
            .await
            .unwrap();
        assert_eq!(
            saved.status(),
            200,
            "{when}: {}",
            saved.text().await.unwrap()
        );

        let titles = |listed: Value, field: &str| -> Vec<String> {
            listed
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row[field].as_str().unwrap().to_owned())
                .collect()
        };
        let departments = gateway.get(http, "/api/department/get-all", token).await;
        assert!(titles(departments, "title").contains(&title), "{when}");
        let courses = gateway
            .get(http, "/api/course/get-all-courses", token)
            .await;
        assert!(
            courses
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == course["id"]),
            "{when}"
        );
        let models = gateway
            .get(http, "/api/environment-model/get-all", token)
            .await;
        assert!(titles(models, "name").contains(&title), "{when}");
        let documents = gateway
            .get(
                http,
                &format!("/api/file/get-files?idRelated={model_id}"),
                token,
            )
            .await;
        assert_eq!(titles(documents, "title"), [title], "{when}");
    }
}

/// A rollout and a rollback, simulated on the running topology (release N is
/// this build). Release N+1 is simulated by what its `portal migrate` would do:
/// kit's `db::migrate` (the very step `portal migrate` runs) with N's
/// migrations plus one expand migration per service from
/// `tests/fixtures/next-release/` (a nullable column, backfilled where there
/// are rows, and a new table), recording N+1's mark, which names N's oldest
/// compatible reader. N+1's binaries themselves are not run: nothing of N+1
/// but its schema and mark exists. Then:
///
/// - N's running processes keep serving reads and writes on N+1's schema (the
///   old pods of a rolling update);
/// - a rollback: every N process stops and starts again as a pod does, N's
///   `portal migrate` first (applies nothing and succeeds; N+1's migration
///   stays), then N in `check` mode, which starts and serves reads and writes;
/// - N+1's mark rewritten as a release that contracts would leave it (its own
///   migration as the oldest reader): N's `portal migrate` and a new N process
///   of each service refuse, naming both releases and their newest migrations.
async fn roll_out_and_back(
    databases: &Databases,
    services: &mut [&mut Process],
    gateways: &[Gateway; 2],
    http: &reqwest::Client,
    token: &str,
) {
    let mut next_versions = BTreeMap::new();
    for service in SERVICES {
        let (next, version) = next_release(service, true);
        let migrated = portal_kit::db::migrate(&databases.url(service), &next)
            .await
            .unwrap();
        assert_eq!(migrated.applied, [version], "{service}");
        next_versions.insert(service, version);
    }
    serve_reads_and_writes(gateways, http, token, "N на схеме N+1").await;

    let rolled_back = Instant::now();
    for process in services.iter_mut() {
        process.kill_9();
        let target = process.setting("PORTAL_TARGET").to_owned();
        let printed = portal_migrate(&process.env).unwrap_or_else(|e| panic!("{target}: {e}"));
        let up_to_date = format!(
            "{target} database is up to date: newest migration {}, applied now: none",
            next_versions[target.as_str()]
        );
        assert!(printed.contains(&up_to_date), "{target}: {printed}");
        process.restart();
    }
    for gateway in gateways {
        wait_ready(http, &gateway.base, services).await;
    }
    println!(
        "topology: rolled back onto N+1's schema: every service's `portal migrate` a no-op, all ready in {:.1} s",
        rolled_back.elapsed().as_secs_f64()
    );
    serve_reads_and_writes(gateways, http, token, "N после отката").await;
    for service in SERVICES {
        let mut connection = sqlx::AnyConnection::connect(&databases.url(service))
            .await
            .unwrap();
        let (kept,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM _sqlx_migrations WHERE version = $1")
                .bind(next_versions[service])
                .fetch_one(&mut connection)
                .await
                .unwrap();
        assert_eq!(kept, 1, "{service}: N+1's migration stays");
    }

    for service in SERVICES {
        let (contracting, _) = next_release(service, false);
        portal_kit::db::migrate(&databases.url(service), &contracting)
            .await
            .unwrap();
    }
    let version = env!("CARGO_PKG_VERSION");
    for target in SERVICES {
        // One process of each service (education has two).
        let process = services
            .iter()
            .find(|p| p.setting("PORTAL_TARGET") == target)
            .unwrap();
        let next = next_versions[target];
        let refusal = format!(
            "this binary is release {version} (newest migration {}); the database holds migration {next} of release {NEXT_RELEASE}, which runs binaries whose newest migration is {next} or later",
            next - 1
        );
        let printed = portal_migrate(&process.env).expect_err(target);
        assert!(printed.contains(&refusal), "{target}: {printed}");

        // A new process of N on other ports, as a new pod would be.
        let ip: IpAddr = process
            .setting("PORTAL_GRPC_ADDR")
            .parse::<SocketAddr>()
            .unwrap()
            .ip();
        let mut env = process.env.clone();
        env.push((
            "PORTAL_GRPC_ADDR".to_owned(),
            SocketAddr::new(ip, free_port(ip)).to_string(),
        ));
        env.push((
            "PORTAL_METRICS_ADDR".to_owned(),
            SocketAddr::new(ip, free_port(ip)).to_string(),
        ));
        let log = process.log.with_file_name(format!("{target}-refused.log"));
        let mut child = Process::start(&env, &log);
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "{target} started on an incompatible schema"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let printed = std::fs::read_to_string(&log).unwrap();
        assert!(
            !status.success() && printed.contains(&refusal),
            "{target}: {printed}"
        );
    }
    println!(
        "topology: N refused N+1's schema once N+1 marked itself incompatible (migrate and start)"
    );
}
