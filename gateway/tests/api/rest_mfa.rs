//! Two-step sign-in over REST (issue 39.4): `POST /api/user/mfa/enrol` →
//! `{secret, otpauthUrl}`, `POST /api/user/mfa/confirm {code}` →
//! `{recoveryCodes}`; then `POST /api/auth/login` answers `mfaRequired` and
//! `mfaToken` with no session and no cookie, and `POST /api/auth/login-mfa`
//! answers as login does, with the refresh and device cookies.

use crate::support::{Portal, Post, data, envelope, get_data, post_data, start};
use portal_kit::Right;
use portal_kit::testing::totp_code;
use reqwest::header::{HeaderMap, SET_COOKIE};
use serde_json::{Value, json};

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with(&prefix))
        .map(|c| c[prefix.len()..].split(';').next().unwrap_or("").to_owned())
}

async fn sign_in(portal: &Portal, device: Option<&str>) -> (u16, HeaderMap, String) {
    let body = json!({ "login": "sidorova", "password": "sidorova-password" });
    let post = Post {
        json: Some(body),
        device_cookie: device,
        ..Post::default()
    };
    portal.post("/api/auth/login", post).await
}

async fn second_step(
    portal: &Portal,
    body: Value,
    device: Option<&str>,
) -> (u16, HeaderMap, String) {
    let post = Post {
        json: Some(body),
        device_cookie: device,
        ..Post::default()
    };
    portal.post("/api/auth/login-mfa", post).await
}

#[tokio::test]
async fn a_second_factor_is_enrolled_and_asked_for_at_sign_in() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &Right::ALL);
    let person = post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        json!({
            "name": "Анна", "surname": "Сидорова",
            "login": "sidorova", "password": "sidorova-password",
        }),
    )
    .await;
    let (status, _, body) = sign_in(&portal, None).await;
    let first = data(status, &body);
    assert_eq!(first["mfaRequired"], false);
    let token = first["accessToken"].as_str().unwrap().to_owned();

    let enrol = post_data(&portal, "/api/user/mfa/enrol", &token, json!({})).await;
    let secret = enrol["secret"].as_str().unwrap().to_owned();
    assert!(
        enrol["otpauthUrl"]
            .as_str()
            .unwrap()
            .starts_with("otpauth://totp/")
    );
    let confirmed = post_data(
        &portal,
        "/api/user/mfa/confirm",
        &token,
        json!({ "code": totp_code(&secret, 0) }),
    )
    .await;
    let codes: Vec<String> = serde_json::from_value(confirmed["recoveryCodes"].clone()).unwrap();
    assert_eq!(codes.len(), 10);
    let mine = get_data(&portal, "/api/user/mfa", &token).await;
    assert_eq!(
        mine,
        json!({ "enabled": true, "required": false, "recoveryCodesLeft": 10 })
    );

    // The password alone: no session, no cookie, a token for the second step.
    let (status, headers, body) = sign_in(&portal, None).await;
    let asked = data(status, &body);
    assert_eq!(asked["mfaRequired"], true);
    assert_eq!(asked["accessToken"], "");
    assert!(headers.get(SET_COOKIE).is_none(), "{headers:?}");
    let mfa_token = asked["mfaToken"].as_str().unwrap().to_owned();

    let wrong = json!({ "mfaToken": mfa_token, "code": "000000" });
    let (status, _, body) = second_step(&portal, wrong, None).await;
    assert_eq!(status, 401, "{body}");
    let refused = envelope(&body);
    assert_eq!(refused["errorCode"], "mfa-code-invalid", "{refused}");
    assert_eq!(refused["reason"], "MFA_CODE_INVALID");
    assert!(
        refused["errorMessage"]
            .as_str()
            .unwrap()
            .starts_with("Неверный код")
    );

    let right = json!({ "mfaToken": mfa_token, "code": codes[0] });
    let (status, headers, body) = second_step(&portal, right, None).await;
    let session = data(status, &body);
    assert_eq!(session["mfaRequired"], false);
    assert!(!session["accessToken"].as_str().unwrap().is_empty());
    assert!(cookie_value(&headers, "portal_refresh").is_some_and(|v| !v.is_empty()));
    let device = cookie_value(&headers, "portal_device").expect("the device cookie");

    // That browser skips the step now; the admin can take the factor away.
    let (status, headers, body) = sign_in(&portal, Some(&device)).await;
    assert_eq!(data(status, &body)["mfaRequired"], false);
    assert!(cookie_value(&headers, "portal_refresh").is_some());
    let reset = post_data(
        &portal,
        "/api/user/reset-user-mfa",
        &admin,
        json!({ "userId": person["id"] }),
    )
    .await;
    assert_eq!(reset, json!({ "removed": true }));
    let mine = get_data(&portal, "/api/user/mfa", &token).await;
    assert_eq!(mine["enabled"], false);
    portal.running.stop().await.unwrap();
}
