//! The people of a sync: a plan for each row of the batch (and, in a full
//! sync, for each person the batch leaves out), decided from everyone as the
//! store read them.

use std::collections::{BTreeSet, HashMap, HashSet};

use portal_kit::{Right, ServiceError, ServiceResult};

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
#[derive(Clone, Debug)]
pub struct StoredPerson {
    pub id: i64,
    pub employee_number: Option<String>,
    pub name: String,
    pub surname: String,
    pub last_name: String,
    pub login: String,
    pub login_key: String,
    pub email: String,
    pub status_id: Option<i64>,
    /// Their status blocks sign-in.
    pub blocked: bool,
    /// Who vouches for the employee number: [`HR_LINK_SYNC`],
    /// [`HR_LINK_ADMIN`], or nobody.
    pub hr_link: Option<String>,
}

/// A person as the sync leaves them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub employee_number: String,
    pub name: String,
    pub surname: String,
    pub last_name: String,
    pub login: String,
    pub login_key: String,
    pub email: String,
    pub status_id: Option<i64>,
    pub departments: BTreeSet<i64>,
    pub positions: BTreeSet<i64>,
}

impl Target {
    /// The person as `row` sends them, with the login, status and links the
    /// sync settled on.
    fn sent(
        row: &PersonRow,
        login: (String, String),
        status_id: Option<i64>,
        links: Links,
    ) -> Self {
        let (login, login_key) = login;
        Target {
            employee_number: row.employee_number.as_str().to_owned(),
            name: row.name.as_str().to_owned(),
            surname: row.surname.as_str().to_owned(),
            last_name: row.last_name.as_str().to_owned(),
            login,
            login_key,
            email: row.email.as_str().to_owned(),
            status_id,
            departments: links.departments,
            positions: links.positions,
        }
    }
}

/// What the sync will do to one person.
pub struct Plan {
    /// The row in the batch; `None` for one missing from a full sync.
    pub index: Option<usize>,
    /// Where in [`Staff::people`] the person is; `None` to create them.
    pub stored: Option<usize>,
    pub target: Target,
    pub action: Action,
    pub changed: Vec<&'static str>,
}

impl Plan {
    /// Whether the person's access tokens say what is no longer true (names,
    /// login, departments) or they are blocked: their tokens must go.
    pub fn makes_tokens_stale(&self) -> bool {
        self.action == Action::Blocked
            || self.changed.iter().any(|field| {
                matches!(
                    *field,
                    "surname" | "name" | "last_name" | "login" | "department_codes"
                )
            })
    }
}

/// What the store reads before the sync decides: every person (a hospital's
/// staff is thousands, one query), their department and position links by
/// user id, each right held as (user id, right's name), and each status as
/// (id, whether it blocks sign-in) in id order.
pub struct StaffRead {
    pub people: Vec<StoredPerson>,
    pub departments: HashMap<i64, Vec<i64>>,
    pub positions: HashMap<i64, Vec<i64>>,
    pub rights: Vec<(i64, String)>,
    pub statuses: Vec<(i64, bool)>,
}

/// Everyone as the sync decides on them, indexed, and the logins it has
/// given out so far.
pub struct Staff {
    pub people: Vec<StoredPerson>,
    by_number: HashMap<String, usize>,
    by_login: HashMap<String, usize>,
    /// Every login key in use, and those the batch gives.
    logins: HashSet<String>,
    /// The number to try next for a login made from a name (a hospital has
    /// many people of one name: trying from 1 each time would be quadratic).
    next_number: HashMap<String, usize>,
    pub departments: HashMap<i64, Vec<i64>>,
    pub positions: HashMap<i64, Vec<i64>>,
    /// Holders of any admin right.
    admins: HashSet<i64>,
    /// Holders of UserManagement.
    managers: HashSet<i64>,
    /// The first status that does not block sign-in, if any.
    working: Option<i64>,
    /// The first status that blocks sign-in.
    dismissed: i64,
}

