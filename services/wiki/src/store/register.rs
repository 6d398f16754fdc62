//! The equipment register's queries: every unit by id with its model's names,
//! authors and maintenance standing, and a batch of units in one transaction:
//! the models and units it names read in a few statements (a few hundred rows
//! a statement), each row planned (create, change, leave), the writes made,
//! and the whole committed, or rolled back for a dry run, so a dry run answers
//! exactly what the same batch would do. A collision with a concurrent writer
//! on an inventory number runs the batch again, which then finds that
//! writer's unit.

use std::collections::{BTreeSet, HashMap, HashSet};

use portal_kit::ServiceResult;
use portal_kit::audit::{AuditContext, entity};
use portal_kit::day::Day;
use portal_kit::db::{WriteError, for_update, retry_on_collision};
use serde::Serialize;
use sqlx::{AnyConnection, FromRow};

use super::search;
use super::{Store, WriteContext, Writer, bind_all, placeholders, record_change};
use crate::domain::maintenance::{Standing, standing};
use crate::domain::register::{
    Batch, Current, Outcome, Page, Row, RowError, Upsert, Upserted, changes,
};

/// Values looked up in one statement (well below either backend's limit on
/// binds).
const READ_CHUNK: usize = 1000;
/// Units inserted in one statement (8 binds each).
const INSERT_CHUNK: usize = 500;

/// A unit as a register reads it, retired ones too.
#[derive(Clone, Debug, FromRow)]
pub struct RegisterUnitRecord {
    pub id: i64,
    pub inventory_number: String,
    pub serial_number: String,
    pub environment_model_id: i64,
    pub model_name: String,
    pub manufacturer_id: Option<i64>,
    pub manufacturer_name: Option<String>,
    pub environment_type_id: Option<i64>,
    pub environment_type_name: Option<String>,
    pub department_id: i64,
    pub retired_at: Option<i64>,
    pub last_maintenance: Option<String>,
    pub next_due: Option<String>,
    pub created_at: i64,
    pub created_by_user_id: Option<i64>,
    pub created_by_service_account_id: Option<i64>,
    pub changed_at: Option<i64>,
    pub changed_by_user_id: Option<i64>,
    pub changed_by_service_account_id: Option<i64>,
}

impl RegisterUnitRecord {
    /// How the unit stands with its maintenance on `today`; a retired unit
    /// needs none.
    pub fn standing(&self, today: Day) -> Option<Standing> {
        self.retired_at
            .is_none()
            .then(|| standing(self.next_due.as_deref().and_then(Day::stored), today))
    }
}

const REGISTER_COLUMNS: &str = concat!(
    "SELECT e.id, e.inventory_number, e.serial_number, e.environment_model_id, m.name AS model_name, ",
    "m.manufacturer_id, f.name AS manufacturer_name, m.environment_type_id, t.name AS environment_type_name, ",
    "e.department_id, e.retired_at, ",
    latest_entry!("performed_on"),
    " AS last_maintenance, ",
    latest_entry!("next_due"),
    " AS next_due, e.created_at, e.created_by_user_id, e.created_by_service_account_id, ",
    "e.changed_at, e.changed_by_user_id, e.changed_by_service_account_id ",
    "FROM environments e JOIN environment_models m ON m.id = e.environment_model_id ",
    "LEFT JOIN manufacturers f ON f.id = m.manufacturer_id ",
    "LEFT JOIN environment_types t ON t.id = m.environment_type_id"
);

/// A unit as a batch finds it by its inventory number. Serialized: its
/// fields as the audit log compares them.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredUnit {
    #[serde(skip)]
    pub id: i64,
    pub environment_model_id: i64,
    pub department_id: i64,
    pub serial_number: String,
    pub inventory_number: String,
    pub retired_at: Option<i64>,
}

impl StoredUnit {
    pub fn current(&self) -> Current<'_> {
        Current {
            model_id: self.environment_model_id,
            department_id: self.department_id,
            serial_number: &self.serial_number,
            retired: self.retired_at.is_some(),
        }
    }

    /// Unit `id` as `row` writes it, retired at `retired_at`.
    fn written(id: i64, row: &Row, retired_at: Option<i64>) -> StoredUnit {
        StoredUnit {
            id,
            environment_model_id: row.model_id,
            department_id: row.draft.department_id,
            serial_number: row.draft.serial_number.clone(),
            inventory_number: row.draft.inventory_number.clone(),
            retired_at,
        }
    }
}

