//! The audit log (issue 25): every write of every service, every sign-in,
//! sign-out, refused sign-in, right granted or removed and file downloaded
//! through a link is one record of who, when, from where (address, request
//! id), which entity, what action and which fields changed (old → new).
//!
//! Three rules hold it together:
//! - **Same transaction.** A service records a write with [`record`] on the
//!   write's own transaction, so a write rolled back leaves no record and a
//!   record never claims a write that did not happen.
//! - **Append-only.** The database itself refuses every UPDATE of a record and
//!   every DELETE but the retention purge's ([`purge`]): triggers in
//!   [`SQLITE_SCHEMA`] / [`POSTGRES_SCHEMA`], which every service's migration
//!   copies verbatim (a test here compares them). No RPC edits or deletes one.
//! - **No secrets.** A password's or a client secret's change is recorded as
//!   changed, its values `"***"` ([`Changes::secret`], the `secrets` of
//!   [`Changes::diff`]); the value never reaches the record.
//!
//! Every service serves the same `portal.audit.v1.AuditService` over its own
//! records ([`AuditRpc`]); the gateway asks all four and merges them.

use std::net::IpAddr;

use portal_proto::audit::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlx::{Any, AnyConnection, AnyPool};
use tonic::{Request, Response, Status};

use crate::access::{Caller, Right};
use crate::db::{Backend, begin_write, now_millis, placeholders, timestamp_from_millis};
use crate::net::{FORWARDED_FOR, TrustedProxies};
use crate::telemetry::REQUEST_ID_HEADER;
use crate::{ServiceError, ServiceResult};

/// The audit table on SQLite. Copied verbatim into each service's migration.
/// `id` is AUTOINCREMENT so a purged record's id is never given again (the
/// keyset paging of [`list`] relies on ids rising). `audit_purge` holds the
/// instant before which the purge may delete, 0 but inside a purge's
/// transaction.
pub const SQLITE_SCHEMA: &str = "
CREATE TABLE audit_records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at BIGINT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_user_id BIGINT,
    actor_client_id TEXT,
    actor_login TEXT,
    address TEXT,
    request_id TEXT,
    entity TEXT NOT NULL,
    entity_id BIGINT,
    action TEXT NOT NULL,
    changes TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX audit_records_time ON audit_records (at, id);
CREATE INDEX audit_records_entity ON audit_records (entity, entity_id, at);
CREATE INDEX audit_records_actor ON audit_records (actor_user_id, at);
CREATE TABLE audit_purge (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    before BIGINT NOT NULL
);
INSERT INTO audit_purge (id, before) VALUES (1, 0);
CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
BEGIN
    SELECT RAISE(ABORT, 'audit records are append-only');
END;
CREATE TRIGGER audit_records_no_delete BEFORE DELETE ON audit_records
WHEN old.at >= (SELECT before FROM audit_purge WHERE id = 1)
BEGIN
    SELECT RAISE(ABORT, 'audit records are append-only');
END;
";

/// The same on PostgreSQL. A DELETE passes only for a record older than the
/// transaction's `portal.audit_purge_before` (set by [`purge`] alone);
/// UPDATE and TRUNCATE never.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE audit_records (
    id BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_user_id BIGINT,
    actor_client_id TEXT,
    actor_login TEXT,
    address TEXT,
    request_id TEXT,
    entity TEXT NOT NULL,
    entity_id BIGINT,
    action TEXT NOT NULL,
    changes TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX audit_records_time ON audit_records (at, id);
CREATE INDEX audit_records_entity ON audit_records (entity, entity_id, at);
CREATE INDEX audit_records_actor ON audit_records (actor_user_id, at);
CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.at < COALESCE(NULLIF(current_setting('portal.audit_purge_before', true), ''), '0')::BIGINT THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'audit records are append-only';
END
$$;
CREATE TRIGGER audit_records_no_change BEFORE UPDATE OR DELETE ON audit_records
    FOR EACH ROW EXECUTE FUNCTION audit_records_append_only();
CREATE TRIGGER audit_records_no_truncate BEFORE TRUNCATE ON audit_records
    FOR EACH STATEMENT EXECUTE FUNCTION audit_records_append_only();
";

/// The schema of `backend`.
pub fn schema(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => SQLITE_SCHEMA,
        Backend::Postgres => POSTGRES_SCHEMA,
    }
}

/// The entity kinds the services record, as the REST filter names them.
pub mod entity {
    pub const USER: &str = "user";
    pub const DEPARTMENT: &str = "department";
    pub const POSITION: &str = "position";
    pub const STATUS: &str = "status";
    pub const SERVICE_ACCOUNT: &str = "service-account";
    pub const SESSION: &str = "session";
    pub const COURSE: &str = "course";
    pub const ARTICLE: &str = "article";
    pub const TEST: &str = "test";
    pub const ENVIRONMENT_MODEL: &str = "environment-model";
    pub const ENVIRONMENT: &str = "environment";
    pub const DOCUMENT: &str = "document";
}

