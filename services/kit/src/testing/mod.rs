//! Helpers for services' black-box tests: a fresh database per test on each backend
//! (SQLite always, PostgreSQL when `PORTAL_TEST_POSTGRES_URL` is set), signing
//! keys that mint tokens for any caller, the service itself started on a loopback
//! port, and the checks every service's tests make: status codes, the
//! authorization matrix and the XSS corpus.

mod matrix;
mod search;
mod totp;

pub use matrix::*;
pub use search::{SEARCH_MATRIX, assert_search_access, search_as, shared_search};
pub use totp::{away_from_a_step_edge, totp_code};

use std::fmt::Debug;
use std::future::Future;
use std::path::PathBuf;

use sqlx::{Connection, Executor};
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::service::Routes;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

use crate::access::{Right, Scope};
use crate::account_limits::ServiceAccountLimits;
use crate::db::Backend;
use crate::internal::InternalKeys;
use crate::readiness::Readiness;
use crate::serve::serve_grpc;
use crate::token::{ServiceAccountSubject, Subject, TokenIssuer, TokenVerifier, ensure_key_pair};

pub const POSTGRES_URL_VAR: &str = "PORTAL_TEST_POSTGRES_URL";

/// The test server's admin URL (`PORTAL_TEST_POSTGRES_URL`) for a test that
/// needs PostgreSQL itself; without it the test says SKIPPED (`what` it needs
/// it for), and fails instead under `PORTAL_REQUIRE_E2E=1` (CI), so a run
/// that was meant to cover PostgreSQL cannot pass by skipping it.
pub fn postgres_or_skip(what: &str) -> Option<String> {
    let url = std::env::var(POSTGRES_URL_VAR)
        .ok()
        .filter(|url| !url.is_empty());
    if url.is_none() {
        if std::env::var("PORTAL_REQUIRE_E2E").as_deref() == Ok("1") {
            panic!(
                "PORTAL_REQUIRE_E2E=1 but {POSTGRES_URL_VAR} is not set: {what} needs PostgreSQL"
            );
        }
        // Straight to stderr: the test harness swallows a passing test's eprintln!.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {what} needs PostgreSQL (set {POSTGRES_URL_VAR})"
        );
    }
    url
}

/// The backends this run tests on.
pub fn backends() -> Vec<Backend> {
    let mut backends = vec![Backend::Sqlite];
    if std::env::var(POSTGRES_URL_VAR).is_ok_and(|url| !url.is_empty()) {
        backends.push(Backend::Postgres);
    }
    backends
}

/// A database that exists for one test and is dropped after it.
pub struct TestDatabase {
    pub url: String,
    _dir: Option<TempDir>,
    postgres: Option<(String, String)>,
}

impl TestDatabase {
    pub async fn new(backend: Backend) -> TestDatabase {
        sqlx::any::install_default_drivers();
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
                TestDatabase {
                    url,
                    _dir: Some(dir),
                    postgres: None,
                }
            }
            Backend::Postgres => {
                let admin_url = std::env::var(POSTGRES_URL_VAR).expect("PORTAL_TEST_POSTGRES_URL");
                let name = format!("portal_test_{}", hex::encode(rand::random::<[u8; 6]>()));
                let mut admin = sqlx::AnyConnection::connect(&admin_url)
                    .await
                    .expect("connect to PostgreSQL");
                admin
                    .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .await
                    .expect("create test database");
                TestDatabase {
                    url: sibling_database_url(&admin_url, &name),
                    _dir: None,
                    postgres: Some((admin_url, name)),
                }
            }
        }
    }
}

/// The URL of database `name` on the server `url` names, with `url`'s
/// options (`sslmode`, certificates) kept.
pub fn sibling_database_url(url: &str, name: &str) -> String {
    let (base, options) = match url.split_once('?') {
        Some((base, options)) => (base, Some(options)),
        None => (url, None),
    };
    let (server, _) = base.rsplit_once('/').expect("database URL with a path");
    match options {
        Some(options) => format!("{server}/{name}?{options}"),
        None => format!("{server}/{name}"),
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Some((admin_url, name)) = self.postgres.take() else {
            return;
        };
        // Drop runs inside the test's runtime, which cannot be blocked on; a
        // thread with its own runtime drops the database.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let mut admin = sqlx::AnyConnection::connect(&admin_url).await.ok()?;
                admin
                    .execute(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .await
                    .ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(_))) {
            eprintln!("warning: test database was not dropped");
        }
    }
}

