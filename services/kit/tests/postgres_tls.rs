//! TLS to PostgreSQL through the portal's own `Database::connect`: with
//! `sslmode=verify-full` and a CA file the session is encrypted, and a server
//! whose certificate that CA did not sign, or whose name it does not carry, is
//! refused.
//!
//! Runs against the server of `PORTAL_TEST_POSTGRES_URL` reached as `localhost`,
//! which must have `ssl = on` with Debian's snakeoil certificate (self-signed, CN
//! and SAN `localhost`), as the local PostgreSQL of this project's machines has.

use portal_kit::db::{Backend, Database, Migrations};
use portal_kit::testing::{TestDatabase, postgres_or_skip};
use sqlx::migrate::Migrator;

/// The server's certificate, its own CA (`ssl_cert_file` of Debian's PostgreSQL).
const SERVER_CA: &str = "/etc/ssl/certs/ssl-cert-snakeoil.pem";
/// A CA made for these tests (`openssl req -x509`, key thrown away): it signed
/// no server, so a verifying client must refuse any.
const UNRELATED_CA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/unrelated-ca.pem");

fn no_migrations() -> Migrations {
    Migrations {
        sqlite: Migrator::with_migrations(Vec::new()),
        postgres: Migrator::with_migrations(Vec::new()),
        release: env!("CARGO_PKG_VERSION"),
        oldest_reader: 0,
    }
}

/// `url` with its host replaced by `host`.
fn with_host(url: &str, host: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL with a scheme");
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (user, host_and_port) = authority
        .rsplit_once('@')
        .map_or(("", authority), |(user, host)| (user, host));
    let port = host_and_port
        .rsplit_once(':')
        .map_or(String::new(), |(_, port)| format!(":{port}"));
    let user = if user.is_empty() {
        String::new()
    } else {
        format!("{user}@")
    };
    format!("{scheme}://{user}{host}{port}/{path}")
}

fn verify_full(url: &str, host: &str, ca: &str) -> String {
    format!(
        "{}?sslmode=verify-full&sslrootcert={ca}",
        with_host(url, host)
    )
}

#[tokio::test]
async fn verify_full_with_the_servers_ca_encrypts_and_anything_else_is_refused() {
    if postgres_or_skip("TLS to PostgreSQL").is_none() {
        return;
    }
    assert!(
        std::path::Path::new(SERVER_CA).exists(),
        "{SERVER_CA} missing: the test needs PostgreSQL with `ssl = on` and Debian's snakeoil certificate"
    );
    let database = TestDatabase::new(Backend::Postgres).await;

    let verified = Database::connect(
        &verify_full(&database.url, "localhost", SERVER_CA),
        &no_migrations(),
    )
    .await
    .expect("verify-full with the server's CA connects");
    let (encrypted, version): (i32, String) =
        sqlx::query_as("SELECT ssl::int, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(&verified.pool)
            .await
            .expect("this session's row of pg_stat_ssl");
    assert_eq!(encrypted, 1, "the session is not encrypted");
    assert!(version.starts_with("TLSv1."), "{version}");
    verified.pool.close().await;

    let wrong_ca = Database::connect(
        &verify_full(&database.url, "localhost", UNRELATED_CA),
        &no_migrations(),
    )
    .await
    .expect_err("a server whose certificate the CA did not sign is refused");
    let message = wrong_ca.to_string();
    println!("a wrong CA: {message}");
    assert!(
        message.contains("invalid peer certificate: UnknownIssuer"),
        "{message}"
    );

    let wrong_name = Database::connect(
        &verify_full(&database.url, "127.0.0.1", SERVER_CA),
        &no_migrations(),
    )
    .await
    .expect_err("a server whose certificate does not name the host is refused");
    let message = wrong_name.to_string();
    println!("a wrong name: {message}");
    assert!(
        message.contains("certificate not valid for name \"127.0.0.1\""),
        "{message}"
    );
}

#[test]
fn the_host_is_replaced_and_the_rest_kept() {
    assert_eq!(
        with_host(
            "postgres://postgres@127.0.0.1:5432/portal_test",
            "localhost"
        ),
        "postgres://postgres@localhost:5432/portal_test"
    );
    assert_eq!(
        with_host("postgres://db/portal", "localhost"),
        "postgres://localhost/portal"
    );
}
