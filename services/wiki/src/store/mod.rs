//! The wiki's queries: one set for SQLite and PostgreSQL through sqlx's Any
//! driver, one module per aggregate: [`model`], [`unit`](mod@unit), the maintenance
//! [`logbook`], [`journal`] and the [`reference`](mod@reference) data.
//!
//! A write of a model or unit runs in a transaction with its search entry
//! ([`search`]) and, for a model whose instruction changed, its revision
//! ([`instruction`]), as does the replacement of a model's required courses
//! ([`clearance`]); any other write is one statement, needing none; a
//! register's batch ([`register`]) runs in one (`BEGIN IMMEDIATE` on
//! SQLite) and is rolled back for a dry run. The unique and
//! foreign-key indexes are the one check of what they guard: a taken inventory
//! number or name becomes a Russian 409 message, an unknown linked id a 400 or
//! 404, never a database error. Retired units (`retired_at`) are left out of
//! every read. A read or change of one entity by id that finds none (or none
//! the reader sees) is NOT_FOUND here, with the entity's message.

/// A column of unit `e`'s latest logbook entry (its maintenance standing):
/// the last by date, then by when it was recorded. Defined before the
/// modules so that [`unit`](mod@unit) and [`register`] both read it.
macro_rules! latest_entry {
    ($column:literal) => {
        concat!(
            "(SELECT l.",
            $column,
            " FROM maintenance_entries l WHERE l.environment_id = e.id ORDER BY l.performed_on DESC, l.id DESC LIMIT 1)"
        )
    };
}

pub mod clearance;
pub mod instruction;
pub mod journal;
pub mod logbook;
pub mod model;
pub mod notification;
pub mod reference;
pub mod register;
pub mod search;
pub mod unit;

use portal_kit::access::Actor;
pub(crate) use portal_kit::audit::record_change;
use portal_kit::db::{
    Backend, begin_write, is_foreign_key_violation, is_unique_violation, placeholders,
};
use portal_kit::{ServiceError, ServiceResult};
use sqlx::any::AnyArguments;
use sqlx::query::QueryAs;
use sqlx::{Any, AnyPool, Transaction};

use crate::domain::scope::Scope;

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

impl Store {
    pub fn new(pool: AnyPool, backend: Backend) -> Store {
        Store { pool, backend }
    }

    pub async fn write(&self) -> ServiceResult<Transaction<'static, Any>> {
        begin_write(&self.pool, self.backend).await
    }
}

/// The wiki's entity kinds in the audit log beyond the portal's shared ones
/// ([`portal_kit::audit::entity`]).
pub mod audited {
    pub const MAINTENANCE_ENTRY: &str = "maintenance-entry";
    pub const JOURNAL: &str = "journal";
    pub const JOURNAL_ENTRY: &str = "journal-entry";
    pub const COUNTRY: &str = "country";
    pub const ENVIRONMENT_TYPE: &str = "environment-type";
    pub const MANUFACTURER: &str = "manufacturer";
    pub const COMMON_DOCUMENT: &str = "common-document";
    /// A unit taken out of service.
    pub const RETIRE: &str = "retire";
}

/// Who writes a unit: a person or a service account, or neither for the
/// portal itself (its demo equipment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writer {
    pub user_id: Option<i64>,
    pub service_account_id: Option<i64>,
}

impl Writer {
    pub const PORTAL: Writer = Writer {
        user_id: None,
        service_account_id: None,
    };
}

impl From<Actor<'_>> for Writer {
    fn from(actor: Actor<'_>) -> Writer {
        Writer {
            user_id: actor.user_id(),
            service_account_id: actor.service_account_id(),
        }
    }
}

/// Who writes and when (Unix ms): a [`Writer`] of units, an [`Author`] of
/// an instruction.
#[derive(Clone, Copy, Debug)]
pub struct WriteContext<W> {
    pub by: W,
    pub now: i64,
}

/// Who wrote something: their id and their name at the time.
#[derive(Clone, Debug)]
pub struct Author {
    pub id: i64,
    pub name: String,
}

/// Who sees a model, the one place of the rule: `Scope::Everything` (an
/// equipment editor) every model, anyone else those with an active unit in
/// the departments of their token. A condition on `environment_models m` with
/// its binds numbered from `first`, or none when the scope sees no model.
fn sees_model(scope: &Scope, first: usize) -> Option<(String, &[i64])> {
    match scope {
        Scope::Everything => Some(("1 = 1".to_owned(), &[])),
        Scope::Departments(ids) if ids.is_empty() => None,
        Scope::Departments(ids) => Some((
            format!(
                "m.id IN (SELECT e.environment_model_id FROM environments e WHERE e.retired_at IS NULL AND e.department_id IN {})",
                placeholders(first, ids.len())
            ),
            ids,
        )),
    }
}

/// A write's error: a unique or foreign-key violation as the caller's message,
/// anything else internal.
fn refused(
    error: sqlx::Error,
    unique: impl FnOnce() -> ServiceError,
    foreign: impl FnOnce() -> ServiceError,
) -> ServiceError {
    if is_unique_violation(&error) {
        unique()
    } else if is_foreign_key_violation(&error) {
        foreign()
    } else {
        error.into()
    }
}

fn bind_all<'q, T>(
    mut query: QueryAs<'q, Any, T, AnyArguments>,
    values: &[i64],
) -> QueryAs<'q, Any, T, AnyArguments> {
    for value in values {
        query = query.bind(*value);
    }
    query
}
