//! Staff by the HR system's keys: employee numbers of people, codes of
//! departments and positions (migration 0006).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use portal_kit::audit::{self, AuditContext, Changes, Event, action, entity};
use portal_kit::db::{WriteError, retry_on_collision};
use portal_kit::text::name_key;
use portal_kit::{Right, ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::audit::UserFields;
use super::search;
use super::user::lock_user_managers;
use super::{IN_CHUNK, Link, Store, all_links, fetch_in, placeholders};
use crate::domain::department::MSG_TITLE_TAKEN;
use crate::domain::login::Login;
use crate::domain::password::PasswordHash;
use crate::domain::staff::{
    HrKey, MSG_POSITION_TITLE_TAKEN, PersonRow, ReferenceRow, RowError, Section, StaffBatch,
    StaffQuery, login_from_name, msg_unknown_department, msg_unknown_position, numbered_login,
};
use crate::domain::user::{MSG_LAST_USER_MANAGER, MSG_LOGIN_TAKEN};

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

// --- The sync ---

/// What the sync did, or would do, to a person, a department or a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Created,
    Changed,
    Blocked,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Changed => "changed",
            Action::Blocked => "blocked",
        }
    }
}

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
    /// People whose tokens the sync made stale, with their new access
    /// versions; none in a dry run.
    pub raised: Vec<(i64, i64)>,
}

/// Departments and positions, kept alike by code.
#[derive(Clone, Copy, Debug)]
enum Reference {
    Department,
    Position,
}

impl Reference {
    fn section(self) -> Section {
        match self {
            Reference::Department => Section::Departments,
            Reference::Position => Section::Positions,
        }
    }

    fn select_all(self) -> &'static str {
        match self {
            Reference::Department => "SELECT id, title, COALESCE(code, '') FROM departments",
            Reference::Position => "SELECT id, title, COALESCE(code, '') FROM positions",
        }
    }

    /// What must be unique among titles: departments' as people read them,
    /// positions' as written (the tables' unique indexes).
    fn title_key(self, title: &str) -> String {
        match self {
            Reference::Department => name_key(title),
            Reference::Position => title.to_owned(),
        }
    }

    fn title_taken(self) -> &'static str {
        match self {
            Reference::Department => MSG_TITLE_TAKEN,
            Reference::Position => MSG_POSITION_TITLE_TAKEN,
        }
    }

    async fn insert(
        self,
        conn: &mut AnyConnection,
        code: &str,
        title: &str,
        now: i64,
    ) -> Result<i64, WriteError> {
        let query = match self {
            Reference::Department => sqlx::query_scalar(
                "INSERT INTO departments (title, title_key, code, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind(title.to_owned())
            .bind(name_key(title))
            .bind(code.to_owned())
            .bind(now),
            Reference::Position => {
                sqlx::query_scalar("INSERT INTO positions (title, code) VALUES ($1, $2) RETURNING id")
                    .bind(title.to_owned())
                    .bind(code.to_owned())
            }
        };
        let id = query.fetch_one(&mut *conn).await?;
        if let Reference::Department = self {
            search::index_department(conn, id).await?;
        }
        Ok(id)
    }

    async fn update(
        self,
        conn: &mut AnyConnection,
        id: i64,
        code: &str,
        title: &str,
    ) -> Result<(), WriteError> {
        let query = match self {
            Reference::Department => sqlx::query(
                "UPDATE departments SET title = $1, title_key = $2, code = $3 WHERE id = $4",
            )
            .bind(title.to_owned())
            .bind(name_key(title))
            .bind(code.to_owned())
            .bind(id),
            Reference::Position => {
                sqlx::query("UPDATE positions SET title = $1, code = $2 WHERE id = $3")
                    .bind(title.to_owned())
                    .bind(code.to_owned())
                    .bind(id)
            }
        };
        query.execute(&mut *conn).await?;
        if let Reference::Department = self {
            search::index_department(conn, id).await?;
        }
        Ok(())
    }
}

/// A department or position as stored.
struct KnownReference {
    id: i64,
    title: String,
    /// Empty when it has none.
    code: String,
}

