//! Idempotency keys (issue 21): a write retried with the same key returns the
//! first answer instead of being done twice.
//!
//! A unary call carrying metadata `idempotency-key` (REST: the gateway passes
//! the `Idempotency-Key` header of a POST on) from a known caller is keyed by
//! (caller, method, key): the caller is the person's id or the service
//! account's id from the verified token (never the token's text, so a renewed
//! token retries the same write), the method the call's full gRPC path.
//! The service's own database remembers the key with a hash of the request
//! message and, once answered, the answer (headers, message, trailers), so the
//! key holds across replicas. Then:
//! - the same key and the same message again: the stored answer, marked with
//!   `idempotency-replayed: true`, without calling the RPC;
//! - the same key with another message: FAILED_PRECONDITION, reason
//!   `IDEMPOTENCY_KEY_REUSED`;
//! - the same key while the first call is still running: FAILED_PRECONDITION,
//!   reason `IDEMPOTENCY_KEY_IN_PROGRESS` (REST 409): retry after a moment. A
//!   claim whose replica died before answering is taken over after
//!   [`ABANDONED_AFTER`].
//!
//! Only successes and deterministic refusals are stored (OK, INVALID_ARGUMENT,
//! NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, OUT_OF_RANGE); any other
//! answer (unavailable, internal, time-out, a rate limit, a caller not signed
//! in or without the right) forgets the key, so a retry does the call. A call
//! once claimed runs to its end and is recorded even if its caller hangs up.
//! Keys expire after [`KEY_LIFETIME`]; a write sweeps expired keys at most
//! once an hour per replica.
//!
//! An answer that carries a secret is never stored ([`secret`]): each such
//! method of a service is marked with [`Idempotent::with_secret_answers`],
//! either [`SecretAnswer::Rerun`] (no key kept: a retry does the call again)
//! or [`SecretAnswer::Refuse`] (the key kept with the status only: a retry of
//! a success is FAILED_PRECONDITION, reason `IDEMPOTENT_SECRET_NOT_REPLAYED`
//! (REST 409), «Запрос уже выполнен; повторите действие заново»). Auth marks
//! (its `lib.rs` says why each): Rerun EnrolMfa, Login, LoginMfa, RefreshToken,
//! FirstSignIn, IssueServiceToken; Refuse ConfirmMfa, RegenerateRecoveryCodes,
//! MakeFirstSignInCode, CreateServiceAccount, RotateServiceAccountSecret.
//! Rows stored before a method was marked lose their answer at the next sweep.
//!
//! Calls without the metadata, streaming methods, and anonymous callers pass
//! through untouched: the cost of a call without a key is one header lookup.
//! Every service keeps the keys in its table `idempotency_keys` (its
//! migrations) and wraps its server in [`Idempotent`] inside the token
//! interceptor, which tells it the caller.

mod secret;

pub use secret::{MSG_SECRET_NOT_REPLAYED, REASON_SECRET_NOT_REPLAYED, SecretAnswer};

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderName, HeaderValue, Request, Response};
use http_body::Frame;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use prost::Message as _;
use sha2::{Digest, Sha256};
use sqlx::{AnyPool, Row};
use tonic::body::Body;
use tonic::codegen::Bytes;
use tonic::server::NamedService;
use tonic::{Code, Status};
use tower::Service;

use crate::access::Caller;
use crate::{ServiceError, ServiceResult};

/// The metadata (gRPC) and header (REST) naming a call's idempotency key.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
/// Metadata on an answer replayed from an earlier call with the same key.
pub const REPLAYED_KEY: &str = "idempotency-replayed";
pub const REASON_KEY_REUSED: &str = "idempotency-key-reused";
pub const REASON_KEY_IN_PROGRESS: &str = "idempotency-key-in-progress";
pub const REASON_KEY_INVALID: &str = "idempotency-key-invalid";
pub const MSG_KEY_REUSED: &str = "Этот ключ идемпотентности уже использован для другого запроса";
pub const MSG_KEY_IN_PROGRESS: &str =
    "Запрос с этим ключом идемпотентности ещё выполняется. Повторите позже.";
/// An `Idempotency-Key` as sent: 1 to [`MAX_KEY_BYTES`] visible ASCII
/// characters, else refused ([`REASON_KEY_INVALID`]). The gateway checks a
/// REST write's at the door, so one it would not pass on is refused too.
pub fn key_of(value: &[u8]) -> Result<&str, ServiceError> {
    std::str::from_utf8(value)
        .ok()
        .filter(|key| {
            (1..=MAX_KEY_BYTES).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
        })
        .ok_or_else(|| ServiceError::invalid(MSG_KEY_INVALID).because(REASON_KEY_INVALID))
}

