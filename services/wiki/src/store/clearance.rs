//! The courses each model requires (education's ids): what clearance to
//! operate it is decided against.

use std::collections::HashMap;

use portal_kit::audit::{self, AuditContext, Changes, Event, action, entity};
use portal_kit::db::for_update;
use portal_kit::{ServiceError, ServiceResult};

use super::{Store, sees_model};
use crate::domain::model::MSG_MODEL_NOT_FOUND;
use crate::domain::scope::Scope;

impl Store {
    /// The courses model `model_id` requires, ascending.
    pub async fn required_courses(&self, model_id: i64) -> ServiceResult<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT course_id FROM model_required_courses WHERE environment_model_id = $1 ORDER BY course_id",
        )
        .bind(model_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The models `scope` sees that require course `course_id`, ascending.
    pub async fn models_requiring(&self, scope: &Scope, course_id: i64) -> ServiceResult<Vec<i64>> {
        let Some((sees, ids)) = sees_model(scope, 2) else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT m.id FROM model_required_courses r JOIN environment_models m ON m.id = r.environment_model_id WHERE r.course_id = $1 AND {sees} ORDER BY m.id"
        );
        let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(course_id);
        for id in ids {
            query = query.bind(*id);
        }
        Ok(query.fetch_all(&self.pool).await?)
    }

    /// Every model's required courses (ascending), by model id; a model that
    /// requires nothing is absent.
    pub async fn every_required_course(&self) -> ServiceResult<HashMap<i64, Vec<i64>>> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT environment_model_id, course_id FROM model_required_courses ORDER BY environment_model_id, course_id",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut by_model: HashMap<i64, Vec<i64>> = HashMap::new();
        for (model_id, course_id) in rows {
            by_model.entry(model_id).or_default().push(course_id);
        }
        Ok(by_model)
    }

    /// Replaces the courses model `model_id` requires with `course_ids` (each
    /// once), in one transaction, recorded as a change of the model;
    /// NOT_FOUND for an unknown model.
    pub async fn set_required_courses(
        &self,
        audit: &AuditContext,
        model_id: i64,
        course_ids: &[i64],
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        // Locked: the courses read next are the "old" of the record, and a
        // model's every write locks its row first.
        let known: Option<i64> = sqlx::query_scalar(for_update(
            &tx,
            "SELECT id FROM environment_models WHERE id = $1",
            "environment_models",
        ))
        .bind(model_id)
        .fetch_optional(&mut *tx)
        .await?;
        if known.is_none() {
            return Err(ServiceError::not_found(MSG_MODEL_NOT_FOUND));
        }
        let old: Vec<i64> = sqlx::query_scalar(
            "SELECT course_id FROM model_required_courses WHERE environment_model_id = $1 ORDER BY course_id",
        )
        .bind(model_id)
        .fetch_all(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM model_required_courses WHERE environment_model_id = $1")
            .bind(model_id)
            .execute(&mut *tx)
            .await?;
        for course_id in course_ids {
            sqlx::query(
                "INSERT INTO model_required_courses (environment_model_id, course_id) VALUES ($1, $2)",
            )
            .bind(model_id)
            .bind(*course_id)
            .execute(&mut *tx)
            .await?;
        }
        let mut new = course_ids.to_vec();
        new.sort_unstable();
        let changes = Changes::new().field("requiredCourses", old, new);
        let event =
            Event::new(entity::ENVIRONMENT_MODEL, model_id, action::UPDATE).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(())
    }
}
