//! Reference data: countries, equipment types, manufacturers and common
//! documents, each name or title unique as people read it.

use portal_kit::audit::AuditContext;
use portal_kit::db::{Keyed, rekey};
use portal_kit::text::name_key;
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::FromRow;

use super::{Store, audited, record_change, refused};
use crate::domain::reference::{DocumentDraft, MSG_COUNTRY_NOT_FOUND, name_taken};

/// A country or an equipment type: an id and a name. Serialized: its fields
/// as the audit log records them (so for the other records here).
#[derive(Clone, Debug, FromRow, Serialize)]
pub struct NamedRecord {
    #[serde(skip)]
    pub id: i64,
    pub name: String,
}

#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ManufacturerRecord {
    #[serde(skip)]
    pub id: i64,
    pub name: String,
    pub country_id: Option<i64>,
}

#[derive(Clone, Debug, FromRow, Serialize)]
pub struct DocumentRecord {
    #[serde(skip)]
    pub id: i64,
    pub title: String,
    pub description: String,
    pub url: String,
}

/// The two reference tables of plain names.
#[derive(Clone, Copy, Debug)]
pub enum NameTable {
    Countries,
    EnvironmentTypes,
}

impl NameTable {
    fn table(self) -> &'static str {
        match self {
            NameTable::Countries => "countries",
            NameTable::EnvironmentTypes => "environment_types",
        }
    }

    /// Its rows' entity kind in the audit log.
    fn audited(self) -> &'static str {
        match self {
            NameTable::Countries => audited::COUNTRY,
            NameTable::EnvironmentTypes => audited::ENVIRONMENT_TYPE,
        }
    }
}

/// The reference names and titles that are unique as people read them.
const KEYED_NAMES: [Keyed; 4] = [
    Keyed {
        table: "countries",
        text: "name",
        key: "name_key",
    },
    Keyed {
        table: "environment_types",
        text: "name",
        key: "name_key",
    },
    Keyed {
        table: "manufacturers",
        text: "name",
        key: "name_key",
    },
    Keyed {
        table: "common_documents",
        text: "title",
        key: "title_key",
    },
];

impl Store {
    /// Gives every reference name and document title its key where it has
    /// none yet (rows from before the keys existed) or one of an older rule.
    pub async fn key_reference_names(&self) -> ServiceResult<()> {
        for keyed in &KEYED_NAMES {
            rekey(&self.pool, keyed, name_key).await?;
        }
        Ok(())
    }

    pub async fn names(&self, table: NameTable) -> ServiceResult<Vec<NamedRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT id, name FROM {} ORDER BY name, id",
            table.table()
        )))
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_name(
        &self,
        audit: &AuditContext,
        table: NameTable,
        name: &str,
    ) -> ServiceResult<NamedRecord> {
        let mut tx = self.write().await?;
        let created: NamedRecord = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {} (name, name_key) VALUES ($1, $2) RETURNING id, name",
            table.table()
        )))
        .bind(name)
        .bind(name_key(name))
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| refused(e, || name_taken(name), || name_taken(name)))?;
        let what = (table.audited(), created.id);
        record_change(&mut tx, audit, what, None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }

    pub async fn manufacturers(&self) -> ServiceResult<Vec<ManufacturerRecord>> {
        Ok(
            sqlx::query_as("SELECT id, name, country_id FROM manufacturers ORDER BY name, id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub async fn create_manufacturer(
        &self,
        audit: &AuditContext,
        name: &str,
        country_id: Option<i64>,
    ) -> ServiceResult<ManufacturerRecord> {
        let mut tx = self.write().await?;
        let created: ManufacturerRecord = sqlx::query_as(
            "INSERT INTO manufacturers (name, name_key, country_id) VALUES ($1, $2, $3) RETURNING id, name, country_id",
        )
        .bind(name)
        .bind(name_key(name))
        .bind(country_id)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| {
            refused(
                e,
                || name_taken(name),
                || ServiceError::invalid(MSG_COUNTRY_NOT_FOUND),
            )
        })?;
        let what = (audited::MANUFACTURER, created.id);
        record_change(&mut tx, audit, what, None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }

    pub async fn documents(&self) -> ServiceResult<Vec<DocumentRecord>> {
        Ok(sqlx::query_as(
            "SELECT id, title, description, url FROM common_documents ORDER BY title, id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_document(
        &self,
        audit: &AuditContext,
        draft: &DocumentDraft,
    ) -> ServiceResult<DocumentRecord> {
        let title = &draft.title;
        let mut tx = self.write().await?;
        let created: DocumentRecord = sqlx::query_as(
            "INSERT INTO common_documents (title, title_key, description, url) VALUES ($1, $2, $3, $4) RETURNING id, title, description, url",
        )
        .bind(title)
        .bind(name_key(title))
        .bind(&draft.description)
        .bind(&draft.url)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| refused(e, || name_taken(title), || name_taken(title)))?;
        let what = (audited::COMMON_DOCUMENT, created.id);
        record_change(&mut tx, audit, what, None, Some(&created)).await?;
        tx.commit().await?;
        Ok(created)
    }
}
