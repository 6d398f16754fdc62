//! Helpers for services' black-box tests: a fresh database per test on each backend
//! (SQLite always, PostgreSQL when `PORTAL_TEST_POSTGRES_URL` is set) and signing
//! keys that mint tokens for any caller.

use std::path::PathBuf;

use sqlx::{Connection, Executor};
use tempfile::TempDir;

use crate::access::Right;
use crate::db::Backend;
use crate::token::{Subject, TokenIssuer, TokenVerifier, ensure_key_pair};

pub const POSTGRES_URL_VAR: &str = "PORTAL_TEST_POSTGRES_URL";

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
                let base = admin_url.split('?').next().unwrap_or(&admin_url);
                let (server, _) = base.rsplit_once('/').expect("database URL with a path");
                TestDatabase {
                    url: format!("{server}/{name}"),
                    _dir: None,
                    postgres: Some((admin_url, name)),
                }
            }
        }
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
}

impl TestKeys {
    pub fn new() -> TestKeys {
        let dir = tempfile::tempdir().expect("temp dir");
        let (private_key_file, public_key_file) = ensure_key_pair(dir.path()).expect("key pair");
        TestKeys {
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
        })
        .expect("token")
}

impl Default for TestKeys {
    fn default() -> Self {
        Self::new()
    }
}
