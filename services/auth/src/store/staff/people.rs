//! The people of a sync: everyone read at once, then a plan for each row
//! (and, in a full sync, for each person the batch leaves out).

use std::collections::{BTreeSet, HashMap, HashSet};

use portal_kit::{Right, ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::super::{Link, all_links};
use super::Action;
use crate::domain::hr_key::HrKey;
use crate::domain::login::Login;
use crate::domain::staff::{
    HR_LINK_ADMIN, HR_LINK_SYNC, PersonRow, RowError, Section, StaffBatch, login_from_name,
    msg_admin_not_linked, msg_not_linked, msg_unknown_department, msg_unknown_position,
    numbered_login, reason,
};
use crate::domain::user::{MSG_LAST_USER_MANAGER, MSG_LOGIN_TAKEN};

/// A person as the sync reads them.
#[derive(Clone, Debug, FromRow)]
pub(super) struct StoredPerson {
    pub(super) id: i64,
    pub(super) employee_number: Option<String>,
    pub(super) name: String,
    pub(super) surname: String,
    pub(super) last_name: String,
    pub(super) login: String,
    login_key: String,
    pub(super) email: String,
    pub(super) status_id: Option<i64>,
    blocked: i64,
    /// Who vouches for the employee number: [`HR_LINK_SYNC`],
    /// [`HR_LINK_ADMIN`], or nobody.
    pub(super) hr_link: Option<String>,
}

/// A person as the sync leaves them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Target {
    pub(super) employee_number: String,
    pub(super) name: String,
    pub(super) surname: String,
    pub(super) last_name: String,
    pub(super) login: String,
    pub(super) login_key: String,
    pub(super) email: String,
    pub(super) status_id: Option<i64>,
    pub(super) departments: BTreeSet<i64>,
    pub(super) positions: BTreeSet<i64>,
}

/// What the sync will do to one person.
pub(super) struct Plan {
    /// The row in the batch; `None` for one missing from a full sync.
    pub(super) index: Option<usize>,
    /// Where in `people` the person is; `None` to create them.
    pub(super) stored: Option<usize>,
    pub(super) target: Target,
    pub(super) action: Action,
    pub(super) changed: Vec<&'static str>,
}

impl Plan {
    /// Whether the person's access tokens say what is no longer true (names,
    /// login, departments) or they are blocked: their tokens must go.
    pub(super) fn makes_tokens_stale(&self) -> bool {
        self.action == Action::Blocked
            || self.changed.iter().any(|field| {
                matches!(
                    *field,
                    "surname" | "name" | "last_name" | "login" | "department_codes"
                )
            })
    }
}

/// Everything the sync reads before it decides: every person (a hospital's
/// staff is thousands, one query), their department and position links, who
/// holds an admin right and who UserManagement, and the statuses.
pub(super) struct Staff {
    pub(super) people: Vec<StoredPerson>,
    by_number: HashMap<String, usize>,
    by_login: HashMap<String, usize>,
    /// Every login key in use, and those the batch gives.
    logins: HashSet<String>,
    /// The number to try next for a login made from a name (a hospital has
    /// many people of one name: trying from 1 each time would be quadratic).
    next_number: HashMap<String, usize>,
    pub(super) departments: HashMap<i64, Vec<i64>>,
    pub(super) positions: HashMap<i64, Vec<i64>>,
    /// Holders of any admin right.
    admins: HashSet<i64>,
    /// Holders of UserManagement.
    managers: HashSet<i64>,
    /// The first status that does not block sign-in, if any.
    working: Option<i64>,
    /// The first status that blocks sign-in.
    dismissed: i64,
}

