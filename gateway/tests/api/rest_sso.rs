//! Single sign-on over REST (issue 39.2), the gateway's part: every step of
//! the browser's trip is a 303 (a refusal's to the sign-in page with its
//! reason code), the flow's state must come back in the cookie it was set
//! in, and the back-channel logout answers uncached. The flow against a real
//! provider is auth's tests' (`tests/api/sso.rs`) and the browser's
//! (`web/e2e/browser/single-sign-on.spec.ts`).

use crate::support::{Portal, Post, data, envelope, start};

/// A loopback port nothing listens on: a provider that is away.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

async fn portal_with_provider_away() -> Portal {
    let issuer = format!("--oidc-issuer=http://127.0.0.1:{}", closed_port());
    start(&[
        &issuer,
        "--oidc-client-id=portal",
        "--oidc-client-secret=portal-test-secret",
        "--oidc-name=Keycloak больницы",
    ])
    .await
}

/// A GET as a browser's redirect would make it, with `cookie`; the redirect
/// is not followed: its status, `Location` and `Set-Cookie`s.
async fn visit(portal: &Portal, path: &str, cookie: Option<&str>) -> (u16, String, Vec<String>) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut request = http.get(format!("{}{path}", portal.base));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let response = request.send().await.unwrap();
    let header = |name| {
        response
            .headers()
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let location = header(reqwest::header::LOCATION).pop().unwrap_or_default();
    (
        response.status().as_u16(),
        location,
        header(reqwest::header::SET_COOKIE),
    )
}

#[tokio::test]
async fn each_step_of_the_browsers_trip_is_a_redirect_and_a_refusal_names_its_reason() {
    let portal = portal_with_provider_away().await;
    let (status, _, body) = portal.get("/api/auth/sign-in-options", None).await;
    assert_eq!(data(status, &body)["ssoName"], "Keycloak больницы");

    // The provider cannot be reached: back to the sign-in page, which says so.
    let (status, location, _) =
        visit(&portal, "/api/auth/oidc/start?returnTo=%2Fcabinet", None).await;
    assert_eq!(
        (status, location.as_str()),
        (303, "/login?sso-error=SSO_UNAVAILABLE")
    );

    // A callback this browser never started (no cookie, or another state):
    // nobody is signed in, and the flow's cookie is cleared.
    for cookie in [None, Some("portal_sso=another-state")] {
        let (status, location, cookies) = visit(
            &portal,
            "/api/auth/oidc/callback?code=c&state=planted",
            cookie,
        )
        .await;
        assert_eq!(
            (status, location.as_str()),
            (303, "/login?sso-error=SSO_FLOW_INVALID")
        );
        assert!(
            cookies
                .iter()
                .any(|c| c.starts_with("portal_sso=;") && c.contains("Max-Age=0")),
            "{cookies:?}"
        );
        assert!(
            !cookies.iter().any(|c| c.starts_with("portal_refresh=")),
            "{cookies:?}"
        );
    }
}

#[tokio::test]
async fn a_forged_logout_token_is_refused_uncached_and_a_sign_out_answers_where_to_go() {
    let portal = portal_with_provider_away().await;
    let http = reqwest::Client::new();
    let response = http
        .post(format!("{}/api/auth/oidc/backchannel-logout", portal.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("logout_token=not-a-signed-token")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let answer = envelope(&response.text().await.unwrap());
    assert_eq!(answer["reason"], "SSO_LOGOUT_TOKEN_INVALID");
    assert_eq!(answer["errorMessage"], "Недействительный токен выхода");

    // A password's session names no provider to go to.
    let (status, _, body) = portal
        .post(
            "/api/auth/logout",
            Post {
                refresh_cookie: Some("unknown"),
                origin: Some(&portal.base),
                ..Post::default()
            },
        )
        .await;
    assert_eq!(data(status, &body)["endSessionUrl"], "");
}
