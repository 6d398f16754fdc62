//! Writing a sync's plans: new people in multi-row inserts, changes one
//! person a statement, links by difference.

use std::collections::{BTreeSet, HashMap};

use portal_kit::ServiceError;
use portal_kit::db::WriteError;
use sqlx::AnyConnection;

use super::super::{IN_CHUNK, Link, placeholders, search};
use super::PersonChange;
use crate::domain::password::PasswordHash;
use crate::domain::staff::HR_LINK_SYNC;
use crate::domain::staff_plan::Action;
use crate::domain::staff_plan::people::{Plan, Staff, Target};

/// Rows in one multi-row INSERT of people: 12 binds each.
const INSERT_CHUNK: usize = 200;
/// Rows in one multi-row INSERT of links: 2 binds each.
const LINK_CHUNK: usize = 500;

/// What writing the plans leaves to do in bulk, and the versions raised.
#[derive(Default)]
struct Written {
    /// (user, department) links to insert.
    departments: Vec<(i64, i64)>,
    /// (user, position) links to insert.
    positions: Vec<(i64, i64)>,
    /// People whose access version went up, with the new version.
    raised: Vec<(i64, i64)>,
    /// People blocked, whose sessions end.
    blocked: Vec<i64>,
}

/// Writes the plans: new people in multi-row inserts, each changed person in
/// one update (with their access version raised where their tokens went
/// stale), the links that differ, and the end of the blocked people's
/// sessions. Answers each person's change and the raised versions.
pub(super) async fn write_plans(
    conn: &mut AnyConnection,
    staff: &Staff,
    plans: &[Plan],
    now: i64,
) -> Result<(Vec<PersonChange>, Vec<(i64, i64)>), WriteError> {
    let created = insert_people(conn, plans, now).await?;
    let mut changes = Vec::with_capacity(plans.len());
    let mut written = Written::default();
    for plan in plans {
        let target = &plan.target;
        let user_id = match plan.stored {
            None => {
                let id = *created.get(&target.employee_number).ok_or_else(|| {
                    ServiceError::internal("a created person's id was not returned")
                })?;
                written
                    .departments
                    .extend(target.departments.iter().map(|&d| (id, d)));
                written
                    .positions
                    .extend(target.positions.iter().map(|&p| (id, p)));
                id
            }
            Some(at) => write_known_person(conn, staff, plan, at, now, &mut written).await?,
        };
        changes.push(PersonChange {
            employee_number: target.employee_number.clone(),
            action: plan.action,
            changed: plan.changed.clone(),
            user_id,
        });
    }
    insert_links(conn, Link::UserDepartments, &written.departments).await?;
    insert_links(conn, Link::UserPositions, &written.positions).await?;
    end_sessions(conn, &written.blocked, now).await?;
    Ok((changes, written.raised))
}

/// Writes the plan of the known person at `at`: their fields and the links
/// they lost now, the rest into `written`. Answers their id.
async fn write_known_person(
    conn: &mut AnyConnection,
    staff: &Staff,
    plan: &Plan,
    at: usize,
    now: i64,
    written: &mut Written,
) -> Result<i64, WriteError> {
    let target = &plan.target;
    let id = staff.people[at].id;
    let stale = plan.makes_tokens_stale();
    if let Some(version) = update_person(conn, id, target, stale, now).await? {
        written.raised.push((id, version));
    }
    for (link, map, after, pairs) in [
        (
            Link::UserDepartments,
            &staff.departments,
            &target.departments,
            &mut written.departments,
        ),
        (
            Link::UserPositions,
            &staff.positions,
            &target.positions,
            &mut written.positions,
        ),
    ] {
        let before: BTreeSet<i64> = map.get(&id).into_iter().flatten().copied().collect();
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
        written.blocked.push(id);
    }
    Ok(id)
}

/// Ends the sessions of the `blocked` people.
async fn end_sessions(
    conn: &mut AnyConnection,
    blocked: &[i64],
    now: i64,
) -> Result<(), WriteError> {
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
    Ok(())
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
            .map(|i| placeholders(i * 12 + 1, 12))
            .collect();
        let statement = format!(
            "INSERT INTO users (employee_number, name, surname, last_name, login, login_key, email, \
             password_hash, status_id, created_at, updated_at, hr_link) VALUES {} RETURNING id, employee_number",
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
                .bind(now)
                .bind(HR_LINK_SYNC);
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
