//! Staff by the HR system's keys: employee numbers of people, codes of
//! departments and positions (migration 0006), and the sync that keeps them
//! in step: [`references`] syncs departments and positions, [`people`] reads
//! the staff for `domain::staff_plan` to plan each person's change, [`write`]
//! writes the plans and [`records`] says what they did in the audit log.
//!
//! Whom the sync keeps in step (issue 37): the people it created (`hr_link`
//! `sync`, migration 0012) unless they hold an admin right, and the people an
//! administrator linked to an employee number on the user form (`admin`).
//! Nobody else is changed, blocked or adopted: their rows are refused with a
//! reason. A full sync that would block more than the configured share of
//! those people is refused as a whole unless the caller allows it.

mod people;
mod records;
mod references;
mod write;

use std::collections::{BTreeMap, BTreeSet};

use portal_kit::ServiceResult;
use portal_kit::audit::{self, AuditContext};
use portal_kit::db::{WriteError, retry_on_collision};

use sqlx::AnyConnection;

use super::user::lock_user_managers;
use super::{Store, fetch_in};
use crate::domain::hr_key::HrKey;
use crate::domain::staff::{RowError, Section, StaffBatch, StaffQuery};
use crate::domain::staff_plan::people::plan_people;
use crate::domain::staff_plan::references::Reference;
use crate::domain::staff_plan::{Action, mass_block_refusal};

/// A person as the HR system knows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaffKeyRecord {
    pub user_id: i64,
    /// Empty for a person HR does not keep.
    pub employee_number: String,
    /// Ascending.
    pub department_ids: Vec<i64>,
    pub blocked: bool,
}

/// A department as the HR system knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepartmentKeyRecord {
    pub department_id: i64,
    pub code: String,
    /// Ascending.
    pub member_ids: Vec<i64>,
}

/// What ResolveStaff answers: people by user id, departments by id.
#[derive(Clone, Debug, Default)]
pub struct ResolvedStaff {
    pub people: Vec<StaffKeyRecord>,
    pub departments: Vec<DepartmentKeyRecord>,
}

fn key_strings(keys: &[HrKey]) -> Vec<String> {
    keys.iter().map(|key| key.as_str().to_owned()).collect()
}

impl Store {
    /// The people and departments `query` names (unknown keys left out): the
    /// departments by code with their members, and everyone named by employee
    /// number or id or a member of those departments, each once. A handful of
    /// queries on one connection, whatever the number of keys.
    pub async fn resolve_staff(&self, query: &StaffQuery) -> ServiceResult<ResolvedStaff> {
        let mut conn = self.read().await?;
        let departments = departments_by_code(&mut conn, query).await?;
        let members = departments
            .iter()
            .flat_map(|d| d.member_ids.iter().copied());
        let wanted_ids: BTreeSet<i64> = query.user_ids.iter().chain(members).collect();
        let people = people_by_key(&mut conn, query, wanted_ids).await?;
        Ok(ResolvedStaff {
            people: with_departments(&mut conn, people).await?,
            departments,
        })
    }
}

/// The departments of `query`'s codes, with their members.
async fn departments_by_code(
    conn: &mut AnyConnection,
    query: &StaffQuery,
) -> ServiceResult<Vec<DepartmentKeyRecord>> {
    let departments: Vec<(i64, String)> = fetch_in(
        conn,
        "SELECT id, code FROM departments WHERE code IN {} ORDER BY id",
        &key_strings(&query.department_codes),
    )
    .await?;
    let department_ids: Vec<i64> = departments.iter().map(|(id, _)| *id).collect();
    let memberships: Vec<(i64, i64)> = fetch_in(
        conn,
        "SELECT department_id, user_id FROM department_users WHERE department_id IN {}",
        &department_ids,
    )
    .await?;
    let mut members: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for (department_id, user_id) in memberships {
        members.entry(department_id).or_default().insert(user_id);
    }
    Ok(departments
        .into_iter()
        .map(|(department_id, code)| DepartmentKeyRecord {
            member_ids: members
                .remove(&department_id)
                .unwrap_or_default()
                .into_iter()
                .collect(),
            department_id,
            code,
        })
        .collect())
}