/// A key pair in a temporary directory, minting tokens as auth would.
pub struct TestKeys {
    _dir: TempDir,
    pub public_key_file: PathBuf,
    pub private_key_file: PathBuf,
    pub issuer: TokenIssuer,
    pub verifier: TokenVerifier,
    /// The services' calls to each other.
    pub internal: InternalKeys,
}

impl TestKeys {
    pub fn new() -> TestKeys {
        let dir = tempfile::tempdir().expect("temp dir");
        let (private_key_file, public_key_file) = ensure_key_pair(dir.path()).expect("key pair");
        let internal = crate::internal::ensure_key_file(dir.path())
            .and_then(|path| InternalKeys::from_file(&path))
            .expect("internal key");
        TestKeys {
            internal,
            issuer: TokenIssuer::from_pem_file(&private_key_file).expect("private key"),
            verifier: TokenVerifier::from_pem_file(&public_key_file).expect("public key"),
            public_key_file,
            private_key_file,
            _dir: dir,
        }
    }

    /// A bearer token for user `user_id` holding `rights`, member of `departments`.
    pub fn token(&self, user_id: i64, rights: &[Right], departments: &[i64]) -> String {
        sign(&self.issuer, user_id, rights, departments)
    }

    /// A bearer token for service account `account_id` granted `scopes`.
    pub fn service_token(&self, account_id: i64, scopes: &[Scope]) -> String {
        sign_service(&self.issuer, account_id, scopes)
    }
}

/// A token `issuer` signs for service account `account_id` granted `scopes`:
/// for tests that hold a running portal's key.
pub fn sign_service(issuer: &TokenIssuer, account_id: i64, scopes: &[Scope]) -> String {
    issuer
        .issue_service_account(ServiceAccountSubject {
            account_id,
            name: format!("Система {account_id}"),
            client_id: format!("client-{account_id}"),
            scopes: scopes.to_vec(),
            // Its scopes are the test's, not the database's: never stale.
            access_version: i64::MAX,
        })
        .expect("token")
}

/// A token `issuer` signs for user `user_id` holding `rights`, member of
/// `departments`: for tests and benches that hold a running portal's key.
pub fn sign(issuer: &TokenIssuer, user_id: i64, rights: &[Right], departments: &[i64]) -> String {
    issuer
        .issue(Subject {
            user_id,
            login: format!("user{user_id}"),
            name: "Тест".into(),
            surname: "Тестов".into(),
            last_name: "Тестович".into(),
            rights: rights.iter().map(|r| r.as_str().to_owned()).collect(),
            departments: departments.to_vec(),
            // Its rights are the test's, not the database's: never stale.
            access_version: i64::MAX,
        })
        .expect("token")
}

impl Default for TestKeys {
    fn default() -> Self {
        Self::new()
    }
}

/// A gRPC service started for one test on a loopback port, with a fresh database
/// of its backend and fresh keys; it stops when dropped. A service's tests wrap
/// it in their own `TestApp` (see [`test_app!`](crate::test_app)) to add their
/// fixtures.
pub struct ServiceHarness<C> {
    // First, so the service is told to stop before its database goes.
    _serving: DropGuard,
    pub client: C,
    /// The channel `client` wraps, for the clients of the service's other
    /// contracts served beside it.
    pub channel: Channel,
    pub keys: TestKeys,
    pub backend: Backend,
    pub database: TestDatabase,
}

impl<C> ServiceHarness<C> {
    /// Starts service `service_name` on `backend`: `routes` builds it from the
    /// database URL and the keys, `client` wraps a channel to it.
    pub async fn start<R, E>(
        backend: Backend,
        service_name: &'static str,
        routes: impl FnOnce(String, &TestKeys) -> R,
        client: impl FnOnce(Channel) -> C,
    ) -> ServiceHarness<C>
    where
        R: Future<Output = Result<Routes, E>>,
        E: Debug,
    {
        Self::start_with_keys(backend, TestKeys::new(), service_name, routes, client).await
    }

