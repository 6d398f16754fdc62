//! The `portal` binary as an operator meets it: refusals at start name the
//! variable, SIGTERM drains and exits 0, and `portal migrate` is the step a
//! start under `PORTAL_MIGRATE=check` requires.

use std::process::{Command, Stdio};

use crate::support::process::{start_ready, stop};

const PORTAL: &str = env!("CARGO_BIN_EXE_portal");

fn portal(data: &std::path::Path) -> Command {
    let mut command = Command::new(PORTAL);
    command
        .env("PORTAL_DATA_DIR", data)
        .env("PORTAL_ADMIN_PASSWORD", "binary-test-password")
        .env("PORTAL_SEED_DEMO", "false")
        .env("PORTAL_LOG", "warn")
        .stdin(Stdio::null());
    command
}

#[test]
fn a_bad_http_addr_is_refused_at_start_naming_the_variable() {
    let data = tempfile::tempdir().unwrap();
    let output = portal(data.path())
        .env("PORTAL_HTTP_ADDR", "localhost-8080")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("PORTAL_HTTP_ADDR"), "{stderr}");
}

#[test]
fn an_unknown_target_is_refused_at_start_naming_the_variable() {
    let data = tempfile::tempdir().unwrap();
    let output = portal(data.path())
        .env("PORTAL_TARGET", "billing")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("PORTAL_TARGET"));
}

#[tokio::test]
async fn sigterm_drains_and_exits_zero_and_piped_logs_carry_no_colour() {
    let data = tempfile::tempdir().unwrap();
    let mut command = portal(data.path());
    command.env("PORTAL_LOG", "info").stdout(Stdio::piped());
    let (mut child, _) = start_ready(command, data.path()).await;
    let status = stop(&mut child).await;
    assert_eq!(status.code(), Some(0));
    let mut logs = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut logs).unwrap();
    assert!(logs.contains("gateway listening"), "{logs}");
    assert!(!logs.contains('\u{1b}'), "ANSI codes in a pipe: {logs:?}");
    assert!(
        data.path().join("jwt-public.pem").exists(),
        "all generates its key pair into the data dir"
    );
}

#[tokio::test]
async fn the_admin_password_may_come_from_a_file() {
    let data = tempfile::tempdir().unwrap();
    let password_file = data.path().join("admin-password");
    // As a mounted Secret made with `echo` holds it: the line end is not part of it.
    std::fs::write(&password_file, "password-from-a-file\n").unwrap();
    let mut command = portal(data.path());
    command
        .env_remove("PORTAL_ADMIN_PASSWORD")
        .env("PORTAL_ADMIN_PASSWORD_FILE", &password_file);
    let (mut child, base) = start_ready(command, data.path()).await;
    let login = reqwest::Client::new()
        .post(format!("{base}/api/auth/login"))
        .json(&serde_json::json!({"login": "admin", "password": "password-from-a-file"}))
        .send()
        .await;
    child.kill().unwrap();
    child.wait().unwrap();
    let login = login.unwrap();
    assert_eq!(login.status(), 200, "{}", login.text().await.unwrap());
}

#[test]
fn a_secret_given_both_ways_or_as_an_unreadable_file_is_refused_naming_it() {
    let data = tempfile::tempdir().unwrap();
    let password_file = data.path().join("admin-password");
    std::fs::write(&password_file, "password-from-a-file\n").unwrap();
    let both = portal(data.path())
        .env("PORTAL_ADMIN_PASSWORD_FILE", &password_file)
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&both.stderr);
    assert!(
        stderr.contains("<PORTAL_ADMIN_PASSWORD>")
            && stderr.contains("<PORTAL_ADMIN_PASSWORD_FILE>"),
        "{stderr}"
    );

    let missing = data.path().join("no-such-secret");
    let unreadable = portal(data.path())
        .env_remove("PORTAL_ADMIN_PASSWORD")
        .env("PORTAL_ADMIN_PASSWORD_FILE", &missing)
        .output()
        .unwrap();
    assert_eq!(unreadable.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unreadable.stderr);
    assert!(
        stderr.contains("PORTAL_ADMIN_PASSWORD_FILE")
            && stderr.contains(&missing.display().to_string())
            && stderr.contains("cannot read it"),
        "{stderr}"
    );
}

#[test]
fn portal_migrate_brings_every_database_up_to_date_which_a_check_start_requires() {
    let data = tempfile::tempdir().unwrap();
    let printed = |output: std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    // Never migrated: a start that only checks refuses, saying what to run.
    let output = portal(data.path())
        .env("PORTAL_MIGRATE", "check")
        .env("PORTAL_HTTP_ADDR", "127.0.0.1:0")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let refusal = printed(output);
    let auth_versions: Vec<String> = portal_auth::migrations()
        .sqlite
        .iter()
        .map(|m| m.version.to_string())
        .collect();
    assert!(
        refusal.contains(&format!(
            "auth database: migrations {} of this binary",
            auth_versions.join(", ")
        )) && refusal.contains("run `portal migrate`"),
        "{refusal}"
    );

    let migrate = || {
        portal(data.path())
            .arg("migrate")
            .env("PORTAL_LOG", "info")
            .output()
            .unwrap()
    };
    let first = migrate();
    assert!(first.status.success());
    let first = printed(first);
    assert!(
        first.contains(&format!(
            "auth database is up to date: newest migration {}, applied now: [{}]",
            auth_versions.last().unwrap(),
            auth_versions.join(", ")
        )),
        "{first}"
    );
    let again = printed(migrate());
    for service in ["auth", "education", "wiki", "files"] {
        assert!(
            first.contains(&format!("{service} database is up to date")),
            "{first}"
        );
        assert!(
            again.contains(&format!("{service} database is up to date"))
                && again.contains("applied now: none"),
            "{again}"
        );
    }
    assert!(!again.contains("applied now: ["), "{again}");

    let gateway = portal(data.path())
        .arg("migrate")
        .env("PORTAL_TARGET", "gateway")
        .output()
        .unwrap();
    assert_eq!(gateway.status.code(), Some(1));
    assert!(printed(gateway).contains("the gateway has no database"));
}
