//! `make bench`: sign-in by the hospital's own accounts (issue 39), each
//! against a baseline measured in the same run on the same machine. Figures
//! are ratios to read in a closing note; nothing here asserts a time.
//!
//! - a directory sign-in (the Login RPC: service bind, search, the person's
//!   bind, the session) vs a bare LDAP bind as the person (a new TLS
//!   connection and one bind), against a real slapd;
//! - single sign-on's callback (FinishSso: the code exchanged at the
//!   provider, the ID token checked, the session) vs a local sign-in (Login
//!   with the portal's argon2id password), against the `oidc-provider` package;
//!   and the whole trip (StartSso, the provider's redirect, FinishSso).
//!
//! Sequential calls, one at a time: what one person waits. Auth on SQLite,
//! the way target `all` runs it. `PORTAL_BENCH_SIGN_INS` sets the calls per
//! row (40). Without slapd or Node the row says so and is skipped.

// The tests' harnesses, shared as they are: each bench uses part of them.
#[allow(dead_code, unused_imports)]
#[path = "../tests/api/helpers.rs"]
mod helpers;
#[allow(dead_code)]
#[path = "../tests/api/oidc_provider.rs"]
mod oidc_provider;
#[allow(dead_code)]
#[path = "../tests/api/slapd.rs"]
mod slapd;

use std::time::{Duration, Instant};

use ldap3::{LdapConnAsync, LdapConnSettings};
use portal_kit::db::Backend;
use portal_proto::auth::v1 as pb;

use helpers::{ADMIN_LOGIN, ADMIN_PASSWORD, TestApp, spawn_with_directory, spawn_with_sso};
use oidc_provider::OidcProvider;
use slapd::{PEOPLE, Slapd, person};

const LOGIN: &str = "ivanova";
const PASSWORD: &str = "ivanova-domain-pass";

fn sign_ins() -> usize {
    std::env::var("PORTAL_BENCH_SIGN_INS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40)
}

/// The median and the mean of `samples`.
struct Figure {
    median: Duration,
    mean: Duration,
}

async fn measure<F: Future<Output = ()>>(times: usize, mut call: impl FnMut() -> F) -> Figure {
    // A warm-up: connections, the provider's discovery, prepared statements.
    for _ in 0..3 {
        call().await;
    }
    let mut samples = Vec::with_capacity(times);
    for _ in 0..times {
        let started = Instant::now();
        call().await;
        samples.push(started.elapsed());
    }
    samples.sort();
    let total: Duration = samples.iter().sum();
    Figure {
        median: samples[samples.len() / 2],
        mean: total / u32::try_from(samples.len()).unwrap_or(u32::MAX),
    }
}

fn row(what: &str, figure: &Figure, baseline: &Figure, of: &str) {
    let ratio = figure.median.as_secs_f64() / baseline.median.as_secs_f64();
    println!(
        "{what:<46} median {:>8.2} ms, mean {:>8.2} ms = {ratio:>5.2}× {of} ({:.2} ms)",
        ms(figure.median),
        ms(figure.mean),
        ms(baseline.median)
    );
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

async fn login(app: &TestApp, login: &str, password: &str) {
    app.login(login, password).await.expect("signed in");
}

async fn directory(times: usize) {
    let Some(slapd) = Slapd::start(&[person(LOGIN, PASSWORD, Some("1001"))], &[], &[]) else {
        println!("directory sign-in: skipped (no slapd)");
        return;
    };
    // Nobody synced her: her first sign-in creates her.
    let directory = portal_auth::directory::DirectorySettings {
        create_people: true,
        ..slapd.settings()
    };
    let tls = directory.tls.clone();
    let url = slapd.url();
    let dn = format!("uid={LOGIN},{PEOPLE}");
    let bare = measure(times, || {
        let (tls, url, dn) = (tls.clone(), url.clone(), dn.clone());
        async move {
            let settings = LdapConnSettings::new().set_config(tls);
            let (driver, mut ldap) = LdapConnAsync::with_settings(settings, &url)
                .await
                .expect("connects");
            ldap3::drive!(driver);
            ldap.simple_bind(&dn, PASSWORD)
                .await
                .expect("bind")
                .success()
                .expect("bound");
            let _ = ldap.unbind().await;
        }
    })
    .await;
    let app = spawn_with_directory(Backend::Sqlite, directory).await;
    let portal = measure(times, || login(&app, LOGIN, PASSWORD)).await;
    row(
        "directory sign-in (Login)",
        &portal,
        &bare,
        "a bare LDAP bind",
    );
}

async fn single_sign_on(times: usize) {
    let accounts = serde_json::json!({ "nurse": { "employee_number": "2001" } });
    let Some(provider) = OidcProvider::start(accounts).await else {
        println!("single sign-on: skipped (no Node or oidc-provider)");
        return;
    };
    let sso = provider.settings(|args| portal_auth::sso::SsoArgs {
        oidc_create_people: true,
        ..args
    });
    let app = spawn_with_sso(Backend::Sqlite, sso).await;
    let local = measure(times, || login(&app, ADMIN_LOGIN, ADMIN_PASSWORD)).await;
    let browser = provider.browser();
    let client = app.client.clone();
    // Each callback needs its own flow: started and brought back untimed.
    let mut callbacks = Vec::new();
    for _ in 0..times + 3 {
        let started = client
            .clone()
            .start_sso(pb::StartSsoRequest::default())
            .await
            .expect("started")
            .into_inner();
        callbacks.push(browser.authorize(&started.authorization_url, "nurse").await);
    }
    let mut callbacks = callbacks.into_iter();
    let callback = measure(times, || {
        let back = callbacks.next().expect("a callback");
        let mut client = client.clone();
        async move {
            let request = pb::FinishSsoRequest {
                code: back.code,
                state: back.state,
                ..Default::default()
            };
            client.finish_sso(request).await.expect("signed in");
        }
    })
    .await;
    row(
        "single sign-on's callback (FinishSso)",
        &callback,
        &local,
        "a local sign-in",
    );
    let trip = measure(times, || {
        let (mut client, browser) = (client.clone(), &browser);
        async move {
            let started = client
                .start_sso(pb::StartSsoRequest::default())
                .await
                .expect("started")
                .into_inner();
            let back = browser.authorize(&started.authorization_url, "nurse").await;
            let request = pb::FinishSsoRequest {
                code: back.code,
                state: back.state,
                ..Default::default()
            };
            client.finish_sso(request).await.expect("signed in");
        }
    })
    .await;
    row(
        "single sign-on, the whole trip",
        &trip,
        &local,
        "a local sign-in",
    );
}

#[tokio::main]
async fn main() {
    let times = sign_ins();
    println!(
        "sign-in by the hospital's accounts: {times} sequential calls per row, auth on SQLite"
    );
    directory(times).await;
    single_sign_on(times).await;
}