/// The people of `query`'s employee numbers and of `ids`: each one's
/// number ('' for none) and whether their status blocks sign-in, by id.
async fn people_by_key(
    conn: &mut AnyConnection,
    query: &StaffQuery,
    ids: BTreeSet<i64>,
) -> ServiceResult<BTreeMap<i64, (String, i64)>> {
    const PERSON: &str = "SELECT u.id, COALESCE(u.employee_number, ''), COALESCE(s.blocks_sign_in, 0) \
         FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE";
    let by_number: Vec<(i64, String, i64)> = fetch_in(
        conn,
        &format!("{PERSON} u.employee_number IN {{}}"),
        &key_strings(&query.employee_numbers),
    )
    .await?;
    let ids: Vec<i64> = ids.into_iter().collect();
    let by_id: Vec<(i64, String, i64)> =
        fetch_in(conn, &format!("{PERSON} u.id IN {{}}"), &ids).await?;
    Ok(by_number
        .into_iter()
        .chain(by_id)
        .map(|(id, number, blocked)| (id, (number, blocked)))
        .collect())
}

/// `people` with the departments each belongs to.
async fn with_departments(
    conn: &mut AnyConnection,
    people: BTreeMap<i64, (String, i64)>,
) -> ServiceResult<Vec<StaffKeyRecord>> {
    let user_ids: Vec<i64> = people.keys().copied().collect();
    let links: Vec<(i64, i64)> = fetch_in(
        conn,
        "SELECT user_id, department_id FROM department_users WHERE user_id IN {}",
        &user_ids,
    )
    .await?;
    let mut departments_of: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for (user_id, department_id) in links {
        departments_of
            .entry(user_id)
            .or_default()
            .insert(department_id);
    }
    Ok(people
        .into_iter()
        .map(|(user_id, (employee_number, blocked))| StaffKeyRecord {
            user_id,
            employee_number,
            department_ids: departments_of
                .remove(&user_id)
                .unwrap_or_default()
                .into_iter()
                .collect(),
            blocked: blocked != 0,
        })
        .collect())
}

// --- The sync ---

/// One person created, changed or blocked.
#[derive(Clone, Debug)]
pub struct PersonChange {
    pub employee_number: String,
    pub action: Action,
    /// Names of StaffPerson's fields.
    pub changed: Vec<&'static str>,
    /// 0 for a person created in a dry run.
    pub user_id: i64,
}

/// One department or position created or changed.
#[derive(Clone, Debug)]
pub struct ReferenceChange {
    pub code: String,
    pub action: Action,
    pub changed: Vec<&'static str>,
    /// 0 for one created in a dry run.
    pub id: i64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReferenceCounts {
    pub created: usize,
    pub changed: usize,
    pub unchanged: usize,
}

/// What a sync did, or in a dry run would do.
#[derive(Clone, Debug, Default)]
pub struct SyncOutcome {
    pub dry_run: bool,
    pub created: usize,
    pub changed: usize,
    pub blocked: usize,
    pub unchanged: usize,
    pub people: Vec<PersonChange>,
    pub departments: Vec<ReferenceChange>,
    pub department_counts: ReferenceCounts,
    pub positions: Vec<ReferenceChange>,
    pub position_counts: ReferenceCounts,
    pub errors: Vec<RowError>,
    /// People the sync keeps in step (before this sync).
    pub managed: usize,
    /// A dry run of a full sync that a real run would refuse for blocking
    /// too many.
    pub mass_block_refused: bool,
    /// People whose tokens the sync made stale, with their new access
    /// versions; none in a dry run.
    pub raised: Vec<(i64, i64)>,
}

impl Store {
    /// Keeps staff in step with `batch` (see SyncStaffRequest in the
    /// contract) in one transaction, rolled back for a dry run so that its
    /// answer is exactly what the batch would do. Reads everything it decides
    /// on in a few queries, whatever the batch's size.
    ///
    /// Each department, position and person written is one audit record in
    /// `context` (the caller: a person or a service account), in the same
    /// transaction and in bulk; a dry run records nothing.
    ///
    /// A full sync that would block more than `max_block_percent` of the
    /// people the sync keeps in step is refused (its dry run answers
    /// `mass_block_refused`) unless the batch allows it.
    pub async fn sync_staff(
        &self,
        context: &AuditContext,
        batch: &StaffBatch,
        max_block_percent: u8,
        now: i64,
    ) -> ServiceResult<SyncOutcome> {
        retry_on_collision(|| self.sync_staff_once(context, batch, max_block_percent, now)).await
    }