impl Staff {
    pub fn new(read: StaffRead) -> ServiceResult<Staff> {
        let StaffRead {
            people,
            departments,
            positions,
            rights,
            statuses,
        } = read;
        let holders = |of: fn(Right) -> bool| -> HashSet<i64> {
            rights
                .iter()
                .filter(|(_, name)| Right::parse(name).is_some_and(of))
                .map(|(user_id, _)| *user_id)
                .collect()
        };
        let first_status = |blocks: bool| {
            statuses
                .iter()
                .find(|(_, blocking)| *blocking == blocks)
                .map(|(id, _)| *id)
        };
        let dismissed =
            first_status(true).ok_or_else(|| ServiceError::internal("no status blocks sign-in"))?;
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
            departments,
            positions,
            admins: holders(|_| true),
            managers: holders(|right| right == Right::UserManagement),
            working: first_status(false),
            dismissed,
            people,
        })
    }

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
    pub fn managed(&self) -> usize {
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

    /// The login and its key the known person at `at` will have: `row`'s
    /// when it sends another (`None`: they keep theirs), refused when that
    /// one is taken.
    fn relogin(
        &mut self,
        at: usize,
        row: &PersonRow,
    ) -> Result<Option<(String, String)>, (String, &'static str)> {
        let person = &self.people[at];
        match &row.login {
            Some(login) if login.as_str() != person.login => {
                let key = login.key().as_str();
                if key != person.login_key && !self.logins.insert(key.to_owned()) {
                    return Err((MSG_LOGIN_TAKEN.to_owned(), reason::LOGIN_TAKEN));
                }
                Ok(Some((login.as_str().to_owned(), key.to_owned())))
            }
            _ => Ok(None),
        }
    }

    /// Where the person at `at` is linked once `sent` replaces the links HR
    /// owns, naming in `changed` the lists that moved.
    fn relinked(
        &self,
        at: usize,
        codes: &Codes,
        sent: Links,
        changed: &mut Vec<&'static str>,
    ) -> Links {
        let id = self.people[at].id;
        let no_links = Vec::new();
        let current = self.departments.get(&id).unwrap_or(&no_links);
        let (departments, moved) = relinked(current, &codes.coded_departments, &sent.departments);
        if moved {
            changed.push("department_codes");
        }
        let current = self.positions.get(&id).unwrap_or(&no_links);
        let (positions, moved) = relinked(current, &codes.coded_positions, &sent.positions);
        if moved {
            changed.push("position_codes");
        }
        Links {
            departments,
            positions,
        }
    }
}

/// A person's departments and positions by id.
struct Links {
    departments: BTreeSet<i64>,
    positions: BTreeSet<i64>,
}

/// The ids of the departments' and positions' codes, as the sync of the
/// references left them.
struct Codes<'a> {
    departments: &'a HashMap<String, i64>,
    positions: &'a HashMap<String, i64>,
    /// The departments and positions HR owns: those with a code.
    coded_departments: HashSet<i64>,
    coded_positions: HashSet<i64>,
}

impl<'a> Codes<'a> {
    fn new(departments: &'a HashMap<String, i64>, positions: &'a HashMap<String, i64>) -> Self {
        Codes {
            departments,
            positions,
            coded_departments: departments.values().copied().collect(),
            coded_positions: positions.values().copied().collect(),
        }
    }

