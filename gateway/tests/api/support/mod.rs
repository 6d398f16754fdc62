//! The gateway started in-process on a free port, with helpers to call it.

#![allow(dead_code)] // each test file uses its own part of the harness

pub mod cluster;
pub mod process;

use std::path::Path;

use clap::Parser;
use portal_gateway::{Config, Running};
use portal_kit::Right;
use portal_kit::token::TokenIssuer;
use serde_json::Value;

/// The bootstrap admin's password in every started portal.
pub const ADMIN_PASSWORD: &str = "spine-admin-password";

pub struct Portal {
    pub running: Running,
    pub data: tempfile::TempDir,
    pub base: String,
    pub http: reqwest::Client,
}

fn web_dir(root: &Path) -> std::path::PathBuf {
    let web = root.join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><div id=\"root\">portal</div>",
    )
    .unwrap();
    std::fs::write(web.join("assets/app-3f2a9c.js"), "console.log('portal')").unwrap();
    web
}

/// A gateway whose four upstreams are all `url`, plus `extra` settings.
pub async fn gateway_to(url: &str, extra: &[&str]) -> Portal {
    let upstreams = ["auth", "education", "wiki", "files"].map(|s| format!("--{s}-url={url}"));
    let mut args = vec!["--target=gateway"];
    args.extend(upstreams.iter().map(String::as_str));
    args.extend_from_slice(extra);
    start(&args).await
}

/// A stand-in for every service: records the values of `header` (joined by
/// ` | `) on each call but the gateway's own health watches, and answers
/// NOT_FOUND.
pub async fn recording_upstream(
    header: &'static str,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    recording_upstream_after(header, std::time::Duration::ZERO).await
}

