//! Users: profiles with their departments, positions and rights; what sign-in
//! reads of a login; updates that end sessions or make tokens stale.

use portal_kit::audit::{AuditContext, action};
use portal_kit::db::{Backend, Keyed, conflict_on_unique, for_update, rekey};
use portal_kit::{Right, ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::access::{raise_access_version, subject};
use super::audit::user_written;
use super::mfa::forget_trusted_devices;
use super::reference::{PositionRecord, RightRecord, StatusRecord};
use super::rows::{DepartmentRecord, UserRecord};
use super::search;
use super::{Link, Store, all_links, check_links, links, write_links};
use crate::domain::ids::LinkTo;
use crate::domain::login::LoginKey;
use crate::domain::password::PasswordHash;
use crate::domain::staff::HR_LINK_ADMIN;
use crate::domain::user::{
    EmployeeNumberEdit, MSG_EMPLOYEE_NUMBER_TAKEN, MSG_LAST_USER_MANAGER, MSG_LOGIN_TAKEN,
    MSG_USER_NOT_FOUND, Profile, REASON_EMPLOYEE_NUMBER_TAKEN,
};

#[derive(Clone, Debug, FromRow)]
struct UserRow {
    id: i64,
    name: String,
    surname: String,
    last_name: String,
    login: String,
    email: String,
    status_id: Option<i64>,
    created_at: i64,
    employee_number: Option<String>,
    hr_link: Option<String>,
}

impl UserRecord {
    fn from_row(
        row: UserRow,
        department_ids: Vec<i64>,
        position_ids: Vec<i64>,
        right_ids: Vec<i64>,
    ) -> Self {
        UserRecord {
            id: row.id,
            name: row.name,
            surname: row.surname,
            last_name: row.last_name,
            login: row.login,
            email: row.email,
            status_id: row.status_id,
            created_at: row.created_at,
            employee_number: row.employee_number,
            hr_link: row.hr_link,
            department_ids,
            position_ids,
            right_ids,
        }
    }
}

/// A line of GetMe's one query: the user (kind 0, the user's columns set),
/// then a department (1), position (2) or right (3) with its name in `title`.
#[derive(Clone, Debug, FromRow)]
struct MeLine {
    kind: i64,
    id: i64,
    title: String,
    surname: Option<String>,
    last_name: Option<String>,
    login: Option<String>,
    email: Option<String>,
    status_id: Option<i64>,
    created_at: Option<i64>,
    status_name: Option<String>,
    blocks_sign_in: Option<i64>,
    employee_number: Option<String>,
}

/// Everything GetMe shows: the user, their status, and their departments,
/// positions and rights with names.
#[derive(Clone, Debug)]
pub struct Me {
    pub user: UserRecord,
    pub status: Option<StatusRecord>,
    pub departments: Vec<DepartmentRecord>,
    pub positions: Vec<PositionRecord>,
    pub rights: Vec<RightRecord>,
}

impl Me {
    /// From GetMe's lines, the user's first, departments and positions in
    /// reading order; `None` without the user's.
    fn from_lines(lines: Vec<MeLine>) -> Option<Me> {
        let mut lines = lines.into_iter();
        let user = lines.next().filter(|line| line.kind == 0)?;
        let mut me = Me {
            status: match (user.status_id, user.status_name, user.blocks_sign_in) {
                (Some(id), Some(name), Some(blocks_sign_in)) => Some(StatusRecord {
                    id,
                    name,
                    blocks_sign_in,
                }),
                _ => None,
            },
            user: UserRecord::from_row(
                UserRow {
                    id: user.id,
                    name: user.title,
                    surname: user.surname.unwrap_or_default(),
                    last_name: user.last_name.unwrap_or_default(),
                    login: user.login.unwrap_or_default(),
                    email: user.email.unwrap_or_default(),
                    status_id: user.status_id,
                    created_at: user.created_at.unwrap_or_default(),
                    employee_number: user.employee_number,
                    hr_link: None,
                },
                Vec::new(),
                Vec::new(),
                Vec::new(),
            ),
            departments: Vec::new(),
            positions: Vec::new(),
            rights: Vec::new(),
        };
        for MeLine {
            kind, id, title, ..
        } in lines
        {
            match kind {
                1 => me.departments.push(DepartmentRecord { id, title }),
                2 => me.positions.push(PositionRecord { id, title }),
                _ /* 3 */ => me.rights.push(RightRecord { id, name: title }),
            }
        }
        me.rights.sort_by_key(|right| right.id);
        // A user's link ids are in id order wherever a user is shown.
        me.user.department_ids = me.departments.iter().map(|d| d.id).collect();
        me.user.department_ids.sort_unstable();
        me.user.position_ids = me.positions.iter().map(|p| p.id).collect();
        me.user.position_ids.sort_unstable();
        me.user.right_ids = me.rights.iter().map(|r| r.id).collect();
        Some(me)
    }
}

/// What sign-in needs to know about a login.
#[derive(Clone, Debug)]
pub struct Credentials {
    pub user_id: i64,
    pub password_hash: PasswordHash,
    pub blocked: bool,
    /// The person confirmed an authenticator ([`select_credentials`]).
    pub second_factor: bool,
}

/// A user as updated, the sessions the update ended, and the user's new
/// access version if what their tokens say is no longer true.
#[derive(Clone, Debug)]
pub struct UserUpdated {
    pub user: UserRecord,
    pub ended: SessionsEnded,
    pub access_version: Option<i64>,
}

/// Which of a user's sessions an update ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionsEnded {
    None,
    PasswordChanged,
    Blocked,
}

