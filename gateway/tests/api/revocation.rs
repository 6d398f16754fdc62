//! Blocking a person or taking a right away takes effect on their next call,
//! not when their access token expires (issue 19, point 5): every service
//! refuses a token signed before the change, with a stable reason code, and
//! the refresh that follows gives the rights as they are now, or nothing to a
//! blocked person.

use std::time::{Duration, Instant};

use crate::support::{ADMIN_PASSWORD, Portal, Post, data, envelope, get_data, post_data, start};
use portal_kit::error::{MSG_ACCESS_REVOKED, REASON_ACCESS_REVOKED};
use portal_proto::auth::v1::ListAccessChangesRequest;
use portal_proto::auth::v1::access_revocation_service_client::AccessRevocationServiceClient;
use reqwest::header::SET_COOKIE;
use serde_json::{Value, json};

const RIGHT_EDUCATION_MANAGEMENT: i64 = 2;

async fn sign_in(portal: &Portal, login: &str, password: &str) -> (String, String) {
    let post = Post {
        json: Some(json!({ "login": login, "password": password })),
        ..Post::default()
    };
    let (status, headers, body) = portal.post("/api/auth/login", post).await;
    let token = data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    (token, refresh_cookie(&headers))
}

fn refresh_cookie(headers: &reqwest::header::HeaderMap) -> String {
    headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| c.strip_prefix("portal_refresh="))
        .and_then(|c| c.split(';').next())
        .unwrap()
        .to_owned()
}

/// Exchanges the refresh cookie: the new access token, or the refusal's status.
async fn refresh(portal: &Portal, cookie: &str) -> Result<(String, String), u16> {
    let post = Post {
        refresh_cookie: Some(cookie),
        ..Post::default()
    };
    let (status, headers, body) = portal.post("/api/auth/refresh-token", post).await;
    if status != 200 {
        return Err(status);
    }
    let token = data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    Ok((token, refresh_cookie(&headers)))
}

async fn create_course(portal: &Portal, token: &str, title: &str) -> (u16, Value) {
    let post = Post {
        json: Some(json!({
            "title": title,
            "description": "Обязательный курс",
            "dateDeadline": "2099-01-31",
            "userIds": [],
            "articleIds": [],
        })),
        token: Some(token),
        ..Post::default()
    };
    let (status, _, body) = portal
        .post("/api/course/create-course-with-user-and-articles", post)
        .await;
    (status, envelope(&body))
}

/// A call of each service with `token`: education, the wiki, files and auth.
async fn calls_of_each_service(portal: &Portal, token: &str) -> Vec<(u16, Value)> {
    let mut answers = vec![create_course(portal, token, "Курс").await];
    for path in [
        "/api/environment-model/get-all",
        "/api/file/get-files?idRelated=1",
        "/api/user/get-me",
    ] {
        let (status, _, body) = portal.get(path, Some(token)).await;
        answers.push((status, envelope(&body)));
    }
    answers
}

fn is_revoked((status, envelope): &(u16, Value)) -> bool {
    *status == 401
        && envelope["errorMessage"] == MSG_ACCESS_REVOKED
        && envelope["errorCode"] == REASON_ACCESS_REVOKED
}

/// Waits until every service refuses `token` as revoked; how long that took.
/// The bound only ends the test: services learn a change within about a second.
async fn until_every_service_refuses(portal: &Portal, token: &str) -> Duration {
    let since = Instant::now();
    loop {
        let answers = calls_of_each_service(portal, token).await;
        if answers.iter().all(is_revoked) {
            return since.elapsed();
        }
        assert!(
            since.elapsed() < Duration::from_secs(30),
            "still not refused everywhere after 30 s: {answers:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn status_id(statuses: &Value, name: &str) -> i64 {
    statuses
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .and_then(|s| s["id"].as_i64())
        .unwrap()
}

#[tokio::test]
async fn a_removed_right_and_a_block_refuse_the_old_token_on_the_next_call() {
    let portal = start(&[]).await;
    let (admin, _) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    let statuses = get_data(&portal, "/api/user/get-all-statuses", &admin).await;
    let person = |status: &str, rights: &[i64]| {
        json!({
            "name": "Ольга", "surname": "Петрова", "lastName": "Ивановна",
            "login": "petrova", "password": "petrova-password",
            "email": "petrova@hospital.example",
            "status": { "id": status_id(&statuses, status) },
            "departments": [], "positions": [], "rights": rights,
        })
    };
    let created = post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        person("Работает", &[RIGHT_EDUCATION_MANAGEMENT]),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    // The admin's edit of her: the same fields, no new password.
    let edit = |status: &str, rights: &[i64]| {
        let mut edit = person(status, rights);
        edit["id"] = json!(id);
        edit["password"] = json!("");
        edit
    };
    let (token, cookie) = sign_in(&portal, "petrova", "petrova-password").await;
    assert_eq!(create_course(&portal, &token, "Курс до").await.0, 200);

    // The right is taken away: the old token, which still lists it, is
    // refused by every service.
    let without_right = edit("Работает", &[]);
    post_data(&portal, "/api/user/update-user", &admin, without_right).await;
    let took = until_every_service_refuses(&portal, &token).await;
    println!(
        "revocation: a removed right refused by every service within {} ms",
        took.as_millis()
    );
    // Renewed, the token says what is true now: no course without the right.
    let (renewed, cookie) = refresh(&portal, &cookie).await.unwrap();
    let (status, refused) = create_course(&portal, &renewed, "Курс после").await;
    assert_eq!(status, 403, "{refused}");
    let courses = get_data(&portal, "/api/course/get-all-courses", &admin).await;
    let titles: Vec<&str> = courses
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["title"].as_str())
        .collect();
    assert!(!titles.contains(&"Курс после"), "{titles:?}");

    // A change that leaves what tokens say alone (the e-mail) keeps them
    // valid: auth raises its own versions before it answers, so a raise would
    // refuse the very next call there.
    let mut email_only = edit("Работает", &[]);
    email_only["email"] = json!("olga.petrova@hospital.example");
    post_data(&portal, "/api/user/update-user", &admin, email_only).await;
    assert_eq!(
        get_data(&portal, "/api/user/get-me", &renewed).await["user"]["id"],
        id
    );

    // Blocked: the current token is refused everywhere, and so is its renewal.
    let blocked = edit("Уволен", &[]);
    post_data(&portal, "/api/user/update-user", &admin, blocked).await;
    let took = until_every_service_refuses(&portal, &renewed).await;
    println!(
        "revocation: a block refused by every service within {} ms",
        took.as_millis()
    );
    assert_eq!(refresh(&portal, &cookie).await, Err(401));

    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_gateway_does_not_forward_the_internal_revocation_service() {
    let portal = start(&[]).await;
    let refused = AccessRevocationServiceClient::new(portal.grpc_channel().await)
        .list_access_changes(ListAccessChangesRequest { since: 0 })
        .await;
    assert!(refused.is_err(), "{refused:?}");
    portal.running.stop().await.unwrap();
}