pub const MSG_KEY_INVALID: &str = "Ключ идемпотентности — от 1 до 255 видимых символов ASCII";
pub const MSG_BAD_MESSAGE: &str = "Некорректный запрос";
pub const MSG_TOO_LARGE: &str = "Слишком большой запрос";

/// How long a key is remembered.
pub const KEY_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a claimed key without an answer holds off its retries: longer
/// than any unary call may take, so only a replica that died mid-call leaves
/// one this old.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(10 * 60);
const MAX_KEY_BYTES: usize = 255;
const SWEEP_EVERY: Duration = Duration::from_secs(60 * 60);
/// The largest request message kept for hashing: the largest any service
/// reads (rich text with its images).
const MAX_MESSAGE_BYTES: usize = crate::rich_text::MAX_MESSAGE_BYTES;

/// A service's server whose unary calls honour idempotency keys; see the
/// module. Clones share the same keys.
#[derive(Clone)]
pub struct Idempotent<S> {
    inner: S,
    keys: Keys,
}

impl<S: NamedService> Idempotent<S> {
    /// `inner` (a generated server) keeping its keys in `pool`'s
    /// `idempotency_keys`.
    pub fn new(inner: S, pool: AnyPool) -> Self {
        Idempotent {
            inner,
            keys: Keys {
                pool,
                unary: Arc::new(unary_methods(S::NAME)),
                secrets: Arc::new(HashMap::new()),
                last_sweep: Arc::new(AtomicI64::new(0)),
            },
        }
    }

    /// Marks the methods (by name, `EnrolMfa`) whose answers carry a secret
    /// with what their retries get; their answers are never stored.
    pub fn with_secret_answers(mut self, methods: &[(&str, SecretAnswer)]) -> Self {
        let secrets = methods
            .iter()
            .map(|&(name, answer)| (format!("/{}/{name}", S::NAME), answer))
            .inspect(|(path, _)| {
                // A misspelt name would store that secret after all.
                debug_assert!(self.keys.unary.contains(path), "no unary method {path}");
            })
            .collect();
        self.keys.secrets = Arc::new(secrets);
        self
    }
}

impl<S: NamedService> NamedService for Idempotent<S> {
    const NAME: &'static str = S::NAME;
}

impl<S> Service<Request<Body>> for Idempotent<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let call = match request.headers().get(IDEMPOTENCY_KEY) {
            None => return Box::pin(self.inner.call(request)),
            Some(key) => Keyed::of(key, &request, &self.keys),
        };
        let call = match call {
            Ok(Some(call)) => call,
            Ok(None) => return Box::pin(self.inner.call(request)),
            Err(refusal) => {
                return Box::pin(std::future::ready(Ok(Status::from(refusal).into_http())));
            }
        };
        // The clone that was made ready is the one that answers.
        let fresh = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, fresh);
        let keys = self.keys.clone();
        Box::pin(async move {
            Ok(keys
                .answer(call, request, inner)
                .await
                .unwrap_or_else(|error| Status::from(error).into_http()))
        })
    }
}

/// The full paths of `service`'s unary methods, from the contracts.
fn unary_methods(service: &str) -> HashSet<String> {
    let Ok(files) = prost_types::FileDescriptorSet::decode(portal_proto::FILE_DESCRIPTOR_SET)
    else {
        return HashSet::new();
    };
    files
        .file
        .iter()
        .flat_map(|file| {
            let package = file.package().to_owned();
            file.service.iter().map(move |s| (package.clone(), s))
        })
        .filter(|(package, s)| format!("{package}.{}", s.name()) == service)
        .flat_map(|(_, s)| {
            s.method
                .iter()
                .filter(|m| !m.client_streaming() && !m.server_streaming())
                .map(|m| format!("/{service}/{}", m.name()))
        })
        .collect()
}

/// A call that carries a key: whose, which method, which key, and whether
/// its answer carries a secret (then a success is never replayed).
struct Keyed {
    principal: String,
    method: String,
    key: String,
    secret: bool,
}