/// What sign-in reads of a person: id, password hash, whether their status
/// blocks sign-in, whether they confirmed an authenticator, employee number.
pub(super) type CredentialsRow = (i64, String, i64, i64, Option<String>);

/// The [`CredentialsRow`] of the person `condition` names (of `u`, `$1` bound).
/// The authenticator is read with the password so that a sign-in of someone
/// without one asks nothing more of the database.
pub(super) fn select_credentials(condition: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(format!(
        "SELECT u.id, u.password_hash, COALESCE(s.blocks_sign_in, 0), \
         (SELECT COUNT(*) FROM mfa_factors f WHERE f.user_id = u.id AND f.confirmed_at IS NOT NULL), \
         u.employee_number FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE {condition}"
    ))
}

pub(super) fn credentials_of(
    (user_id, hash, blocked, second_factor, _): CredentialsRow,
) -> Credentials {
    Credentials {
        user_id,
        password_hash: PasswordHash::from_stored(hash),
        blocked: blocked != 0,
        second_factor: second_factor != 0,
    }
}

const KEYED_LOGINS: Keyed = Keyed {
    table: "users",
    text: "login",
    key: "login_key",
};

const USER_COLUMNS_BY_ID: &str = "SELECT id, name, surname, last_name, login, email, status_id, created_at, employee_number, hr_link FROM users WHERE id = $1";