impl Store {
    /// One page of every unit by id, and the `after` of the next page (0 on
    /// the last).
    pub async fn register_page(&self, page: Page) -> ServiceResult<(Vec<RegisterUnitRecord>, i64)> {
        let mut units: Vec<RegisterUnitRecord> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{REGISTER_COLUMNS} WHERE e.id > $1 ORDER BY e.id LIMIT $2"
        )))
        .bind(page.after)
        // One more than the page: whether another page follows.
        .bind(page.limit + 1)
        .fetch_all(&self.pool)
        .await?;
        let more = units.len() as i64 > page.limit;
        units.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX));
        let next = match units.last() {
            Some(last) if more => last.id,
            _ => 0,
        };
        Ok((units, next))
    }

    /// The units, retired too, that hold any of `numbers`, by number, locked
    /// until the batch ends ([`for_update`]): what it changes them from.
    async fn units_by_inventory(
        conn: &mut AnyConnection,
        numbers: &[&str],
    ) -> Result<HashMap<String, StoredUnit>, WriteError> {
        let mut found = HashMap::with_capacity(numbers.len());
        for chunk in numbers.chunks(READ_CHUNK) {
            let sql = format!(
                "SELECT id, environment_model_id, department_id, serial_number, inventory_number, retired_at FROM environments WHERE inventory_number IN {}",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_as::<_, StoredUnit>(for_update(conn, &sql, "environments"));
            for number in chunk {
                query = query.bind(*number);
            }
            for unit in query.fetch_all(&mut *conn).await? {
                found.insert(unit.inventory_number.clone(), unit);
            }
        }
        Ok(found)
    }

    /// Which of `ids` are models.
    async fn existing_models(
        conn: &mut AnyConnection,
        ids: &[i64],
    ) -> Result<HashSet<i64>, WriteError> {
        let mut found = HashSet::with_capacity(ids.len());
        for chunk in ids.chunks(READ_CHUNK) {
            let sql = format!(
                "SELECT id FROM environment_models WHERE id IN {}",
                placeholders(1, chunk.len())
            );
            let rows: Vec<(i64,)> = bind_all(sqlx::query_as(sqlx::AssertSqlSafe(sql)), chunk)
                .fetch_all(&mut *conn)
                .await?;
            found.extend(rows.into_iter().map(|(id,)| id));
        }
        Ok(found)
    }

    /// Adds a unit for each of `rows` (retired now if a row says so), written
    /// by `writer`, each recorded in `audit`; the new ids by inventory number.
    /// A number a concurrent writer took first is a collision: the batch runs
    /// again.
    async fn insert_units(
        conn: &mut AnyConnection,
        rows: &[&Row],
        WriteContext { by: writer, now }: WriteContext<Writer>,
        audit: &AuditContext,
    ) -> Result<HashMap<String, i64>, WriteError> {
        let mut ids = HashMap::with_capacity(rows.len());
        for chunk in rows.chunks(INSERT_CHUNK) {
            let values: Vec<String> = (0..chunk.len())
                .map(|i| placeholders(i * 8 + 1, 8))
                .collect();
            let sql = format!(
                "INSERT INTO environments (environment_model_id, department_id, serial_number, inventory_number, retired_at, created_at, created_by_user_id, created_by_service_account_id) VALUES {} RETURNING id, inventory_number",
                values.join(", ")
            );
            let mut query = sqlx::query_as::<_, (i64, String)>(sqlx::AssertSqlSafe(sql));
            for row in chunk {
                query = query
                    .bind(row.model_id)
                    .bind(row.draft.department_id)
                    .bind(&row.draft.serial_number)
                    .bind(&row.draft.inventory_number)
                    .bind(row.retired.unwrap_or(false).then_some(now))
                    .bind(now)
                    .bind(writer.user_id)
                    .bind(writer.service_account_id);
            }
            let created = query.fetch_all(&mut *conn).await?;
            let by_number: HashMap<&str, &Row> = chunk
                .iter()
                .map(|row| (row.draft.inventory_number.as_str(), *row))
                .collect();
            for (id, number) in created {
                search::index_unit(conn, id).await?;
                if let Some(row) = by_number.get(number.as_str()) {
                    let retired_at = row.retired.unwrap_or(false).then_some(now);
                    let new = StoredUnit::written(id, row, retired_at);
                    record_change(conn, audit, (entity::ENVIRONMENT, id), None, Some(&new)).await?;
                }
                ids.insert(number, id);
            }
        }
        Ok(ids)
    }

    /// Writes `row` over the unit `old`, with `retired_at` as decided, changed
    /// by `writer` now, recorded in `audit`.
    async fn change_unit(
        conn: &mut AnyConnection,
        old: &StoredUnit,
        row: &Row,
        retired_at: Option<i64>,
        WriteContext { by: writer, now }: WriteContext<Writer>,
        audit: &AuditContext,
    ) -> Result<(), WriteError> {
        let id = old.id;
        sqlx::query(
            "UPDATE environments SET environment_model_id = $1, department_id = $2, serial_number = $3, retired_at = $4, changed_at = $5, changed_by_user_id = $6, changed_by_service_account_id = $7 WHERE id = $8",
        )
        .bind(row.model_id)
        .bind(row.draft.department_id)
        .bind(&row.draft.serial_number)
        .bind(retired_at)
        .bind(now)
        .bind(writer.user_id)
        .bind(writer.service_account_id)
        .bind(id)
        .execute(&mut *conn)
        .await?;
        search::index_unit(conn, id).await?;
        let new = StoredUnit::written(id, row, retired_at);
        record_change(
            conn,
            audit,
            (entity::ENVIRONMENT, id),
            Some(old),
            Some(&new),
        )
        .await?;
        Ok(())
    }

    /// Brings the units of `batch` in step, written as `ctx` says, each unit
    /// created or changed recorded in `audit`; `dry_run` writes nothing.
    pub async fn upsert_units(
        &self,
        batch: &Batch,
        ctx: WriteContext<Writer>,
        dry_run: bool,
        audit: &AuditContext,
    ) -> ServiceResult<Upsert> {
        retry_on_collision(|| self.upsert_attempt(batch, ctx, dry_run, audit)).await
    }

    async fn upsert_attempt(
        &self,
        batch: &Batch,
        ctx: WriteContext<Writer>,
        dry_run: bool,
        audit: &AuditContext,
    ) -> Result<Upsert, WriteError> {
        let mut tx = self.write().await?;
        let model_ids: Vec<i64> = batch
            .rows
            .iter()
            .map(|row| row.model_id)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let models = Store::existing_models(&mut tx, &model_ids).await?;
        let numbers: Vec<&str> = batch
            .rows
            .iter()
            .map(|row| row.draft.inventory_number.as_str())
            .collect();
        let stored = Store::units_by_inventory(&mut tx, &numbers).await?;

        let mut errors = batch.errors.clone();
        let mut units = Vec::with_capacity(batch.rows.len());
        let mut to_create: Vec<&Row> = Vec::new();
        for row in &batch.rows {
            if !models.contains(&row.model_id) {
                errors.push(RowError::model_not_found(row));
                continue;
            }
            let upserted = |id, outcome, changed| Upserted {
                index: row.index,
                inventory_number: row.draft.inventory_number.clone(),
                id,
                outcome,
                changed,
            };
            let Some(unit) = stored.get(&row.draft.inventory_number) else {
                to_create.push(row);
                units.push(upserted(0, Outcome::Created, Vec::new()));
                continue;
            };
            let changed = changes(row, unit.current());
            if changed.is_empty() {
                units.push(upserted(unit.id, Outcome::Unchanged, changed));
                continue;
            }
            let retired_at = match row.retired {
                Some(true) => unit.retired_at.or(Some(ctx.now)),
                Some(false) => None,
                None => unit.retired_at,
            };
            Store::change_unit(&mut tx, unit, row, retired_at, ctx, audit).await?;
            units.push(upserted(unit.id, Outcome::Changed, changed));
        }
        let created = Store::insert_units(&mut tx, &to_create, ctx, audit).await?;
        if dry_run {
            tx.rollback().await?;
        } else {
            tx.commit().await?;
            for unit in units.iter_mut().filter(|u| u.outcome == Outcome::Created) {
                unit.id = created.get(&unit.inventory_number).copied().unwrap_or(0);
            }
        }
        errors.sort_by_key(|error| error.index);
        Ok(Upsert {
            units,
            errors,
            dry_run,
        })
    }
}