/// What syncing one list of departments or positions left: the id of every
/// code (sent or known before).
struct ReferencesSynced {
    by_code: HashMap<String, i64>,
    changes: Vec<ReferenceChange>,
    counts: ReferenceCounts,
    written: Vec<ReferenceWritten>,
}

/// A department or position the sync created or changed, for its audit
/// record: its title and code before (none: created) and after.
struct ReferenceWritten {
    id: i64,
    before: Option<(String, String)>,
    title: String,
    code: String,
}

/// Creates, retitles or adopts (by title) the departments or positions of `rows`.
async fn sync_references(
    conn: &mut AnyConnection,
    reference: Reference,
    rows: &[ReferenceRow],
    now: i64,
    errors: &mut Vec<RowError>,
) -> Result<ReferencesSynced, WriteError> {
    let stored: Vec<(i64, String, String)> = sqlx::query_as(reference.select_all())
        .fetch_all(&mut *conn)
        .await?;
    let mut known: Vec<KnownReference> = stored
        .into_iter()
        .map(|(id, title, code)| KnownReference { id, title, code })
        .collect();
    let mut by_code: HashMap<String, usize> = HashMap::new();
    let mut by_title: HashMap<String, usize> = HashMap::new();
    for (at, record) in known.iter().enumerate() {
        if !record.code.is_empty() {
            by_code.insert(record.code.clone(), at);
        }
        by_title.insert(reference.title_key(&record.title), at);
    }
    let mut changes = Vec::new();
    let mut counts = ReferenceCounts::default();
    let mut written = Vec::new();
    for row in rows {
        let code = row.code.as_str();
        let title_key = reference.title_key(&row.title);
        let titled = by_title.get(&title_key).copied();
        let (at, changed) = match by_code.get(code).copied() {
            Some(at) if known[at].title == row.title => {
                counts.unchanged += 1;
                continue;
            }
            Some(at) if titled.is_none_or(|holder| holder == at) => (at, vec!["title"]),
            None => match titled {
                Some(at) if known[at].code.is_empty() => {
                    let mut changed = vec!["code"];
                    if known[at].title != row.title {
                        changed.push("title");
                    }
                    (at, changed)
                }
                Some(_) => {
                    refuse_reference(errors, reference, row);
                    continue;
                }
                None => {
                    // The id links people within the transaction, even in
                    // a dry run; the answer shows none for what is undone.
                    let id = reference.insert(conn, code, &row.title, now).await?;
                    known.push(KnownReference {
                        id,
                        title: row.title.clone(),
                        code: code.to_owned(),
                    });
                    by_code.insert(code.to_owned(), known.len() - 1);
                    by_title.insert(title_key, known.len() - 1);
                    counts.created += 1;
                    written.push(ReferenceWritten {
                        id,
                        before: None,
                        title: row.title.clone(),
                        code: code.to_owned(),
                    });
                    changes.push(ReferenceChange {
                        code: code.to_owned(),
                        action: Action::Created,
                        changed: Vec::new(),
                        id,
                    });
                    continue;
                }
            },
            Some(_) => {
                refuse_reference(errors, reference, row);
                continue;
            }
        };
        reference
            .update(conn, known[at].id, code, &row.title)
            .await?;
        by_title.remove(&reference.title_key(&known[at].title));
        by_title.insert(title_key, at);
        by_code.insert(code.to_owned(), at);
        let before = (
            std::mem::replace(&mut known[at].title, row.title.clone()),
            std::mem::replace(&mut known[at].code, code.to_owned()),
        );
        written.push(ReferenceWritten {
            id: known[at].id,
            before: Some(before),
            title: row.title.clone(),
            code: code.to_owned(),
        });
        counts.changed += 1;
        changes.push(ReferenceChange {
            code: code.to_owned(),
            action: Action::Changed,
            changed,
            id: known[at].id,
        });
    }
    Ok(ReferencesSynced {
        by_code: by_code
            .into_iter()
            .map(|(code, at)| (code, known[at].id))
            .collect(),
        changes,
        counts,
        written,
    })
}

