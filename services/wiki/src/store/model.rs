//! Equipment models: their fields, who sees them, and their instructions.

use std::collections::HashMap;

use portal_kit::audit::{AuditContext, entity};
use portal_kit::db::for_update;
use portal_kit::revisions::Restore;
use portal_kit::rich_text;
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::{AnyConnection, FromRow};

use super::instruction::{
    INSTRUCTIONS, keep_instruction_of_before, record_instruction, require_model, revision_text,
};
use super::reference::NamedRecord;
use super::search;
use super::{Author, Store, WriteContext, bind_all, record_change, refused, sees_model};
use crate::domain::model::{MSG_MODEL_NOT_FOUND, ModelDraft};
use crate::domain::scope::Scope;

pub const MSG_LINK_NOT_FOUND: &str = "Производитель или тип оборудования не найден";

/// Serialized: its fields as the audit log compares them, the instruction by
/// its fingerprint.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRecord {
    #[serde(skip)]
    pub id: i64,
    pub name: String,
    pub brand_name: String,
    pub description: String,
    #[serde(serialize_with = "rich_text::serialize_fingerprint")]
    pub short_instruction: String,
    pub manufacturer_id: Option<i64>,
    pub environment_type_id: Option<i64>,
}

const MODEL_COLUMNS: &str = "SELECT m.id, m.name, m.brand_name, m.description, m.short_instruction, m.manufacturer_id, m.environment_type_id FROM environment_models m";

impl Store {
    /// The models `scope` sees, by name.
    pub async fn models(&self, scope: &Scope) -> ServiceResult<Vec<ModelRecord>> {
        let Some((sees, ids)) = sees_model(scope, 1) else {
            return Ok(Vec::new());
        };
        let sql = format!("{MODEL_COLUMNS} WHERE {sees} ORDER BY m.name, m.id");
        Ok(bind_all(sqlx::query_as(sqlx::AssertSqlSafe(sql)), ids)
            .fetch_all(&self.pool)
            .await?)
    }

    /// A model whoever asks may know of: the public instruction, and writes.
    pub async fn model(&self, id: i64) -> ServiceResult<ModelRecord> {
        model_in(&mut *self.pool.acquire().await?, id).await
    }

