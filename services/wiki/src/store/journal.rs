//! Journals: named records kept per equipment model, and their entries.

use portal_kit::audit::AuditContext;
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::FromRow;

use super::{Author, Store, audited, record_change, refused};
use crate::domain::journal::{
    JournalEntryDraft, JournalName, MSG_JOURNAL_NOT_FOUND, journal_taken,
};
use crate::domain::model::MSG_MODEL_NOT_FOUND;

/// Serialized: its fields as the audit log records them.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalRecord {
    #[serde(skip)]
    pub id: i64,
    pub environment_model_id: i64,
    pub name: String,
}

/// Serialized: its fields as the audit log records them.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntryRecord {
    #[serde(skip)]
    pub id: i64,
    pub journal_id: i64,
    pub entry_date: String,
    pub text: String,
    #[serde(skip)]
    pub author_id: i64,
    pub author_name: String,
    #[serde(skip)]
    pub created_at: i64,
}

const JOURNAL_COLUMNS: &str = "SELECT j.id, j.environment_model_id, j.name FROM journals j";
const JOURNAL_ENTRY_COLUMNS: &str = "SELECT x.id, x.journal_id, x.entry_date, x.text, x.author_id, x.author_name, x.created_at FROM journal_entries x";

impl Store {
    pub async fn journals(&self, model_id: i64) -> ServiceResult<Vec<JournalRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{JOURNAL_COLUMNS} WHERE j.environment_model_id = $1 ORDER BY j.name, j.id"
        )))
        .bind(model_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn journal(&self, id: i64) -> ServiceResult<JournalRecord> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{JOURNAL_COLUMNS} WHERE j.id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_JOURNAL_NOT_FOUND))
    }

    pub async fn create_journal(
        &self,
        audit: &AuditContext,
        model_id: i64,
        name: &JournalName,
        now: i64,
    ) -> ServiceResult<JournalRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO journals (environment_model_id, name, name_key, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(model_id)
        .bind(&name.name)
        .bind(&name.key)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| {
            refused(
                e,
                || journal_taken(&name.name),
                || ServiceError::not_found(MSG_MODEL_NOT_FOUND),
            )
        })?;
        let created = JournalRecord {
            id,
            environment_model_id: model_id,
            name: name.name.clone(),
        };
        record_change(&mut tx, audit, (audited::JOURNAL, id), None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }

    /// A journal's entries, newest first.
    pub async fn journal_entries(&self, journal_id: i64) -> ServiceResult<Vec<JournalEntryRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{JOURNAL_ENTRY_COLUMNS} WHERE x.journal_id = $1 ORDER BY x.entry_date DESC, x.id DESC"
        )))
        .bind(journal_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_journal_entry(
        &self,
        audit: &AuditContext,
        journal_id: i64,
        draft: &JournalEntryDraft,
        author: &Author,
        now: i64,
    ) -> ServiceResult<JournalEntryRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO journal_entries (journal_id, entry_date, text, author_id, author_name, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(journal_id)
        .bind(draft.date.to_string())
        .bind(&draft.text)
        .bind(author.id)
        .bind(&author.name)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| {
            refused(
                e,
                || ServiceError::not_found(MSG_JOURNAL_NOT_FOUND),
                || ServiceError::not_found(MSG_JOURNAL_NOT_FOUND),
            )
        })?;
        let created: JournalEntryRecord = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{JOURNAL_ENTRY_COLUMNS} WHERE x.id = $1"
        )))
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        let what = (audited::JOURNAL_ENTRY, id);
        record_change(&mut tx, audit, what, None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }
}