/// The actions the services record.
pub mod action {
    pub const CREATE: &str = "create";
    pub const UPDATE: &str = "update";
    pub const DELETE: &str = "delete";
    /// An update that blocked a person (a status that blocks sign-in).
    pub const BLOCK: &str = "block";
    pub const SIGN_IN: &str = "sign-in";
    pub const SIGN_OUT: &str = "sign-out";
    pub const SIGN_IN_REFUSED: &str = "sign-in-refused";
    pub const GRANT: &str = "grant";
    pub const REVOKE: &str = "revoke";
    pub const DOWNLOAD: &str = "download";
    /// A link to set a forgotten password asked for (issue 39.3).
    pub const PASSWORD_RESET_REQUESTED: &str = "password-reset-requested";
    /// A forgotten password set with such a link.
    pub const PASSWORD_RESET: &str = "password-reset";
    /// An invitation to choose a first password mailed (issue 39.3).
    pub const INVITATION_SENT: &str = "invitation-sent";
    /// A first password chosen with an invitation's link.
    pub const INVITATION_ACCEPTED: &str = "invitation-accepted";
    /// A printed first sign-in code made.
    pub const FIRST_SIGN_IN_CODE_MADE: &str = "first-sign-in-code-made";
    /// A first password chosen with a printed code.
    pub const FIRST_SIGN_IN_CODE_USED: &str = "first-sign-in-code-used";
    /// A wrong, used or expired code entered with a known login.
    pub const FIRST_SIGN_IN_CODE_REFUSED: &str = "first-sign-in-code-refused";
}

/// What a secret field's values are recorded as.
pub const HIDDEN: &str = "***";

/// How long records are kept, in days: `PORTAL_AUDIT_RETENTION_DAYS`.
#[derive(Clone, Debug, clap::Args)]
pub struct AuditArgs {
    /// Days an audit record is kept before each service's housekeeping
    /// purges it (1 to 36500; default three years).
    #[arg(
        long,
        env = "PORTAL_AUDIT_RETENTION_DAYS",
        value_name = "PORTAL_AUDIT_RETENTION_DAYS",
        default_value_t = 1095,
        value_parser = clap::value_parser!(u32).range(1..=36_500)
    )]
    pub audit_retention_days: u32,
}

/// What a service needs to record and keep its audit log.
#[derive(Clone, Debug)]
pub struct AuditSettings {
    /// `PORTAL_AUDIT_RETENTION_DAYS`.
    pub retention_days: u32,
    /// Whose forwarded client address the service believes (the gateway;
    /// loopback in `all`), as for sign-in limits.
    pub trusted_proxies: TrustedProxies,
}

impl AuditSettings {
    /// Tests' and tools' settings: three years, the loopback gateway trusted.
    pub fn loopback() -> AuditSettings {
        AuditSettings {
            retention_days: 1095,
            trusted_proxies: TrustedProxies::loopback(),
        }
    }

    /// The instant before which records may go, `now` in Unix ms.
    pub fn purge_before(&self, now: i64) -> i64 {
        now.saturating_sub(i64::from(self.retention_days) * 24 * 60 * 60 * 1000)
    }
}

/// Who did a recorded thing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditActor {
    /// A signed-in person (auth's user id).
    Person(i64),
    /// Another hospital system, by the client id its token was issued to.
    ServiceAccount(String),
    /// Nobody signed in: a refused sign-in names the login tried.
    Anonymous { login: Option<String> },
    /// The service itself (start-up, a scheduled job, the bootstrap admin).
    System,
}

impl AuditActor {
    fn kind(&self) -> &'static str {
        match self {
            AuditActor::Person(_) => "person",
            AuditActor::ServiceAccount(_) => "service-account",
            AuditActor::Anonymous { .. } => "anonymous",
            AuditActor::System => "system",
        }
    }
}

/// Who acts, from where, in which request: built once per call from the
/// request ([`AuditContext::of`]) and handed down to the store, which records
/// each write with it.
#[derive(Clone, Debug)]
pub struct AuditContext {
    pub actor: AuditActor,
    /// The client's address: `x-forwarded-for` believed only from a trusted
    /// proxy, else the peer itself.
    pub address: Option<IpAddr>,
    /// `x-request-id` (every server's RPC layer gives each call one).
    pub request_id: Option<String>,
}

impl AuditContext {
    /// The caller the token interceptor put on `request`, its client's
    /// address and its request id.
    pub fn of<T>(request: &Request<T>, trusted_proxies: &TrustedProxies) -> AuditContext {
        let actor = match Caller::of(request) {
            Caller::SignedIn(claims) => AuditActor::Person(claims.user_id),
            Caller::ServiceAccount(claims) => AuditActor::ServiceAccount(claims.client_id.clone()),
            Caller::Anonymous | Caller::InvalidToken | Caller::Revoked => {
                AuditActor::Anonymous { login: None }
            }
        };
        AuditContext {
            actor,
            address: client_address(trusted_proxies, request),
            request_id: request
                .metadata()
                .get(REQUEST_ID_HEADER)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
        }
    }

    /// The service acting on its own (start-up, a job): no address, no request.
    pub fn system() -> AuditContext {
        AuditContext {
            actor: AuditActor::System,
            address: None,
            request_id: None,
        }
    }