    /// [`start`](Self::start) with `keys`, for a test that starts another
    /// service trusting the same keys first.
    pub async fn start_with_keys<R, E>(
        backend: Backend,
        keys: TestKeys,
        service_name: &'static str,
        routes: impl FnOnce(String, &TestKeys) -> R,
        client: impl FnOnce(Channel) -> C,
    ) -> ServiceHarness<C>
    where
        R: Future<Output = Result<Routes, E>>,
        E: Debug,
    {
        let database = TestDatabase::new(backend).await;
        let routes = routes(database.url.clone(), &keys)
            .await
            .unwrap_or_else(|error| panic!("{service_name} starts: {error:?}"));
        let (channel, serving) = serve(service_name, routes).await;
        ServiceHarness {
            _serving: serving,
            client: client(channel.clone()),
            channel,
            keys,
            backend,
            database,
        }
    }

    /// Stops the service and serves `routes` (built on the same database and
    /// keys) in its place, as a second start of the process would; `client`
    /// talks to the new one.
    pub async fn restart(
        &mut self,
        service_name: &'static str,
        routes: Routes,
        client: impl FnOnce(Channel) -> C,
    ) {
        let (channel, serving) = serve(service_name, routes).await;
        self._serving = serving;
        self.client = client(channel.clone());
        self.channel = channel;
    }
}

/// Declares `TestApp`, a service's [`ServiceHarness`] over client `$client`
/// (it derefs to it), for the service's tests to add their fixtures to as
/// methods: a type of their own may have them, the harness may not.
#[macro_export]
macro_rules! test_app {
    ($client:ty) => {
        pub struct TestApp($crate::testing::ServiceHarness<$client>);

        impl ::std::ops::Deref for TestApp {
            type Target = $crate::testing::ServiceHarness<$client>;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }
    };
}

/// Serves `routes` (service `service_name`) on a random loopback port: a channel
/// to it, and the guard that stops it when dropped.
pub async fn serve(service_name: &'static str, routes: Routes) -> (Channel, DropGuard) {
    let (listener, _) = reserve().await;
    let address = listener.local_addr().expect("local address");
    let serving = serve_on(listener, service_name, routes);
    let channel = Endpoint::from_shared(format!("http://{address}"))
        .expect("service URL")
        .connect()
        .await
        .unwrap_or_else(|error| panic!("connect to {service_name}: {error}"));
    (channel, serving)
}

/// A random loopback port, bound, and a channel that connects to it at its
/// first call: for two services that call each other, one is given the
/// other's channel before the other is started ([`serve_on`]).
pub async fn reserve() -> (TcpListener, Channel) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a port");
    let address = listener.local_addr().expect("local address");
    let channel = Endpoint::from_shared(format!("http://{address}"))
        .expect("service URL")
        .connect_lazy();
    (listener, channel)
}

/// Serves `routes` (service `service_name`) on `listener`; the guard stops it
/// when dropped.
pub fn serve_on(listener: TcpListener, service_name: &'static str, routes: Routes) -> DropGuard {
    let shutdown = CancellationToken::new();
    tokio::spawn(serve_grpc(
        listener,
        service_name,
        routes,
        Readiness::always(),
        ServiceAccountLimits::default(),
        shutdown.clone(),
    ));
    shutdown.drop_guard()
}

/// Runs `scenario` once on every backend of this run (SQLite, and PostgreSQL
/// when `PORTAL_TEST_POSTGRES_URL` is set), each time on what `spawn` starts.
pub async fn on_each_backend<A, S, F>(spawn: impl Fn(Backend) -> S, scenario: impl Fn(A) -> F)
where
    S: Future<Output = A>,
    F: Future<Output = ()>,
{
    for backend in backends() {
        eprintln!("--- on {backend:?}");
        scenario(spawn(backend).await).await;
    }
}

/// The read marks `url`'s service keeps once the housekeeping its start
/// began beside the serving ([`crate::housekeeping`]) has forgotten those
/// older than [`crate::read_marks::KEEP_DAYS`]; waits up to 10 s for it.
pub async fn read_marks_after_housekeeping(url: &str) -> Vec<String> {
    let pool = sqlx::AnyPool::connect(url)
        .await
        .expect("connect to the test database");
    let oldest_kept = crate::db::now_millis() - crate::read_marks::KEEP_DAYS * 24 * 60 * 60 * 1000;
    for _ in 0..500 {
        let old: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM notification_reads WHERE read_at < $1")
                .bind(oldest_kept)
                .fetch_one(&pool)
                .await
                .expect("the old marks");
        if old == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let kept = sqlx::query_scalar("SELECT item_key FROM notification_reads ORDER BY item_key")
        .fetch_all(&pool)
        .await
        .expect("the marks");
    pool.close().await;
    kept
}

/// A request carrying `token` as its bearer token.
pub fn authed<T>(message: T, token: &str) -> Request<T> {
    with_token(message, Some(token))
}

/// A request carrying `token` as its bearer token, if any.
pub fn with_token<T>(message: T, token: Option<&str>) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(token) = token {
        request.metadata_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().expect("header value"),
        );
    }
    request
}

