//! A real OpenID provider for the single sign-on tests: the OpenID-certified
//! `oidc-provider` package from npm, run by Node from
//! `web/e2e/support/oidc-provider.mjs` (the Playwright suite starts the same),
//! and a browser's part of its sign-in page played over HTTP with a cookie jar.
//! The provider's back-channel logout posts reach a small listener here
//! ([`PortalSide`]), standing where the gateway would.
//!
//! Without Node or the package (`cd web && npm install`) the tests say why
//! and pass; under `PORTAL_REQUIRE_E2E=1` (CI) they fail instead.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use portal_auth::sso::{SsoArgs, SsoSettings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub const CLIENT_ID: &str = "portal";
pub const CLIENT_SECRET: &str = "portal-test-secret";

fn web_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web")
}

/// A running provider; stopped when dropped.
pub struct OidcProvider {
    child: Child,
    pub issuer: String,
    /// Where the portal's callback and back-channel logout are, for the provider.
    pub portal: PortalSide,
}

impl OidcProvider {
    /// A provider that knows `accounts` (login → their claims beyond
    /// `sub` and `preferred_username`, which are the login); `None` when
    /// Node or the package is missing and the run does not require them.
    pub async fn start(accounts: serde_json::Value) -> Option<OidcProvider> {
        let script = web_dir().join("e2e/support/oidc-provider.mjs");
        let package = web_dir().join("node_modules/oidc-provider/package.json");
        let node = Command::new("node").arg("--version").output().is_ok();
        if !node || !package.exists() {
            let why = "the OpenID provider needs Node and `cd web && npm install`";
            if std::env::var("PORTAL_REQUIRE_E2E").as_deref() == Ok("1") {
                panic!("PORTAL_REQUIRE_E2E=1 but {why}");
            }
            eprintln!("SKIPPED: {why}");
            return None;
        }
        let portal = PortalSide::start().await;
        let mut child = Command::new("node")
            .arg(&script)
            .current_dir(web_dir())
            .env("OIDC_PORTAL_URL", &portal.url)
            .env("OIDC_CLIENT_ID", CLIENT_ID)
            .env("OIDC_CLIENT_SECRET", CLIENT_SECRET)
            .env("OIDC_ACCOUNTS", accounts.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("its output");
        let mut output = BufReader::new(stdout);
        let mut line = String::new();
        output
            .read_line(&mut line)
            .expect("the provider says where it listens");
        // Read on, or its next line would find the pipe closed and stop it.
        std::thread::spawn(move || std::io::copy(&mut output, &mut std::io::sink()));
        let started: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"));
        let issuer = started["issuer"].as_str().expect("issuer").to_owned();
        Some(OidcProvider {
            child,
            issuer,
            portal,
        })
    }

    /// The portal's settings for this provider (`args` changes the defaults).
    pub fn settings(&self, args: impl FnOnce(SsoArgs) -> SsoArgs) -> SsoSettings {
        let defaults = SsoArgs {
            oidc_issuer: Some(self.issuer.clone()),
            oidc_client_id: Some(CLIENT_ID.into()),
            oidc_client_secret: Some(CLIENT_SECRET.into()),
            oidc_name: "Keycloak больницы".into(),
            oidc_match_claim: portal_auth::sso::config::DEFAULT_MATCH_CLAIM.into(),
            oidc_scopes: portal_auth::sso::config::DEFAULT_SCOPES.into(),
            oidc_mfa_amr: portal_auth::sso::config::DEFAULT_MFA_AMR.into(),
            ..SsoArgs::default()
        };
        args(defaults)
            .settings(&self.portal.url)
            .expect("settings")
            .expect("single sign-on on")
    }

    /// Makes a new signing key; the old one stays published.
    pub async fn rotate_keys(&self) {
        let answer = reqwest::Client::new()
            .post(format!("{}/test/rotate-keys", self.issuer))
            .send()
            .await
            .expect("rotate");
        assert!(answer.status().is_success());
    }

    /// A browser of its own, to sign in at the provider.
    pub fn browser(&self) -> Browser {
        let callback = format!("{}/api/auth/oidc/", self.portal.url);
        // The provider's last redirect goes to the portal: stop there and
        // read it, as the gateway would be sent it.
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.url().as_str().starts_with(&callback) {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        Browser {
            http: reqwest::Client::builder()
                .cookie_store(true)
                .redirect(policy)
                .build()
                .expect("a client"),
            issuer: self.issuer.clone(),
        }
    }
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A browser's cookies at the provider.
pub struct Browser {
    http: reqwest::Client,
    issuer: String,
}

/// The provider's redirect back to the portal, read.
#[derive(Debug)]
pub struct Callback {
    pub code: String,
    pub state: String,
}

impl Browser {
    /// A form's action, which the provider may write with or without its origin.
    fn absolute(&self, action: &str) -> String {
        if action.starts_with("http") {
            action.to_owned()
        } else {
            format!("{}{action}", self.issuer)
        }
    }

    /// Follows an authorization URL, signs in as `login` on the provider's
    /// page (once per browser: later flows go straight back), and answers
    /// the callback the provider sends the browser to.
    pub async fn authorize(&self, authorization_url: &str, login: &str) -> Callback {
        let mut answer = self
            .http
            .get(authorization_url)
            .send()
            .await
            .expect("authorize");
        if answer.status().is_success() {
            let page = answer.text().await.expect("the sign-in page");
            let action = form_action(&page);
            answer = self
                .http
                .post(self.absolute(&action))
                .form(&[("prompt", "login"), ("login", login), ("password", "any")])
                .send()
                .await
                .expect("sign in at the provider");
        }
        callback(&answer)
    }

    /// Signs out at the provider by its end-session URL, confirming its
    /// question as a person would: its back-channel logout follows.
    pub async fn end_session(&self, end_session_url: &str) {
        let page = self
            .http
            .get(end_session_url)
            .send()
            .await
            .expect("end session")
            .text()
            .await
            .expect("its page");
        let action = form_action(&page);
        let xsrf = hidden(&page, "xsrf");
        let answer = self
            .http
            .post(self.absolute(&action))
            .form(&[("xsrf", xsrf.as_str()), ("logout", "yes")])
            .send()
            .await
            .expect("confirm");
        assert!(
            answer.status().is_redirection() || answer.status().is_success(),
            "{answer:?}"
        );
    }
}

fn form_action(page: &str) -> String {
    let start = page.find("action=\"").expect("a form") + "action=\"".len();
    let end = page[start..].find('"').expect("its end") + start;
    page[start..end]
        .replace("&#x2F;", "/")
        .replace("&amp;", "&")
}

fn hidden(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker).expect("the field") + marker.len();
    let end = page[start..].find('"').expect("its end") + start;
    page[start..end].to_owned()
}

fn callback(answer: &reqwest::Response) -> Callback {
    let location = answer
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_else(|| panic!("no redirect back: {answer:?}"));
    let url = reqwest::Url::parse(location).expect("a URL");
    let field = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
            .unwrap_or_default()
    };
    Callback {
        code: field("code"),
        state: field("state"),
    }
}

/// Where the provider reaches the portal: every form it posts (the
/// back-channel logout tokens) is kept, and answered 200.
pub struct PortalSide {
    pub url: String,
    posted: Arc<Mutex<Vec<String>>>,
}

impl PortalSide {
    async fn start() -> PortalSide {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let posted = Arc::new(Mutex::new(Vec::new()));
        let kept = posted.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let body = read_body(&mut stream).await;
                    kept.lock().expect("lock").push(body);
                    let _ = stream
                        .write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                        )
                        .await;
                });
            }
        });
        PortalSide { url, posted }
    }

    /// The logout tokens posted so far, waiting up to 5 s for the first.
    pub async fn logout_tokens(&self) -> Vec<String> {
        for _ in 0..50 {
            let tokens: Vec<String> = self
                .posted
                .lock()
                .expect("lock")
                .iter()
                .flat_map(|body| {
                    url::form_urlencoded::parse(body.as_bytes())
                        .filter(|(name, _)| name == "logout_token")
                        .map(|(_, token)| token.into_owned())
                        .collect::<Vec<_>>()
                })
                .collect();
            if !tokens.is_empty() {
                return tokens;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        Vec::new()
    }
}

/// An HTTP request's body, by its Content-Length.
async fn read_body(stream: &mut tokio::net::TcpStream) -> String {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let read = stream.read(&mut chunk).await.unwrap_or(0);
        if read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(&buffer);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())
                        .flatten()
                })
                .unwrap_or(0);
            if buffer.len() >= end + 4 + length {
                return String::from_utf8_lossy(&buffer[end + 4..end + 4 + length]).into_owned();
            }
        }
    }
    String::new()
}
