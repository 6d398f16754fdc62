//! A register's batch of units in one transaction: the models and units it
//! names read in a few statements, each row planned (create, change, leave),
//! the writes made, and the whole committed, or rolled back for a dry run, so
//! a dry run answers exactly what the same batch would do. A collision with a
//! concurrent writer on an inventory number runs the batch again, which then
//! finds that writer's unit.

use std::collections::BTreeSet;

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
use portal_kit::db::{WriteError, retry_on_collision};

use crate::domain::register::{Batch, Row, RowError, changes};
use crate::domain::unit::UnitField;
use crate::store::{Store, Writer};

/// What a row did (or, in a dry run, would do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Created,
    Changed,
    Unchanged,
}

/// An accepted row: its unit's id (0 for one a dry run would add), what was
/// done, and the fields that changed.
#[derive(Clone, Debug)]
pub struct Upserted {
    pub index: usize,
    pub inventory_number: String,
    pub id: i64,
    pub outcome: Outcome,
    pub changed: Vec<UnitField>,
}

/// A batch's answer: the accepted rows and the refused ones, each in request
/// order.
#[derive(Clone, Debug)]
pub struct Upsert {
    pub units: Vec<Upserted>,
    pub errors: Vec<RowError>,
    pub dry_run: bool,
}

impl Upsert {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.units.iter().filter(|u| u.outcome == outcome).count()
    }
}

/// Brings the units of `batch` in step, written by `writer` at `now`, each
/// unit created or changed recorded in `audit`; `dry_run` writes nothing.
pub async fn upsert(
    store: &Store,
    batch: &Batch,
    (writer, now): (Writer, i64),
    dry_run: bool,
    audit: &AuditContext,
) -> ServiceResult<Upsert> {
    retry_on_collision(|| attempt(store, batch, (writer, now), dry_run, audit)).await
}

async fn attempt(
    store: &Store,
    batch: &Batch,
    (writer, now): (Writer, i64),
    dry_run: bool,
    audit: &AuditContext,
) -> Result<Upsert, WriteError> {
    let mut tx = store.write().await?;
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
            Some(true) => unit.retired_at.or(Some(now)),
            Some(false) => None,
            None => unit.retired_at,
        };
        Store::change_unit(&mut tx, unit, row, retired_at, (writer, now), audit).await?;
        units.push(upserted(unit.id, Outcome::Changed, changed));
    }
    let created = Store::insert_units(&mut tx, &to_create, (writer, now), audit).await?;
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