impl Keyed {
    /// The call's key, if it is unary and its caller known; a malformed key
    /// is refused.
    fn of(key: &HeaderValue, request: &Request<Body>, keys: &Keys) -> ServiceResult<Option<Keyed>> {
        let principal = match request.extensions().get::<Caller>() {
            Some(Caller::SignedIn(claims)) => format!("user:{}", claims.user_id),
            Some(Caller::ServiceAccount(claims)) => format!("svc:{}", claims.account_id),
            // Nobody to key it by: the RPC judges the caller as ever.
            _ => return Ok(None),
        };
        let method = request.uri().path();
        if !keys.unary.contains(method) {
            return Ok(None);
        }
        let key = key_of(key.as_bytes())?;
        let secret = match keys.secrets.get(method) {
            // Done again on a retry: nothing to keep.
            Some(SecretAnswer::Rerun) => return Ok(None),
            Some(SecretAnswer::Refuse) => true,
            None => false,
        };
        Ok(Some(Keyed {
            principal,
            method: method.to_owned(),
            key: key.to_owned(),
            secret,
        }))
    }
}

/// What a claim found.
enum Claim {
    /// The key is new (or expired): this call does the work.
    Mine,
    Answered(Stored),
    InProgress,
    Reused,
}

/// An answer as recorded.
struct Stored {
    code: i64,
    headers: String,
    body: Vec<u8>,
    trailers: String,
}

#[derive(Clone)]
struct Keys {
    pool: AnyPool,
    unary: Arc<HashSet<String>>,
    /// The full paths of the methods whose answers carry a secret.
    secrets: Arc<HashMap<String, SecretAnswer>>,
    /// Unix milliseconds of this replica's last sweep of expired keys.
    last_sweep: Arc<AtomicI64>,
}

impl Keys {
    async fn answer<S>(
        self,
        call: Keyed,
        request: Request<Body>,
        inner: S,
    ) -> ServiceResult<Response<Body>>
    where
        S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Send + 'static,
        S::Future: Send + 'static,
    {
        let (parts, body) = request.into_parts();
        let message = Limited::new(body, MAX_MESSAGE_BYTES)
            .collect()
            .await
            .map_err(|error| {
                if error.is::<LengthLimitError>() {
                    ServiceError::TooLarge(MSG_TOO_LARGE.into())
                } else {
                    ServiceError::invalid(MSG_BAD_MESSAGE)
                }
            })?
            .to_bytes();
        let hash = hex::encode(Sha256::digest(&message));
        let now = unix_millis();
        self.sweep(now).await;
        match self.claim(&call, &hash, now).await? {
            Claim::Reused => Err(ServiceError::conflict(MSG_KEY_REUSED).because(REASON_KEY_REUSED)),
            Claim::InProgress => {
                Err(ServiceError::conflict(MSG_KEY_IN_PROGRESS).because(REASON_KEY_IN_PROGRESS))
            }
            // Whatever an older release stored, a secret is never replayed.
            Claim::Answered(stored) if call.secret && stored.code == Code::Ok as i64 => {
                Err(secret::not_replayed())
            }
            Claim::Answered(stored) => Ok(replay(stored)),
            Claim::Mine => {
                let request = Request::from_parts(parts, Body::new(Full::new(message)));
                // Run to the end even if the caller hangs up: its retry then
                // finds the answer rather than a claim in progress.
                tokio::spawn(self.call_and_record(call, request, inner))
                    .await
                    .map_err(ServiceError::internal)
            }
        }
    }

    async fn call_and_record<S>(
        self,
        call: Keyed,
        request: Request<Body>,
        mut inner: S,
    ) -> Response<Body>
    where
        S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>,
    {
        let response = match inner.call(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
        let (parts, body) = response.into_parts();
        let collected = match body.collect().await {
            Ok(collected) => collected,
            Err(status) => {
                self.forget(&call).await;
                return status.into_http();
            }
        };
        let trailers = collected.trailers().cloned().unwrap_or_default();
        let message = collected.to_bytes();
        let code = trailers
            .get("grpc-status")
            .or_else(|| parts.headers.get("grpc-status"))
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<i32>().ok())
            .map(Code::from_i32);
        if let Some(code) = code.filter(|&c| deterministic(c)) {
            let stored = Stored {
                code: code as i64,
                headers: to_json(&parts.headers),
                body: message.to_vec(),
                trailers: to_json(&trailers),
            };
            // A secret's success keeps its status alone, which refuses retries.
            let kept = (!call.secret || code != Code::Ok).then_some(&stored);
            if let Err(error) = self.record(&call, stored.code, kept).await {
                tracing::warn!(%error, method = call.method, "cannot record an idempotent answer");
                self.forget(&call).await;
            }
        } else {
            self.forget(&call).await;
        }
        Response::from_parts(parts, Body::new(Replay::new(message, trailers)))
    }