impl Store {
    pub async fn count_users(&self) -> ServiceResult<i64> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&self.pool)
            .await?)
    }

    pub async fn user_id_by_login(&self, login: &LoginKey) -> ServiceResult<Option<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM users WHERE login_key = $1")
                .bind(login.as_str())
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    pub async fn user(&self, id: i64) -> ServiceResult<UserRecord> {
        let mut conn = self.read().await?;
        user(&mut conn, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_USER_NOT_FOUND))
    }

    pub async fn users(&self) -> ServiceResult<Vec<UserRecord>> {
        let mut conn = self.read().await?;
        let rows: Vec<UserRow> = sqlx::query_as(
            "SELECT id, name, surname, last_name, login, email, status_id, created_at, employee_number, hr_link FROM users \
             ORDER BY surname, name, id",
        )
        .fetch_all(&mut *conn)
        .await?;
        let mut departments = all_links(&mut conn, Link::UserDepartments).await?;
        let mut positions = all_links(&mut conn, Link::UserPositions).await?;
        let mut rights = all_links(&mut conn, Link::UserRights).await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let id = row.id;
                UserRecord::from_row(
                    row,
                    departments.remove(&id).unwrap_or_default(),
                    positions.remove(&id).unwrap_or_default(),
                    rights.remove(&id).unwrap_or_default(),
                )
            })
            .collect())
    }

    /// A user as they see themself (GetMe): two queries on one connection, the
    /// user with their status, then every department, position and right of
    /// theirs with its name.
    pub async fn me(&self, id: i64) -> ServiceResult<Me> {
        // One statement, not two: most of a GetMe's cost is its round trips
        // to the database (SQLite's worker thread, PostgreSQL's server).
        // Departments and positions come in the order people read them (title,
        // then id), as every other list of them; rights are sorted by id.
        let lines: Vec<MeLine> = sqlx::query_as(
            "SELECT CAST(0 AS BIGINT) AS kind, u.id, u.name AS title, u.surname, u.last_name, \
               u.login, u.email, u.status_id, u.created_at, s.name AS status_name, s.blocks_sign_in, \
               u.employee_number \
             FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE u.id = $1 \
             UNION ALL SELECT 1, d.id, d.title, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL \
             FROM department_users du JOIN departments d ON d.id = du.department_id WHERE du.user_id = $1 \
             UNION ALL SELECT 2, p.id, p.title, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL \
             FROM user_positions up JOIN positions p ON p.id = up.position_id WHERE up.user_id = $1 \
             UNION ALL SELECT 3, r.id, r.name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL \
             FROM user_rights ur JOIN rights r ON r.id = ur.right_id WHERE ur.user_id = $1 \
             ORDER BY 1, 3, 2",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        Me::from_lines(lines).ok_or_else(|| ServiceError::not_found(MSG_USER_NOT_FOUND))
    }

    /// What sign-in needs to know about the person of `login`, if any.
    pub async fn credentials(&self, login: &LoginKey) -> ServiceResult<Option<Credentials>> {
        let row: Option<CredentialsRow> = sqlx::query_as(select_credentials("u.login_key = $1"))
            .bind(login.as_str())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(credentials_of))
    }

    /// Creates a user with their links; the login must be free.
    pub async fn create_user(
        &self,
        context: &AuditContext,
        profile: &Profile,
        password: &PasswordHash,
        now: i64,
    ) -> ServiceResult<UserRecord> {
        let mut tx = self.write().await?;
        check_profile_links(&mut tx, profile).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO users (name, surname, last_name, login, login_key, email, password_hash, status_id, \
             created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        )
        .bind(profile.name.as_str())
        .bind(profile.surname.as_str())
        .bind(profile.last_name.as_str())
        .bind(profile.login.as_str())
        .bind(profile.login.key().as_str())
        .bind(profile.email.as_str())
        .bind(password.as_str())
        .bind(profile.status_id)
        .bind(now)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|error| conflict_on_unique(error, || ServiceError::conflict(MSG_LOGIN_TAKEN)))?;
        link_employee_number(&mut tx, id, &profile.employee_number, None).await?;
        write_user_links(&mut tx, id, profile).await?;
        let user = user(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::internal("a created user vanished"))?;
        let rights = right_names(&mut tx, id).await?;
        user_written(
            &mut tx,
            context,
            action::CREATE,
            None,
            (&user, &rights),
            // A person the directory's sign-in creates has none.
            !password.is_none(),
        )
        .await?;
        search::index_user(&mut tx, id).await?;
        tx.commit().await?;
        Ok(user)
    }

    /// Replaces a user's profile and links, and their password if one is given.
    /// A new password or a status that blocks sign-in ends all their sessions.
    pub async fn update_user(
        &self,
        context: &AuditContext,
        id: i64,
        profile: &Profile,
        password: Option<&PasswordHash>,
        now: i64,
    ) -> ServiceResult<UserUpdated> {
        let mut tx = self.write().await?;
        lock_user_managers(&mut tx).await?;
        let before = subject(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_USER_NOT_FOUND))?;
        let old = user(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_USER_NOT_FOUND))?;
        let blocked = check_profile_links(&mut tx, profile).await?;
        write_profile(&mut tx, id, profile, now).await?;
        link_employee_number(
            &mut tx,
            id,
            &profile.employee_number,
            old.employee_number.as_deref(),
        )
        .await?;
        if let Some(hash) = password {
            set_password(&mut tx, id, hash).await?;
        }
        relink_user(&mut tx, id, profile).await?;
        require_a_user_manager(&mut tx).await?;
        let ended = if blocked {
            SessionsEnded::Blocked
        } else if password.is_some() {
            SessionsEnded::PasswordChanged
        } else {
            SessionsEnded::None
        };
        if ended != SessionsEnded::None {
            end_sessions(&mut tx, id, now).await?;
        }
        // Tokens say who the person is and what they may do: once that
        // changed, or they are blocked, every token signed before is stale.
        let after = subject(&mut tx, id).await?;
        let access_version = if blocked || after.as_ref() != Some(&before) {
            Some(raise_access_version(&mut tx, id, now).await?)
        } else {
            None
        };
        let user = user(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::internal("an updated user vanished"))?;
        // Blocking is an update of the status; it is named for what it does.
        let action = if blocked && old.status_id != user.status_id {
            action::BLOCK
        } else {
            action::UPDATE
        };
        let rights_after = after.as_ref().map(|a| a.rights.clone()).unwrap_or_default();
        user_written(
            &mut tx,
            context,
            action,
            Some((&old, &before.rights)),
            (&user, &rights_after),
            password.is_some(),
        )
        .await?;
        search::index_user(&mut tx, id).await?;
        tx.commit().await?;
        Ok(UserUpdated {
            user,
            ended,
            access_version,
        })
    }

    /// Gives every login the key of [`LoginKey::of`] where it holds another: rows
    /// keyed before lookalike letters were folded.
    pub async fn key_logins(&self) -> ServiceResult<()> {
        rekey(&self.pool, &KEYED_LOGINS, |login| {
            LoginKey::of(login).as_str().to_owned()
        })
        .await
    }
}

