//! A first sign-in without an administrator typing a password over REST
//! (issue 39.3): a staff sync with `"invite": true` mails the invitation
//! whose link `POST /api/auth/reset-password` takes; a department invite
//! names whom it skipped; a printed code (`/api/user/make-first-sign-in-code`,
//! whose retry with its `Idempotency-Key` is refused, never a second code
//! nor the first replayed) is used once at
//! `POST /api/auth/first-sign-in`; only user managers invite.

use std::time::Duration;

use crate::support::{Portal, Post, data, envelope, error, post_data, post_json, start};
use portal_kit::Right;
use portal_kit::smtp_sink::SmtpSink;
use serde_json::{Value, json};

async fn post_public(portal: &Portal, path: &str, body: Value) -> (u16, String) {
    let post = Post {
        json: Some(body),
        ..Post::default()
    };
    let (status, _, body) = portal.post(path, post).await;
    (status, body)
}

/// Two people from HR, one with an e-mail address, in one department.
fn staff(invite: bool) -> Value {
    json!({
        "invite": invite,
        "departments": [{ "code": "CARD", "title": "Кардиологическое отделение" }],
        "people": [
            { "employeeNumber": "0001", "surname": "Морозова", "name": "Елена",
              "login": "morozova", "email": "morozova@hospital.example",
              "departmentCodes": ["CARD"] },
            { "employeeNumber": "0002", "surname": "Орлов", "name": "Пётр",
              "login": "orlov", "departmentCodes": ["CARD"] },
        ],
    })
}

async fn sign_in(portal: &Portal, login: &str, password: &str) -> u16 {
    let body = json!({ "login": login, "password": password });
    post_public(portal, "/api/auth/login", body).await.0
}

#[tokio::test]
async fn a_synced_person_is_invited_and_another_signs_in_with_a_printed_code() {
    let sink = SmtpSink::start().await;
    let relay = format!("--smtp-url={}", sink.url());
    let portal = start(&[&relay, "--smtp-from=portal@hospital.example"]).await;
    let admin = portal.token(1, &Right::ALL);

    let synced = post_data(&portal, "/api/integration/sync-staff", &admin, staff(true)).await;
    assert_eq!(synced["invited"][0]["login"], "morozova", "{synced}");
    assert_eq!(synced["notInvited"][0]["reason"], "no-email", "{synced}");
    let orlov = synced["notInvited"][0]["userId"].as_i64().unwrap();
    let department = synced["departments"][0]["id"].as_i64().unwrap();

    let mails = sink.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(mails[0].to, ["morozova@hospital.example"]);
    let text = mails[0].text();
    let (_, rest) = text.split_once("/first-sign-in?token=").expect("the link");
    let (token, _) = rest.split_once("&login=").expect("the login");
    let chosen = json!({ "token": token, "password": "новый-пароль-2026" });
    let (status, body) = post_public(&portal, "/api/auth/reset-password", chosen).await;
    assert_eq!(data(status, &body), Value::Null);
    assert_eq!(sign_in(&portal, "morozova", "новый-пароль-2026").await, 200);

    // The department now: Морозова has a password, Орлов no address.
    let invited = post_data(
        &portal,
        "/api/user/invite-department",
        &admin,
        json!({ "departmentId": department }),
    )
    .await;
    assert_eq!(invited["sent"], 0, "{invited}");
    let reasons: Vec<&str> = invited["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["has-password", "no-email"]);
    let (status, body) = post_json(
        &portal,
        "/api/user/send-invitation",
        &admin,
        json!({ "userId": orlov }),
    )
    .await;
    assert_eq!(
        error(409, status, &body),
        "У сотрудника не указана электронная почта: выдайте ему код для первого входа."
    );
    assert_eq!(envelope(&body)["reason"], "INVITATION_NO_EMAIL");

    let code = printed_code(&portal, &admin, orlov).await;
    let wrong =
        json!({ "login": "orlov", "code": "AAAA-BBBB-CCCC", "password": "пароль-орлова-1" });
    let (status, body) = post_public(&portal, "/api/auth/first-sign-in", wrong).await;
    assert_eq!(envelope(&body)["reason"], "FIRST_SIGN_IN_CODE_INVALID");
    assert_eq!(status, 409, "{body}");
    let right = json!({ "login": "orlov", "code": code, "password": "пароль-орлова-1" });
    let (status, body) = post_public(&portal, "/api/auth/first-sign-in", right.clone()).await;
    assert_eq!(data(status, &body), Value::Null);
    assert_eq!(sign_in(&portal, "orlov", "пароль-орлова-1").await, 200);
    let (status, _) = post_public(&portal, "/api/auth/first-sign-in", right).await;
    assert_eq!(status, 409, "used once");
}

/// A code for `user_id`, asked twice with one `Idempotency-Key` as a retry
/// would: the retry is refused (the code is never kept to replay it), and
/// does not void the first.
async fn printed_code(portal: &Portal, admin: &str, user_id: i64) -> String {
    let ask = || {
        portal
            .http
            .post(format!("{}/api/user/make-first-sign-in-code", portal.base))
            .bearer_auth(admin)
            .header("Idempotency-Key", "print-orlov-1")
            .json(&json!({ "userId": user_id }))
            .send()
    };
    let response = ask().await.unwrap();
    let status = response.status().as_u16();
    let made = data(status, &response.text().await.unwrap());
    assert_eq!(made["login"], "orlov", "{made}");
    assert_eq!(made["fullName"], "Орлов Пётр", "{made}");
    assert!(
        made["signInUrl"]
            .as_str()
            .unwrap()
            .ends_with("/first-sign-in")
    );
    let retried = ask().await.unwrap();
    let status = retried.status().as_u16();
    let body = retried.text().await.unwrap();
    assert_eq!(
        error(409, status, &body),
        "Запрос уже выполнен; повторите действие заново"
    );
    assert_eq!(envelope(&body)["reason"], "IDEMPOTENT_SECRET_NOT_REPLAYED");
    made["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn only_user_managers_invite_or_print_codes() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &Right::ALL);
    let synced = post_data(&portal, "/api/integration/sync-staff", &admin, staff(false)).await;
    let id_of = |number: &str| {
        synced["people"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["employeeNumber"] == number)
            .and_then(|p| p["userId"].as_i64())
            .unwrap()
    };
    let (morozova, orlov) = (id_of("0001"), id_of("0002"));
    let teacher = portal.token(1, &[Right::EducationManagement]);
    for (path, body) in [
        ("/api/user/send-invitation", json!({ "userId": orlov })),
        ("/api/user/invite-department", json!({ "departmentId": 1 })),
        (
            "/api/user/make-first-sign-in-code",
            json!({ "userId": orlov }),
        ),
    ] {
        let (status, answer) = post_json(&portal, path, &teacher, body.clone()).await;
        assert_eq!(status, 403, "{path}: {answer}");
        let (status, _, _) = portal
            .post(
                path,
                Post {
                    json: Some(body),
                    ..Post::default()
                },
            )
            .await;
        assert_eq!(status, 401, "{path}");
    }
    // Without a relay an invitation is refused, and says what to do instead.
    let (status, body) = post_json(
        &portal,
        "/api/user/send-invitation",
        &admin,
        json!({ "userId": morozova }),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(envelope(&body)["reason"], "MAIL_OFF");
}
