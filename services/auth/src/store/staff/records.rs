//! What a sync's audit records say (issue 25).

use std::collections::{BTreeMap, BTreeSet};

use portal_kit::audit::{Changes, Event, action, entity};

use super::super::audit::UserFields;
use super::PersonChange;
use super::references::ReferenceWritten;
use crate::domain::staff::HR_LINK_SYNC;
use crate::domain::staff_plan::Action;
use crate::domain::staff_plan::people::{Plan, Staff};

/// What a department's or position's record says changed: its title and code
/// old → new, when the sync wrote it.
fn reference_changes(written: Option<&ReferenceWritten>) -> Changes {
    let Some(written) = written else {
        return Changes::new();
    };
    let before = written.before.as_ref();
    Changes::new()
        .field("title", before.map(|(title, _)| title), &written.title)
        .field("code", before.map(|(_, code)| code), &written.code)
}

/// The sync's audit records (issue 25), in the order written: each
/// department created or changed, its title, code and members old → new
/// (also one whose people alone came or went); each position; then each
/// person created, changed or blocked, their fields old → new. `people` are
/// the plans' outcomes, one each in order.
pub(super) fn sync_records(
    staff: &Staff,
    plans: &[Plan],
    people: &[PersonChange],
    departments: &[ReferenceWritten],
    positions: &[ReferenceWritten],
) -> Vec<Event<'static>> {
    let mut records = department_records(staff, plans, people, departments);
    records.extend(positions.iter().map(position_record));
    records.extend(
        plans
            .iter()
            .zip(people)
            .filter_map(|(plan, person)| person_record(staff, plan, person)),
    );
    records
}

/// The departments' records: each written, and each whose people alone
/// came or went.
fn department_records(
    staff: &Staff,
    plans: &[Plan],
    people: &[PersonChange],
    departments: &[ReferenceWritten],
) -> Vec<Event<'static>> {
    let moved = department_moves(staff, plans, people);
    let mut members = members_before(staff, &moved);
    let mut records = Vec::new();
    let written: BTreeMap<i64, &ReferenceWritten> = departments.iter().map(|d| (d.id, d)).collect();
    let touched: BTreeSet<i64> = written.keys().chain(moved.keys()).copied().collect();
    for id in touched {
        let written = written.get(&id).copied();
        let mut changes = reference_changes(written);
        if let Some((left, joined)) = moved.get(&id) {
            let before = members.remove(&id).unwrap_or_default();
            let after: BTreeSet<i64> = before.difference(left).chain(joined).copied().collect();
            changes = changes.field("userIds", &before, &after);
        }
        let created = written.is_some_and(|w| w.before.is_none());
        let done = if created {
            action::CREATE
        } else {
            action::UPDATE
        };
        if !changes.is_empty() {
            records.push(Event::new(entity::DEPARTMENT, id, done).changes(changes));
        }
    }
    records
}

/// Who left and who joined each department the plans move people between.
fn department_moves(
    staff: &Staff,
    plans: &[Plan],
    people: &[PersonChange],
) -> BTreeMap<i64, (BTreeSet<i64>, BTreeSet<i64>)> {
    let mut moved: BTreeMap<i64, (BTreeSet<i64>, BTreeSet<i64>)> = BTreeMap::new();
    for (plan, person) in plans.iter().zip(people) {
        let before: BTreeSet<i64> = match plan.stored {
            Some(_) => staff
                .departments
                .get(&person.user_id)
                .into_iter()
                .flatten()
                .copied()
                .collect(),
            None => BTreeSet::new(),
        };
        for gone in before.difference(&plan.target.departments) {
            moved.entry(*gone).or_default().0.insert(person.user_id);
        }
        for came in plan.target.departments.difference(&before) {
            moved.entry(*came).or_default().1.insert(person.user_id);
        }
    }
    moved
}

/// The members before the sync of each department in `moved`.
fn members_before<T>(staff: &Staff, moved: &BTreeMap<i64, T>) -> BTreeMap<i64, BTreeSet<i64>> {
    let mut members: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for (user_id, of) in &staff.departments {
        for department_id in of.iter().filter(|d| moved.contains_key(d)) {
            members.entry(*department_id).or_default().insert(*user_id);
        }
    }
    members
}

fn position_record(position: &ReferenceWritten) -> Event<'static> {
    let done = match position.before {
        None => action::CREATE,
        Some(_) => action::UPDATE,
    };
    let changes = reference_changes(Some(position));
    Event::new(entity::POSITION, position.id, done).changes(changes)
}

/// A person's record: their fields old → new, if any changed.
fn person_record(staff: &Staff, plan: &Plan, person: &PersonChange) -> Option<Event<'static>> {
    let sorted = |ids: Option<&Vec<i64>>| -> Vec<i64> {
        let set: BTreeSet<i64> = ids.into_iter().flatten().copied().collect();
        set.into_iter().collect()
    };
    let target = &plan.target;
    let departments: Vec<i64> = target.departments.iter().copied().collect();
    let positions: Vec<i64> = target.positions.iter().copied().collect();
    let after = UserFields {
        employee_number: Some(&target.employee_number),
        staff_link: match plan.stored {
            Some(at) => staff.people[at].hr_link.as_deref(),
            None => Some(HR_LINK_SYNC),
        },
        surname: &target.surname,
        name: &target.name,
        last_name: &target.last_name,
        login: &target.login,
        email: &target.email,
        status_id: target.status_id,
        department_ids: &departments,
        position_ids: &positions,
    };
    let links_before = (
        sorted(staff.departments.get(&person.user_id)),
        sorted(staff.positions.get(&person.user_id)),
    );
    let before = plan.stored.map(|at| {
        let stored = &staff.people[at];
        UserFields {
            employee_number: stored.employee_number.as_deref(),
            staff_link: stored.hr_link.as_deref(),
            surname: &stored.surname,
            name: &stored.name,
            last_name: &stored.last_name,
            login: &stored.login,
            email: &stored.email,
            status_id: stored.status_id,
            department_ids: &links_before.0,
            position_ids: &links_before.1,
        }
    });
    let done = match plan.action {
        Action::Created => action::CREATE,
        Action::Changed => action::UPDATE,
        Action::Blocked => action::BLOCK,
    };
    let changes = Changes::diff(before.as_ref(), Some(&after), &[]);
    (!changes.is_empty()).then(|| Event::new(entity::USER, person.user_id, done).changes(changes))
}
