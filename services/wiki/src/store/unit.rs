//! Equipment units: the active units of each model in the departments, with
//! the next due date of their latest logbook entry.

use portal_kit::audit::{self, AuditContext, Changes, Event, entity};
use portal_kit::day::Day;
use portal_kit::db::for_update;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::register::StoredUnit;
use super::search;
use super::{Store, Writer, audited, bind_all, placeholders, record_change, refused};
use crate::domain::maintenance::{Standing, standing};
use crate::domain::model::MSG_MODEL_NOT_FOUND;
use crate::domain::scope::Scope;
use crate::domain::unit::{MSG_UNIT_NOT_FOUND, UnitDraft, inventory_taken};

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

impl UnitRecord {
    /// How the unit stands with its maintenance on `today`.
    pub fn standing(&self, today: Day) -> Standing {
        standing(self.next_due.as_deref().and_then(Day::stored), today)
    }
}

/// Which units a read is about.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnitFilter {
    pub id: Option<i64>,
    pub model_id: Option<i64>,
    pub department_id: Option<i64>,
}

const UNIT_COLUMNS: &str = concat!(
    "SELECT e.id, e.environment_model_id, e.department_id, e.serial_number, e.inventory_number, ",
    latest_entry!("next_due"),
    " AS next_due FROM environments e WHERE e.retired_at IS NULL"
);

impl Store {
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
        audit: &AuditContext,
        model_id: i64,
        draft: &UnitDraft,
        writer: Writer,
        now: i64,
    ) -> ServiceResult<UnitRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO environments (environment_model_id, department_id, serial_number, inventory_number, created_at, created_by_user_id, created_by_service_account_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(model_id)
        .bind(draft.department_id)
        .bind(&draft.serial_number)
        .bind(&draft.inventory_number)
        .bind(now)
        .bind(writer.user_id)
        .bind(writer.service_account_id)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| {
            refused(
                e,
                || inventory_taken(&draft.inventory_number),
                || ServiceError::not_found(MSG_MODEL_NOT_FOUND),
            )
        })?;
        search::index_unit(&mut tx, id).await?;
        let created = unit_in(&mut tx, id).await?;
        record_change(
            &mut tx,
            audit,
            (entity::ENVIRONMENT, id),
            None,
            Some(&created),
        )
        .await?;
        tx.commit().await?;
        self.visible_unit(&Scope::Everything, id).await
    }

    pub async fn update_unit(
        &self,
        audit: &AuditContext,
        id: i64,
        draft: &UnitDraft,
        writer: Writer,
        now: i64,
    ) -> ServiceResult<UnitRecord> {
        let mut tx = self.write().await?;
        let old = unit_in(&mut tx, id).await?;
        let updated = sqlx::query(
            "UPDATE environments SET department_id = $1, serial_number = $2, inventory_number = $3, changed_at = $4, changed_by_user_id = $5, changed_by_service_account_id = $6 WHERE id = $7 AND retired_at IS NULL",
        )
        .bind(draft.department_id)
        .bind(&draft.serial_number)
        .bind(&draft.inventory_number)
        .bind(now)
        .bind(writer.user_id)
        .bind(writer.service_account_id)
        .bind(id)
        .execute(&mut *tx)
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
        search::index_unit(&mut tx, id).await?;
        let new = unit_in(&mut tx, id).await?;
        record_change(
            &mut tx,
            audit,
            (entity::ENVIRONMENT, id),
            Some(&old),
            Some(&new),
        )
        .await?;
        tx.commit().await?;
        self.visible_unit(&Scope::Everything, id).await
    }

    pub async fn retire_unit(
        &self,
        audit: &AuditContext,
        id: i64,
        writer: Writer,
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let updated = sqlx::query(
            "UPDATE environments SET retired_at = $1, changed_at = $1, changed_by_user_id = $2, changed_by_service_account_id = $3 WHERE id = $4 AND retired_at IS NULL",
        )
        .bind(now)
        .bind(writer.user_id)
        .bind(writer.service_account_id)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_UNIT_NOT_FOUND));
        }
        search::index_unit(&mut tx, id).await?;
        let changes = Changes::new().field("retiredAt", None::<i64>, now);
        let event = Event::new(entity::ENVIRONMENT, id, audited::RETIRE).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// Unit `id`, retired or not, as a write's transaction sees it, locked
/// until it ends ([`for_update`]); NOT_FOUND when there is none.
async fn unit_in(conn: &mut AnyConnection, id: i64) -> ServiceResult<StoredUnit> {
    sqlx::query_as(for_update(
        conn,
        "SELECT id, environment_model_id, department_id, serial_number, inventory_number, retired_at FROM environments WHERE id = $1",
        "environments",
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(|| ServiceError::not_found(MSG_UNIT_NOT_FOUND))
}
