//! Recording: the fields a write changed (`Changes`, secrets as `***`) and the
//! record written on the write's own transaction, one or many at once.

use super::*;
use crate::db::{now_millis, placeholders};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlx::AnyConnection;

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
pub(super) const RECORD_CHUNK: usize = 250;

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
