//! The maintenance logbook: what was done to a unit, and when it is due next.

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
use serde::Serialize;
use sqlx::FromRow;

use super::{Author, Store, audited, record_change};
use crate::domain::maintenance::EntryDraft;

/// Serialized: its fields as the audit log records them.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryRecord {
    #[serde(skip)]
    pub id: i64,
    pub environment_id: i64,
    #[serde(skip)]
    pub environment_model_id: i64,
    pub performed_on: String,
    pub kind: String,
    pub performed_by: String,
    pub description: String,
    pub result: String,
    pub next_due: Option<String>,
    #[serde(skip)]
    pub author_id: i64,
    pub author_name: String,
    #[serde(skip)]
    pub created_at: i64,
}

const ENTRY_COLUMNS: &str = "SELECT l.id, l.environment_id, e.environment_model_id, l.performed_on, l.kind, l.performed_by, l.description, l.result, l.next_due, l.author_id, l.author_name, l.created_at FROM maintenance_entries l JOIN environments e ON e.id = l.environment_id";

impl Store {
    /// A unit's logbook, newest first.
    pub async fn entries(&self, unit_id: i64) -> ServiceResult<Vec<EntryRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{ENTRY_COLUMNS} WHERE l.environment_id = $1 ORDER BY l.performed_on DESC, l.id DESC"
        )))
        .bind(unit_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_entry(
        &self,
        audit: &AuditContext,
        unit_id: i64,
        draft: &EntryDraft,
        author: &Author,
        now: i64,
    ) -> ServiceResult<EntryRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO maintenance_entries (environment_id, performed_on, kind, performed_by, description, result, next_due, author_id, author_name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        )
        .bind(unit_id)
        .bind(draft.date.to_string())
        .bind(draft.kind.as_str())
        .bind(&draft.performed_by)
        .bind(&draft.description)
        .bind(&draft.result)
        .bind(draft.next_due.map(|day| day.to_string()))
        .bind(author.id)
        .bind(&author.name)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let created: EntryRecord = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{ENTRY_COLUMNS} WHERE l.id = $1"
        )))
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        let what = (audited::MAINTENANCE_ENTRY, id);
        record_change(&mut tx, audit, what, None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }
}
