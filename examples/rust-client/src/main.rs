//! The Rust example client of docs/integration.md: a hospital system on the
//! portal's integration APIs, as a service account.
//!
//! - Its token comes from the OAuth 2.0 client-credentials grant (RFC 6749 §4.4):
//!   `POST /api/oauth/token`, HTTP Basic (or the body form), renewed a minute
//!   before it expires.
//! - Its calls are gRPC with tonic through the portal's gateway, the token as the
//!   `authorization` metadata; the clients come from the workspace's
//!   `portal-proto` (an integrator generates the same from `proto/` with
//!   tonic-prost-build).
//! - A refusal carries a stable reason (`google.rpc.ErrorInfo` in the status
//!   details) that a program branches on; RESOURCE_EXHAUSTED is retried after the
//!   delay the portal names; writes carry an idempotency key, so a retried write
//!   is done once.
//!
//! Output: one JSON object per line on stdout, diagnostics on stderr; exit 0 on
//! success, 1 on a refusal or a deviation, 2 on a usage error.

use std::fmt;
use std::future::Future;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use portal_proto::auth::v1 as auth;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::education::v1 as education;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use prost::Message;
use serde::Deserialize;
use tokio::sync::Mutex;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Response, Status};

/// A token is renewed this long before it expires (tokens live 5–15 minutes).
const RENEW_BEFORE: Duration = Duration::from_secs(60);
/// A call retried after RESOURCE_EXHAUSTED or UNAVAILABLE at most this often.
const MAX_TRIES: u32 = 5;

#[derive(Parser)]
#[command(about = "Portal integration client (docs/integration.md)")]
struct Cli {
    /// The portal (REST and the token endpoint).
    #[arg(long, env = "PORTAL_URL", default_value = "http://127.0.0.1:8080")]
    url: String,
    /// gRPC's own address where it has one (as behind the Kubernetes ingress);
    /// else the portal's.
    #[arg(long, env = "PORTAL_GRPC_URL")]
    grpc_url: Option<String>,
    /// The service account's client id.
    #[arg(long, env = "PORTAL_CLIENT_ID")]
    client_id: String,
    /// The service account's client secret.
    #[arg(long, env = "PORTAL_CLIENT_SECRET", hide_env_values = true)]
    client_secret: String,
    /// Space-separated scopes to ask for; the account's own when left out.
    #[arg(long)]
    scope: Option<String>,
    /// Send client_id/client_secret in the form body instead of HTTP Basic.
    #[arg(long)]
    credentials_in_body: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch a token; print its scope and lifetime.
    Token,
    /// Upsert departments, positions and people from HR (staff.write).
    SyncStaff {
        /// JSON in the shape of POST /api/integration/sync-staff.
        file: String,
        /// Answer the diff, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Block HR people missing from the file.
        #[arg(long)]
        full: bool,
    },
    /// Training records since a cursor, every page (training.read).
    Records {
        #[arg(long, default_value_t = 0)]
        after: i64,
        /// Records a page (at most 5000).
        #[arg(long, default_value_t = 500)]
        limit: i32,
    },
    /// Follow new training records (training.read).
    Watch {
        #[arg(long, default_value_t = 0)]
        after: i64,
        /// Stop after this many records (0: no limit).
        #[arg(long, default_value_t = 0)]
        max: usize,
        /// Stop after this many seconds.
        #[arg(long, default_value_t = 3600.0)]
        timeout: f64,
    },
    /// Assign a course to departments or people by their HR keys (training.assign).
    Assign {
        #[arg(long)]
        course: i64,
        /// HR department code (repeatable).
        #[arg(long)]
        department: Vec<String>,
        /// HR employee number (repeatable).
        #[arg(long)]
        employee: Vec<String>,
        /// YYYY-MM-DD.
        #[arg(long)]
        deadline: String,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("portal-example-client: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let credentials = ClientCredentials {
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()?,
        token_url: format!("{}/api/oauth/token", cli.url.trim_end_matches('/')),
        client_id: cli.client_id,
        client_secret: cli.client_secret,
        scope: cli.scope,
        in_body: cli.credentials_in_body,
        current: Mutex::new(None),
    };
    let channel = Endpoint::from_shared(cli.grpc_url.unwrap_or_else(|| cli.url.clone()))?
        .connect_timeout(Duration::from_secs(5))
        .connect_lazy();
    let portal = Portal {
        credentials,
        auth: AuthServiceClient::new(channel.clone()),
        education: EducationServiceClient::new(channel),
    };
    match cli.command {
        Command::Token => {
            let token = portal.credentials.fetch().await?;
            emit(&serde_json::json!({
                "tokenType": "Bearer",
                "scope": token.scope,
                "expiresIn": token.expires_in,
            }));
        }
        Command::SyncStaff {
            file,
            dry_run,
            full,
        } => sync_staff(&portal, &file, dry_run, full).await?,
        Command::Records { after, limit } => records(&portal, after, limit).await?,
        Command::Watch {
            after,
            max,
            timeout,
        } => {
            let deadline = Instant::now() + Duration::from_secs_f64(timeout);
            let count = portal.watch(after, max, deadline).await?;
            if max > 0 && count < max {
                bail!("watch: {count} of {max} records within {timeout} s");
            }
        }
        Command::Assign {
            course,
            department,
            employee,
            deadline,
        } => {
            let reply = portal
                .assign_course(education::AssignCourseRequest {
                    course_id: course,
                    department_codes: department,
                    employee_numbers: employee,
                    date_deadline: deadline,
                    ..Default::default()
                })
                .await?;
            emit(&serde_json::to_value(&reply)?);
        }
    }
    Ok(())
}

/// Sends a staff batch from `file` and prints the counts of what it did.
async fn sync_staff(portal: &Portal, file: &str, dry_run: bool, full: bool) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    let mut batch: auth::SyncStaffRequest =
        serde_json::from_str(&text).with_context(|| format!("reading {file}"))?;
    batch.dry_run |= dry_run;
    batch.full |= full;
    let sent = batch.people.len();
    let started = Instant::now();
    let reply = portal.sync_staff(batch).await?;
    let seconds = started.elapsed().as_secs_f64();
    let refused = reply.errors.len();
    // The counts; the per-row lists (every person created or changed) only counted.
    let mut result = serde_json::to_value(&reply)?;
    if let Some(fields) = result.as_object_mut() {
        for list in ["people", "departments", "positions"] {
            fields.remove(list);
        }
        fields.insert("sent".into(), sent.into());
        fields.insert("seconds".into(), seconds.into());
    }
    emit(&result);
    if refused > 0 {
        eprintln!("portal-example-client: {refused} rows refused (the rest applied): see `errors`");
    }
    Ok(())
}

