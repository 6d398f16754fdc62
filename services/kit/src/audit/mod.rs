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

mod query;
mod record;
mod rpc;
#[cfg(test)]
mod tests;

pub use query::*;
pub use record::*;
pub use rpc::*;

use std::net::IpAddr;

use tonic::Request;

use crate::access::Caller;
use crate::db::Backend;
use crate::net::{FORWARDED_FOR, TrustedProxies};
use crate::telemetry::REQUEST_ID_HEADER;

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
    /// Two-step sign-in (issue 39.4): an authenticator's enrolment begun,
    /// confirmed (the factor is on), turned off by its person, new recovery
    /// codes made, and an administrator's removal of someone's factor.
    pub const MFA_ENROL: &str = "mfa-enrol";
    pub const MFA_CONFIRM: &str = "mfa-confirm";
    pub const MFA_DISABLE: &str = "mfa-disable";
    pub const MFA_RECOVERY_CODES: &str = "mfa-recovery-codes";
    pub const MFA_RESET: &str = "mfa-reset";
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