    /// A model `scope` sees; NOT_FOUND otherwise, as if it did not exist.
    pub async fn visible_model(&self, scope: &Scope, id: i64) -> ServiceResult<ModelRecord> {
        self.one_visible_model(MODEL_COLUMNS, scope, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_MODEL_NOT_FOUND))
    }

    /// Whether `scope` sees model `id`, reading nothing of it (its instruction
    /// may be megabytes).
    pub async fn is_model_visible(&self, scope: &Scope, id: i64) -> ServiceResult<bool> {
        let found: Option<(i64,)> = self
            .one_visible_model("SELECT m.id FROM environment_models m", scope, id)
            .await?;
        Ok(found.is_some())
    }

    /// Ok when `scope` sees model `id`; NOT_FOUND otherwise, as if it did not
    /// exist.
    pub async fn require_visible_model(&self, scope: &Scope, id: i64) -> ServiceResult<()> {
        if self.is_model_visible(scope, id).await? {
            Ok(())
        } else {
            Err(ServiceError::not_found(MSG_MODEL_NOT_FOUND))
        }
    }

    /// `columns` (a SELECT from `environment_models m`) of model `id` if
    /// `scope` sees it.
    async fn one_visible_model<T>(
        &self,
        columns: &str,
        scope: &Scope,
        id: i64,
    ) -> ServiceResult<Option<T>>
    where
        T: Send + Unpin + for<'r> FromRow<'r, sqlx::any::AnyRow>,
    {
        let Some((sees, ids)) = sees_model(scope, 2) else {
            return Ok(None);
        };
        let sql = format!("{columns} WHERE m.id = $1 AND {sees}");
        let query = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id);
        Ok(bind_all(query, ids).fetch_optional(&self.pool).await?)
    }

    pub async fn has_models(&self) -> ServiceResult<bool> {
        let any: Option<i64> = sqlx::query_scalar("SELECT id FROM environment_models LIMIT 1")
            .fetch_optional(&self.pool)
            .await?;
        Ok(any.is_some())
    }

    /// Every model's name by id (labels and the due list name units' models).
    pub async fn model_names(&self) -> ServiceResult<HashMap<i64, String>> {
        let rows: Vec<NamedRecord> = sqlx::query_as("SELECT id, name FROM environment_models")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.into_iter().map(|row| (row.id, row.name)).collect())
    }

    pub async fn create_model(
        &self,
        audit: &AuditContext,
        draft: &ModelDraft,
        author: Option<&Author>,
        now: i64,
    ) -> ServiceResult<ModelRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO environment_models (name, brand_name, description, short_instruction, manufacturer_id, environment_type_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
        )
        .bind(&draft.name)
        .bind(&draft.brand_name)
        .bind(&draft.description)
        .bind(&draft.short_instruction)
        .bind(draft.manufacturer_id)
        .bind(draft.environment_type_id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| refused(e, link_not_found, link_not_found))?;
        record_instruction(&mut tx, id, author, now).await?;
        search::index_model(&mut tx, id).await?;
        let created = model_in(&mut tx, id).await?;
        record_change(
            &mut tx,
            audit,
            (entity::ENVIRONMENT_MODEL, id),
            None,
            Some(&created),
        )
        .await?;
        tx.commit().await?;
        Ok(created)
    }

    pub async fn update_model(
        &self,
        audit: &AuditContext,
        id: i64,
        draft: &ModelDraft,
        author: &Author,
        now: i64,
    ) -> ServiceResult<ModelRecord> {
        let mut tx = self.write().await?;
        let old = model_in(&mut tx, id).await?;
        keep_instruction_of_before(&mut tx, id).await?;
        let updated = sqlx::query(
            "UPDATE environment_models SET name = $1, brand_name = $2, description = $3, short_instruction = $4, manufacturer_id = $5, environment_type_id = $6, updated_at = $7 WHERE id = $8",
        )
        .bind(&draft.name)
        .bind(&draft.brand_name)
        .bind(&draft.description)
        .bind(&draft.short_instruction)
        .bind(draft.manufacturer_id)
        .bind(draft.environment_type_id)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(|e| refused(e, link_not_found, link_not_found))?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_MODEL_NOT_FOUND));
        }
        record_instruction(&mut tx, id, Some(author), now).await?;
        search::index_model(&mut tx, id).await?;
        let new = model_in(&mut tx, id).await?;
        record_change(
            &mut tx,
            audit,
            (entity::ENVIRONMENT_MODEL, id),
            Some(&old),
            Some(&new),
        )
        .await?;
        tx.commit().await?;
        Ok(new)
    }

    pub async fn save_instruction(
        &self,
        audit: &AuditContext,
        id: i64,
        html: &str,
        author: &Author,
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        write_instruction(&mut tx, audit, id, html, WriteContext { by: author, now }).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Cleans every model's instruction again with `clean`; answers how many
    /// changed.
    pub async fn reclean_instructions(
        &self,
        clean: impl Fn(&str) -> String,
    ) -> ServiceResult<usize> {
        let stored = rich_text::Stored {
            table: "environment_models",
            column: "short_instruction",
            entity: entity::ENVIRONMENT_MODEL,
            field: "shortInstruction",
        };
        let mut rows = rich_text::Recleaning::start(&self.pool, stored, clean).await?;
        let mut changed = 0;
        while let Some(row) = rows.next(&self.pool).await? {
            let mut tx = self.write().await?;
            row.write(&mut tx).await?;
            tx.commit().await?;
            changed += 1;
        }
        Ok(changed)
    }

    /// Saves a revision's instruction as the model's again, a new revision;
    /// answers the instruction as stored.
    pub async fn restore_instruction(
        &self,
        audit: &AuditContext,
        model_id: i64,
        revision_id: i64,
        ctx: WriteContext<&Author>,
    ) -> ServiceResult<String> {
        let mut tx = self.write().await?;
        require_model(&mut tx, model_id).await?;
        let text = revision_text(&mut tx, model_id, revision_id).await?;
        let restore = Restore::begin(&mut tx, INSTRUCTIONS, model_id, revision_id).await?;
        write_instruction(&mut tx, audit, model_id, &text, ctx).await?;
        restore.mark(&mut tx).await?;
        tx.commit().await?;
        Ok(text)
    }
}

/// Saves `html` as model `id`'s instruction, as `author` at `now`: its
/// revision, search entry and audit record with it.
pub(super) async fn write_instruction(
    conn: &mut AnyConnection,
    audit: &AuditContext,
    id: i64,
    html: &str,
    WriteContext { by: author, now }: WriteContext<&Author>,
) -> ServiceResult<()> {
    let old = model_in(conn, id).await?;
    keep_instruction_of_before(conn, id).await?;
    let updated = sqlx::query(
        "UPDATE environment_models SET short_instruction = $1, updated_at = $2 WHERE id = $3",
    )
    .bind(html)
    .bind(now)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() == 0 {
        return Err(ServiceError::not_found(MSG_MODEL_NOT_FOUND));
    }
    record_instruction(conn, id, Some(author), now).await?;
    search::index_model(conn, id).await?;
    let new = model_in(conn, id).await?;
    record_change(
        conn,
        audit,
        (entity::ENVIRONMENT_MODEL, id),
        Some(&old),
        Some(&new),
    )
    .await?;
    Ok(())
}

/// Model `id` as `conn` sees it, locked until a write transaction's end
/// ([`for_update`]); NOT_FOUND when there is none.
async fn model_in(conn: &mut AnyConnection, id: i64) -> ServiceResult<ModelRecord> {
    let select = format!("{MODEL_COLUMNS} WHERE m.id = $1");
    sqlx::query_as(for_update(conn, &select, "m"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_MODEL_NOT_FOUND))
}

fn link_not_found() -> ServiceError {
    ServiceError::invalid(MSG_LINK_NOT_FOUND)
}