    /// The links `row` sends, or the message naming its first unknown code.
    fn links_of(&self, row: &PersonRow) -> Result<Links, String> {
        Ok(Links {
            departments: ids_of(
                &row.department_codes,
                self.departments,
                msg_unknown_department,
            )?,
            positions: ids_of(&row.position_codes, self.positions, msg_unknown_position)?,
        })
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

/// What the sync does with one row of the batch.
enum RowPlan {
    /// Boxed: a plan is large beside the other answers.
    Plan(Box<Plan>),
    Unchanged,
    /// The message and the reason for programs.
    Refused(String, &'static str),
}

/// Decides what to do to each person of the batch, and in a full sync to
/// everyone with an employee number it does not name; `departments` and
/// `positions` are the ids of their codes.
pub fn plan_people(
    staff: &mut Staff,
    batch: &StaffBatch,
    departments: &HashMap<String, i64>,
    positions: &HashMap<String, i64>,
    errors: &mut Vec<RowError>,
    unchanged: &mut usize,
) -> Vec<Plan> {
    let codes = Codes::new(departments, positions);
    let mut plans = Vec::new();
    for row in &batch.people {
        match plan_row(staff, &codes, row) {
            RowPlan::Plan(plan) => plans.push(*plan),
            RowPlan::Unchanged => *unchanged += 1,
            RowPlan::Refused(message, reason) => errors.push(RowError {
                section: Section::People,
                index: Some(row.index),
                key: row.employee_number.as_str().to_owned(),
                message,
                reason,
            }),
        }
    }
    if batch.full {
        plans.extend(missing_from_full_sync(staff, batch, errors));
    }
    keep_a_user_manager(staff, &mut plans, errors);
    plans
}

fn plan_row(staff: &mut Staff, codes: &Codes, row: &PersonRow) -> RowPlan {
    let sent = match codes.links_of(row) {
        Ok(links) => links,
        Err(message) => return RowPlan::Refused(message, reason::UNKNOWN_CODE),
    };
    match staff.find(row) {
        None => plan_new_person(staff, row, sent),
        Some(at) => plan_known_person(staff, codes, row, at, sent),
    }
}

/// A person HR sends whom nobody has the employee number of.
fn plan_new_person(staff: &mut Staff, row: &PersonRow, sent: Links) -> RowPlan {
    // A login someone has is never adopted, even to dismiss them.
    if let Some(login) = &row.login
        && staff.logins.contains(login.key().as_str())
    {
        let (message, reason) = staff.login_refusal(login);
        return RowPlan::Refused(message, reason);
    }
    if row.dismissed {
        // Not known and not employed: nothing to keep in step.
        return RowPlan::Unchanged;
    }
    let login = match &row.login {
        Some(login) => {
            staff.logins.insert(login.key().as_str().to_owned());
            login.clone()
        }
        None => staff.free_login(row),
    };
    let login = (login.as_str().to_owned(), login.key().as_str().to_owned());
    RowPlan::Plan(Box::new(Plan {
        index: Some(row.index),
        stored: None,
        target: Target::sent(row, login, staff.working, sent),
        action: Action::Created,
        changed: Vec::new(),
    }))
}

/// A person HR sends who has the employee number (at `at`): changed,
/// blocked or unblocked where the row differs, if the sync keeps them.
fn plan_known_person(
    staff: &mut Staff,
    codes: &Codes,
    row: &PersonRow,
    at: usize,
    sent: Links,
) -> RowPlan {
    if let Some((message, reason)) = staff.refusal(at) {
        return RowPlan::Refused(message, reason);
    }
    let mut changed = Vec::new();
    let person = &staff.people[at];
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
    let login = match staff.relogin(at, row) {
        Ok(Some(login)) => {
            changed.push("login");
            login
        }
        Ok(None) => {
            let person = &staff.people[at];
            (person.login.clone(), person.login_key.clone())
        }
        Err((message, reason)) => return RowPlan::Refused(message, reason),
    };
    let links = staff.relinked(at, codes, sent, &mut changed);
    let person = &staff.people[at];
    let (status_id, action) = match (row.dismissed, person.blocked) {
        (true, false) => (Some(staff.dismissed), Action::Blocked),
        (false, true) => (staff.working, Action::Changed),
        _ => (person.status_id, Action::Changed),
    };
    if row.dismissed != person.blocked {
        changed.push("dismissed");
    }
    if changed.is_empty() {
        return RowPlan::Unchanged;
    }
    RowPlan::Plan(Box::new(Plan {
        index: Some(row.index),
        stored: Some(at),
        target: Target::sent(row, login, status_id, links),
        action,
        changed,
    }))
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
        if person.blocked || sent.contains(number) {
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
            && (!p.blocked || unblocking.contains(&p.id))
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