    /// The same request, acted in by `actor` (a sign-in: the person it
    /// turned out to be, or the login a refused one tried).
    pub fn acting_as(&self, actor: AuditActor) -> AuditContext {
        AuditContext {
            actor,
            ..self.clone()
        }
    }
}

/// The client a call is made for: the forwarded address when the caller is a
/// trusted proxy (the gateway), else the caller itself.
pub fn client_address<T>(trusted_proxies: &TrustedProxies, request: &Request<T>) -> Option<IpAddr> {
    let forwarded = request
        .metadata()
        .get(FORWARDED_FOR)
        .and_then(|value| value.to_str().ok());
    let peer = request.remote_addr()?.ip();
    Some(trusted_proxies.client(peer, forwarded))
}

/// One field's change: its value before and after as JSON (`null` for none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub field: String,
    pub old: Value,
    pub new: Value,
}

/// The fields a write changed, in the order given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes(Vec<Change>);

impl Changes {
    pub fn new() -> Changes {
        Changes::default()
    }

    /// `field` from `old` to `new`, when they differ.
    pub fn field(mut self, field: &str, old: impl Serialize, new: impl Serialize) -> Changes {
        let (old, new) = (to_value(old), to_value(new));
        if old != new {
            self.0.push(Change {
                field: field.to_owned(),
                old,
                new,
            });
        }
        self
    }

    /// A secret `field` (a password, a client secret): recorded as changed,
    /// its values [`HIDDEN`], when `changed`.
    pub fn secret(mut self, field: &str, changed: bool) -> Changes {
        if changed {
            self.0.push(Change {
                field: field.to_owned(),
                old: Value::String(HIDDEN.into()),
                new: Value::String(HIDDEN.into()),
            });
        }
        self
    }

    /// The fields of `old` and `new` (serde structs or maps; `None` for a
    /// create or a delete) that differ, in field-name order; a field empty
    /// on both sides (none and `[]`) is no change. The fields named in
    /// `secrets` are compared but recorded as [`HIDDEN`].
    pub fn diff<T: Serialize>(old: Option<&T>, new: Option<&T>, secrets: &[&str]) -> Changes {
        let (old, new) = (fields(old), fields(new));
        let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
        names.sort();
        names.dedup();
        let mut changes = Changes::new();
        for name in names {
            let before = old.get(name).cloned().unwrap_or(Value::Null);
            let after = new.get(name).cloned().unwrap_or(Value::Null);
            // A create's empty fields (no departments yet) changed nothing worth a line.
            if before == after || (is_empty(&before) && is_empty(&after)) {
                continue;
            }
            let hide = |value: Value| match value {
                Value::Null => Value::Null,
                _ => Value::String(HIDDEN.into()),
            };
            let secret = secrets.contains(&name.as_str());
            changes.0.push(Change {
                field: name.clone(),
                old: if secret { hide(before) } else { before },
                new: if secret { hide(after) } else { after },
            });
        }
        changes
    }

    /// These changes followed by `other`'s.
    pub fn and(mut self, other: Changes) -> Changes {
        self.0.extend(other.0);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_slice(&self) -> &[Change] {
        &self.0
    }
}

/// None, or an empty text, list or map.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

fn to_value(value: impl Serialize) -> Value {
    // A value that cannot be JSON (a map with non-string keys) is none of a
    // record's: it is recorded as null rather than failing the write.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn fields<T: Serialize>(value: Option<&T>) -> Map<String, Value> {
    match value.map(to_value) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// One thing done, as a store records it.
#[derive(Clone, Debug)]
pub struct Event<'a> {
    pub entity: &'a str,
    pub entity_id: Option<i64>,
    pub action: &'a str,
    pub changes: Changes,
    /// Why, for a refusal (a refused sign-in's reason code).
    pub reason: Option<&'a str>,
}

impl<'a> Event<'a> {
    pub fn new(entity: &'a str, entity_id: impl Into<Option<i64>>, action: &'a str) -> Event<'a> {
        Event {
            entity,
            entity_id: entity_id.into(),
            action,
            changes: Changes::new(),
            reason: None,
        }
    }

    pub fn changes(mut self, changes: Changes) -> Event<'a> {
        self.changes = changes;
        self
    }

    pub fn reason(mut self, reason: &'a str) -> Event<'a> {
        self.reason = Some(reason);
        self
    }
}

/// Records in `connection`'s transaction that `entity` `id` went from `old`
/// to `new` (no `old`: created; no `new`: deleted), every field that differs.
pub async fn record_change<T: Serialize>(
    connection: &mut AnyConnection,
    context: &AuditContext,
    (entity, id): (&str, i64),
    old: Option<&T>,
    new: Option<&T>,
) -> sqlx::Result<()> {
    let done = match (old, new) {
        (None, _) => action::CREATE,
        (_, None) => action::DELETE,
        _ => action::UPDATE,
    };
    let changes = Changes::diff(old, new, &[]);
    record(
        connection,
        context,
        Event::new(entity, id, done).changes(changes),
    )
    .await
}