    async fn claim(&self, call: &Keyed, hash: &str, now: i64) -> ServiceResult<Claim> {
        // A stale row found is removed and the claim tried again, once.
        for _ in 0..2 {
            let inserted = sqlx::query(
                "INSERT INTO idempotency_keys \
                 (principal, method, idempotency_key, request_hash, created_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            )
            .bind(&call.principal)
            .bind(&call.method)
            .bind(&call.key)
            .bind(hash)
            .bind(now)
            .execute(&self.pool)
            .await?
            .rows_affected();
            if inserted == 1 {
                return Ok(Claim::Mine);
            }
            let Some(row) = sqlx::query(
                "SELECT request_hash, grpc_status, response_headers, response_body, \
                 response_trailers, created_at FROM idempotency_keys \
                 WHERE principal = $1 AND method = $2 AND idempotency_key = $3",
            )
            .bind(&call.principal)
            .bind(&call.method)
            .bind(&call.key)
            .fetch_optional(&self.pool)
            .await?
            else {
                continue;
            };
            let created_at: i64 = row.try_get("created_at")?;
            let status: Option<i64> = row.try_get("grpc_status")?;
            let age = now.saturating_sub(created_at);
            if age > millis(KEY_LIFETIME) || (status.is_none() && age > millis(ABANDONED_AFTER)) {
                sqlx::query(
                    "DELETE FROM idempotency_keys WHERE principal = $1 AND method = $2 \
                     AND idempotency_key = $3 AND created_at = $4",
                )
                .bind(&call.principal)
                .bind(&call.method)
                .bind(&call.key)
                .bind(created_at)
                .execute(&self.pool)
                .await?;
                continue;
            }
            if row.try_get::<String, _>("request_hash")? != hash {
                return Ok(Claim::Reused);
            }
            if status.is_none() {
                return Ok(Claim::InProgress);
            }
            return Ok(Claim::Answered(Stored {
                code: status.unwrap_or_default(),
                headers: row
                    .try_get::<Option<String>, _>("response_headers")?
                    .unwrap_or_default(),
                body: row
                    .try_get::<Option<Vec<u8>>, _>("response_body")?
                    .unwrap_or_default(),
                trailers: row
                    .try_get::<Option<String>, _>("response_trailers")?
                    .unwrap_or_default(),
            }));
        }
        Ok(Claim::InProgress)
    }

    /// Records the answer of a call (its status only when `stored` is none).
    async fn record(
        &self,
        call: &Keyed,
        code: i64,
        stored: Option<&Stored>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE idempotency_keys SET grpc_status = $4, response_headers = $5, \
             response_body = $6, response_trailers = $7 \
             WHERE principal = $1 AND method = $2 AND idempotency_key = $3",
        )
        .bind(&call.principal)
        .bind(&call.method)
        .bind(&call.key)
        .bind(code)
        .bind(stored.map(|s| s.headers.as_str()))
        .bind(stored.map(|s| s.body.as_slice()))
        .bind(stored.map(|s| s.trailers.as_str()))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Drops the claim of a call whose answer is not kept, so a retry does it.
    async fn forget(&self, call: &Keyed) {
        let forgotten = sqlx::query(
            "DELETE FROM idempotency_keys \
             WHERE principal = $1 AND method = $2 AND idempotency_key = $3",
        )
        .bind(&call.principal)
        .bind(&call.method)
        .bind(&call.key)
        .execute(&self.pool)
        .await;
        if let Err(error) = forgotten {
            tracing::warn!(%error, method = call.method, "cannot release an idempotency key");
        }
    }

    /// Deletes expired keys, at most once per [`SWEEP_EVERY`] in this replica.
    async fn sweep(&self, now: i64) {
        let last = self.last_sweep.load(Ordering::Relaxed);
        if now - last < millis(SWEEP_EVERY)
            || self
                .last_sweep
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        let swept = sqlx::query("DELETE FROM idempotency_keys WHERE created_at < $1")
            .bind(now - millis(KEY_LIFETIME))
            .execute(&self.pool)
            .await;
        match swept {
            Ok(done) => tracing::debug!(expired = done.rows_affected(), "swept idempotency keys"),
            Err(error) => tracing::warn!(%error, "cannot sweep expired idempotency keys"),
        }
        self.forget_stored_secrets().await;
    }

    /// Drops the answers of secret-bearing methods that a release before
    /// their mark stored: the status stays (a retry is still refused), the
    /// secret goes; a method done again on retry loses its rows.
    async fn forget_stored_secrets(&self) {
        for (method, answer) in self.secrets.iter() {
            let statement = match answer {
                SecretAnswer::Refuse => {
                    "UPDATE idempotency_keys SET response_headers = NULL, response_body = NULL, \
                     response_trailers = NULL WHERE method = $1 AND response_body IS NOT NULL \
                     AND grpc_status = 0"
                }
                SecretAnswer::Rerun => "DELETE FROM idempotency_keys WHERE method = $1",
            };
            let forgotten = sqlx::query(statement)
                .bind(method)
                .execute(&self.pool)
                .await;
            if let Err(error) = forgotten {
                tracing::warn!(%error, method, "cannot forget stored secret answers");
            }
        }
    }
}

/// Answers whose replay is right: the call would answer the same again.
fn deterministic(code: Code) -> bool {
    matches!(
        code,
        Code::Ok
            | Code::InvalidArgument
            | Code::NotFound
            | Code::AlreadyExists
            | Code::FailedPrecondition
            | Code::OutOfRange
    )
}

fn replay(stored: Stored) -> Response<Body> {
    let mut response = Response::new(Body::new(Replay::new(
        Bytes::from(stored.body),
        from_json(&stored.trailers),
    )));
    *response.headers_mut() = from_json(&stored.headers);
    response
        .headers_mut()
        .insert(REPLAYED_KEY, HeaderValue::from_static("true"));
    response
}

fn to_json(headers: &HeaderMap) -> String {
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?)))
        .collect();
    serde_json::to_string(&pairs).unwrap_or_default()
}

