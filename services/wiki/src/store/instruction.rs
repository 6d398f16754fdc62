//! Revisions of models' short instructions (issue 25): each save that changes
//! an instruction keeps the version it saved, with its author and time, in
//! the save's own transaction; a restore is one more such save, beside the
//! save it makes (`model.rs`).

use portal_kit::revisions::RevisionTable;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::{Author, Store};
use crate::domain::instruction::MSG_REVISION_NOT_FOUND;
use crate::domain::model::MSG_MODEL_NOT_FOUND;

/// One saved version of an instruction, without its text.
#[derive(Clone, Debug, FromRow)]
pub struct InstructionRevisionRecord {
    pub id: i64,
    /// None for the instruction a model had before revisions were kept.
    pub author_id: Option<i64>,
    pub author_name: String,
    pub created_at: i64,
    /// In characters.
    pub size: i64,
    /// The revision a restore wrote this one from, and when that one was
    /// saved; none for a save of its own.
    pub restored_from_id: Option<i64>,
    pub restored_from_at: Option<i64>,
}

const REVISION_COLUMNS: &str = "SELECT r.id, r.author_id, r.author_name, r.created_at, LENGTH(r.short_instruction) AS size, r.restored_from_id, f.created_at AS restored_from_at FROM instruction_revisions r LEFT JOIN instruction_revisions f ON f.id = r.restored_from_id";

pub(super) const INSTRUCTIONS: RevisionTable = RevisionTable {
    table: "instruction_revisions",
    item: "environment_model_id",
};

impl Store {
    /// A model's revisions, newest first; NOT_FOUND for an unknown model.
    pub async fn instruction_revisions(
        &self,
        model_id: i64,
    ) -> ServiceResult<Vec<InstructionRevisionRecord>> {
        let mut conn = self.pool.acquire().await?;
        require_model(&mut conn, model_id).await?;
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{REVISION_COLUMNS} WHERE r.environment_model_id = $1 ORDER BY r.id DESC"
        )))
        .bind(model_id)
        .fetch_all(&mut *conn)
        .await?)
    }

    /// One revision of a model's instruction with its text.
    pub async fn instruction_revision(
        &self,
        model_id: i64,
        revision_id: i64,
    ) -> ServiceResult<(InstructionRevisionRecord, String)> {
        let mut conn = self.pool.acquire().await?;
        require_model(&mut conn, model_id).await?;
        let revision = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{REVISION_COLUMNS} WHERE r.environment_model_id = $1 AND r.id = $2"
        )))
        .bind(model_id)
        .bind(revision_id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_REVISION_NOT_FOUND))?;
        let text = revision_text(&mut conn, model_id, revision_id).await?;
        Ok((revision, text))
    }
}

pub(super) async fn require_model(conn: &mut AnyConnection, model_id: i64) -> ServiceResult<()> {
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM environment_models WHERE id = $1")
        .bind(model_id)
        .fetch_optional(&mut *conn)
        .await?;
    found
        .map(|_| ())
        .ok_or_else(|| ServiceError::not_found(MSG_MODEL_NOT_FOUND))
}

pub(super) async fn revision_text(
    conn: &mut AnyConnection,
    model_id: i64,
    revision_id: i64,
) -> ServiceResult<String> {
    sqlx::query_scalar(
        "SELECT short_instruction FROM instruction_revisions WHERE environment_model_id = $1 AND id = $2",
    )
    .bind(model_id)
    .bind(revision_id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| ServiceError::not_found(MSG_REVISION_NOT_FOUND))
}

/// Before the first save of a model that has no revision yet (one saved
/// before revisions were kept): its instruction as it is, without an author,
/// at its last change, so that save does not lose it.
pub(super) async fn keep_instruction_of_before(
    conn: &mut AnyConnection,
    model_id: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "INSERT INTO instruction_revisions (environment_model_id, short_instruction, author_id, author_name, created_at) \
         SELECT m.id, m.short_instruction, NULL, '', m.updated_at FROM environment_models m \
         WHERE m.id = $1 AND NOT EXISTS (SELECT 1 FROM instruction_revisions r WHERE r.environment_model_id = m.id)",
    )
    .bind(model_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// After a save: the model's instruction as a new revision by `author` (none
/// for the portal's demo equipment), unless it is the newest revision's text
/// already (a save of the model's other fields).
pub(super) async fn record_instruction(
    conn: &mut AnyConnection,
    model_id: i64,
    author: Option<&Author>,
    now: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "INSERT INTO instruction_revisions (environment_model_id, short_instruction, author_id, author_name, created_at) \
         SELECT m.id, m.short_instruction, $2, $3, $4 FROM environment_models m WHERE m.id = $1 \
         AND NOT EXISTS (SELECT 1 FROM instruction_revisions r WHERE r.id = \
         (SELECT MAX(id) FROM instruction_revisions WHERE environment_model_id = $1) \
         AND r.short_instruction = m.short_instruction)",
    )
    .bind(model_id)
    .bind(author.map(|author| author.id))
    .bind(author.map_or("", |author| author.name.as_str()))
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