/// Records `event` done in `context`, on `connection`: the write's own
/// transaction (`&mut *tx`), so the record commits or rolls back with it.
pub async fn record(
    connection: &mut AnyConnection,
    context: &AuditContext,
    event: Event<'_>,
) -> sqlx::Result<()> {
    record_all(connection, context, &[event]).await
}

/// A record's columns, each a bind.
const COLUMNS: usize = 12;
/// Records in one INSERT at most: 3,000 binds, far below SQLite's and
/// PostgreSQL's limits.
const RECORD_CHUNK: usize = 250;

/// Records `events`, all done in `context` at one instant, on `connection`
/// (the write's own transaction, as for [`record`]): a bulk write's records
/// (a staff sync's thousands of people) in multi-row INSERTs of
/// [`RECORD_CHUNK`], not a round trip each. Ids rise in the order given.
pub async fn record_all(
    connection: &mut AnyConnection,
    context: &AuditContext,
    events: &[Event<'_>],
) -> sqlx::Result<()> {
    let (user_id, client_id, login) = match &context.actor {
        AuditActor::Person(id) => (Some(*id), None, None),
        AuditActor::ServiceAccount(client_id) => (None, Some(client_id.as_str()), None),
        AuditActor::Anonymous { login } => (None, None, login.as_deref()),
        AuditActor::System => (None, None, None),
    };
    let at = now_millis();
    let address = context.address.map(|address| address.to_string());
    for chunk in events.chunks(RECORD_CHUNK) {
        let rows: Vec<String> = (0..chunk.len())
            .map(|row| placeholders(row * COLUMNS + 1, COLUMNS))
            .collect();
        let statement = format!(
            "INSERT INTO audit_records (at, actor_kind, actor_user_id, actor_client_id, actor_login,
                 address, request_id, entity, entity_id, action, changes, reason)
             VALUES {}",
            rows.join(", ")
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
        for event in chunk {
            let changes =
                serde_json::to_string(event.changes.as_slice()).unwrap_or_else(|_| "[]".to_owned());
            query = query
                .bind(at)
                .bind(context.actor.kind())
                .bind(user_id)
                .bind(client_id)
                .bind(login)
                .bind(address.as_deref())
                .bind(context.request_id.as_deref())
                .bind(event.entity)
                .bind(event.entity_id)
                .bind(event.action)
                .bind(changes)
                .bind(event.reason);
        }
        query.execute(&mut *connection).await?;
    }
    Ok(())
}

/// A stored record.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditRecord {
    pub id: i64,
    pub at: i64,
    pub actor: AuditActor,
    pub address: Option<String>,
    pub request_id: Option<String>,
    pub entity: String,
    pub entity_id: Option<i64>,
    pub action: String,
    pub changes: Vec<Change>,
    pub reason: Option<String>,
}

/// What a reader filters on; `None` is any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    pub entity: Option<String>,
    pub entity_id: Option<i64>,
    /// The acting person.
    pub actor_user_id: Option<i64>,
    pub action: Option<String>,
    /// From this instant (Unix ms), inclusive.
    pub from: Option<i64>,
    /// Before this instant (Unix ms), exclusive.
    pub to: Option<i64>,
}

/// A page of records, newest first, and how many match in all.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub records: Vec<AuditRecord>,
    /// None when the reader asked not to count (`Window::count` false).
    pub total: Option<i64>,
}

/// Which of the matching records a reader asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// At most this many, 1..=`MAX_LIMIT`.
    pub limit: i64,
    /// Only records older than this one (keyset paging).
    pub before_id: Option<i64>,
    /// Count every match too: a scan of all of them, which a reader paging
    /// on, who has the count already, spares the database.
    pub count: bool,
}

/// Records when a reader names no limit, and at most.
pub const DEFAULT_LIMIT: i64 = 50;
pub const MAX_LIMIT: i64 = 1000;

enum Bound<'a> {
    Int(i64),
    Text(&'a str),
}

/// A query's conditions, each with its one value as `$n`.
#[derive(Default)]
struct Conditions<'a> {
    sql: Vec<String>,
    bound: Vec<Bound<'a>>,
}

impl<'a> Conditions<'a> {
    /// `sql` with its `?` as the next parameter.
    fn push(&mut self, sql: &str, value: Bound<'a>) {
        self.bound.push(value);
        self.sql
            .push(sql.replace('?', &format!("${}", self.bound.len())));
    }
}

type Row = (
    i64,
    i64,
    String,
    Option<i64>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
    Option<i64>,
    String,
    String,
    Option<String>,
);