/// Prints every training record after `after`, page by page.
async fn records(portal: &Portal, after: i64, limit: i32) -> anyhow::Result<()> {
    let (mut cursor, mut count) = (after, 0);
    loop {
        let page = portal.records(cursor, limit).await?;
        for record in &page.records {
            emit(&serde_json::json!({ "record": record }));
            count += 1;
        }
        cursor = page.next;
        // A page shorter than the limit is the last one recorded yet.
        if page.records.len() < usize::try_from(limit)? {
            break;
        }
    }
    emit(&serde_json::json!({ "count": count, "next": cursor }));
    Ok(())
}

fn emit(value: &serde_json::Value) {
    println!("{value}");
}

// --- Tokens: OAuth 2.0 client credentials ------------------------------------

struct ClientCredentials {
    http: reqwest::Client,
    token_url: String,
    client_id: String,
    client_secret: String,
    scope: Option<String>,
    in_body: bool,
    current: Mutex<Option<Token>>,
}

#[derive(Clone)]
struct Token {
    access_token: String,
    scope: String,
    expires_in: u64,
    renew_at: Instant,
}

/// RFC 6749 §5.1.
#[derive(Deserialize)]
struct TokenReply {
    access_token: String,
    token_type: String,
    expires_in: u64,
    #[serde(default)]
    scope: String,
}

/// RFC 6749 §5.2.
#[derive(Deserialize)]
struct TokenError {
    error: String,
    #[serde(default)]
    error_description: String,
}

impl ClientCredentials {
    /// A new token from the token endpoint.
    async fn fetch(&self) -> anyhow::Result<Token> {
        let mut form = vec![("grant_type", "client_credentials")];
        if let Some(scope) = &self.scope {
            form.push(("scope", scope));
        }
        let mut request = self.http.post(&self.token_url);
        if self.in_body {
            form.push(("client_id", &self.client_id));
            form.push(("client_secret", &self.client_secret));
        } else {
            request = request.basic_auth(&self.client_id, Some(&self.client_secret));
        }
        let asked = Instant::now();
        let response = request.form(&form).send().await?;
        let status = response.status();
        if !status.is_success() {
            let refusal: TokenError = response.json().await.with_context(|| {
                format!("token endpoint answered {status} without an RFC 6749 error")
            })?;
            bail!(
                "token refused: {} (HTTP {}): {}",
                refusal.error,
                status.as_u16(),
                refusal.error_description
            );
        }
        let reply: TokenReply = response.json().await?;
        if !reply.token_type.eq_ignore_ascii_case("bearer") {
            bail!("token endpoint answered token_type {}", reply.token_type);
        }
        let lifetime = Duration::from_secs(reply.expires_in);
        Ok(Token {
            access_token: reply.access_token,
            scope: reply.scope,
            expires_in: reply.expires_in,
            renew_at: asked + lifetime.saturating_sub(RENEW_BEFORE),
        })
    }