fn from_json(text: &str) -> HeaderMap {
    let pairs: Vec<(String, String)> = serde_json::from_str(text).unwrap_or_default();
    pairs
        .into_iter()
        .filter_map(|(name, value)| {
            Some((
                HeaderName::try_from(name).ok()?,
                HeaderValue::try_from(value).ok()?,
            ))
        })
        .collect()
}

/// A gRPC answer's body: its message, then its trailers.
struct Replay {
    message: Option<Bytes>,
    trailers: Option<HeaderMap>,
}

impl Replay {
    fn new(message: Bytes, trailers: HeaderMap) -> Self {
        Replay {
            message: Some(message).filter(|m| !m.is_empty()),
            trailers: Some(trailers).filter(|t| !t.is_empty()),
        }
    }
}

impl http_body::Body for Replay {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let frame = match self.message.take() {
            Some(message) => Some(Frame::data(message)),
            None => self.trailers.take().map(Frame::trailers),
        };
        Poll::Ready(frame.map(Ok))
    }

    fn is_end_stream(&self) -> bool {
        self.message.is_none() && self.trailers.is_none()
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unary_methods_of_the_service_are_keyed() {
        let files = unary_methods("portal.files.v1.FilesService");
        assert!(!files.is_empty());
        for streaming in ["SaveFile", "DownloadFile", "SaveVideo"] {
            assert!(
                !files.contains(&format!("/portal.files.v1.FilesService/{streaming}")),
                "{streaming}"
            );
        }
        let auth = unary_methods("portal.auth.v1.AuthService");
        assert!(auth.contains("/portal.auth.v1.AuthService/CreateDepartment"));
        assert!(!auth.iter().any(|m| m.contains("FilesService")));
    }

    #[test]
    fn an_answer_is_kept_only_when_the_call_would_answer_it_again() {
        assert!(deterministic(Code::Ok) && deterministic(Code::FailedPrecondition));
        for code in [
            Code::Unavailable,
            Code::Internal,
            Code::DeadlineExceeded,
            Code::ResourceExhausted,
            Code::Unauthenticated,
            Code::PermissionDenied,
        ] {
            assert!(!deterministic(code), "{code:?}");
        }
    }

    #[test]
    fn headers_survive_their_record() {
        let mut headers = HeaderMap::new();
        headers.insert("grpc-status", HeaderValue::from_static("9"));
        headers.insert("portal-reason", HeaderValue::from_static("no-open-attempt"));
        assert_eq!(from_json(&to_json(&headers)), headers);
    }
}