/// Writes user `id`'s fields of `profile`; a login someone has is refused.
async fn write_profile(
    conn: &mut AnyConnection,
    id: i64,
    profile: &Profile,
    now: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "UPDATE users SET name = $1, surname = $2, last_name = $3, login = $4, login_key = $5, email = $6, \
         status_id = $7, updated_at = $8 WHERE id = $9",
    )
    .bind(profile.name.as_str())
    .bind(profile.surname.as_str())
    .bind(profile.last_name.as_str())
    .bind(profile.login.as_str())
    .bind(profile.login.key().as_str())
    .bind(profile.email.as_str())
    .bind(profile.status_id)
    .bind(now)
    .bind(id)
    .execute(&mut *conn)
    .await
    .map_err(|error| conflict_on_unique(error, || ServiceError::conflict(MSG_LOGIN_TAKEN)))?;
    Ok(())
}

/// Sets user `id`'s password; the devices they trusted are asked for the
/// second factor again.
async fn set_password(conn: &mut AnyConnection, id: i64, hash: &PasswordHash) -> ServiceResult<()> {
    sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
        .bind(hash.as_str())
        .bind(id)
        .execute(&mut *conn)
        .await?;
    forget_trusted_devices(conn, id).await?;
    Ok(())
}

/// Replaces user `id`'s departments, positions and rights by `profile`'s.
async fn relink_user(conn: &mut AnyConnection, id: i64, profile: &Profile) -> ServiceResult<()> {
    for link in [Link::UserDepartments, Link::UserPositions, Link::UserRights] {
        sqlx::query(link.delete_of_owner())
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    write_user_links(conn, id, profile).await
}

/// Refuses a write that leaves nobody who may sign in and manage users.
async fn require_a_user_manager(conn: &mut AnyConnection) -> ServiceResult<()> {
    let managers: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM user_rights ur JOIN rights r ON r.id = ur.right_id \
         JOIN users u ON u.id = ur.user_id LEFT JOIN statuses s ON s.id = u.status_id \
         WHERE r.name = $1 AND COALESCE(s.blocks_sign_in, 0) = 0",
    )
    .bind(Right::UserManagement.as_str())
    .fetch_one(&mut *conn)
    .await?;
    if managers == 0 {
        return Err(ServiceError::conflict(MSG_LAST_USER_MANAGER));
    }
    Ok(())
}

