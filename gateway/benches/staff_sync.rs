//! `make bench`: staff from HR (issue 21) on the release `portal` binary, over
//! REST as an integration sends it, against a baseline of the same run: the
//! plain insert of one user (CreateUser, `/api/user/create-user`). Figures are
//! times and ratios to read in a closing note; nothing here asserts a time.
//!
//! - a sync of 5,000 new people in one call (per person vs one CreateUser,
//!   which also hashes a password the sync does not set);
//! - the same batch again (all unchanged), a dry run that would change every
//!   person, and the real run of those changes.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use support::Portal;

const PEOPLE: usize = 5_000;
/// Plain inserts measured for the baseline.
const CREATES: usize = 20;

fn batch(dry_run: bool, surname: &str) -> Value {
    let people: Vec<Value> = (0..PEOPLE)
        .map(|n| {
            json!({
                "employeeNumber": format!("{n:06}"),
                "surname": surname,
                "name": "Мария",
                "lastName": "Петровна",
                "email": format!("staff{n}@hospital.example"),
                "departmentCodes": [format!("D{}", n % 40)],
                "positionCodes": ["NURSE"],
            })
        })
        .collect();
    json!({
        "dryRun": dry_run,
        "departments": (0..40)
            .map(|d| json!({"code": format!("D{d}"), "title": format!("Отделение №{d}")}))
            .collect::<Vec<_>>(),
        "positions": [{"code": "NURSE", "title": "Медицинская сестра палатная"}],
        "people": people,
    })
}

/// Posts `body` to `path` as the holder of `token`: the `data`, and how long it took.
async fn post(http: &reqwest::Client, url: &str, token: &str, body: &Value) -> (Value, Duration) {
    let started = Instant::now();
    let reply: Value = http
        .post(url)
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("POST")
        .json()
        .await
        .expect("JSON");
    let took = started.elapsed();
    assert_eq!(reply["success"], true, "{reply}");
    (reply["data"].clone(), took)
}

fn millis(took: Duration) -> f64 {
    took.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let portal = Portal::start(&[]).await;
    let http = reqwest::Client::new();
    let base = portal.base.as_str();
    let login: Value = http
        .post(format!("{base}/api/auth/login"))
        .json(&json!({ "login": "admin", "password": "bench-admin-password" }))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("sign in")
        .json()
        .await
        .expect("sign-in JSON");
    let token = login["data"]["accessToken"]
        .as_str()
        .expect("token")
        .to_owned();

    let mut creates = Vec::with_capacity(CREATES);
    for n in 0..CREATES {
        let user = json!({ "login": format!("plain{n}"), "password": "plain-password", "surname": "Простая", "name": "Анна" });
        creates.push(
            post(
                &http,
                &format!("{base}/api/user/create-user"),
                &token,
                &user,
            )
            .await
            .1,
        );
    }
    creates.sort();
    let create = millis(creates[CREATES / 2]);

    let sync = format!("{base}/api/integration/sync-staff");
    let body = batch(false, "Сотрудникова");
    let bytes = body.to_string().len();
    let (first, created) = post(&http, &sync, &token, &body).await;
    assert_eq!(first["created"], PEOPLE);
    let (again, unchanged) = post(&http, &sync, &token, &body).await;
    assert_eq!(again["unchanged"], PEOPLE);
    let (planned, dry) = post(&http, &sync, &token, &batch(true, "Новикова")).await;
    assert_eq!(planned["changed"], PEOPLE);
    let (done, changed) = post(&http, &sync, &token, &batch(false, "Новикова")).await;
    assert_eq!(done["changed"], PEOPLE);

    println!(
        "portal (target all, SQLite), staff sync over REST: {PEOPLE} people, {:.1} MB of JSON",
        bytes as f64 / 1e6
    );
    println!("\n| call | time | per person | vs one CreateUser |\n|---|---|---|---|");
    println!("| CreateUser (median of {CREATES}) | {create:.1} ms | {create:.2} ms | 1.00× |");
    for (what, took) in [
        ("sync: 5,000 created", created),
        ("sync: the same batch again (unchanged)", unchanged),
        ("sync: dry run changing everyone", dry),
        ("sync: changing everyone", changed),
    ] {
        let per_person = millis(took) / PEOPLE as f64;
        println!(
            "| {what} | {:.0} ms | {per_person:.3} ms | {:.3}× |",
            millis(took),
            per_person / create
        );
    }
}
