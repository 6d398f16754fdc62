//! The gateway started in-process on a free port, with helpers to call it.

#![allow(dead_code)] // each test file uses its own part of the harness

use std::path::Path;

use clap::Parser;
use portal_gateway::Running;
use portal_kit::Right;
use portal_kit::config::Config;
use portal_kit::token::{Subject, TokenIssuer};
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
        issuer
            .issue(Subject {
                user_id,
                login: format!("user{user_id}"),
                name: "Анна".into(),
                surname: "Иванова".into(),
                last_name: "Петровна".into(),
                rights: rights.iter().map(|r| r.as_str().to_owned()).collect(),
                departments: departments.to_vec(),
            })
            .unwrap()
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