    async fn sync_staff_once(
        &self,
        context: &AuditContext,
        batch: &StaffBatch,
        max_block_percent: u8,
        now: i64,
    ) -> Result<SyncOutcome, WriteError> {
        let mut tx = self.write().await?;
        // The lock UpdateUser takes: a sync and an update cannot both see
        // the other leaving a holder of UserManagement.
        lock_user_managers(&mut tx).await?;
        let mut outcome = SyncOutcome {
            dry_run: batch.dry_run,
            errors: batch.errors.clone(),
            ..SyncOutcome::default()
        };
        let departments = references::sync_references(
            &mut tx,
            Reference::Department,
            &batch.departments,
            now,
            &mut outcome.errors,
        )
        .await?;
        let positions = references::sync_references(
            &mut tx,
            Reference::Position,
            &batch.positions,
            now,
            &mut outcome.errors,
        )
        .await?;
        let mut staff = people::read_staff(&mut tx).await?;
        outcome.managed = staff.managed();
        let plans = plan_people(
            &mut staff,
            batch,
            &departments.by_code,
            &positions.by_code,
            &mut outcome.errors,
            &mut outcome.unchanged,
        );
        if let Some(refusal) = mass_block_refusal(batch, &plans, outcome.managed, max_block_percent)
        {
            if !batch.dry_run {
                return Err(refusal.into());
            }
            outcome.mass_block_refused = true;
        }
        let (people, raised) = write::write_plans(&mut tx, &staff, &plans, now).await?;
        if !batch.dry_run {
            let records = records::sync_records(
                &staff,
                &plans,
                &people,
                &departments.written,
                &positions.written,
            );
            audit::record_all(&mut tx, context, &records).await?;
        }
        outcome.people_written(people);
        outcome.references_written(departments, positions);
        outcome.sort_errors();
        if batch.dry_run {
            tx.rollback().await?;
            outcome.forget_undone_ids();
        } else {
            tx.commit().await?;
            outcome.raised = raised;
        }
        Ok(outcome)
    }
}

impl SyncOutcome {
    fn people_written(&mut self, people: Vec<PersonChange>) {
        for change in &people {
            match change.action {
                Action::Created => self.created += 1,
                Action::Changed => self.changed += 1,
                Action::Blocked => self.blocked += 1,
            }
        }
        self.people = people;
    }

    fn references_written(
        &mut self,
        departments: references::ReferencesSynced,
        positions: references::ReferencesSynced,
    ) {
        self.departments = departments.changes;
        self.department_counts = departments.counts;
        self.positions = positions.changes;
        self.position_counts = positions.counts;
    }

    /// Errors in the order of the request: by list, then row.
    fn sort_errors(&mut self) {
        self.errors.sort_by_key(|error| {
            let section = [Section::Departments, Section::Positions, Section::People]
                .iter()
                .position(|s| *s == error.section);
            (section, error.index.is_none(), error.index)
        });
    }

    /// A dry run's answer names no id of what it created, as it is undone.
    fn forget_undone_ids(&mut self) {
        for change in self
            .people
            .iter_mut()
            .filter(|c| c.action == Action::Created)
        {
            change.user_id = 0;
        }
        for change in self.departments.iter_mut().chain(&mut self.positions) {
            if change.action == Action::Created {
                change.id = 0;
            }
        }
    }
}
