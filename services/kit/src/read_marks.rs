//! Read marks of the portal's bell (issue 24): which of a person's items they
//! marked read, by the item's stable key. Each service that lists items keeps
//! the marks of its own in a `notification_reads (user_id, item_key,
//! read_at)` table of its database; an item's key starts with its service's
//! prefix (`education:`, `wiki:`), so the gateway sends a mark to its owner
//! and a service ignores the keys of others.
//!
//! A key names its item's due day, so a new deadline is a new item and the
//! marks of the old ones are of no use: each service forgets marks older
//! than [`KEEP_DAYS`] in its daily [`crate::housekeeping`] ([`forget_old`]).
//!
//! Each query runs on the caller's connection: a service's store decides the
//! transaction a mark is written in (education's writer's turn, for one).

use std::collections::HashSet;

use sqlx::AnyConnection;

use crate::audit::{self, AuditContext, Changes, Event};
use crate::{ServiceError, ServiceResult};

/// The most ids one mark-read call takes.
pub const MAX_MARKS: usize = 500;
/// The longest key a service makes is far shorter; longer ones are nobody's.
const MAX_KEY_CHARS: usize = 200;
pub const MSG_TOO_MANY_MARKS: &str = "Можно отметить не более 500 уведомлений за один раз";
/// How long a mark is kept. An item is listed from at most 30 days before
/// its day, so a mark this old is of an item whose day passed two months ago
/// or more; one still listed (a course overdue all that time) comes back
/// unread, a reminder again.
pub const KEEP_DAYS: i64 = 90;
const DAY_MILLIS: i64 = 24 * 60 * 60 * 1000;

/// The ids of a mark-read call that start with `prefix` (the service's own),
/// each once; more than [`MAX_MARKS`] ids are refused.
pub fn own_keys(prefix: &str, ids: Vec<String>) -> ServiceResult<Vec<String>> {
    if ids.len() > MAX_MARKS {
        return Err(ServiceError::invalid(MSG_TOO_MANY_MARKS));
    }
    let mut keys: Vec<String> = ids
        .into_iter()
        .filter(|id| id.starts_with(prefix) && id.chars().count() <= MAX_KEY_CHARS)
        .collect();
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// The keys `user_id` marked read.
pub async fn read_marks(conn: &mut AnyConnection, user_id: i64) -> ServiceResult<HashSet<String>> {
    let keys: Vec<String> =
        sqlx::query_scalar("SELECT item_key FROM notification_reads WHERE user_id = $1")
            .bind(user_id)
            .fetch_all(&mut *conn)
            .await?;
    Ok(keys.into_iter().collect())
}

/// The audit log's entity of a person's read marks (its id: the person's),
/// and the action of marking items read.
pub const AUDIT_ENTITY: &str = "notification";
pub const AUDIT_MARK_READ: &str = "mark-read";

/// Marks `keys` read for `user_id` in the caller's write transaction `conn`;
/// a mark made before stays as it was. The keys newly marked are recorded, if
/// any.
pub async fn mark_read(
    conn: &mut AnyConnection,
    user_id: i64,
    keys: &[String],
    now: i64,
    context: &AuditContext,
) -> ServiceResult<()> {
    let mut marked = Vec::new();
    for key in keys {
        let inserted = sqlx::query(
            "INSERT INTO notification_reads (user_id, item_key, read_at) VALUES ($1, $2, $3) ON CONFLICT (user_id, item_key) DO NOTHING",
        )
        .bind(user_id)
        .bind(key)
        .bind(now)
        .execute(&mut *conn)
        .await?;
        if inserted.rows_affected() > 0 {
            marked.push(key);
        }
    }
    if !marked.is_empty() {
        let changes = Changes::new().field("read", Vec::<&str>::new(), marked);
        let event = Event::new(AUDIT_ENTITY, user_id, AUDIT_MARK_READ).changes(changes);
        audit::record(conn, context, event).await?;
    }
    Ok(())
}

/// Deletes the marks made over [`KEEP_DAYS`] before `now` (Unix ms); answers
/// how many.
pub async fn forget_old(conn: &mut AnyConnection, now: i64) -> ServiceResult<u64> {
    let forgotten = sqlx::query("DELETE FROM notification_reads WHERE read_at < $1")
        .bind(now - KEEP_DAYS * DAY_MILLIS)
        .execute(&mut *conn)
        .await?;
    Ok(forgotten.rows_affected())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_services_own_ids_are_marked_and_at_most_500() {
        let keys = own_keys(
            "education:",
            vec![
                "wiki:maintenance:1:2026-03-01".into(),
                "education:course:5:2026-03-17".into(),
                "education:course:5:2026-03-17".into(),
            ],
        )
        .unwrap();
        assert_eq!(keys, ["education:course:5:2026-03-17"]);
        assert!(own_keys("wiki:", vec![String::new(); 501]).is_err());
    }
}
