//! The split topology as Kubernetes runs it, as processes of the real binary:
//! each service on a PostgreSQL database of its own, with the settings the
//! manifests give them (`k8s/base/*.env` read as they are, plus what each
//! Deployment sets). Only what a cluster supplies by name differs: listen
//! addresses, the upstream URLs (where a cluster's headless Service would name
//! the replicas), key files and database URLs (Secrets), and the trusted proxy
//! range (the pod CIDR; here loopback). Used by `topology.rs` and `outages.rs`.

#![allow(dead_code)] // each test file uses its own part of the harness

mod load;

// The files bench includes this harness without the writers it re-exports.
#[allow(unused_imports)]
pub use load::*;

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use portal_kit::testing::TestKeys;
use prost::Message;
use serde_json::Value;
use sqlx::{Connection, Executor};

pub const PORTAL: &str = env!("CARGO_BIN_EXE_portal");
pub const ADMIN_PASSWORD: &str = "topology-admin-password";

/// `KEY=VALUE` lines of a kustomize env file (a ConfigMap's content).
pub fn env_file(name: &str) -> Vec<(String, String)> {
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

pub fn free_port(ip: IpAddr) -> u16 {
    std::net::TcpListener::bind((ip, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn loopback(last: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, last])
}

/// Fresh databases on the test server, dropped at the end.
pub struct Databases {
    admin_url: String,
    prefix: String,
    names: Vec<String>,
}

impl Databases {
    pub async fn create(admin_url: &str, services: &[&str]) -> Databases {
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
        Databases {
            admin_url: admin_url.to_owned(),
            prefix,
            names,
        }
    }

    pub fn url(&self, service: &str) -> String {
        portal_kit::testing::sibling_database_url(
            &self.admin_url,
            &format!("{}_{service}", self.prefix),
        )
    }

    /// What a PostgreSQL restart does to these databases, and to them alone
    /// (other tests run on the same server): with `away`, every session is
    /// ended and new ones are refused; without, they are let in again.
    pub async fn set_away(&self, away: bool) {
        let mut admin = sqlx::AnyConnection::connect(&self.admin_url).await.unwrap();
        for name in &self.names {
            admin
                .execute(sqlx::AssertSqlSafe(format!(
                    "ALTER DATABASE {name} ALLOW_CONNECTIONS {}",
                    !away
                )))
                .await
                .unwrap();
            if away {
                admin
                    .execute(sqlx::AssertSqlSafe(format!(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                         WHERE datname = '{name}'"
                    )))
                    .await
                    .unwrap();
            }
        }
    }

    pub async fn drop_all(self) {
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

/// The parts' addresses, directories, keys and databases, and the settings
/// each part gets from the image, its ConfigMap and its Deployment.
pub struct Topology {
    pub work: tempfile::TempDir,
    pub logs: PathBuf,
    pub keys: TestKeys,
    pub databases: Databases,
    pub auth: SocketAddr,
    pub education: Vec<SocketAddr>,
    pub wiki: SocketAddr,
    pub files: SocketAddr,
    link_key_file: PathBuf,
    internal_key_file: PathBuf,
}

impl Topology {
    /// Services on 127.0.0.1 but education, whose replicas are `education`.
    pub async fn new(admin_url: &str, education: Vec<SocketAddr>) -> Topology {
        let databases = Databases::create(admin_url, &["auth", "education", "wiki", "files"]).await;
        let work = tempfile::tempdir().unwrap();
        let web = work.path().join("web");
        std::fs::create_dir_all(&web).unwrap();
        std::fs::write(web.join("index.html"), "<!doctype html>portal").unwrap();
        let logs = work.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        let one = loopback(1);
        Topology {
            // The Secret `portal-files-link`, shared by every files replica.
            link_key_file: portal_files::app::links::ensure_key_file(work.path()).unwrap(),
            // The Secret `portal-internal`, shared by every service replica.
            internal_key_file: portal_kit::internal::ensure_key_file(work.path()).unwrap(),
            logs,
            keys: TestKeys::new(),
            databases,
            auth: SocketAddr::new(one, free_port(one)),
            education,
            wiki: SocketAddr::new(one, free_port(one)),
            files: SocketAddr::new(one, free_port(one)),
            work,
        }
    }

    /// What the image sets (Containerfile `ENV`), with its directories here.
    fn image_env(&self) -> Vec<(String, String)> {
        let dir = |name: &str| self.work.path().join(name).display().to_string();
        owned([
            ("PORTAL_WEB_DIR", dir("web")),
            ("PORTAL_DATA_DIR", dir("data")),
            ("PORTAL_HTTP_ADDR", "0.0.0.0:8080".to_owned()),
            ("PORTAL_LOG_FORMAT", "json".to_owned()),
        ])
    }

    /// A replica of `target` (auth, education, wiki, files) listening on `grpc`.
    pub fn service_env(&self, target: &str, grpc: SocketAddr) -> Vec<(String, String)> {
        let mut env = self.image_env();
        env.extend(env_file("service.env"));
        env.extend(owned([
            ("PORTAL_TARGET", target.to_owned()),
            ("PORTAL_DATABASE_URL", self.databases.url(target)),
            (
                "PORTAL_JWT_PUBLIC_KEY_FILE",
                self.keys.public_key_file.display().to_string(),
            ),
            ("PORTAL_GRPC_ADDR", grpc.to_string()),
            (
                "PORTAL_INTERNAL_KEY_FILE",
                self.internal_key_file.display().to_string(),
            ),
            (
                "PORTAL_METRICS_ADDR",
                SocketAddr::new(grpc.ip(), free_port(grpc.ip())).to_string(),
            ),
            ("PORTAL_TRUSTED_PROXIES", "127.0.0.0/8".to_owned()),
            // The init container migrated (`Process::pod`).
            ("PORTAL_MIGRATE", "check".to_owned()),
        ]));
        match target {
            "auth" => env.extend(owned([
                (
                    "PORTAL_JWT_PRIVATE_KEY_FILE",
                    self.keys.private_key_file.display().to_string(),
                ),
                ("PORTAL_ADMIN_PASSWORD", ADMIN_PASSWORD.to_owned()),
            ])),
            // Every replica asks auth whose tokens are stale (k8s/base/*.yaml).
            _ => env.push((
                "PORTAL_AUTH_URL".to_owned(),
                format!("http://{}", self.auth),
            )),
        }
        if target == "wiki" {
            // The wiki asks education who is cleared (k8s/base/wiki.yaml).
            env.push((
                "PORTAL_EDUCATION_URL".to_owned(),
                self.education
                    .iter()
                    .map(|a| format!("http://{a}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ));
        }
        if target == "education" {
            // The digest asks the wiki for its equipment items (k8s/base/education.yaml).
            env.push((
                "PORTAL_WIKI_URL".to_owned(),
                format!("http://{}", self.wiki),
            ));
        }
        if target == "files" {
            env.extend(owned([
                (
                    "PORTAL_FILES_STORE",
                    self.work.path().join("blobs").display().to_string(),
                ),
                // Files asks the wiki who sees a document's model (k8s/base/files.yaml).
                ("PORTAL_WIKI_URL", format!("http://{}", self.wiki)),
                (
                    "PORTAL_FILES_LINK_KEY_FILE",
                    self.link_key_file.display().to_string(),
                ),
            ]));
        }
        env
    }

    /// A gateway on 127.0.0.1:`port` to every service.
    pub fn gateway_env(&self, port: u16) -> Vec<(String, String)> {
        let one = loopback(1);
        let mut env = self.image_env();
        env.extend(env_file("gateway.env"));
        env.extend(owned([
            ("PORTAL_TARGET", "gateway".to_owned()),
            ("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}")),
            (
                "PORTAL_METRICS_ADDR",
                format!("127.0.0.1:{}", free_port(one)),
            ),
            ("PORTAL_AUTH_URL", format!("http://{}", self.auth)),
            (
                "PORTAL_EDUCATION_URL",
                self.education
                    .iter()
                    .map(|a| format!("http://{a}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            ("PORTAL_WIKI_URL", format!("http://{}", self.wiki)),
            ("PORTAL_FILES_URL", format!("http://{}", self.files)),
            ("PORTAL_TRUSTED_PROXIES", "127.0.0.0/8".to_owned()),
        ]));
        env
    }

    /// A replica of `target` as `name` on `grpc`, started as its pod is:
    /// `portal migrate` (the init container), then the service.
    pub fn spawn_service(&self, name: &str, target: &str, grpc: SocketAddr) -> Process {
        let env = self.service_env(target, grpc);
        if let Err(output) = portal_migrate(&env) {
            panic!("{name}: portal migrate failed:\n{output}");
        }
        Process::spawn(name, env, &self.logs)
    }

    /// A gateway process and its client, on a free port.
    pub fn spawn_gateway(&self) -> (Process, Gateway) {
        let port = free_port(loopback(1));
        let process = Process::spawn("gateway", self.gateway_env(port), &self.logs);
        let gateway = Gateway {
            base: format!("http://127.0.0.1:{port}"),
        };
        (process, gateway)
    }
}

/// `portal migrate` with a service's settings, as its init container runs it:
/// what it printed, as `Ok` when it exited 0.
pub fn portal_migrate(env: &[(String, String)]) -> Result<String, String> {
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

fn owned<const N: usize>(pairs: [(&str, String); N]) -> Vec<(String, String)> {
    pairs.map(|(k, v)| (k.to_owned(), v)).into()
}

/// One OS process of the real binary, its output in a log file.
pub struct Process {
    pub name: String,
    pub env: Vec<(String, String)>,
    pub log: PathBuf,
    child: Child,
}

impl Process {
    pub fn spawn(name: &str, env: Vec<(String, String)>, logs: &Path) -> Process {
        let log = logs.join(format!("{name}.log"));
        let child = Self::start(&env, &log);
        Process {
            name: name.to_owned(),
            env,
            log,
            child,
        }
    }

    pub fn start(env: &[(String, String)], log: &Path) -> Child {
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

    pub fn setting(&self, key: &str) -> &str {
        &self.env.iter().rev().find(|(k, _)| k == key).unwrap().1
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn kill_9(&mut self) {
        let status = Command::new("kill")
            .args(["-KILL", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        self.child.wait().unwrap();
    }

    pub fn restart(&mut self) {
        self.child = Self::start(&self.env, &self.log);
    }

    pub fn assert_alive(&mut self) {
        if let Some(status) = self.child.try_wait().unwrap() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            panic!("{} exited ({status}):\n{log}", self.name);
        }
    }

    pub async fn metrics(&self, http: &reqwest::Client) -> String {
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
pub fn rpc_calls(page: &str, server: &str) -> f64 {
    page.lines()
        .filter(|l| l.starts_with("portal_rpc_requests_total{"))
        .filter(|l| l.contains(&format!("server=\"{server}\"")))
        .filter(|l| l.contains(&format!("method=\"/{server}/")))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

pub struct Gateway {
    pub base: String,
}

impl Gateway {
    /// A REST POST's HTTP status and envelope; a transport failure as text.
    pub async fn post_answer(
        &self,
        http: &reqwest::Client,
        path: &str,
        token: &str,
        body: Value,
    ) -> Result<(reqwest::StatusCode, Value), String> {
        let response = http
            .post(format!("{}{path}", self.base))
            .bearer_auth(token)
            .json(&body)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let body: Value = response.json().await.map_err(|e| e.to_string())?;
        Ok((status, body))
    }

    pub async fn post(
        &self,
        http: &reqwest::Client,
        path: &str,
        token: &str,
        body: Value,
    ) -> Result<Value, String> {
        match self.post_answer(http, path, token, body).await? {
            (status, body) if status.is_success() => Ok(body["data"].clone()),
            (status, body) => Err(format!("{status}: {body}")),
        }
    }

    pub async fn get(&self, http: &reqwest::Client, path: &str, token: &str) -> Value {
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

    pub async fn grpc(&self) -> tonic::transport::Channel {
        tonic::transport::Endpoint::from_shared(self.base.clone())
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    /// A unary call in grpc-web's binary framing, as the browser sends it,
    /// that must succeed.
    pub async fn grpc_web<Reply: Message + Default>(
        &self,
        http: &reqwest::Client,
        method: &str,
        request: impl Message,
        token: &str,
    ) -> Reply {
        let (reply, trailers) = self.grpc_web_call(http, method, request, token).await;
        assert!(trailers.contains("grpc-status:0"), "{method}: {trailers}");
        reply.unwrap()
    }

    /// A unary grpc-web call: its reply, if any, and its trailers as text.
    pub async fn grpc_web_call<Reply: Message + Default>(
        &self,
        http: &reqwest::Client,
        method: &str,
        request: impl Message,
        token: &str,
    ) -> (Option<Reply>, String) {
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
        // A trailers-only answer (a status and nothing else) comes in the headers.
        let mut trailers: String = response
            .headers()
            .iter()
            .filter(|(name, _)| name.as_str().starts_with("grpc-"))
            .map(|(name, value)| format!("{name}:{}\r\n", value.to_str().unwrap_or_default()))
            .collect();
        let body = response.bytes().await.unwrap();
        let mut reply = None;
        let mut rest = &body[..];
        while rest.len() >= 5 {
            let length = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
            let data = &rest[5..5 + length];
            if rest[0] & 0x80 == 0 {
                reply = Some(Reply::decode(data).unwrap());
            } else {
                trailers.push_str(&String::from_utf8_lossy(data));
            }
            rest = &rest[5 + length..];
        }
        (reply, trailers)
    }

    /// `/readyz`: its HTTP status and body.
    pub async fn readyz(&self, http: &reqwest::Client) -> Option<(u16, String)> {
        let response = http
            .get(format!("{}/readyz", self.base))
            .send()
            .await
            .ok()?;
        let status = response.status().as_u16();
        Some((status, response.text().await.ok()?))
    }

    /// Waits until the gateway is ready and `/readyz` says every upstream
    /// serves, while every one of `processes` keeps running.
    pub async fn wait_serving(&self, http: &reqwest::Client, processes: &mut [&mut Process]) {
        self.wait_readyz(http, processes, |body| {
            body.lines().skip(1).all(|line| line.contains(": serving"))
        })
        .await;
    }

    /// Waits until the gateway is ready (`/readyz` 200), whatever its upstreams do.
    pub async fn wait_ready(&self, http: &reqwest::Client, processes: &mut [&mut Process]) {
        self.wait_readyz(http, processes, |_| true).await;
    }

    async fn wait_readyz(
        &self,
        http: &reqwest::Client,
        processes: &mut [&mut Process],
        enough: impl Fn(&str) -> bool,
    ) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some((200, body)) = self.readyz(http).await
                && enough(&body)
            {
                return;
            }
            for process in processes.iter_mut() {
                process.assert_alive();
            }
            assert!(
                Instant::now() < deadline,
                "{} not ready in 60 s: {:?}",
                self.base,
                self.readyz(http).await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
