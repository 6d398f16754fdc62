//! Staff by the HR system's keys: employee numbers of people, codes of
//! departments and positions (migration 0006).

use std::collections::{BTreeMap, BTreeSet};

use portal_kit::ServiceResult;

use super::{Store, fetch_in};
use crate::domain::staff::{HrKey, StaffQuery};

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
        let departments: Vec<(i64, String)> = fetch_in(
            &mut conn,
            "SELECT id, code FROM departments WHERE code IN {} ORDER BY id",
            &key_strings(&query.department_codes),
        )
        .await?;
        let department_ids: Vec<i64> = departments.iter().map(|(id, _)| *id).collect();
        let memberships: Vec<(i64, i64)> = fetch_in(
            &mut conn,
            "SELECT department_id, user_id FROM department_users WHERE department_id IN {}",
            &department_ids,
        )
        .await?;
        let mut members: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for (department_id, user_id) in &memberships {
            members.entry(*department_id).or_default().insert(*user_id);
        }

        const PERSON: &str = "SELECT u.id, COALESCE(u.employee_number, ''), COALESCE(s.blocks_sign_in, 0) \
             FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE";
        let mut people: BTreeMap<i64, (String, i64)> = BTreeMap::new();
        let by_number: Vec<(i64, String, i64)> = fetch_in(
            &mut conn,
            &format!("{PERSON} u.employee_number IN {{}}"),
            &key_strings(&query.employee_numbers),
        )
        .await?;
        let wanted_ids: BTreeSet<i64> = query
            .user_ids
            .iter()
            .chain(memberships.iter().map(|(_, user_id)| *user_id))
            .collect();
        let wanted_ids: Vec<i64> = wanted_ids.into_iter().collect();
        let by_id: Vec<(i64, String, i64)> =
            fetch_in(&mut conn, &format!("{PERSON} u.id IN {{}}"), &wanted_ids).await?;
        for (id, number, blocked) in by_number.into_iter().chain(by_id) {
            people.insert(id, (number, blocked));
        }

        let user_ids: Vec<i64> = people.keys().copied().collect();
        let links: Vec<(i64, i64)> = fetch_in(
            &mut conn,
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
        Ok(ResolvedStaff {
            people: people
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
                .collect(),
            departments: departments
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
                .collect(),
        })
    }
}