    /// The current token, renewed when it is due (or when `renew`).
    async fn token(&self, renew: bool) -> anyhow::Result<Token> {
        let mut current = self.current.lock().await;
        match current.as_ref() {
            Some(token) if !renew && Instant::now() < token.renew_at => Ok(token.clone()),
            _ => {
                let token = self.fetch().await?;
                *current = Some(token.clone());
                Ok(token)
            }
        }
    }
}

// --- Calls -----------------------------------------------------------------------

/// A refused call: its code, the stable reason a program branches on, and the
/// message for people (Russian).
#[derive(Debug)]
struct Refused {
    code: Code,
    reason: Option<String>,
    message: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "refused: {:?} {}: {}",
            self.code,
            self.reason.as_deref().unwrap_or("-"),
            self.message
        )
    }
}

impl std::error::Error for Refused {}

/// `google.rpc.Status`, the `grpc-status-details-bin` trailer.
#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

/// `google.rpc.ErrorInfo`: the stable reason (its metadata map left out).
#[derive(Clone, PartialEq, Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
}

/// `google.rpc.RetryInfo`: how long to wait before trying again.
#[derive(Clone, PartialEq, Message)]
struct RetryInfo {
    #[prost(message, optional, tag = "1")]
    retry_delay: Option<prost_types::Duration>,
}

fn details(status: &Status) -> Vec<prost_types::Any> {
    RpcStatus::decode(status.details())
        .map(|s| s.details)
        .unwrap_or_default()
}

fn refusal(status: &Status) -> Refused {
    let reason = details(status)
        .iter()
        .find(|any| any.type_url.ends_with("/google.rpc.ErrorInfo"))
        .and_then(|any| ErrorInfo::decode(any.value.as_slice()).ok())
        .map(|info| info.reason)
        .or_else(|| {
            status
                .metadata()
                .get("portal-reason")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        });
    Refused {
        code: status.code(),
        reason,
        message: status.message().to_owned(),
    }
}

fn retry_delay(status: &Status) -> Duration {
    let named = details(status)
        .iter()
        .find(|any| any.type_url.ends_with("/google.rpc.RetryInfo"))
        .and_then(|any| RetryInfo::decode(any.value.as_slice()).ok())
        .and_then(|info| info.retry_delay)
        .map(|d| Duration::new(d.seconds.max(0) as u64, d.nanos.max(0) as u32));
    named
        .or_else(|| {
            status
                .metadata()
                .get("retry-after")
                .and_then(|v| v.to_str().ok()?.parse::<f64>().ok())
                .map(Duration::from_secs_f64)
        })
        .unwrap_or(Duration::from_secs(1))
}

/// A key unique to one logical write, kept over its retries.
fn idempotency_key() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("rust-example-{}-{nanos}", std::process::id())
}

struct Portal {
    credentials: ClientCredentials,
    auth: AuthServiceClient<Channel>,
    education: EducationServiceClient<Channel>,
}

impl Portal {
    /// A request with the bearer token, and the idempotency key of a write.
    async fn request<T>(
        &self,
        message: T,
        key: Option<&str>,
        renew: bool,
    ) -> anyhow::Result<Request<T>> {
        let token = self.credentials.token(renew).await?;
        let mut request = Request::new(message);
        request.set_timeout(Duration::from_secs(120));
        request.metadata_mut().insert(
            "authorization",
            MetadataValue::try_from(format!("Bearer {}", token.access_token))?,
        );
        if let Some(key) = key {
            request
                .metadata_mut()
                .insert("idempotency-key", MetadataValue::try_from(key)?);
        }
        Ok(request)
    }

