//! How maintenance stands across the units a reader sees: a department's
//! models with their units due and overdue, and every unit due.

use std::collections::HashMap;

use portal_kit::ServiceResult;
use portal_kit::day::Day;

use crate::domain::maintenance::Standing;
use crate::domain::scope::Scope;
use crate::store::Store;
use crate::store::unit::{UnitFilter, UnitRecord};

/// A model in a department's list, with how many of its units there are
/// due within 30 days and how many overdue.
pub struct DepartmentModel {
    pub id: i64,
    pub name: String,
    pub units_due_soon: i32,
    pub units_overdue: i32,
}

/// The models with units in department `department_id` that `scope` sees,
/// by name.
pub async fn department_models(
    store: &Store,
    scope: &Scope,
    department_id: i64,
    today: Day,
) -> ServiceResult<Vec<DepartmentModel>> {
    let filter = UnitFilter {
        department_id: Some(department_id),
        ..UnitFilter::default()
    };
    let units = store.units(scope, filter).await?;
    let names = store.model_names().await?;
    let mut by_model: HashMap<i64, DepartmentModel> = HashMap::new();
    for unit in units {
        let id = unit.environment_model_id;
        let entry = by_model.entry(id).or_insert_with(|| DepartmentModel {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
            units_due_soon: 0,
            units_overdue: 0,
        });
        match unit.standing(today) {
            Standing::Overdue => entry.units_overdue += 1,
            Standing::DueSoon => entry.units_due_soon += 1,
            Standing::Scheduled | Standing::Unplanned => {}
        }
    }
    let mut models: Vec<_> = by_model.into_values().collect();
    models.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    Ok(models)
}

/// A unit due within 30 days or overdue, with its model's name.
pub struct DueUnit {
    pub unit: UnitRecord,
    pub model_name: String,
}

/// The units `scope` sees that are due or overdue on `today`, soonest due
/// first.
pub async fn due(store: &Store, scope: &Scope, today: Day) -> ServiceResult<Vec<DueUnit>> {
    let names = store.model_names().await?;
    let mut due: Vec<(Option<Day>, DueUnit)> = store
        .units(scope, UnitFilter::default())
        .await?
        .into_iter()
        .filter(|u| matches!(u.standing(today), Standing::Overdue | Standing::DueSoon))
        .map(|unit| {
            let next_due = unit.next_due.as_deref().and_then(Day::stored);
            let model_name = names
                .get(&unit.environment_model_id)
                .cloned()
                .unwrap_or_default();
            (next_due, DueUnit { unit, model_name })
        })
        .collect();
    due.sort_by_key(|(next_due, _)| *next_due);
    Ok(due.into_iter().map(|(_, unit)| unit).collect())
}