/// The records matching `filter`, newest first (time, then id), the
/// `window`'s `limit` of them after its record `before_id` (keyset paging),
/// and, when it asks, the count of all.
pub async fn list(pool: &AnyPool, filter: &Filter, window: Window) -> sqlx::Result<Page> {
    let Window {
        limit,
        before_id,
        count: counted,
    } = window;
    let mut conditions = Conditions::default();
    if let Some(entity) = &filter.entity {
        conditions.push("entity = ?", Bound::Text(entity));
    }
    if let Some(entity_id) = filter.entity_id {
        conditions.push("entity_id = ?", Bound::Int(entity_id));
    }
    if let Some(user_id) = filter.actor_user_id {
        conditions.push("actor_user_id = ?", Bound::Int(user_id));
    }
    if let Some(action) = &filter.action {
        conditions.push("action = ?", Bound::Text(action));
    }
    if let Some(from) = filter.from {
        conditions.push("at >= ?", Bound::Int(from));
    }
    if let Some(to) = filter.to {
        conditions.push("at < ?", Bound::Int(to));
    }
    let filtered = conditions.sql.len();
    if let Some(before) = before_id {
        conditions.push(
            "(at, id) < (SELECT b.at, b.id FROM audit_records b WHERE b.id = ?)",
            Bound::Int(before),
        );
    }
    let Conditions {
        sql: conditions,
        bound,
    } = conditions;
    let where_sql = |count: usize| {
        if count == 0 {
            String::new()
        } else {
            format!(" WHERE {}", conditions[..count].join(" AND "))
        }
    };
    let select = format!(
        "SELECT id, at, actor_kind, actor_user_id, actor_client_id, actor_login, address,
             request_id, entity, entity_id, action, changes, reason
         FROM audit_records{} ORDER BY at DESC, id DESC LIMIT ${}",
        where_sql(conditions.len()),
        bound.len() + 1
    );
    let count = format!("SELECT COUNT(*) FROM audit_records{}", where_sql(filtered));
    let mut connection = pool.acquire().await?;
    let mut rows = sqlx::query_as::<Any, Row>(sqlx::AssertSqlSafe(select));
    for value in &bound {
        rows = match value {
            Bound::Int(value) => rows.bind(*value),
            Bound::Text(value) => rows.bind(*value),
        };
    }
    let rows = rows
        .bind(limit.clamp(1, MAX_LIMIT))
        .fetch_all(&mut *connection)
        .await?;
    let total = if counted {
        let mut total = sqlx::query_scalar::<Any, i64>(sqlx::AssertSqlSafe(count));
        for value in &bound[..filtered] {
            total = match value {
                Bound::Int(value) => total.bind(*value),
                Bound::Text(value) => total.bind(*value),
            };
        }
        Some(total.fetch_one(&mut *connection).await?)
    } else {
        None
    };
    Ok(Page {
        records: rows.into_iter().map(from_row).collect(),
        total,
    })
}

fn from_row(row: Row) -> AuditRecord {
    let (id, at, kind, user_id, client_id, login, address, request_id, entity, entity_id) = (
        row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9,
    );
    let actor = match (kind.as_str(), user_id) {
        ("person", Some(user_id)) => AuditActor::Person(user_id),
        ("service-account", _) => AuditActor::ServiceAccount(client_id.unwrap_or_default()),
        ("anonymous", _) => AuditActor::Anonymous { login },
        _ => AuditActor::System,
    };
    AuditRecord {
        id,
        at,
        actor,
        address,
        request_id,
        entity,
        entity_id,
        action: row.10,
        // Only `record` writes the column, always a list of changes.
        changes: serde_json::from_str(&row.11).unwrap_or_default(),
        reason: row.12,
    }
}