    /// One unary call: a write carries one idempotency key over all its tries;
    /// RESOURCE_EXHAUSTED waits the delay the portal names, UNAVAILABLE and a
    /// first try still running (IDEMPOTENCY_KEY_IN_PROGRESS) a moment;
    /// UNAUTHENTICATED renews the token once (it may have been revoked early).
    async fn call<T: Clone, R, F, Fut>(&self, message: T, write: bool, rpc: F) -> anyhow::Result<R>
    where
        F: Fn(Request<T>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
    {
        let key = write.then(idempotency_key);
        let mut renew = false;
        let mut renewed = false;
        for attempt in 1..=MAX_TRIES {
            let request = self.request(message.clone(), key.as_deref(), renew).await?;
            renew = false;
            match rpc(request).await {
                Ok(reply) => return Ok(reply.into_inner()),
                Err(status) if status.code() == Code::ResourceExhausted && attempt < MAX_TRIES => {
                    let delay = retry_delay(&status);
                    eprintln!("portal-example-client: rate limited; retrying in {delay:?}");
                    tokio::time::sleep(delay).await;
                }
                Err(status)
                    if attempt < MAX_TRIES
                        && (status.code() == Code::Unavailable
                            || refusal(&status).reason.as_deref()
                                == Some("IDEMPOTENCY_KEY_IN_PROGRESS")) =>
                {
                    tokio::time::sleep(Duration::from_millis(500) * attempt).await;
                }
                Err(status) if status.code() == Code::Unauthenticated && !renewed => {
                    renew = true;
                    renewed = true;
                }
                Err(status) => return Err(refusal(&status).into()),
            }
        }
        bail!("gave up after {MAX_TRIES} tries")
    }

    async fn sync_staff(
        &self,
        batch: auth::SyncStaffRequest,
    ) -> anyhow::Result<auth::SyncStaffResponse> {
        self.call(batch, true, |request| {
            let mut client = self.auth.clone();
            async move { client.sync_staff(request).await }
        })
        .await
    }

    async fn assign_course(
        &self,
        request: education::AssignCourseRequest,
    ) -> anyhow::Result<education::AssignCourseResponse> {
        self.call(request, true, |request| {
            let mut client = self.education.clone();
            async move { client.assign_course(request).await }
        })
        .await
    }

    async fn records(
        &self,
        after: i64,
        limit: i32,
    ) -> anyhow::Result<education::ListTrainingRecordsResponse> {
        let request = education::ListTrainingRecordsRequest { after, limit };
        self.call(request, false, |request| {
            let mut client = self.education.clone();
            async move { client.list_training_records(request).await }
        })
        .await
    }

    /// Prints new records as they are made, from the cursor on, until `max`
    /// records or the deadline. A broken stream (the network, a restart, the
    /// token's end) is resumed from the last cursor seen, so nothing is missed
    /// and nothing comes twice. Answers how many records came.
    async fn watch(&self, after: i64, max: usize, deadline: Instant) -> anyhow::Result<usize> {
        let (mut cursor, mut count, mut failures, mut renew) = (after, 0, 0u32, false);
        while Instant::now() < deadline {
            let message = education::WatchTrainingRecordsRequest { after: cursor };
            let mut request = self.request(message, None, renew).await?;
            renew = false;
            request.set_timeout(deadline.saturating_duration_since(Instant::now()));
            let mut client = self.education.clone();
            let broken = match client.watch_training_records(request).await {
                Ok(reply) => {
                    eprintln!("portal-example-client: watching after cursor {cursor}");
                    let mut stream = reply.into_inner();
                    loop {
                        let left = deadline.saturating_duration_since(Instant::now());
                        match tokio::time::timeout(left, stream.message()).await {
                            Err(_) => return Ok(count),
                            Ok(Ok(Some(message))) => {
                                failures = 0;
                                let received = SystemTime::now()
                                    .duration_since(UNIX_EPOCH)
                                    .map(|d| d.as_secs_f64())
                                    .unwrap_or_default();
                                for record in &message.records {
                                    emit(
                                        &serde_json::json!({ "receivedAt": received, "record": record }),
                                    );
                                    count += 1;
                                    if max > 0 && count >= max {
                                        return Ok(count);
                                    }
                                }
                                cursor = message.next;
                            }
                            // The server ended the stream: follow on from the cursor.
                            Ok(Ok(None)) => break None,
                            Ok(Err(status)) => break Some(status),
                        }
                    }
                }
                Err(status) => Some(status),
            };
            if let Some(status) = broken {
                match status.code() {
                    Code::DeadlineExceeded => return Ok(count),
                    Code::Unauthenticated => renew = true,
                    Code::Unavailable | Code::ResourceExhausted | Code::Cancelled => {}
                    _ => return Err(refusal(&status).into()),
                }
                eprintln!(
                    "portal-example-client: watch: stream broke ({:?}); resuming after cursor {cursor}",
                    status.code()
                );
            }
            failures += 1;
            tokio::time::sleep(Duration::from_millis(200 * u64::from(failures.min(25)))).await;
        }
        Ok(count)
    }
}