/// The code a call answered with (`Ok` for success).
pub fn code<T>(result: &Result<T, Status>) -> Code {
    match result {
        Ok(_) => Code::Ok,
        Err(status) => status.code(),
    }
}

/// Asserts a call failed with `code` and `message`.
pub fn assert_status<T: Debug>(result: Result<T, Status>, code: Code, message: &str) {
    match result {
        Ok(value) => panic!("expected {code:?} '{message}', got {value:?}"),
        Err(status) => {
            assert_eq!(status.code(), code, "{status:?}");
            assert_eq!(status.message(), message, "{status:?}");
        }
    }
}

/// Rich text with a photo of about `bytes` inside, as the editors send images
/// (a data URL): what the 10 MB limit of `rich_text::MAX_BYTES` is for.
pub fn rich_text_with_photo(bytes: usize) -> String {
    format!(
        "<p>Фото:</p><p><img src=\"data:image/png;base64,{}\"></p>",
        "A".repeat(bytes)
    )
}

/// Attacks from the OWASP XSS filter evasion cheat sheet, and the ones a rich
/// text editor's HTML invites: every rich text a service stores must defuse them.
pub const XSS_CORPUS: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<img src=\"javascript:alert(1)\">",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"&#106;avascript:alert(1)\">x</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<body onload=alert(1)>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<form action=\"javascript:alert(1)\"><input type=submit></form>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<p onclick=\"alert(1)\">x</p>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<img src=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\">",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<iframe src=\"https://video.example/embed/1?autoplay=1\" allow=\"autoplay\"></iframe>",
];

/// What no stored rich text may contain (compared in lower case).
const XSS_FORBIDDEN: &[&str] = &[
    "<script",
    "onerror",
    "onload",
    "onclick",
    "javascript:",
    "<svg",
    "srcdoc",
    "<object",
    "<embed",
    "<form",
    "<meta",
    "<link",
    "style=",
    "data:text",
    "data:image/svg",
    "autoplay",
];

/// Asserts `stored`, what a service kept of `attack`, has nothing of it left
/// that could run.
pub fn assert_defused(attack: &str, stored: &str) {
    let lower = stored.to_lowercase();
    for forbidden in XSS_FORBIDDEN {
        assert!(!lower.contains(forbidden), "{attack} stored as {stored}");
    }
    // A refused source takes its image or frame along: no empty boxes.
    for tag in ["<img", "<iframe"] {
        for (at, _) in lower.match_indices(tag) {
            let element = &lower[at..lower[at..].find('>').map_or(lower.len(), |end| at + end)];
            assert!(element.contains(" src="), "{attack} stored as {stored}");
        }
    }
}

/// A service's migrations apply on a fresh database of every backend, run again
/// as no-ops, and let the service connect once more (a restart); its oldest
/// compatible reader is one of its migrations.
pub async fn assert_migrations_apply_twice(migrations: &crate::db::Migrations) {
    for migrator in [&migrations.sqlite, &migrations.postgres] {
        assert!(
            migrator.version_exists(migrations.oldest_reader),
            "OLDEST_COMPATIBLE_READER {} is no migration of the service",
            migrations.oldest_reader
        );
    }
    for backend in backends() {
        let db = TestDatabase::new(backend).await;
        let database = crate::db::Database::connect(&db.url, migrations)
            .await
            .expect("first start");
        let again = database.migrate(migrations).await.expect("second run");
        assert!(again.applied.is_empty(), "{again:?}");
        crate::db::Database::connect(&db.url, migrations)
            .await
            .expect("restart");
    }
}

#[cfg(test)]
mod tests {
    use super::sibling_database_url;

    #[test]
    fn a_sibling_database_keeps_the_servers_options() {
        assert_eq!(
            sibling_database_url("postgres://u@h:5432/postgres?sslmode=require", "t1"),
            "postgres://u@h:5432/t1?sslmode=require"
        );
        assert_eq!(
            sibling_database_url("postgres://u@h/postgres", "t1"),
            "postgres://u@h/t1"
        );
    }
}
