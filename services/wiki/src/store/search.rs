//! The search index of equipment models and units (issue 25), written in the
//! transaction of each write of them and read only within what the reader
//! sees. A model's entry (its name; brand, description and short instruction
//! as text) is scoped by the model's own id, so the allowed scopes are the
//! models [`sees_model`] lets through; a unit's (its inventory number; its
//! model's name and serial number as text) by its department, as units are
//! read.

use portal_kit::ServiceResult;
use portal_kit::search::{self, Allowed, Asked, Entry, Found, Hit};
use sqlx::AnyConnection;

use super::{Store, placeholders, sees_model};
use crate::domain::scope::Scope;

pub const MODEL: &str = "environment-model";
pub const UNIT: &str = "environment";
/// The kinds the wiki finds.
pub const KINDS: [&str; 2] = [MODEL, UNIT];

/// Indexes model `id` as it now stands in `conn`'s transaction, and its
/// active units, whose text carries its name.
pub(super) async fn index_model(conn: &mut AnyConnection, id: i64) -> sqlx::Result<()> {
    let row: Option<(String, String, String, String)> = sqlx::query_as(
        "SELECT name, brand_name, description, short_instruction FROM environment_models WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((name, brand_name, description, instruction)) = row else {
        return search::remove(conn, MODEL, id).await;
    };
    let body = format!(
        "{brand_name} {description} {}",
        search::plain_text(&instruction)
    );
    let entry = Entry {
        kind: MODEL,
        entity_id: id,
        scope: Some(id),
        title: &name,
        body: &body,
    };
    search::put(conn, &entry).await?;
    let units: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM environments WHERE environment_model_id = $1 AND retired_at IS NULL",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    for unit in units {
        index_unit(conn, unit).await?;
    }
    Ok(())
}

/// Indexes unit `id` as it now stands in `conn`'s transaction; a retired
/// unit is found no more.
pub(super) async fn index_unit(conn: &mut AnyConnection, id: i64) -> sqlx::Result<()> {
    let row: Option<(i64, String, String, String)> = sqlx::query_as(
        "SELECT e.department_id, e.inventory_number, e.serial_number, m.name FROM environments e JOIN environment_models m ON m.id = e.environment_model_id WHERE e.id = $1 AND e.retired_at IS NULL",
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((department_id, inventory_number, serial_number, model_name)) = row else {
        return search::remove(conn, UNIT, id).await;
    };
    // The model's name is the unit's text, not its title: a search for a
    // model puts the model first, its units after it.
    let body = format!("{model_name} {serial_number}");
    let entry = Entry {
        kind: UNIT,
        entity_id: id,
        scope: Some(department_id),
        title: &inventory_number,
        body: &body,
    };
    search::put(conn, &entry).await
}

impl Store {
    /// Indexes every model and active unit the index lacks (those written
    /// before it existed); answers how many.
    pub async fn index_missing(&self) -> ServiceResult<usize> {
        let mut tx = self.write().await?;
        let models = search::unindexed(&mut tx, MODEL, "SELECT id FROM environment_models").await?;
        for id in &models {
            index_model(&mut tx, *id).await?;
        }
        let units = search::unindexed(
            &mut tx,
            UNIT,
            "SELECT id FROM environments WHERE retired_at IS NULL",
        )
        .await?;
        for id in &units {
            index_unit(&mut tx, *id).await?;
        }
        tx.commit().await?;
        Ok(models.len() + units.len())
    }

    /// The first department by id `scope` sees with an active unit of model
    /// `model_id`, whose page shows the model.
    pub async fn model_department(
        &self,
        scope: &Scope,
        model_id: i64,
    ) -> ServiceResult<Option<i64>> {
        let mut conn = self.pool.acquire().await?;
        Ok(first_department(&mut conn, scope, model_id).await?)
    }

    /// What `scope` sees of what `asked` finds, best first.
    pub async fn search(&self, scope: &Scope, asked: &Asked) -> ServiceResult<Vec<Found>> {
        let mut conn = self.pool.acquire().await?;
        let (models, departments) = match scope {
            Scope::Everything => (None, None),
            Scope::Departments(ids) => {
                let models = match sees_model(scope, 1) {
                    Some((sees, binds)) if asked.wants(MODEL) => {
                        let sql = format!("SELECT m.id FROM environment_models m WHERE {sees}");
                        let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql));
                        for id in binds {
                            query = query.bind(*id);
                        }
                        query.fetch_all(&mut *conn).await?
                    }
                    _ => Vec::new(),
                };
                (Some(models), Some(ids.clone()))
            }
        };
        let mut allowed = Vec::new();
        if asked.wants(MODEL) {
            allowed.push(Allowed {
                kind: MODEL,
                scopes: models.as_deref(),
            });
        }
        if asked.wants(UNIT) {
            allowed.push(Allowed {
                kind: UNIT,
                scopes: departments.as_deref(),
            });
        }
        let hits =
            search::find(&mut conn, self.backend, &asked.query, &allowed, asked.limit).await?;
        let mut found = Vec::with_capacity(hits.len());
        for hit in hits {
            let path_ids = path_ids(&mut conn, scope, &hit).await?;
            found.push(Found { hit, path_ids });
        }
        Ok(found)
    }
}

/// A unit's department and model; for a model the first department `scope`
/// sees with a unit of it, none when there is none.
async fn path_ids(conn: &mut AnyConnection, scope: &Scope, hit: &Hit) -> ServiceResult<Vec<i64>> {
    if hit.kind == UNIT {
        let path: Option<(i64, i64)> = sqlx::query_as(
            "SELECT department_id, environment_model_id FROM environments WHERE id = $1",
        )
        .bind(hit.entity_id)
        .fetch_optional(&mut *conn)
        .await?;
        return Ok(path
            .map(|(department, model)| vec![department, model])
            .unwrap_or_default());
    }
    Ok(first_department(conn, scope, hit.entity_id)
        .await?
        .into_iter()
        .collect())
}

/// The first department by id `scope` sees with an active unit of model
/// `model_id`: the page a link to the model opens.
async fn first_department(
    conn: &mut AnyConnection,
    scope: &Scope,
    model_id: i64,
) -> sqlx::Result<Option<i64>> {
    let (in_departments, departments) = match scope {
        Scope::Everything => (String::new(), &[][..]),
        Scope::Departments(ids) if ids.is_empty() => return Ok(None),
        Scope::Departments(ids) => (
            format!(" AND department_id IN {}", placeholders(2, ids.len())),
            ids.as_slice(),
        ),
    };
    let sql = format!(
        "SELECT department_id FROM environments WHERE environment_model_id = $1 AND retired_at IS NULL{in_departments} ORDER BY department_id LIMIT 1"
    );
    let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(model_id);
    for id in departments {
        query = query.bind(*id);
    }
    query.fetch_optional(&mut *conn).await
}