pub(super) async fn read_staff(conn: &mut AnyConnection) -> ServiceResult<Staff> {
    let people: Vec<StoredPerson> = sqlx::query_as(
        "SELECT u.id, u.employee_number, u.name, u.surname, u.last_name, u.login, u.login_key, u.email, \
         u.status_id, COALESCE(s.blocks_sign_in, 0) AS blocked, u.hr_link \
         FROM users u LEFT JOIN statuses s ON s.id = u.status_id ORDER BY u.id",
    )
    .fetch_all(&mut *conn)
    .await?;
    let statuses: Vec<(i64, i64)> =
        sqlx::query_as("SELECT id, blocks_sign_in FROM statuses ORDER BY id")
            .fetch_all(&mut *conn)
            .await?;
    let rights: Vec<(i64, String)> = sqlx::query_as(
        "SELECT ur.user_id, r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id",
    )
    .fetch_all(&mut *conn)
    .await?;
    let holders = |of: fn(Right) -> bool| -> HashSet<i64> {
        rights
            .iter()
            .filter(|(_, name)| Right::parse(name).is_some_and(of))
            .map(|(user_id, _)| *user_id)
            .collect()
    };
    let dismissed = statuses
        .iter()
        .find(|(_, blocks)| *blocks != 0)
        .map(|(id, _)| *id)
        .ok_or_else(|| ServiceError::internal("no status blocks sign-in"))?;
    Ok(Staff {
        by_number: people
            .iter()
            .enumerate()
            .filter_map(|(at, p)| p.employee_number.clone().map(|n| (n, at)))
            .collect(),
        by_login: people
            .iter()
            .enumerate()
            .map(|(at, p)| (p.login_key.clone(), at))
            .collect(),
        logins: people.iter().map(|p| p.login_key.clone()).collect(),
        next_number: HashMap::new(),
        departments: all_links(conn, Link::UserDepartments).await?,
        positions: all_links(conn, Link::UserPositions).await?,
        admins: holders(|_| true),
        managers: holders(|right| right == Right::UserManagement),
        working: statuses
            .iter()
            .find(|(_, blocks)| *blocks == 0)
            .map(|(id, _)| *id),
        dismissed,
        people,
    })
}

impl Staff {
    /// The login of a new person who was sent none: made from the name, with
    /// the first number that makes it free.
    fn free_login(&mut self, row: &PersonRow) -> Login {
        let base = login_from_name(
            row.surname.as_str(),
            row.name.as_str(),
            row.last_name.as_str(),
        );
        let first = self.next_number.get(&base).copied().unwrap_or(1);
        for n in first.. {
            if let Ok(login) = Login::parse(&numbered_login(&base, n))
                && self.logins.insert(login.key().as_str().to_owned())
            {
                self.next_number.insert(base, n + 1);
                return login;
            }
        }
        unreachable!("some number makes a login free")
    }

    /// The known person `row` is about, by employee number.
    fn find(&self, row: &PersonRow) -> Option<usize> {
        self.by_number.get(row.employee_number.as_str()).copied()
    }

    /// Why the sync may not change or block the person at `at`, if it may
    /// not: made in the portal and never linked by an administrator, or
    /// holding an admin right without that link.
    fn refusal(&self, at: usize) -> Option<(String, &'static str)> {
        let person = &self.people[at];
        match person.hr_link.as_deref() {
            Some(HR_LINK_ADMIN) => None,
            Some(HR_LINK_SYNC) if !self.admins.contains(&person.id) => None,
            Some(HR_LINK_SYNC) => Some((
                msg_admin_not_linked(&person.login),
                reason::ADMIN_NOT_LINKED,
            )),
            _ => Some((msg_not_linked(&person.login), reason::NOT_LINKED)),
        }
    }

    /// How many people the sync keeps in step, blocked or not.
    pub(super) fn managed(&self) -> usize {
        (0..self.people.len())
            .filter(|&at| self.people[at].employee_number.is_some() && self.refusal(at).is_none())
            .count()
    }

    /// Why a new person may not have `login`: someone has it (one made in
    /// the portal is named so that an administrator can link them instead).
    fn login_refusal(&self, login: &Login) -> (String, &'static str) {
        match self.by_login.get(login.key().as_str()) {
            Some(&at) if self.people[at].employee_number.is_none() => {
                (msg_not_linked(&self.people[at].login), reason::NOT_LINKED)
            }
            _ => (MSG_LOGIN_TAKEN.to_owned(), reason::LOGIN_TAKEN),
        }
    }
}

/// The ids of `codes` from `known`, or the message naming the first unknown one.
fn ids_of(
    codes: &[HrKey],
    known: &HashMap<String, i64>,
    unknown: fn(&str) -> String,
) -> Result<BTreeSet<i64>, String> {
    codes
        .iter()
        .map(|code| {
            known
                .get(code.as_str())
                .copied()
                .ok_or_else(|| unknown(code.as_str()))
        })
        .collect()
}