/// As [`recording_upstream`], answering each call only after `delay`.
pub async fn recording_upstream_after(
    header: &'static str,
    delay: std::time::Duration,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let app = axum::Router::new().fallback(
        move |uri: axum::http::Uri, headers: axum::http::HeaderMap| {
            let record = record.clone();
            async move {
                if !uri.path().starts_with("/grpc.health.v1.Health/") {
                    let values = headers
                        .get_all(header)
                        .iter()
                        .map(|v| v.to_str().unwrap().to_owned())
                        .collect::<Vec<_>>()
                        .join(" | ");
                    record.lock().unwrap().push(values);
                    tokio::time::sleep(delay).await;
                }
                tonic::Status::not_found("Отделение не найдено").into_http::<axum::body::Body>()
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

pub async fn start(extra: &[&str]) -> Portal {
    let data = tempfile::tempdir().unwrap();
    let web = web_dir(data.path());
    let mut args = vec![
        "portal".to_owned(),
        "--http-addr=127.0.0.1:0".to_owned(),
        format!("--data-dir={}", data.path().display()),
        format!("--web-dir={}", web.display()),
        format!("--admin-password={ADMIN_PASSWORD}"),
    ];
    // No demo data unless a test asks for it.
    if !extra.iter().any(|a| a.starts_with("--seed-demo")) {
        args.push("--seed-demo=false".to_owned());
    }
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let running = portal_gateway::start(Config::try_parse_from(args).unwrap())
        .await
        .unwrap();
    let base = format!("http://{}", running.addr);
    Portal {
        running,
        data,
        base,
        http: reqwest::Client::new(),
    }
}

impl Portal {
    /// A native gRPC (HTTP/2) connection to the gateway.
    pub async fn grpc_channel(&self) -> tonic::transport::Channel {
        tonic::transport::Endpoint::from_shared(self.base.clone())
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    /// A token signed with the key `all` generated, as auth would sign it.
    pub fn token(&self, user_id: i64, rights: &[Right]) -> String {
        self.token_in(user_id, rights, &[])
    }

    /// A token of someone working in `departments`.
    pub fn token_in(&self, user_id: i64, rights: &[Right], departments: &[i64]) -> String {
        let issuer = TokenIssuer::from_pem_file(&self.data.path().join("jwt-private.pem")).unwrap();
        portal_kit::testing::sign(&issuer, user_id, rights, departments)
    }

    pub async fn get(
        &self,
        path: &str,
        token: Option<&str>,
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let mut request = self.http.get(format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        (
            response.status().as_u16(),
            response.headers().clone(),
            response.text().await.unwrap(),
        )
    }
}

/// What a POST carries besides its path.
#[derive(Default)]
pub struct Post<'a> {
    pub json: Option<Value>,
    pub token: Option<&'a str>,
    /// The value of the `portal_refresh` cookie.
    pub refresh_cookie: Option<&'a str>,
    /// The value of the `portal_device` cookie.
    pub device_cookie: Option<&'a str>,
    /// The page the browser says the call comes from (`Origin`).
    pub origin: Option<&'a str>,
}

impl Portal {
    pub async fn post(
        &self,
        path: &str,
        post: Post<'_>,
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let mut request = self.http.post(format!("{}{path}", self.base));
        if let Some(json) = &post.json {
            request = request.json(json);
        }
        if let Some(token) = post.token {
            request = request.bearer_auth(token);
        }
        if let Some(value) = post.refresh_cookie {
            request = request.header("cookie", format!("portal_refresh={value}"));
        }
        if let Some(value) = post.device_cookie {
            request = request.header("cookie", format!("portal_device={value}"));
        }
        if let Some(origin) = post.origin {
            request = request.header("origin", origin);
        }
        let response = request.send().await.unwrap();
        (
            response.status().as_u16(),
            response.headers().clone(),
            response.text().await.unwrap(),
        )
    }
}

/// The REST envelope `body` is, after checking it has all three fields.
pub fn envelope(body: &str) -> Value {
    let value: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {body}"));
    assert!(
        value.get("success").is_some()
            && value.get("data").is_some()
            && value.get("errorMessage").is_some(),
        "{value}"
    );
    value
}

/// The `data` of a successful envelope answered with 200.
pub fn data(status: u16, body: &str) -> Value {
    assert_eq!(status, 200, "{body}");
    succeeded(&envelope(body))
}

/// The `data` of an envelope that says it succeeded.
pub fn succeeded(envelope: &Value) -> Value {
    assert_eq!(envelope["success"], true, "{envelope}");
    assert!(envelope["errorMessage"].is_null(), "{envelope}");
    envelope["data"].clone()
}

/// The `errorMessage` of a failed envelope answered with `expected`.
pub fn error(expected: u16, status: u16, body: &str) -> String {
    assert_eq!(status, expected, "{body}");
    failed(&envelope(body))
}

/// The `errorMessage` of an envelope that says it failed.
pub fn failed(envelope: &Value) -> String {
    assert_eq!(envelope["success"], false, "{envelope}");
    envelope["errorMessage"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The `data` of a successful GET of `path` as the holder of `token`.
pub async fn get_data(portal: &Portal, path: &str, token: &str) -> Value {
    let (status, _, body) = portal.get(path, Some(token)).await;
    data(status, &body)
}

/// A POST of `json` to `path` as the holder of `token`: status and body.
pub async fn post_json(portal: &Portal, path: &str, token: &str, json: Value) -> (u16, String) {
    let post = Post {
        json: Some(json),
        token: Some(token),
        ..Post::default()
    };
    let (status, _, body) = portal.post(path, post).await;
    (status, body)
}

/// The `data` of a successful POST of `json` to `path` as the holder of `token`.
pub async fn post_data(portal: &Portal, path: &str, token: &str, json: Value) -> Value {
    let (status, body) = post_json(portal, path, token, json).await;
    data(status, &body)
}

/// The admin's access token from a sign-in over REST at `base`, as a browser's.
pub async fn sign_in_admin(http: &reqwest::Client, base: &str, password: &str) -> String {
    let login = http
        .post(format!("{base}/api/auth/login"))
        .json(&serde_json::json!({"login": "admin", "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200);
    login.json::<Value>().await.unwrap()["data"]["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A REST answer's envelope: its `data` on success, else the status and body.
pub async fn answer(response: reqwest::Response) -> Result<Value, String> {
    let status = response.status();
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    if status.is_success() {
        Ok(body["data"].clone())
    } else {
        Err(format!("{status}: {body}"))
    }
}

/// A JSON POST to `url` with `token`, cut after 10 s, and its [`answer`].
pub async fn post_as(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    body: &Value,
) -> Result<Value, String> {
    let response = http
        .post(url)
        .bearer_auth(token)
        .json(body)
        .timeout(std::time::Duration::from_secs(10))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    answer(response).await
}
