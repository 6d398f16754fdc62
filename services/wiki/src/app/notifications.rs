//! The wiki's part of the bell (issue 24): anyone's clearances to operate
//! equipment they see that lapse within 30 days, and for an equipment editor the units
//! of the departments of their token whose maintenance is due within 30 days
//! or overdue, with their read marks; and the same items of the people the
//! daily digest is for ([`digest_items`]).

use portal_kit::day::Day;
use portal_kit::db::now_millis;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};

use crate::app::clearance::{OnBehalf, Training, lapsing, lapsing_for};
use crate::app::maintenance::{DueUnit, due};
use crate::domain::digest::{Passes, Person};
use crate::domain::maintenance::Standing;
use crate::domain::scope::Scope;
use crate::store::Store;

/// The prefix of every item id the wiki lists.
pub const ITEM_PREFIX: &str = "wiki:";

/// One item of the bell.
pub struct Item {
    /// `wiki:<kind>:<entity id>:<due date>`: a new due date is a new item.
    pub key: String,
    pub kind: &'static str,
    pub title: String,
    pub link: String,
    pub due: Day,
    pub overdue: bool,
    pub read: bool,
}

/// The caller's items on `today`, overdue first, then the soonest due.
pub async fn my_items(
    store: &Store,
    training: &Training,
    on_behalf: OnBehalf<'_>,
    caller: &Caller,
    today: Day,
) -> ServiceResult<Vec<Item>> {
    let claims = caller.claims()?;
    let person = Person {
        user_id: claims.user_id,
        departments: claims.departments.clone(),
        equipment_editor: caller.has(Right::EquipmentEditing),
    };
    // Education away leaves the clearances out, not the bell.
    let lapsing = match lapsing_for(store, training, on_behalf, claims.user_id, now_millis()).await
    {
        Ok(lapsing) => lapsing,
        Err(error) => {
            tracing::warn!(%error, "the bell's clearances are left out");
            Vec::new()
        }
    };
    let mut items = items_of(store, &person, &lapsing, today).await?;
    let read = store.read_marks(claims.user_id).await?;
    for item in &mut items {
        item.read = read.contains(&item.key);
    }
    Ok(items)
}

/// Each person's items on `today` (`now`, Unix ms), for the digest: their
/// clearances lapsing by their passes of the required courses (course →
/// expiry; `None`: never), and an editor's maintenance due, by the bell's
/// rules; unread, only the people with any, in the order given.
pub async fn digest_items(
    store: &Store,
    people: &[(Person, Passes)],
    now: i64,
    today: Day,
) -> ServiceResult<Vec<(i64, Vec<Item>)>> {
    let required = store.every_required_course().await?;
    let mut answer = Vec::new();
    for (person, passes) in people {
        let items = items_of(store, person, &lapsing(&required, passes, now), today).await?;
        if !items.is_empty() {
            answer.push((person.user_id, items));
        }
    }
    Ok(answer)
}

/// The items of `person` on `today` given their `lapsing` clearances
/// (model, when it ends), overdue first, then the soonest due: what the bell
/// and the digest list alike.
async fn items_of(
    store: &Store,
    person: &Person,
    lapsing: &[(i64, i64)],
    today: Day,
) -> ServiceResult<Vec<Item>> {
    let mut items = Vec::new();
    let sees = person.scope();
    for &(model_id, until) in lapsing {
        items.extend(clearance_item(store, &sees, model_id, until, today).await?);
    }
    if person.equipment_editor {
        let scope = Scope::Departments(person.departments.clone());
        items.extend(
            due(store, &scope, today)
                .await?
                .into_iter()
                .filter_map(|unit| maintenance_item(unit, today)),
        );
    }
    items.sort_by(|a, b| (!a.overdue, a.due, &a.key).cmp(&(!b.overdue, b.due, &b.key)));
    Ok(items)
}

/// The item of a clearance to operate model `model_id` lapsing at `until`,
/// if the person (`sees`) sees the model: another department's, as its
/// clearance (GetClearance), is not theirs to be told of.
async fn clearance_item(
    store: &Store,
    sees: &Scope,
    model_id: i64,
    until: i64,
    today: Day,
) -> ServiceResult<Option<Item>> {
    // A model deleted since its requirement was read is nothing to operate.
    let model = match store.visible_model(sees, model_id).await {
        Ok(model) => model,
        Err(ServiceError::NotFound(_)) => return Ok(None),
        Err(error) => return Err(error),
    };
    let due = Day::of_millis(until);
    Ok(Some(Item {
        key: format!("{ITEM_PREFIX}clearance:{model_id}:{due}"),
        kind: "clearance",
        title: format!("Допуск к работе: {}", model.name),
        // The model's own page needs a department; this one shows the clearance to whoever sees it.
        link: format!("/short-instruction/{model_id}"),
        overdue: due < today,
        due,
        read: false,
    }))
}

fn maintenance_item(due_unit: DueUnit, today: Day) -> Option<Item> {
    let DueUnit { unit, model_name } = due_unit;
    let due = unit.next_due.as_deref().and_then(Day::stored)?;
    Some(Item {
        key: format!("{ITEM_PREFIX}maintenance:{}:{due}", unit.id),
        kind: "maintenance",
        title: format!("{model_name}, инв. № {}", unit.inventory_number),
        link: format!(
            "/departments/environments/{}/environment/{}/maintenance-logbook?unit={}",
            unit.department_id, unit.environment_model_id, unit.id
        ),
        overdue: unit.standing(today) == Standing::Overdue,
        due,
        read: false,
    })
}
