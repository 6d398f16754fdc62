//! Reading the log: filters, keyset pages newest first, and the retention purge.

use super::*;
use crate::ServiceResult;
use crate::db::{Backend, begin_write};
use sqlx::{Any, AnyPool};

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
