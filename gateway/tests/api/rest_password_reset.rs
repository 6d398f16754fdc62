//! «Забыли пароль?» over REST (issue 39.3): `POST /api/auth/request-password-reset`
//! answers 200 whoever the login is and mails the link through the relay of
//! `PORTAL_SMTP_URL`; `POST /api/auth/reset-password` sets the password once.

use std::time::Duration;

use crate::support::{Portal, Post, data, envelope, post_data, start};
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

#[tokio::test]
async fn a_forgotten_password_is_set_with_the_mailed_link() {
    let sink = SmtpSink::start().await;
    let relay = format!("--smtp-url={}", sink.url());
    let portal = start(&[&relay, "--smtp-from=portal@hospital.example"]).await;
    let admin = portal.token(1, &Right::ALL);
    post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        json!({
            "name": "Елена", "surname": "Морозова",
            "login": "morozova", "password": "morozova-password",
            "email": "morozova@hospital.example",
        }),
    )
    .await;

    for login in ["nobody", "morozova"] {
        let (status, body) = post_public(
            &portal,
            "/api/auth/request-password-reset",
            json!({ "login": login }),
        )
        .await;
        assert_eq!(data(status, &body), Value::Null);
    }
    let mails = sink.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, ["morozova@hospital.example"]);
    let text = mails[0].text();
    let (_, rest) = text.split_once("/reset-password?token=").expect("the link");
    let token: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();

    let reset = json!({ "token": token, "password": "новый-пароль-2026" });
    let (status, body) = post_public(&portal, "/api/auth/reset-password", reset.clone()).await;
    assert_eq!(data(status, &body), Value::Null);
    let (status, body) = post_public(
        &portal,
        "/api/auth/login",
        json!({ "login": "morozova", "password": "новый-пароль-2026" }),
    )
    .await;
    data(status, &body);

    let (status, body) = post_public(&portal, "/api/auth/reset-password", reset).await;
    assert_eq!(status, 409, "{body}");
    let refused = envelope(&body);
    assert_eq!(
        refused["errorMessage"],
        "Ссылка для восстановления пароля недействительна или устарела. Запросите новую."
    );
    assert_eq!(refused["reason"], "PASSWORD_RESET_INVALID", "{refused}");
}
