//! The wiki's queries: one set for SQLite and PostgreSQL through sqlx's Any
//! driver.
//!
//! Every write is one statement, so none needs a transaction. The unique and
//! foreign-key indexes are the one check of what they guard: a taken inventory
//! number or name becomes a Russian 409 message, an unknown linked id a 400 or
//! 404, never a database error. Retired units (`retired_at`) are left out of
//! every read.

use std::collections::HashMap;

use portal_kit::db::{Keyed, is_foreign_key_violation, is_unique_violation, rekey};
use portal_kit::rich_text;
use portal_kit::text::name_key;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::any::AnyArguments;
use sqlx::query::QueryAs;
use sqlx::{Any, AnyPool, FromRow};

use crate::domain::journal::{
    JournalEntryDraft, JournalName, MSG_JOURNAL_NOT_FOUND, journal_taken,
};
use crate::domain::maintenance::EntryDraft;
use crate::domain::model::{MSG_MODEL_NOT_FOUND, ModelDraft};
use crate::domain::reference::{DocumentDraft, MSG_COUNTRY_NOT_FOUND, name_taken};
use crate::domain::scope::Scope;
use crate::domain::unit::{MSG_UNIT_NOT_FOUND, UnitDraft, inventory_taken};

pub const MSG_LINK_NOT_FOUND: &str = "Производитель или тип оборудования не найден";

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
}

// --- Records ---

#[derive(Clone, Debug, FromRow)]
pub struct ModelRecord {
    pub id: i64,
    pub name: String,
    pub brand_name: String,
    pub description: String,
    pub short_instruction: String,
    pub manufacturer_id: Option<i64>,
    pub environment_type_id: Option<i64>,
}

/// An active unit with the next due date of its latest logbook entry.
#[derive(Clone, Debug, FromRow)]
pub struct UnitRecord {
    pub id: i64,
    pub environment_model_id: i64,
    pub department_id: i64,
    pub serial_number: String,
    pub inventory_number: String,
    pub next_due: Option<String>,
}

#[derive(Clone, Debug, FromRow)]
pub struct EntryRecord {
    pub id: i64,
    pub environment_id: i64,
    pub environment_model_id: i64,
    pub performed_on: String,
    pub kind: String,
    pub performed_by: String,
    pub description: String,
    pub result: String,
    pub next_due: Option<String>,
    pub author_id: i64,
    pub author_name: String,
    pub created_at: i64,
}

#[derive(Clone, Debug, FromRow)]
pub struct JournalRecord {
    pub id: i64,
    pub environment_model_id: i64,
    pub name: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct JournalEntryRecord {
    pub id: i64,
    pub journal_id: i64,
    pub entry_date: String,
    pub text: String,
    pub author_id: i64,
    pub author_name: String,
    pub created_at: i64,
}

/// A country or an equipment type: an id and a name.
#[derive(Clone, Debug, FromRow)]
pub struct NamedRecord {
    pub id: i64,
    pub name: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct ManufacturerRecord {
    pub id: i64,
    pub name: String,
    pub country_id: Option<i64>,
}

#[derive(Clone, Debug, FromRow)]
pub struct DocumentRecord {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub url: String,
}

/// Who wrote something: their id and their name at the time.
#[derive(Clone, Debug)]
pub struct Author {
    pub id: i64,
    pub name: String,
}

/// Which units a read is about.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnitFilter {
    pub id: Option<i64>,
    pub model_id: Option<i64>,
    pub department_id: Option<i64>,
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

const MODEL_COLUMNS: &str = "SELECT m.id, m.name, m.brand_name, m.description, m.short_instruction, m.manufacturer_id, m.environment_type_id FROM environment_models m";
const UNIT_COLUMNS: &str = "SELECT e.id, e.environment_model_id, e.department_id, e.serial_number, e.inventory_number, (SELECT l.next_due FROM maintenance_entries l WHERE l.environment_id = e.id ORDER BY l.performed_on DESC, l.id DESC LIMIT 1) AS next_due FROM environments e WHERE e.retired_at IS NULL";
const ENTRY_COLUMNS: &str = "SELECT l.id, l.environment_id, e.environment_model_id, l.performed_on, l.kind, l.performed_by, l.description, l.result, l.next_due, l.author_id, l.author_name, l.created_at FROM maintenance_entries l JOIN environments e ON e.id = l.environment_id";
const JOURNAL_COLUMNS: &str = "SELECT j.id, j.environment_model_id, j.name FROM journals j";
const JOURNAL_ENTRY_COLUMNS: &str = "SELECT x.id, x.journal_id, x.entry_date, x.text, x.author_id, x.author_name, x.created_at FROM journal_entries x";

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

/// `($first, $first+1, …)` for `count` binds.
fn placeholders(first: usize, count: usize) -> String {
    let list: Vec<String> = (first..first + count).map(|i| format!("${i}")).collect();
    format!("({})", list.join(", "))
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

impl Store {
    pub fn new(pool: AnyPool) -> Store {
        Store { pool }
    }

    // --- Models ---

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
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{MODEL_COLUMNS} WHERE m.id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_MODEL_NOT_FOUND))
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