/// Deletes the records older than `before` (Unix ms), the one delete the
/// database lets through; returns how many went. Each service's daily
/// [`crate::housekeeping`] runs it.
pub async fn purge(pool: &AnyPool, backend: Backend, before: i64) -> ServiceResult<u64> {
    let mut tx = begin_write(pool, backend).await?;
    match backend {
        Backend::Sqlite => {
            sqlx::query("UPDATE audit_purge SET before = $1 WHERE id = 1")
                .bind(before)
                .execute(&mut *tx)
                .await?;
        }
        Backend::Postgres => {
            sqlx::query("SELECT set_config('portal.audit_purge_before', $1, true)")
                .bind(before.to_string())
                .execute(&mut *tx)
                .await?;
        }
    }
    let purged = sqlx::query("DELETE FROM audit_records WHERE at < $1")
        .bind(before)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if backend == Backend::Sqlite {
        sqlx::query("UPDATE audit_purge SET before = 0 WHERE id = 1")
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(purged)
}

pub const MSG_PERIOD_REVERSED: &str = "Конец периода раньше его начала";

/// A ListAuditRecords request as a service reads it.
fn parse(request: pb::ListAuditRecordsRequest) -> ServiceResult<(Filter, Window)> {
    let millis = |timestamp: Option<prost_types::Timestamp>| {
        timestamp.map(|t| {
            t.seconds
                .saturating_mul(1000)
                .saturating_add(i64::from(t.nanos) / 1_000_000)
        })
    };
    let text = |value: String| {
        let value = value.trim().to_owned();
        (!value.is_empty()).then_some(value)
    };
    let filter = Filter {
        entity: text(request.entity),
        entity_id: request.entity_id,
        actor_user_id: request.user_id,
        action: text(request.action),
        from: millis(request.from),
        to: millis(request.to),
    };
    if let (Some(from), Some(to)) = (filter.from, filter.to)
        && to < from
    {
        return Err(ServiceError::invalid(MSG_PERIOD_REVERSED));
    }
    let limit = match request.limit {
        0 => DEFAULT_LIMIT,
        limit => i64::from(limit).clamp(1, MAX_LIMIT),
    };
    let window = Window {
        limit,
        before_id: request.before_id,
        count: !request.skip_total,
    };
    Ok((filter, window))
}

/// A stored record as the contract's message.
pub fn to_message(record: AuditRecord) -> pb::AuditRecord {
    let actor = match record.actor {
        AuditActor::Person(user_id) => pb::AuditActor {
            kind: "person".into(),
            user_id: Some(user_id),
            ..Default::default()
        },
        AuditActor::ServiceAccount(client_id) => pb::AuditActor {
            kind: "service-account".into(),
            client_id,
            ..Default::default()
        },
        AuditActor::Anonymous { login } => pb::AuditActor {
            kind: "anonymous".into(),
            login: login.unwrap_or_default(),
            ..Default::default()
        },
        AuditActor::System => pb::AuditActor {
            kind: "system".into(),
            ..Default::default()
        },
    };
    pb::AuditRecord {
        id: record.id,
        time: Some(timestamp_from_millis(record.at)),
        actor: Some(actor),
        address: record.address.unwrap_or_default(),
        request_id: record.request_id.unwrap_or_default(),
        entity: record.entity,
        entity_id: record.entity_id,
        action: record.action,
        changes: record
            .changes
            .into_iter()
            .map(|change| pb::AuditChange {
                field: change.field,
                old: change.old.to_string(),
                new: change.new.to_string(),
            })
            .collect(),
        reason: record.reason.unwrap_or_default(),
    }
}

/// `portal.audit.v1.AuditService` over a service's own records: every
/// service serves it as it is (`AuditServiceServer::new(AuditRpc::new(pool))`
/// behind its token interceptor).
#[derive(Clone)]
pub struct AuditRpc {
    pool: AnyPool,
}

impl AuditRpc {
    pub fn new(pool: AnyPool) -> AuditRpc {
        AuditRpc { pool }
    }
}

#[tonic::async_trait]
impl pb::audit_service_server::AuditService for AuditRpc {
    async fn list_audit_records(
        &self,
        request: Request<pb::ListAuditRecordsRequest>,
    ) -> Result<Response<pb::ListAuditRecordsResponse>, Status> {
        Caller::of(&request).require(Right::UserManagement)?;
        let (filter, window) = parse(request.into_inner())?;
        let page = list(&self.pool, &filter, window)
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::ListAuditRecordsResponse {
            records: page.records.into_iter().map(to_message).collect(),
            total: page.total.unwrap_or(0),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{TestDatabase, backends};
    use sqlx::Executor;

    async fn database(backend: Backend) -> (TestDatabase, AnyPool) {
        let db = TestDatabase::new(backend).await;
        let pool = AnyPool::connect(&db.url).await.unwrap();
        pool.execute(sqlx::AssertSqlSafe(schema(backend)))
            .await
            .unwrap();
        pool.execute("CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT NOT NULL)")
            .await
            .unwrap();
        (db, pool)
    }

    fn nurse() -> AuditContext {
        AuditContext {
            actor: AuditActor::Person(7),
            address: Some("192.0.2.10".parse().unwrap()),
            request_id: Some("req-1".into()),
        }
    }

    async fn write_thing(pool: &AnyPool, backend: Backend, id: i64, commit: bool) {
        let mut tx = begin_write(pool, backend).await.unwrap();
        sqlx::query("INSERT INTO things (id, name) VALUES ($1, 'Монитор')")
            .bind(id)
            .execute(&mut *tx)
            .await
            .unwrap();
        let changes = Changes::new().field("name", Value::Null, "Монитор");
        record(
            &mut tx,
            &nurse(),
            Event::new(entity::ENVIRONMENT_MODEL, id, action::CREATE).changes(changes),
        )
        .await
        .unwrap();
        if commit {
            tx.commit().await.unwrap();
        } else {
            tx.rollback().await.unwrap();
        }
    }

    async fn all(pool: &AnyPool) -> Vec<AuditRecord> {
        let window = Window {
            limit: MAX_LIMIT,
            before_id: None,
            count: false,
        };
        list(pool, &Filter::default(), window)
            .await
            .unwrap()
            .records
    }

    #[tokio::test]
    async fn a_record_commits_and_rolls_back_with_its_write() {
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            write_thing(&pool, backend, 1, true).await;
            write_thing(&pool, backend, 2, false).await;
            let records = all(&pool).await;
            assert_eq!(
                records.len(),
                1,
                "{backend:?}: the rolled-back write left none"
            );
            let record = &records[0];
            assert_eq!(record.actor, AuditActor::Person(7));
            assert_eq!(record.address.as_deref(), Some("192.0.2.10"));
            assert_eq!(record.request_id.as_deref(), Some("req-1"));
            assert_eq!(
                (
                    record.entity.as_str(),
                    record.entity_id,
                    record.action.as_str()
                ),
                ("environment-model", Some(1), "create")
            );
            assert_eq!(
                record.changes,
                [Change {
                    field: "name".into(),
                    old: Value::Null,
                    new: "Монитор".into()
                }]
            );
        }
    }

    /// `count` updates of things 1..=count, each its name old → new, as one batch.
    async fn write_batch(pool: &AnyPool, backend: Backend, count: i64, commit: bool) {
        let events: Vec<Event> = (1..=count)
            .map(|id| {
                let changes =
                    Changes::new().field("name", format!("old {id}"), format!("new {id}"));
                Event::new(entity::USER, id, action::UPDATE).changes(changes)
            })
            .collect();
        let system = AuditContext {
            actor: AuditActor::ServiceAccount("hr-system".into()),
            ..nurse()
        };
        let mut tx = begin_write(pool, backend).await.unwrap();
        record_all(&mut tx, &system, &events).await.unwrap();
        record_all(&mut tx, &system, &[]).await.unwrap();
        if commit {
            tx.commit().await.unwrap();
        } else {
            tx.rollback().await.unwrap();
        }
    }

    #[tokio::test]
    async fn a_batch_is_recorded_in_order_across_chunks_and_rolls_back_whole() {
        let count = 2 * RECORD_CHUNK as i64 + 3;
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            write_batch(&pool, backend, count, false).await;
            assert!(all(&pool).await.is_empty(), "{backend:?}: rolled back");
            write_batch(&pool, backend, count, true).await;
            let records = all(&pool).await;
            // Newest first: the batch's last event has the highest id.
            let ids: Vec<Option<i64>> = records.iter().map(|r| r.entity_id).collect();
            let expected: Vec<Option<i64>> = (1..=count).rev().map(Some).collect();
            assert_eq!(ids, expected, "{backend:?}");
            for record in &records {
                assert_eq!(record.actor, AuditActor::ServiceAccount("hr-system".into()));
                assert_eq!(record.address.as_deref(), Some("192.0.2.10"));
                assert_eq!(record.at, records[0].at, "{backend:?}: one instant");
                let id = record.entity_id.unwrap_or_default();
                assert_eq!(
                    record.changes,
                    [Change {
                        field: "name".into(),
                        old: format!("old {id}").into(),
                        new: format!("new {id}").into(),
                    }]
                );
            }
        }
    }

    #[tokio::test]
    async fn the_database_refuses_to_change_or_delete_a_record() {
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            write_thing(&pool, backend, 1, true).await;
            let attempts = [
                "UPDATE audit_records SET action = 'delete'",
                "UPDATE audit_records SET changes = '[]' WHERE id = 1",
                "DELETE FROM audit_records",
                "DELETE FROM audit_records WHERE id = 1",
            ];
            for attempt in attempts {
                let refused = pool.execute(attempt).await.unwrap_err();
                assert!(
                    refused.to_string().contains("append-only"),
                    "{backend:?} {attempt}: {refused}"
                );
            }
            if backend == Backend::Postgres {
                assert!(pool.execute("TRUNCATE audit_records").await.is_err());
                // Setting the purge's mark outside a purge lets through only
                // records older than it: none here.
                let mut tx = pool.begin().await.unwrap();
                sqlx::query("SELECT set_config('portal.audit_purge_before', '1000', true)")
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                let refused = sqlx::query("DELETE FROM audit_records")
                    .execute(&mut *tx)
                    .await;
                assert!(refused.is_err());
            }
            assert_eq!(all(&pool).await.len(), 1, "{backend:?}");
        }
    }

    async fn insert_at(pool: &AnyPool, at: i64) {
        sqlx::query(
            "INSERT INTO audit_records (at, actor_kind, entity, action, changes)
             VALUES ($1, 'system', 'user', 'update', '[]')",
        )
        .bind(at)
        .execute(pool)
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn the_purge_drops_only_records_past_retention() {
        const DAY: i64 = 24 * 60 * 60 * 1000;
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            let now = now_millis();
            let settings = AuditSettings {
                retention_days: 30,
                trusted_proxies: TrustedProxies::none(),
            };
            insert_at(&pool, now - 31 * DAY).await;
            insert_at(&pool, now - 29 * DAY).await;
            insert_at(&pool, now).await;
            let purged = purge(&pool, backend, settings.purge_before(now))
                .await
                .unwrap();
            assert_eq!(purged, 1, "{backend:?}");
            let kept: Vec<i64> = all(&pool).await.iter().map(|r| r.at).collect();
            assert_eq!(kept, [now, now - 29 * DAY], "{backend:?}");
            // The purge leaves the guard as it was: a plain delete is refused again.
            assert!(pool.execute("DELETE FROM audit_records").await.is_err());
        }
    }

    #[derive(Serialize)]
    struct Account {
        name: String,
        password_hash: String,
        rights: Vec<&'static str>,
    }

    #[tokio::test]
    async fn a_secret_is_recorded_as_changed_and_never_stored() {
        let old = Account {
            name: "Иванова".into(),
            password_hash: "$argon2id$old-hash".into(),
            rights: vec![],
        };
        let new = Account {
            name: "Петрова".into(),
            password_hash: "$argon2id$new-hash".into(),
            rights: vec!["UserManagement"],
        };
        let changes = Changes::diff(Some(&old), Some(&new), &["password_hash"]).and(
            Changes::new()
                .secret("password", true)
                .secret("secret", false),
        );
        let created = Changes::diff(None, Some(&new), &["password_hash"]);
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            let mut connection = pool.acquire().await.unwrap();
            for changes in [changes.clone(), created.clone()] {
                record(
                    &mut connection,
                    &nurse(),
                    Event::new(entity::USER, 5, action::UPDATE).changes(changes),
                )
                .await
                .unwrap();
            }
            let stored: Vec<String> = sqlx::query_scalar("SELECT changes FROM audit_records")
                .fetch_all(&mut *connection)
                .await
                .unwrap();
            for text in &stored {
                assert!(!text.contains("argon2"), "{backend:?}: {text}");
            }
            let records = all(&pool).await;
            let updated = &records[1].changes;
            let fields: Vec<(&str, String, String)> = updated
                .iter()
                .map(|c| (c.field.as_str(), c.old.to_string(), c.new.to_string()))
                .collect();
            assert_eq!(
                fields,
                [
                    ("name", "\"Иванова\"".into(), "\"Петрова\"".into()),
                    ("password_hash", "\"***\"".into(), "\"***\"".into()),
                    ("rights", "[]".into(), "[\"UserManagement\"]".into()),
                    ("password", "\"***\"".into(), "\"***\"".into()),
                ]
            );
            assert_eq!(records[0].changes[1].old, Value::Null, "created: no old");
            assert_eq!(records[0].changes[1].new, Value::from(HIDDEN));
        }
    }

    #[tokio::test]
    async fn records_are_filtered_and_paged_newest_first() {
        for backend in backends() {
            let (_db, pool) = database(backend).await;
            let mut connection = pool.acquire().await.unwrap();
            let admin = nurse().acting_as(AuditActor::Person(1));
            let system = AuditContext::system();
            for id in 1..=5 {
                let context = if id % 2 == 0 { &admin } else { &system };
                let action = if id == 5 {
                    action::DELETE
                } else {
                    action::UPDATE
                };
                record(
                    &mut connection,
                    context,
                    Event::new(entity::USER, id, action),
                )
                .await
                .unwrap();
            }
            record(
                &mut connection,
                &nurse().acting_as(AuditActor::Anonymous {
                    login: Some("ivanova".into()),
                }),
                Event::new(entity::SESSION, None, action::SIGN_IN_REFUSED).reason("wrong-password"),
            )
            .await
            .unwrap();
            drop(connection);
            let ids = |page: &Page| -> Vec<Option<i64>> {
                page.records.iter().map(|r| r.entity_id).collect()
            };
            let window = |limit, before_id| Window {
                limit,
                before_id,
                count: true,
            };
            let first = list(&pool, &Filter::default(), window(2, None))
                .await
                .unwrap();
            assert_eq!(first.total, Some(6));
            assert_eq!(ids(&first), [None, Some(5)], "{backend:?}");
            assert_eq!(first.records[0].reason.as_deref(), Some("wrong-password"));
            assert_eq!(
                first.records[0].actor,
                AuditActor::Anonymous {
                    login: Some("ivanova".into())
                }
            );
            let after = Window {
                count: false,
                ..window(2, Some(first.records[1].id))
            };
            let second = list(&pool, &Filter::default(), after).await.unwrap();
            assert_eq!(ids(&second), [Some(4), Some(3)], "{backend:?}");
            assert_eq!(second.total, None, "not counted when not asked");
            let by_admin = Filter {
                actor_user_id: Some(1),
                ..Filter::default()
            };
            let page = list(&pool, &by_admin, window(10, None)).await.unwrap();
            assert_eq!((ids(&page), page.total), (vec![Some(4), Some(2)], Some(2)));
            let deleted_user = Filter {
                entity: Some("user".into()),
                action: Some("delete".into()),
                entity_id: Some(5),
                from: Some(0),
                to: Some(now_millis() + 1000),
                ..Filter::default()
            };
            let page = list(&pool, &deleted_user, window(10, None)).await.unwrap();
            assert_eq!(ids(&page), [Some(5)], "{backend:?}");
            let none_yet = Filter {
                to: Some(0),
                ..Filter::default()
            };
            let none = list(&pool, &none_yet, window(10, None)).await.unwrap();
            assert_eq!(none.total, Some(0));
        }
    }

    #[test]
    fn a_reversed_period_is_refused() {
        let at = |seconds| Some(prost_types::Timestamp { seconds, nanos: 0 });
        let request = pb::ListAuditRecordsRequest {
            from: at(100),
            to: at(50),
            ..Default::default()
        };
        assert!(parse(request).is_err());
        let request = pb::ListAuditRecordsRequest {
            limit: 5000,
            entity: " user ".into(),
            ..Default::default()
        };
        let (filter, window) = parse(request).unwrap();
        assert_eq!(
            (filter.entity.as_deref(), window.limit, window.count),
            (Some("user"), MAX_LIMIT, true)
        );
        let request = pb::ListAuditRecordsRequest {
            skip_total: true,
            ..Default::default()
        };
        let (_, window) = parse(request).unwrap();
        assert_eq!((window.limit, window.count), (DEFAULT_LIMIT, false));
    }
}