fn refuse_reference(errors: &mut Vec<RowError>, reference: Reference, row: &ReferenceRow) {
    errors.push(RowError {
        section: reference.section(),
        index: Some(row.index),
        key: row.code.as_str().to_owned(),
        message: reference.title_taken().to_owned(),
    });
}

/// A person as the sync reads them.
#[derive(Clone, Debug, FromRow)]
struct StoredPerson {
    id: i64,
    employee_number: Option<String>,
    name: String,
    surname: String,
    last_name: String,
    login: String,
    login_key: String,
    email: String,
    status_id: Option<i64>,
    blocked: i64,
}

/// A person as the sync leaves them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Target {
    employee_number: String,
    name: String,
    surname: String,
    last_name: String,
    login: String,
    login_key: String,
    email: String,
    status_id: Option<i64>,
    departments: BTreeSet<i64>,
    positions: BTreeSet<i64>,
}

/// What the sync will do to one person.
struct Plan {
    /// The row in the batch; `None` for one missing from a full sync.
    index: Option<usize>,
    /// Where in `people` the person is; `None` to create them.
    stored: Option<usize>,
    target: Target,
    action: Action,
    changed: Vec<&'static str>,
}

impl Plan {
    /// Whether the person's access tokens say what is no longer true (names,
    /// login, departments) or they are blocked: their tokens must go.
    fn makes_tokens_stale(&self) -> bool {
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
/// holds UserManagement, and the statuses.
struct Staff {
    people: Vec<StoredPerson>,
    by_number: HashMap<String, usize>,
    by_login: HashMap<String, usize>,
    /// Every login key in use, and those the batch gives.
    logins: HashSet<String>,
    /// The number to try next for a login made from a name (a hospital has
    /// many people of one name: trying from 1 each time would be quadratic).
    next_number: HashMap<String, usize>,
    departments: HashMap<i64, Vec<i64>>,
    positions: HashMap<i64, Vec<i64>>,
    managers: HashSet<i64>,
    /// The first status that does not block sign-in, if any.
    working: Option<i64>,
    /// The first status that blocks sign-in.
    dismissed: i64,
}

async fn read_staff(conn: &mut AnyConnection) -> ServiceResult<Staff> {
    let people: Vec<StoredPerson> = sqlx::query_as(
        "SELECT u.id, u.employee_number, u.name, u.surname, u.last_name, u.login, u.login_key, u.email, \
         u.status_id, COALESCE(s.blocks_sign_in, 0) AS blocked \
         FROM users u LEFT JOIN statuses s ON s.id = u.status_id ORDER BY u.id",
    )
    .fetch_all(&mut *conn)
    .await?;
    let statuses: Vec<(i64, i64)> =
        sqlx::query_as("SELECT id, blocks_sign_in FROM statuses ORDER BY id")
            .fetch_all(&mut *conn)
            .await?;
    let managers: Vec<i64> = sqlx::query_scalar(
        "SELECT ur.user_id FROM user_rights ur JOIN rights r ON r.id = ur.right_id WHERE r.name = $1",
    )
    .bind(Right::UserManagement.as_str())
    .fetch_all(&mut *conn)
    .await?;
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
        managers: managers.into_iter().collect(),
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

    /// The known person `row` is about: by employee number, or one without a
    /// number yet who has the login sent.
    fn find(&self, row: &PersonRow) -> Option<usize> {
        let number = row.employee_number.as_str();
        self.by_number.get(number).copied().or_else(|| {
            let login = row.login.as_ref()?;
            let at = *self.by_login.get(login.key().as_str())?;
            self.people[at].employee_number.is_none().then_some(at)
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

/// Decides what to do to each person of the batch, and in a full sync to
/// everyone with an employee number it does not name.
fn plan_people(
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
        let refuse = |message: String| RowError {
            section: Section::People,
            index: Some(row.index),
            key: row.employee_number.as_str().to_owned(),
            message,
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
                errors.push(refuse(message));
                continue;
            }
        };
        let Some(at) = staff.find(row) else {
            if row.dismissed {
                // Not known and not employed: nothing to keep in step.
                *unchanged += 1;
                continue;
            }
            let login = match &row.login {
                Some(login) if !staff.logins.insert(login.key().as_str().to_owned()) => {
                    errors.push(refuse(MSG_LOGIN_TAKEN.to_owned()));
                    continue;
                }
                Some(login) => login.clone(),
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
        let person = staff.people[at].clone();
        let mut changed = Vec::new();
        if person.employee_number.is_none() {
            changed.push("employee_number");
        }
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
                    errors.push(refuse(MSG_LOGIN_TAKEN.to_owned()));
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
        // Adopted by login: a second row with that login finds them taken.
        staff.people[at].employee_number = Some(target.employee_number.clone());
        plans.push(Plan {
            index: Some(row.index),
            stored: Some(at),
            target,
            action,
            changed,
        });
    }
    if batch.full {
        plans.extend(missing_from_full_sync(staff, batch));
    }
    keep_a_user_manager(staff, &mut plans, errors);
    plans
}

/// Everyone with an employee number the batch does not hold, not blocked yet.
fn missing_from_full_sync(staff: &Staff, batch: &StaffBatch) -> Vec<Plan> {
    let sent: HashSet<&str> = batch.employee_numbers.iter().map(HrKey::as_str).collect();
    let links = |map: &HashMap<i64, Vec<i64>>, id| -> BTreeSet<i64> {
        map.get(&id).into_iter().flatten().copied().collect()
    };
    staff
        .people
        .iter()
        .enumerate()
        .filter(|(_, p)| p.blocked == 0)
        .filter_map(|(at, person)| {
            let number = person.employee_number.as_deref()?;
            (!sent.contains(number)).then(|| Plan {
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
            })
        })
        .collect()
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
        });
    }
}

/// Rows in one multi-row INSERT of people: 11 binds each.
const INSERT_CHUNK: usize = 200;
/// Rows in one multi-row INSERT of links: 2 binds each.
const LINK_CHUNK: usize = 500;

/// Writes the plans: new people in multi-row inserts, each changed person in
/// one update (with their access version raised where their tokens went
/// stale), the links that differ, and the end of the blocked people's
/// sessions. Answers each person's change and the raised versions.
async fn write_plans(
    conn: &mut AnyConnection,
    staff: &Staff,
    plans: &[Plan],
    now: i64,
) -> Result<(Vec<PersonChange>, Vec<(i64, i64)>), WriteError> {
    let created = insert_people(conn, plans, now).await?;
    let mut changes = Vec::with_capacity(plans.len());
    let mut raised = Vec::new();
    let mut added = (Vec::new(), Vec::new());
    let mut blocked = Vec::new();
    for plan in plans {
        let target = &plan.target;
        let user_id = match plan.stored {
            None => {
                let id = *created.get(&target.employee_number).ok_or_else(|| {
                    ServiceError::internal("a created person's id was not returned")
                })?;
                added.0.extend(target.departments.iter().map(|&d| (id, d)));
                added.1.extend(target.positions.iter().map(|&p| (id, p)));
                id
            }
            Some(at) => {
                let id = staff.people[at].id;
                let stale = plan.makes_tokens_stale();
                if let Some(version) = update_person(conn, id, target, stale, now).await? {
                    raised.push((id, version));
                }
                for (link, map, after, pairs) in [
                    (
                        Link::UserDepartments,
                        &staff.departments,
                        &target.departments,
                        &mut added.0,
                    ),
                    (
                        Link::UserPositions,
                        &staff.positions,
                        &target.positions,
                        &mut added.1,
                    ),
                ] {
                    let before: BTreeSet<i64> =
                        map.get(&id).into_iter().flatten().copied().collect();
                    for gone in before.difference(after) {
                        sqlx::query(link.delete_one())
                            .bind(id)
                            .bind(*gone)
                            .execute(&mut *conn)
                            .await?;
                    }
                    pairs.extend(after.difference(&before).map(|&to| (id, to)));
                }
                if plan.action == Action::Blocked {
                    blocked.push(id);
                }
                id
            }
        };
        changes.push(PersonChange {
            employee_number: target.employee_number.clone(),
            action: plan.action,
            changed: plan.changed.clone(),
            user_id,
        });
    }
    insert_links(conn, Link::UserDepartments, &added.0).await?;
    insert_links(conn, Link::UserPositions, &added.1).await?;
    for chunk in blocked.chunks(IN_CHUNK) {
        let statement = format!(
            "UPDATE refresh_families SET revoked_at = $1 WHERE revoked_at IS NULL AND user_id IN {}",
            placeholders(2, chunk.len())
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement)).bind(now);
        for id in chunk {
            query = query.bind(*id);
        }
        query.execute(&mut *conn).await?;
    }
    Ok((changes, raised))
}

/// Inserts the people the plans create, [`INSERT_CHUNK`] to a statement;
/// their ids by employee number. They have no password yet.
async fn insert_people(
    conn: &mut AnyConnection,
    plans: &[Plan],
    now: i64,
) -> Result<HashMap<String, i64>, WriteError> {
    let new: Vec<&Target> = plans
        .iter()
        .filter(|plan| plan.stored.is_none())
        .map(|plan| &plan.target)
        .collect();
    let mut ids = HashMap::with_capacity(new.len());
    for chunk in new.chunks(INSERT_CHUNK) {
        let rows: Vec<String> = (0..chunk.len())
            .map(|i| placeholders(i * 11 + 1, 11))
            .collect();
        let statement = format!(
            "INSERT INTO users (employee_number, name, surname, last_name, login, login_key, email, \
             password_hash, status_id, created_at, updated_at) VALUES {} RETURNING id, employee_number",
            rows.join(", ")
        );
        let mut query = sqlx::query_as::<_, (i64, String)>(sqlx::AssertSqlSafe(statement));
        for target in chunk {
            query = query
                .bind(target.employee_number.clone())
                .bind(target.name.clone())
                .bind(target.surname.clone())
                .bind(target.last_name.clone())
                .bind(target.login.clone())
                .bind(target.login_key.clone())
                .bind(target.email.clone())
                .bind(PasswordHash::none().as_str().to_owned())
                .bind(target.status_id)
                .bind(now)
                .bind(now);
        }
        for (id, number) in query.fetch_all(&mut *conn).await? {
            search::index_user(conn, id).await?;
            ids.insert(number, id);
        }
    }
    Ok(ids)
}

/// Writes a known person's fields; with `stale`, raises their access version
/// and answers it.
async fn update_person(
    conn: &mut AnyConnection,
    id: i64,
    target: &Target,
    stale: bool,
    now: i64,
) -> Result<Option<i64>, WriteError> {
    let raise = if stale {
        ", access_version = access_version + 1, access_changed_at = $9"
    } else {
        ""
    };
    let statement = format!(
        "UPDATE users SET employee_number = $1, name = $2, surname = $3, last_name = $4, login = $5, \
         login_key = $6, email = $7, status_id = $8, updated_at = $9{raise} WHERE id = $10 RETURNING access_version"
    );
    let version: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(statement))
        .bind(target.employee_number.clone())
        .bind(target.name.clone())
        .bind(target.surname.clone())
        .bind(target.last_name.clone())
        .bind(target.login.clone())
        .bind(target.login_key.clone())
        .bind(target.email.clone())
        .bind(target.status_id)
        .bind(now)
        .bind(id)
        .fetch_one(&mut *conn)
        .await?;
    search::index_user(conn, id).await?;
    Ok(stale.then_some(version))
}

/// Inserts (owner, target) pairs of `link`, [`LINK_CHUNK`] to a statement.
async fn insert_links(
    conn: &mut AnyConnection,
    link: Link,
    pairs: &[(i64, i64)],
) -> Result<(), WriteError> {
    for chunk in pairs.chunks(LINK_CHUNK) {
        let rows: Vec<String> = (0..chunk.len())
            .map(|i| placeholders(i * 2 + 1, 2))
            .collect();
        let statement = format!("{} VALUES {}", link.insert_into(), rows.join(", "));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
        for (owner, target) in chunk {
            query = query.bind(*owner).bind(*target);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

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
fn sync_records(
    staff: &Staff,
    plans: &[Plan],
    people: &[PersonChange],
    departments: &[ReferenceWritten],
    positions: &[ReferenceWritten],
) -> Vec<Event<'static>> {
    let sorted = |ids: Option<&Vec<i64>>| -> Vec<i64> {
        let set: BTreeSet<i64> = ids.into_iter().flatten().copied().collect();
        set.into_iter().collect()
    };
    // Who left and who joined each department, then its members before.
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
    let mut members: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for (user_id, of) in &staff.departments {
        for department_id in of.iter().filter(|d| moved.contains_key(d)) {
            members.entry(*department_id).or_default().insert(*user_id);
        }
    }

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
    for position in positions {
        let done = match position.before {
            None => action::CREATE,
            Some(_) => action::UPDATE,
        };
        let changes = reference_changes(Some(position));
        records.push(Event::new(entity::POSITION, position.id, done).changes(changes));
    }

    for (plan, person) in plans.iter().zip(people) {
        let target = &plan.target;
        let departments: Vec<i64> = target.departments.iter().copied().collect();
        let positions: Vec<i64> = target.positions.iter().copied().collect();
        let after = UserFields {
            employee_number: Some(&target.employee_number),
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
                // Planning gave an adopted person their number already: the
                // one change of a number there is, from none.
                employee_number: if plan.changed.contains(&"employee_number") {
                    None
                } else {
                    stored.employee_number.as_deref()
                },
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
        if !changes.is_empty() {
            records.push(Event::new(entity::USER, person.user_id, done).changes(changes));
        }
    }
    records
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
    pub async fn sync_staff(
        &self,
        context: &AuditContext,
        batch: &StaffBatch,
        now: i64,
    ) -> ServiceResult<SyncOutcome> {
        retry_on_collision(|| self.sync_staff_once(context, batch, now)).await
    }

    async fn sync_staff_once(
        &self,
        context: &AuditContext,
        batch: &StaffBatch,
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
        let departments = sync_references(
            &mut tx,
            Reference::Department,
            &batch.departments,
            now,
            &mut outcome.errors,
        )
        .await?;
        let positions = sync_references(
            &mut tx,
            Reference::Position,
            &batch.positions,
            now,
            &mut outcome.errors,
        )
        .await?;
        let mut staff = read_staff(&mut tx).await?;
        let plans = plan_people(
            &mut staff,
            batch,
            &departments.by_code,
            &positions.by_code,
            &mut outcome.errors,
            &mut outcome.unchanged,
        );
        let (people, raised) = write_plans(&mut tx, &staff, &plans, now).await?;
        if !batch.dry_run {
            let records = sync_records(
                &staff,
                &plans,
                &people,
                &departments.written,
                &positions.written,
            );
            audit::record_all(&mut tx, context, &records).await?;
        }
        for change in &people {
            match change.action {
                Action::Created => outcome.created += 1,
                Action::Changed => outcome.changed += 1,
                Action::Blocked => outcome.blocked += 1,
            }
        }
        outcome.people = people;
        outcome.departments = departments.changes;
        outcome.department_counts = departments.counts;
        outcome.positions = positions.changes;
        outcome.position_counts = positions.counts;
        // Errors in the order of the request: by list, then row.
        outcome.errors.sort_by_key(|error| {
            let section = [Section::Departments, Section::Positions, Section::People]
                .iter()
                .position(|s| *s == error.section);
            (section, error.index.is_none(), error.index)
        });
        if batch.dry_run {
            tx.rollback().await?;
            for change in outcome
                .people
                .iter_mut()
                .filter(|c| c.action == Action::Created)
            {
                change.user_id = 0;
            }
            for change in outcome.departments.iter_mut().chain(&mut outcome.positions) {
                if change.action == Action::Created {
                    change.id = 0;
                }
            }
        } else {
            tx.commit().await?;
            outcome.raised = raised;
        }
        Ok(outcome)
    }
}
