//! Directory sign-in over REST (issue 39.1): with `PORTAL_LDAP_URL` set and
//! the directory away, `POST /api/auth/login` of a person it checks is a 503
//! with auth's Russian message and the reason `directory-unavailable` (not
//! the gateway's "service unavailable", never a wrong password), while the
//! bootstrap admin signs in with the portal password. The directory itself
//! is tested against a real slapd in auth's tests (`tests/api/directory.rs`).

use crate::support::{ADMIN_PASSWORD, Portal, Post, data, envelope, start};
use serde_json::json;

async fn sign_in(portal: &Portal, login: &str, password: &str) -> (u16, String) {
    let post = Post {
        json: Some(json!({ "login": login, "password": password })),
        ..Post::default()
    };
    let (status, _, body) = portal.post("/api/auth/login", post).await;
    (status, body)
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

#[tokio::test]
async fn the_directory_away_is_a_503_in_russian_with_its_reason() {
    let url = format!("--ldap-url=ldaps://127.0.0.1:{}", closed_port());
    let portal = start(&[
        &url,
        "--ldap-bind-dn=cn=portal,ou=services,dc=hospital,dc=local",
        "--ldap-bind-password=bind-secret-2026",
        "--ldap-user-base=ou=people,dc=hospital,dc=local",
    ])
    .await;

    for _ in 0..7 {
        let (status, body) = sign_in(&portal, "ivanova", "her-domain-password").await;
        assert_eq!(status, 503, "{body}");
        let answer = envelope(&body);
        assert_eq!(
            answer["errorMessage"],
            portal_auth::directory::MSG_DIRECTORY_UNAVAILABLE
        );
        assert_eq!(answer["errorCode"], "directory-unavailable");
        assert_eq!(answer["reason"], "DIRECTORY_UNAVAILABLE");
    }
    let (status, body) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    assert!(data(status, &body)["accessToken"].is_string());
}