/// Ends every session of user `id`.
async fn end_sessions(conn: &mut AnyConnection, id: i64, now: i64) -> ServiceResult<()> {
    sqlx::query(
        "UPDATE refresh_families SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Makes writes that may block or take UserManagement queue here, so two of
/// them cannot both see the other leaving a holder. A lock and nothing else:
/// on SQLite, whose `BEGIN IMMEDIATE` serialises writers already, there is
/// nothing to run.
pub(super) async fn lock_user_managers(tx: &mut AnyConnection) -> sqlx::Result<()> {
    if Backend::of_connection(tx) == Backend::Postgres {
        sqlx::query(for_update(
            tx,
            "SELECT id FROM rights WHERE name = $1",
            "rights",
        ))
        .bind(Right::UserManagement.as_str())
        .fetch_optional(&mut *tx)
        .await?;
    }
    Ok(())
}

/// Links user `id` to the employee number of `edit` as an administrator's
/// word (the staff sync then keeps them in step by it, whatever their rights),
/// or unlinks them; `stored` is the number they have. A number another
/// person has is refused.
async fn link_employee_number(
    conn: &mut AnyConnection,
    id: i64,
    edit: &EmployeeNumberEdit,
    stored: Option<&str>,
) -> ServiceResult<()> {
    let number = match edit {
        EmployeeNumberEdit::Keep => return Ok(()),
        EmployeeNumberEdit::Unlink if stored.is_none() => return Ok(()),
        EmployeeNumberEdit::Unlink => None,
        EmployeeNumberEdit::Link(number) => Some(number.as_str()),
    };
    if let Some(number) = number {
        let holder: Option<i64> =
            sqlx::query_scalar("SELECT id FROM users WHERE employee_number = $1")
                .bind(number)
                .fetch_optional(&mut *conn)
                .await?;
        if holder.is_some_and(|holder| holder != id) {
            return Err(employee_number_taken());
        }
    }
    sqlx::query("UPDATE users SET employee_number = $1, hr_link = $2 WHERE id = $3")
        .bind(number)
        .bind(number.map(|_| HR_LINK_ADMIN))
        .bind(id)
        .execute(&mut *conn)
        .await
        .map_err(|error| conflict_on_unique(error, employee_number_taken))?;
    Ok(())
}

fn employee_number_taken() -> ServiceError {
    ServiceError::conflict(MSG_EMPLOYEE_NUMBER_TAKEN).because(REASON_EMPLOYEE_NUMBER_TAKEN)
}

/// Checks every link of a profile; answers whether its status blocks sign-in.
async fn check_profile_links(conn: &mut AnyConnection, profile: &Profile) -> ServiceResult<bool> {
    let mut blocked = false;
    if let Some(status_id) = profile.status_id {
        let blocks: Option<i64> =
            sqlx::query_scalar("SELECT blocks_sign_in FROM statuses WHERE id = $1")
                .bind(status_id)
                .fetch_optional(&mut *conn)
                .await?;
        blocked = blocks.ok_or_else(|| LinkTo::Status.unknown(status_id))? != 0;
    }
    check_links(conn, LinkTo::Department, &profile.departments).await?;
    check_links(conn, LinkTo::Position, &profile.positions).await?;
    check_links(conn, LinkTo::Right, &profile.rights).await?;
    Ok(blocked)
}

async fn write_user_links(
    conn: &mut AnyConnection,
    user_id: i64,
    profile: &Profile,
) -> ServiceResult<()> {
    write_links(conn, Link::UserDepartments, user_id, &profile.departments).await?;
    write_links(conn, Link::UserPositions, user_id, &profile.positions).await?;
    write_links(conn, Link::UserRights, user_id, &profile.rights).await
}

/// The names of a user's rights, in id order.
pub(super) async fn right_names(
    conn: &mut AnyConnection,
    user_id: i64,
) -> ServiceResult<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id WHERE ur.user_id = $1 ORDER BY r.id",
    )
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?)
}

/// User `id` as `conn` sees it, locked until a write transaction's end
/// ([`for_update`]): what the write changes them from.
async fn user(conn: &mut AnyConnection, id: i64) -> ServiceResult<Option<UserRecord>> {
    let row: Option<UserRow> = sqlx::query_as(for_update(conn, USER_COLUMNS_BY_ID, "users"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let departments = links(conn, Link::UserDepartments, id).await?;
    let positions = links(conn, Link::UserPositions, id).await?;
    let rights = links(conn, Link::UserRights, id).await?;
    Ok(Some(UserRecord::from_row(
        row,
        departments,
        positions,
        rights,
    )))
}