/// `current` with the links HR owns (to what has a code) replaced by `sent`.
fn relinked(current: &[i64], coded: &HashSet<i64>, sent: &BTreeSet<i64>) -> (BTreeSet<i64>, bool) {
    let owned: BTreeSet<i64> = current
        .iter()
        .copied()
        .filter(|id| coded.contains(id))
        .collect();
    let kept = current.iter().copied().filter(|id| !coded.contains(id));
    (kept.chain(sent.iter().copied()).collect(), owned != *sent)
}

/// Decides what to do to each person of the batch, and in a full sync to
/// everyone with an employee number it does not name.
pub(super) fn plan_people(
    staff: &mut Staff,
    batch: &StaffBatch,
    departments: &HashMap<String, i64>,
    positions: &HashMap<String, i64>,
    errors: &mut Vec<RowError>,
    unchanged: &mut usize,
) -> Vec<Plan> {
    let coded_departments: HashSet<i64> = departments.values().copied().collect();
    let coded_positions: HashSet<i64> = positions.values().copied().collect();
    let mut plans = Vec::new();
    for row in &batch.people {
        let refuse = |message: String, reason| RowError {
            section: Section::People,
            index: Some(row.index),
            key: row.employee_number.as_str().to_owned(),
            message,
            reason,
        };
        let links =
            ids_of(&row.department_codes, departments, msg_unknown_department).and_then(|d| {
                Ok((
                    d,
                    ids_of(&row.position_codes, positions, msg_unknown_position)?,
                ))
            });
        let (department_ids, position_ids) = match links {
            Ok(links) => links,
            Err(message) => {
                errors.push(refuse(message, reason::UNKNOWN_CODE));
                continue;
            }
        };
        let Some(at) = staff.find(row) else {
            // A login someone has is never adopted, even to dismiss them.
            if let Some(login) = &row.login
                && staff.logins.contains(login.key().as_str())
            {
                let (message, reason) = staff.login_refusal(login);
                errors.push(refuse(message, reason));
                continue;
            }
            if row.dismissed {
                // Not known and not employed: nothing to keep in step.
                *unchanged += 1;
                continue;
            }
            let login = match &row.login {
                Some(login) => {
                    staff.logins.insert(login.key().as_str().to_owned());
                    login.clone()
                }
                None => staff.free_login(row),
            };
            plans.push(Plan {
                index: Some(row.index),
                stored: None,
                target: Target {
                    employee_number: row.employee_number.as_str().to_owned(),
                    name: row.name.as_str().to_owned(),
                    surname: row.surname.as_str().to_owned(),
                    last_name: row.last_name.as_str().to_owned(),
                    login: login.as_str().to_owned(),
                    login_key: login.key().as_str().to_owned(),
                    email: row.email.as_str().to_owned(),
                    status_id: staff.working,
                    departments: department_ids,
                    positions: position_ids,
                },
                action: Action::Created,
                changed: Vec::new(),
            });
            continue;
        };
        if let Some((message, reason)) = staff.refusal(at) {
            errors.push(refuse(message, reason));
            continue;
        }
        let person = staff.people[at].clone();
        let mut changed = Vec::new();
        for (field, stored, sent) in [
            ("surname", &person.surname, row.surname.as_str()),
            ("name", &person.name, row.name.as_str()),
            ("last_name", &person.last_name, row.last_name.as_str()),
            ("email", &person.email, row.email.as_str()),
        ] {
            if stored != sent {
                changed.push(field);
            }
        }
        let (login, login_key) = match &row.login {
            Some(login) if login.as_str() != person.login => {
                let key = login.key().as_str();
                if key != person.login_key && !staff.logins.insert(key.to_owned()) {
                    errors.push(refuse(MSG_LOGIN_TAKEN.to_owned(), reason::LOGIN_TAKEN));
                    continue;
                }
                changed.push("login");
                (login.as_str().to_owned(), key.to_owned())
            }
            _ => (person.login.clone(), person.login_key.clone()),
        };
        let no_links = Vec::new();
        let current = staff.departments.get(&person.id).unwrap_or(&no_links);
        let (departments_after, moved) = relinked(current, &coded_departments, &department_ids);
        if moved {
            changed.push("department_codes");
        }
        let current = staff.positions.get(&person.id).unwrap_or(&no_links);
        let (positions_after, moved) = relinked(current, &coded_positions, &position_ids);
        if moved {
            changed.push("position_codes");
        }
        let blocked = person.blocked != 0;
        let (status_id, action) = match (row.dismissed, blocked) {
            (true, false) => (Some(staff.dismissed), Action::Blocked),
            (false, true) => (staff.working, Action::Changed),
            _ => (person.status_id, Action::Changed),
        };
        if row.dismissed != blocked {
            changed.push("dismissed");
        }
        if changed.is_empty() {
            *unchanged += 1;
            continue;
        }
        let target = Target {
            employee_number: row.employee_number.as_str().to_owned(),
            name: row.name.as_str().to_owned(),
            surname: row.surname.as_str().to_owned(),
            last_name: row.last_name.as_str().to_owned(),
            login,
            login_key,
            email: row.email.as_str().to_owned(),
            status_id,
            departments: departments_after,
            positions: positions_after,
        };
        plans.push(Plan {
            index: Some(row.index),
            stored: Some(at),
            target,
            action,
            changed,
        });
    }
    if batch.full {
        plans.extend(missing_from_full_sync(staff, batch, errors));
    }
    keep_a_user_manager(staff, &mut plans, errors);
    plans
}