    pub async fn create_model(&self, draft: &ModelDraft, now: i64) -> ServiceResult<ModelRecord> {
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
        .fetch_one(&self.pool)
        .await
        .map_err(|e| refused(e, link_not_found, link_not_found))?;
        self.model(id).await
    }

    pub async fn update_model(
        &self,
        id: i64,
        draft: &ModelDraft,
        now: i64,
    ) -> ServiceResult<ModelRecord> {
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
        .execute(&self.pool)
        .await
        .map_err(|e| refused(e, link_not_found, link_not_found))?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_MODEL_NOT_FOUND));
        }
        self.model(id).await
    }

    pub async fn save_instruction(&self, id: i64, html: &str, now: i64) -> ServiceResult<()> {
        let updated = sqlx::query(
            "UPDATE environment_models SET short_instruction = $1, updated_at = $2 WHERE id = $3",
        )
        .bind(html)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_MODEL_NOT_FOUND));
        }
        Ok(())
    }

    // --- Units ---

    /// The active units `scope` sees that match `filter`, by inventory number.
    pub async fn units(&self, scope: &Scope, filter: UnitFilter) -> ServiceResult<Vec<UnitRecord>> {
        let mut sql = UNIT_COLUMNS.to_owned();
        let mut binds = Vec::new();
        for (column, value) in [
            ("e.id", filter.id),
            ("e.environment_model_id", filter.model_id),
            ("e.department_id", filter.department_id),
        ] {
            if let Some(value) = value {
                binds.push(value);
                sql.push_str(&format!(" AND {column} = ${}", binds.len()));
            }
        }
        if let Scope::Departments(ids) = scope {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            sql.push_str(&format!(
                " AND e.department_id IN {}",
                placeholders(binds.len() + 1, ids.len())
            ));
            binds.extend(ids);
        }
        sql.push_str(" ORDER BY e.inventory_number, e.id");
        Ok(bind_all(sqlx::query_as(sqlx::AssertSqlSafe(sql)), &binds)
            .fetch_all(&self.pool)
            .await?)
    }

    /// One active unit `scope` sees; NOT_FOUND otherwise.
    pub async fn visible_unit(&self, scope: &Scope, id: i64) -> ServiceResult<UnitRecord> {
        let filter = UnitFilter {
            id: Some(id),
            ..UnitFilter::default()
        };
        self.units(scope, filter)
            .await?
            .pop()
            .ok_or_else(|| ServiceError::not_found(MSG_UNIT_NOT_FOUND))
    }

    pub async fn create_unit(
        &self,
        model_id: i64,
        draft: &UnitDraft,
        now: i64,
    ) -> ServiceResult<UnitRecord> {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO environments (environment_model_id, department_id, serial_number, inventory_number, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(model_id)
        .bind(draft.department_id)
        .bind(&draft.serial_number)
        .bind(&draft.inventory_number)
        .bind(now)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| {
            refused(
                e,
                || inventory_taken(&draft.inventory_number),
                || ServiceError::not_found(MSG_MODEL_NOT_FOUND),
            )
        })?;
        self.visible_unit(&Scope::Everything, id).await
    }

    pub async fn update_unit(&self, id: i64, draft: &UnitDraft) -> ServiceResult<UnitRecord> {
        let updated = sqlx::query(
            "UPDATE environments SET department_id = $1, serial_number = $2, inventory_number = $3 WHERE id = $4 AND retired_at IS NULL",
        )
        .bind(draft.department_id)
        .bind(&draft.serial_number)
        .bind(&draft.inventory_number)
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(|e| {
            refused(
                e,
                || inventory_taken(&draft.inventory_number),
                || ServiceError::not_found(MSG_UNIT_NOT_FOUND),
            )
        })?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_UNIT_NOT_FOUND));
        }
        self.visible_unit(&Scope::Everything, id).await
    }

    pub async fn retire_unit(&self, id: i64, now: i64) -> ServiceResult<()> {
        let updated = sqlx::query(
            "UPDATE environments SET retired_at = $1 WHERE id = $2 AND retired_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_UNIT_NOT_FOUND));
        }
        Ok(())
    }

    // --- Maintenance logbook ---

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
        unit_id: i64,
        draft: &EntryDraft,
        author: &Author,
        now: i64,
    ) -> ServiceResult<EntryRecord> {
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
        .fetch_one(&self.pool)
        .await?;
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{ENTRY_COLUMNS} WHERE l.id = $1"
        )))
        .bind(id)
        .fetch_one(&self.pool)
        .await?)
    }

    // --- Journals ---

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
        model_id: i64,
        name: &JournalName,
        now: i64,
    ) -> ServiceResult<JournalRecord> {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO journals (environment_model_id, name, name_key, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(model_id)
        .bind(&name.name)
        .bind(&name.key)
        .bind(now)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| {
            refused(
                e,
                || journal_taken(&name.name),
                || ServiceError::not_found(MSG_MODEL_NOT_FOUND),
            )
        })?;
        self.journal(id).await
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
        journal_id: i64,
        draft: &JournalEntryDraft,
        author: &Author,
        now: i64,
    ) -> ServiceResult<JournalEntryRecord> {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO journal_entries (journal_id, entry_date, text, author_id, author_name, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(journal_id)
        .bind(draft.date.to_string())
        .bind(&draft.text)
        .bind(author.id)
        .bind(&author.name)
        .bind(now)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| {
            refused(
                e,
                || ServiceError::not_found(MSG_JOURNAL_NOT_FOUND),
                || ServiceError::not_found(MSG_JOURNAL_NOT_FOUND),
            )
        })?;
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{JOURNAL_ENTRY_COLUMNS} WHERE x.id = $1"
        )))
        .bind(id)
        .fetch_one(&self.pool)
        .await?)
    }

    // --- Reference data ---

    /// Cleans every model's instruction again with `clean`; answers how many
    /// changed.
    pub async fn reclean_instructions(
        &self,
        clean: impl Fn(&str) -> String,
    ) -> ServiceResult<usize> {
        rich_text::clean_stored(&self.pool, "environment_models", "short_instruction", clean).await
    }

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

    pub async fn create_name(&self, table: NameTable, name: &str) -> ServiceResult<NamedRecord> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {} (name, name_key) VALUES ($1, $2) RETURNING id, name",
            table.table()
        )))
        .bind(name)
        .bind(name_key(name))
        .fetch_one(&self.pool)
        .await
        .map_err(|e| refused(e, || name_taken(name), || name_taken(name)))
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
        name: &str,
        country_id: Option<i64>,
    ) -> ServiceResult<ManufacturerRecord> {
        sqlx::query_as(
            "INSERT INTO manufacturers (name, name_key, country_id) VALUES ($1, $2, $3) RETURNING id, name, country_id",
        )
        .bind(name)
        .bind(name_key(name))
        .bind(country_id)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| {
            refused(
                e,
                || name_taken(name),
                || ServiceError::invalid(MSG_COUNTRY_NOT_FOUND),
            )
        })
    }

    pub async fn documents(&self) -> ServiceResult<Vec<DocumentRecord>> {
        Ok(sqlx::query_as(
            "SELECT id, title, description, url FROM common_documents ORDER BY title, id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_document(&self, draft: &DocumentDraft) -> ServiceResult<DocumentRecord> {
        let title = &draft.title;
        sqlx::query_as(
            "INSERT INTO common_documents (title, title_key, description, url) VALUES ($1, $2, $3, $4) RETURNING id, title, description, url",
        )
        .bind(title)
        .bind(name_key(title))
        .bind(&draft.description)
        .bind(&draft.url)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| refused(e, || name_taken(title), || name_taken(title)))
    }
}

fn link_not_found() -> ServiceError {
    ServiceError::invalid(MSG_LINK_NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_number_on_from_the_first() {
        assert_eq!(placeholders(3, 2), "($3, $4)");
    }
}