/// Everyone with an employee number the batch does not hold, not blocked
/// yet: a plan to block each the sync keeps in step, an error for the others.
fn missing_from_full_sync(
    staff: &Staff,
    batch: &StaffBatch,
    errors: &mut Vec<RowError>,
) -> Vec<Plan> {
    let sent: HashSet<&str> = batch.employee_numbers.iter().map(HrKey::as_str).collect();
    let links = |map: &HashMap<i64, Vec<i64>>, id| -> BTreeSet<i64> {
        map.get(&id).into_iter().flatten().copied().collect()
    };
    let mut plans = Vec::new();
    for (at, person) in staff.people.iter().enumerate() {
        let Some(number) = person.employee_number.as_deref() else {
            continue;
        };
        if person.blocked != 0 || sent.contains(number) {
            continue;
        }
        if let Some((message, reason)) = staff.refusal(at) {
            errors.push(RowError {
                section: Section::People,
                index: None,
                key: number.to_owned(),
                message,
                reason,
            });
            continue;
        }
        plans.push(Plan {
            index: None,
            stored: Some(at),
            target: Target {
                employee_number: number.to_owned(),
                name: person.name.clone(),
                surname: person.surname.clone(),
                last_name: person.last_name.clone(),
                login: person.login.clone(),
                login_key: person.login_key.clone(),
                email: person.email.clone(),
                status_id: Some(staff.dismissed),
                departments: links(&staff.departments, person.id),
                positions: links(&staff.positions, person.id),
            },
            action: Action::Blocked,
            changed: vec!["dismissed"],
        });
    }
    plans
}

/// Someone must always be able to manage users (as UpdateUser keeps): when
/// the plans would block every holder of UserManagement who can sign in,
/// the one with the lowest id keeps their place, reported as refused.
fn keep_a_user_manager(staff: &Staff, plans: &mut Vec<Plan>, errors: &mut Vec<RowError>) {
    let id_of = |plan: &Plan| plan.stored.map(|at| staff.people[at].id);
    let blocking: HashSet<i64> = plans
        .iter()
        .filter(|plan| plan.action == Action::Blocked)
        .filter_map(id_of)
        .collect();
    let unblocking: HashSet<i64> = plans
        .iter()
        .filter(|plan| plan.changed.contains(&"dismissed") && plan.action != Action::Blocked)
        .filter_map(id_of)
        .collect();
    let remaining = staff.people.iter().any(|p| {
        staff.managers.contains(&p.id)
            && !blocking.contains(&p.id)
            && (p.blocked == 0 || unblocking.contains(&p.id))
    });
    if remaining {
        return;
    }
    let kept = plans
        .iter()
        .enumerate()
        .filter(|(_, plan)| plan.action == Action::Blocked)
        .filter_map(|(at, plan)| Some((id_of(plan)?, at)))
        .filter(|(id, _)| staff.managers.contains(id))
        .min();
    if let Some((_, at)) = kept {
        let plan = plans.remove(at);
        errors.push(RowError {
            section: Section::People,
            index: plan.index,
            key: plan.target.employee_number,
            message: MSG_LAST_USER_MANAGER.to_owned(),
            reason: reason::LAST_USER_MANAGER,
        });
    }
}
