//! Auth's queries: one set for SQLite and PostgreSQL through sqlx's Any driver.
//!
//! Reads run on a pooled connection; every write that touches more than one row
//! runs in one transaction, which checks the links it writes so that an unknown
//! id becomes a Russian message rather than a foreign-key error. On SQLite write
//! transactions start with `BEGIN IMMEDIATE`, so two writers queue on the busy
//! timeout instead of failing to upgrade a read lock.

use std::collections::HashMap;

use portal_kit::db::{Backend, Keyed, conflict_on_unique, now_millis, rekey};
use portal_kit::revocation::Changes;
use portal_kit::text::name_key;
use portal_kit::token::Subject;
use portal_kit::{Right, ServiceError, ServiceResult};
use sqlx::any::Any;
use sqlx::{AnyConnection, AnyPool, FromRow, Transaction};

use crate::domain::department::{DepartmentDraft, MSG_DEPARTMENT_NOT_FOUND, MSG_TITLE_TAKEN};
use crate::domain::ids::{IdSet, LinkTo};
use crate::domain::login::LoginKey;
use crate::domain::password::PasswordHash;
use crate::domain::rate_limit::{AttemptKeys, Counts, window_start};
use crate::domain::secret::SecretHash;
use crate::domain::user::{MSG_LAST_USER_MANAGER, MSG_LOGIN_TAKEN, MSG_USER_NOT_FOUND, Profile};

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

// --- Records ---

#[derive(Clone, Debug, FromRow)]
pub struct DepartmentRecord {
    pub id: i64,
    pub title: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct MemberRecord {
    pub id: i64,
    pub name: String,
    pub surname: String,
    pub last_name: String,
}

#[derive(Clone, Debug)]
pub struct DepartmentWithMembers {
    pub id: i64,
    pub title: String,
    pub members: Vec<MemberRecord>,
}

#[derive(Clone, Debug, FromRow)]
pub struct StatusRecord {
    pub id: i64,
    pub name: String,
    pub blocks_sign_in: i64,
}

#[derive(Clone, Debug, FromRow)]
pub struct PositionRecord {
    pub id: i64,
    pub title: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct RightRecord {
    pub id: i64,
    pub name: String,
}

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
}

/// A user with the ids of their links.
#[derive(Clone, Debug)]
pub struct UserRecord {
    pub id: i64,
    pub name: String,
    pub surname: String,
    pub last_name: String,
    pub login: String,
    pub email: String,
    pub status_id: Option<i64>,
    pub created_at: i64,
    pub department_ids: Vec<i64>,
    pub position_ids: Vec<i64>,
    pub right_ids: Vec<i64>,
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
            department_ids,
            position_ids,
            right_ids,
        }
    }
}

#[derive(Clone, Debug, FromRow)]
struct MeRow {
    #[sqlx(flatten)]
    user: UserRow,
    status_name: Option<String>,
    blocks_sign_in: Option<i64>,
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
    /// `links` are (kind, id, name) rows, departments and positions in reading order.
    fn from_rows(row: MeRow, links: Vec<(String, i64, String)>) -> Me {
        let mut me = Me {
            status: match (row.user.status_id, row.status_name, row.blocks_sign_in) {
                (Some(id), Some(name), Some(blocks_sign_in)) => Some(StatusRecord {
                    id,
                    name,
                    blocks_sign_in,
                }),
                _ => None,
            },
            user: UserRecord::from_row(row.user, Vec::new(), Vec::new(), Vec::new()),
            departments: Vec::new(),
            positions: Vec::new(),
            rights: Vec::new(),
        };
        for (kind, id, name) in links {
            match kind.as_str() {
                "department" => me.departments.push(DepartmentRecord { id, title: name }),
                "position" => me.positions.push(PositionRecord { id, title: name }),
                _ /* "right" */ => me.rights.push(RightRecord { id, name }),
            }
        }
        me.rights.sort_by_key(|right| right.id);
        // A user's link ids are in id order wherever a user is shown.
        me.user.department_ids = me.departments.iter().map(|d| d.id).collect();
        me.user.department_ids.sort_unstable();
        me.user.position_ids = me.positions.iter().map(|p| p.id).collect();
        me.user.position_ids.sort_unstable();
        me.user.right_ids = me.rights.iter().map(|r| r.id).collect();
        me
    }
}

/// What sign-in needs to know about a login.
#[derive(Clone, Debug)]
pub struct Credentials {
    pub user_id: i64,
    pub password_hash: PasswordHash,
    pub blocked: bool,
}

/// The outcome of exchanging a refresh token for its successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rotation {
    /// The successor is stored; the token sent is used up.
    Rotated { user_id: i64 },
    /// The token had been exchanged before: someone holds a copy. Its family is
    /// now revoked.
    Reused { user_id: i64, family_id: i64 },
    /// The user's status blocks sign-in; the family is now revoked.
    Blocked { user_id: i64 },
    /// Unknown, expired or already revoked.
    Invalid,
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

const KEYED_TITLES: Keyed = Keyed {
    table: "departments",
    text: "title",
    key: "title_key",
};

const KEYED_LOGINS: Keyed = Keyed {
    table: "users",
    text: "login",
    key: "login_key",
};

/// How long a device nobody signs in on stays known: a year.
const DEVICE_FORGOTTEN_AFTER_MILLIS: i64 = 365 * 24 * 3600 * 1000;

const USER_COLUMNS_BY_ID: &str = "SELECT id, name, surname, last_name, login, email, status_id, created_at FROM users WHERE id = $1";

impl Store {
    pub fn new(pool: AnyPool, backend: Backend) -> Store {
        Store { pool, backend }
    }

    async fn read(&self) -> ServiceResult<sqlx::pool::PoolConnection<Any>> {
        Ok(self.pool.acquire().await?)
    }

    async fn write(&self) -> ServiceResult<Transaction<'static, Any>> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }

    // --- Reference data ---

    pub async fn statuses(&self) -> ServiceResult<Vec<StatusRecord>> {
        Ok(
            sqlx::query_as("SELECT id, name, blocks_sign_in FROM statuses ORDER BY id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub async fn positions(&self) -> ServiceResult<Vec<PositionRecord>> {
        Ok(
            sqlx::query_as("SELECT id, title FROM positions ORDER BY title, id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub async fn rights(&self) -> ServiceResult<Vec<RightRecord>> {
        Ok(sqlx::query_as("SELECT id, name FROM rights ORDER BY id")
            .fetch_all(&self.pool)
            .await?)
    }

    pub async fn status_named(&self, name: &str) -> ServiceResult<Option<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM statuses WHERE name = $1")
                .bind(name)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    pub async fn position_titled(&self, title: &str) -> ServiceResult<Option<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM positions WHERE title = $1")
                .bind(title)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    // --- Sign-in and sessions ---

    pub async fn credentials(&self, login: &LoginKey) -> ServiceResult<Option<Credentials>> {
        let row: Option<(i64, String, i64)> = sqlx::query_as(
            "SELECT u.id, u.password_hash, COALESCE(s.blocks_sign_in, 0) \
             FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE u.login_key = $1",
        )
        .bind(login.as_str())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(user_id, hash, blocked)| Credentials {
            user_id,
            password_hash: PasswordHash::from_stored(hash),
            blocked: blocked != 0,
        }))
    }

    /// Who an access token for `user_id` speaks of: names, right names,
    /// department ids, access version.
    pub async fn subject(&self, user_id: i64) -> ServiceResult<Option<Subject>> {
        subject(&mut *self.read().await?, user_id).await
    }

    /// The access versions changed since the cursor `since`, and the next
    /// cursor: this moment, taken before the query.
    pub async fn changes_since(&self, since: i64) -> ServiceResult<Changes> {
        let cursor = now_millis();
        Ok(Changes {
            versions: self.access_changes(since).await?,
            cursor,
        })
    }

    /// The persons whose access version changed at `since` or up to
    /// [`ACCESS_CHANGES_LOOKBACK_MS`] before it (every changed person for 0),
    /// with their versions.
    pub async fn access_changes(&self, since: i64) -> ServiceResult<Vec<(i64, i64)>> {
        let from = if since <= 0 {
            i64::MIN
        } else {
            since - ACCESS_CHANGES_LOOKBACK_MS
        };
        Ok(sqlx::query_as(
            "SELECT id, access_version FROM users WHERE access_changed_at >= $1 AND access_version > 0",
        )
        .bind(from)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Starts a session: a new family holding its first refresh token.
    pub async fn start_session(
        &self,
        user_id: i64,
        token: &SecretHash,
        now: i64,
        expires_at: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let family_id: i64 = sqlx::query_scalar(
            "INSERT INTO refresh_families (user_id, created_at, expires_at) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(user_id)
        .bind(now)
        .bind(expires_at)
        .fetch_one(&mut *tx)
        .await?;
        insert_refresh_token(&mut tx, family_id, token, now, expires_at).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Exchanges the token hashed `old` for the one hashed `new`, atomically: the
    /// first statement claims the old token, so of two concurrent exchanges only
    /// one succeeds and the other is treated as the reuse it is.
    pub async fn rotate(
        &self,
        old: &SecretHash,
        new: &SecretHash,
        now: i64,
        expires_at: i64,
    ) -> ServiceResult<Rotation> {
        let mut tx = self.write().await?;
        let claimed = sqlx::query(
            "UPDATE refresh_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL",
        )
        .bind(now)
        .bind(old.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        let row: Option<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "SELECT t.family_id, t.expires_at, f.user_id, f.revoked_at \
             FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id WHERE t.token_hash = $1",
        )
        .bind(old.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((family_id, token_expires_at, user_id, revoked_at)) = row else {
            return Ok(Rotation::Invalid);
        };
        if revoked_at.is_some() || token_expires_at <= now {
            tx.commit().await?;
            return Ok(Rotation::Invalid);
        }
        if !claimed {
            revoke_family(&mut tx, family_id, now).await?;
            tx.commit().await?;
            return Ok(Rotation::Reused { user_id, family_id });
        }
        let blocked: i64 = sqlx::query_scalar(
            "SELECT COALESCE(s.blocks_sign_in, 0) FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE u.id = $1",
        )
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
        if blocked != 0 {
            revoke_family(&mut tx, family_id, now).await?;
            tx.commit().await?;
            return Ok(Rotation::Blocked { user_id });
        }
        let extended = sqlx::query(
            "UPDATE refresh_families SET expires_at = $1 WHERE id = $2 AND revoked_at IS NULL",
        )
        .bind(expires_at)
        .bind(family_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if extended != 1 {
            // Revoked while this exchange waited for the row.
            return Ok(Rotation::Invalid);
        }
        insert_refresh_token(&mut tx, family_id, new, now, expires_at).await?;
        tx.commit().await?;
        Ok(Rotation::Rotated { user_id })
    }

    /// Ends the session the token belongs to; an unknown token ends nothing.
    pub async fn revoke_session_of(&self, token: &SecretHash, now: i64) -> ServiceResult<bool> {
        let revoked = sqlx::query(
            "UPDATE refresh_families SET revoked_at = $1 \
             WHERE revoked_at IS NULL AND id IN (SELECT family_id FROM refresh_tokens WHERE token_hash = $2)",
        )
        .bind(now)
        .bind(token.as_str())
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(revoked > 0)
    }

    /// Forgets sessions whose newest token has expired.
    pub async fn purge_expired_sessions(&self, now: i64) -> ServiceResult<u64> {
        Ok(
            sqlx::query("DELETE FROM refresh_families WHERE expires_at < $1")
                .bind(now)
                .execute(&self.pool)
                .await?
                .rows_affected(),
        )
    }

    // --- Sign-in limits and known devices ---

    /// Records an attempt before its password is checked and returns its id with
    /// what the window holds for its keys, itself and earlier attempts included:
    /// of parallel attempts, each sees those that started before it.
    pub async fn begin_sign_in_attempt(
        &self,
        keys: &AttemptKeys,
        now: i64,
    ) -> ServiceResult<(i64, Counts)> {
        let mut conn = self.read().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO sign_in_attempts (at, address_key, login_key, device_key) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(now)
        .bind(keys.address.as_str())
        .bind(keys.login.as_deref())
        .bind(keys.device.as_deref())
        .fetch_one(&mut *conn)
        .await?;
        let (login, address, login_oldest_at): (i64, i64, Option<i64>) = sqlx::query_as(
            "SELECT \
               COALESCE(SUM(CASE WHEN login_key = $1 THEN 1 ELSE 0 END), 0), \
               COALESCE(SUM(CASE WHEN address_key = $2 THEN 1 ELSE 0 END), 0), \
               MIN(CASE WHEN login_key = $1 THEN at END) \
             FROM sign_in_attempts \
             WHERE at > $3 AND id <= $4 AND (login_key = $1 OR address_key = $2)",
        )
        .bind(keys.login.as_deref())
        .bind(keys.address.as_str())
        .bind(window_start(now))
        .bind(id)
        .fetch_one(&mut *conn)
        .await?;
        Ok((
            id,
            Counts {
                login,
                address,
                login_oldest_at,
            },
        ))
    }

    pub async fn fail_sign_in_attempt(&self, id: i64) -> ServiceResult<()> {
        sqlx::query("UPDATE sign_in_attempts SET failed = 1 WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Forgets an attempt that was right, or never finished.
    pub async fn forget_sign_in_attempt(&self, id: i64) -> ServiceResult<()> {
        sqlx::query("DELETE FROM sign_in_attempts WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Forgets attempts that no window holds any more.
    pub async fn purge_sign_in_attempts(&self, now: i64) -> ServiceResult<u64> {
        Ok(sqlx::query("DELETE FROM sign_in_attempts WHERE at <= $1")
            .bind(window_start(now))
            .execute(&self.pool)
            .await?
            .rows_affected())
    }

    /// Failed attempts with a known device's key within the window.
    pub async fn device_failures(&self, device_key: &str, now: i64) -> ServiceResult<i64> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM sign_in_attempts WHERE device_key = $1 AND failed = 1 AND at > $2",
        )
        .bind(device_key)
        .bind(window_start(now))
        .fetch_one(&self.pool)
        .await?)
    }

    /// Whether the browser holding the device token hashed `device` has signed
    /// in as `user_id` before.
    pub async fn is_known_device(&self, device: &SecretHash, user_id: i64) -> ServiceResult<bool> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT user_id FROM known_devices WHERE token_hash = $1 AND user_id = $2",
        )
        .bind(device.as_str())
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }

    /// Whether any person has signed in on the browser holding this device token.
    pub async fn device_exists(&self, device: &SecretHash) -> ServiceResult<bool> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT user_id FROM known_devices WHERE token_hash = $1 LIMIT 1")
                .bind(device.as_str())
                .fetch_optional(&self.pool)
                .await?;
        Ok(found.is_some())
    }

    /// Notes that `user_id` signed in on the browser holding this device token.
    pub async fn remember_device(
        &self,
        device: &SecretHash,
        user_id: i64,
        now: i64,
    ) -> ServiceResult<()> {
        sqlx::query(
            "INSERT INTO known_devices (token_hash, user_id, last_used_at) VALUES ($1, $2, $3) \
             ON CONFLICT (token_hash, user_id) DO UPDATE SET last_used_at = excluded.last_used_at",
        )
        .bind(device.as_str())
        .bind(user_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Forgets devices nobody has signed in on for a year; run at start, not on
    /// every sign-in, which is the path a flood contends on.
    pub async fn purge_unused_devices(&self, now: i64) -> ServiceResult<u64> {
        let before = now.saturating_sub(DEVICE_FORGOTTEN_AFTER_MILLIS);
        Ok(
            sqlx::query("DELETE FROM known_devices WHERE last_used_at < $1")
                .bind(before)
                .execute(&self.pool)
                .await?
                .rows_affected(),
        )
    }

    // --- Users ---

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

    pub async fn user(&self, id: i64) -> ServiceResult<Option<UserRecord>> {
        let mut conn = self.read().await?;
        user(&mut conn, id).await
    }

    pub async fn users(&self) -> ServiceResult<Vec<UserRecord>> {
        let mut conn = self.read().await?;
        let rows: Vec<UserRow> = sqlx::query_as(
            "SELECT id, name, surname, last_name, login, email, status_id, created_at FROM users \
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
    pub async fn me(&self, id: i64) -> ServiceResult<Option<Me>> {
        let mut conn = self.read().await?;
        let row: Option<MeRow> = sqlx::query_as(
            "SELECT u.id, u.name, u.surname, u.last_name, u.login, u.email, u.status_id, u.created_at, \
             s.name AS status_name, s.blocks_sign_in \
             FROM users u LEFT JOIN statuses s ON s.id = u.status_id WHERE u.id = $1",
        )
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
        let Some(row) = row else { return Ok(None) };
        // Departments and positions come in the order people read them (title,
        // then id), as every other list of them; rights are sorted by id below.
        let links: Vec<(String, i64, String)> = sqlx::query_as(
            "SELECT 'department', d.id, d.title FROM department_users du \
             JOIN departments d ON d.id = du.department_id WHERE du.user_id = $1 \
             UNION ALL SELECT 'position', p.id, p.title FROM user_positions up \
             JOIN positions p ON p.id = up.position_id WHERE up.user_id = $1 \
             UNION ALL SELECT 'right', r.id, r.name FROM user_rights ur \
             JOIN rights r ON r.id = ur.right_id WHERE ur.user_id = $1 \
             ORDER BY 1, 3, 2",
        )
        .bind(id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(Some(Me::from_rows(row, links)))
    }

    /// Creates a user with their links; the login must be free.
    pub async fn create_user(
        &self,
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
        write_user_links(&mut tx, id, profile).await?;
        let user = user(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::internal("a created user vanished"))?;
        tx.commit().await?;
        Ok(user)
    }

    /// Replaces a user's profile and links, and their password if one is given.
    /// A new password or a status that blocks sign-in ends all their sessions.
    pub async fn update_user(
        &self,
        id: i64,
        profile: &Profile,
        password: Option<&PasswordHash>,
        now: i64,
    ) -> ServiceResult<UserUpdated> {
        let mut tx = self.write().await?;
        if self.backend == Backend::Postgres {
            // Updates queue here, so two admins taking the right from each other
            // cannot both see the other still holding it (SQLite's BEGIN
            // IMMEDIATE serialises writers already).
            sqlx::query("SELECT id FROM rights WHERE name = $1 FOR UPDATE")
                .bind(Right::UserManagement.as_str())
                .fetch_optional(&mut *tx)
                .await?;
        }
        let before = subject(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_USER_NOT_FOUND))?;
        let blocked = check_profile_links(&mut tx, profile).await?;
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
        .execute(&mut *tx)
        .await
        .map_err(|error| conflict_on_unique(error, || ServiceError::conflict(MSG_LOGIN_TAKEN)))?;
        if let Some(hash) = password {
            sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
                .bind(hash.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        for link in [Link::UserDepartments, Link::UserPositions, Link::UserRights] {
            sqlx::query(link.delete_of_owner())
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        write_user_links(&mut tx, id, profile).await?;
        let managers: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM user_rights ur JOIN rights r ON r.id = ur.right_id \
             JOIN users u ON u.id = ur.user_id LEFT JOIN statuses s ON s.id = u.status_id \
             WHERE r.name = $1 AND COALESCE(s.blocks_sign_in, 0) = 0",
        )
        .bind(Right::UserManagement.as_str())
        .fetch_one(&mut *tx)
        .await?;
        if managers == 0 {
            return Err(ServiceError::conflict(MSG_LAST_USER_MANAGER));
        }
        let ended = if blocked {
            SessionsEnded::Blocked
        } else if password.is_some() {
            SessionsEnded::PasswordChanged
        } else {
            SessionsEnded::None
        };
        if ended != SessionsEnded::None {
            sqlx::query("UPDATE refresh_families SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL")
                .bind(now)
                .bind(id)
                .execute(&mut *tx)
                .await?;
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
        tx.commit().await?;
        Ok(UserUpdated {
            user,
            ended,
            access_version,
        })
    }

    // --- Departments ---

    pub async fn count_departments(&self) -> ServiceResult<i64> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM departments")
            .fetch_one(&self.pool)
            .await?)
    }

    pub async fn departments(&self) -> ServiceResult<Vec<DepartmentRecord>> {
        Ok(
            sqlx::query_as("SELECT id, title FROM departments ORDER BY title, id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The departments `user_id` belongs to.
    pub async fn departments_of(&self, user_id: i64) -> ServiceResult<Vec<DepartmentRecord>> {
        let mut conn = self.read().await?;
        departments_of(&mut conn, user_id).await
    }

    pub async fn department(&self, id: i64) -> ServiceResult<Option<DepartmentRecord>> {
        Ok(
            sqlx::query_as("SELECT id, title FROM departments WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    pub async fn department_with_members(
        &self,
        id: i64,
    ) -> ServiceResult<Option<DepartmentWithMembers>> {
        let mut conn = self.read().await?;
        department_with_members(&mut conn, id).await
    }

    pub async fn departments_with_members(&self) -> ServiceResult<Vec<DepartmentWithMembers>> {
        let mut conn = self.read().await?;
        let departments: Vec<DepartmentRecord> =
            sqlx::query_as("SELECT id, title FROM departments ORDER BY title, id")
                .fetch_all(&mut *conn)
                .await?;
        let rows: Vec<(i64, i64, String, String, String)> = sqlx::query_as(
            "SELECT du.department_id, u.id, u.name, u.surname, u.last_name \
             FROM department_users du JOIN users u ON u.id = du.user_id ORDER BY u.surname, u.name, u.id",
        )
        .fetch_all(&mut *conn)
        .await?;
        let mut members: HashMap<i64, Vec<MemberRecord>> = HashMap::new();
        for (department_id, id, name, surname, last_name) in rows {
            members
                .entry(department_id)
                .or_default()
                .push(MemberRecord {
                    id,
                    name,
                    surname,
                    last_name,
                });
        }
        Ok(departments
            .into_iter()
            .map(|d| DepartmentWithMembers {
                members: members.remove(&d.id).unwrap_or_default(),
                id: d.id,
                title: d.title,
            })
            .collect())
    }

    pub async fn create_department(
        &self,
        draft: &DepartmentDraft,
        now: i64,
    ) -> ServiceResult<DepartmentWithMembers> {
        let mut tx = self.write().await?;
        check_links(&mut tx, LinkTo::User, &draft.members).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO departments (title, title_key, created_at) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(draft.title.as_str())
        .bind(draft.title.key())
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|error| conflict_on_unique(error, || ServiceError::conflict(MSG_TITLE_TAKEN)))?;
        write_links(&mut tx, Link::DepartmentUsers, id, &draft.members).await?;
        let department = department_with_members(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::internal("a created department vanished"))?;
        tx.commit().await?;
        Ok(department)
    }

    /// Renames a department and replaces its members; the access versions of
    /// those who joined or left are raised (their tokens name their
    /// departments), and returned.
    pub async fn update_department(
        &self,
        id: i64,
        draft: &DepartmentDraft,
        now: i64,
    ) -> ServiceResult<(DepartmentWithMembers, Vec<(i64, i64)>)> {
        let mut tx = self.write().await?;
        let updated =
            sqlx::query("UPDATE departments SET title = $1, title_key = $2 WHERE id = $3")
                .bind(draft.title.as_str())
                .bind(draft.title.key())
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|error| {
                    conflict_on_unique(error, || ServiceError::conflict(MSG_TITLE_TAKEN))
                })?
                .rows_affected();
        if updated == 0 {
            return Err(ServiceError::not_found(MSG_DEPARTMENT_NOT_FOUND));
        }
        check_links(&mut tx, LinkTo::User, &draft.members).await?;
        let before = IdSet::from_iter(links(&mut tx, Link::DepartmentUsers, id).await?);
        sqlx::query(Link::DepartmentUsers.delete_of_owner())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        write_links(&mut tx, Link::DepartmentUsers, id, &draft.members).await?;
        let mut raised = Vec::new();
        let left = before.iter().filter(|&user| !draft.members.contains(user));
        let joined = draft.members.iter().filter(|&user| !before.contains(user));
        for user_id in left.chain(joined) {
            raised.push((user_id, raise_access_version(&mut tx, user_id, now).await?));
        }
        let department = department_with_members(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::internal("an updated department vanished"))?;
        tx.commit().await?;
        Ok((department, raised))
    }

    /// Gives every department title its key (see [`name_key`]) where it has none
    /// yet: rows from before the key existed.
    pub async fn key_department_titles(&self) -> ServiceResult<()> {
        rekey(&self.pool, &KEYED_TITLES, name_key).await
    }

    /// Gives every login the key of [`LoginKey::of`] where it holds another: rows
    /// keyed before lookalike letters were folded.
    pub async fn key_logins(&self) -> ServiceResult<()> {
        rekey(&self.pool, &KEYED_LOGINS, |login| {
            LoginKey::of(login).as_str().to_owned()
        })
        .await
    }

    /// Adds `user_id` to a department, if not a member yet (demo data).
    pub async fn add_member(&self, department_id: i64, user_id: i64) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let known: Option<i64> = sqlx::query_scalar(
            "SELECT user_id FROM department_users WHERE department_id = $1 AND user_id = $2",
        )
        .bind(department_id)
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
        if known.is_none() {
            write_links(
                &mut tx,
                Link::DepartmentUsers,
                department_id,
                &IdSet::from_iter([user_id]),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

// --- Link tables ---

/// A many-to-many table, named from its owner's side.
#[derive(Clone, Copy, Debug)]
enum Link {
    UserDepartments,
    UserPositions,
    UserRights,
    DepartmentUsers,
}

impl Link {
    fn select_of_owner(self) -> &'static str {
        match self {
            Link::UserDepartments => {
                "SELECT department_id FROM department_users WHERE user_id = $1 ORDER BY department_id"
            }
            Link::UserPositions => {
                "SELECT position_id FROM user_positions WHERE user_id = $1 ORDER BY position_id"
            }
            Link::UserRights => {
                "SELECT right_id FROM user_rights WHERE user_id = $1 ORDER BY right_id"
            }
            Link::DepartmentUsers => {
                "SELECT user_id FROM department_users WHERE department_id = $1 ORDER BY user_id"
            }
        }
    }

    /// (owner, target) pairs of the whole table.
    fn select_all(self) -> &'static str {
        match self {
            Link::UserDepartments => {
                "SELECT user_id, department_id FROM department_users ORDER BY user_id, department_id"
            }
            Link::UserPositions => {
                "SELECT user_id, position_id FROM user_positions ORDER BY user_id, position_id"
            }
            Link::UserRights => {
                "SELECT user_id, right_id FROM user_rights ORDER BY user_id, right_id"
            }
            Link::DepartmentUsers => {
                "SELECT department_id, user_id FROM department_users ORDER BY department_id, user_id"
            }
        }
    }

    fn insert(self) -> &'static str {
        match self {
            Link::UserDepartments => {
                "INSERT INTO department_users (user_id, department_id) VALUES ($1, $2)"
            }
            Link::UserPositions => {
                "INSERT INTO user_positions (user_id, position_id) VALUES ($1, $2)"
            }
            Link::UserRights => "INSERT INTO user_rights (user_id, right_id) VALUES ($1, $2)",
            Link::DepartmentUsers => {
                "INSERT INTO department_users (department_id, user_id) VALUES ($1, $2)"
            }
        }
    }

    fn delete_of_owner(self) -> &'static str {
        match self {
            Link::UserDepartments => "DELETE FROM department_users WHERE user_id = $1",
            Link::UserPositions => "DELETE FROM user_positions WHERE user_id = $1",
            Link::UserRights => "DELETE FROM user_rights WHERE user_id = $1",
            Link::DepartmentUsers => "DELETE FROM department_users WHERE department_id = $1",
        }
    }
}

impl LinkTo {
    fn exists(self) -> &'static str {
        match self {
            LinkTo::Department => "SELECT id FROM departments WHERE id = $1",
            LinkTo::Position => "SELECT id FROM positions WHERE id = $1",
            LinkTo::Right => "SELECT id FROM rights WHERE id = $1",
            LinkTo::Status => "SELECT id FROM statuses WHERE id = $1",
            LinkTo::User => "SELECT id FROM users WHERE id = $1",
        }
    }
}

/// How far back [`Store::access_changes`] looks before its cursor: a change
/// stamped by a transaction that commits later than a reader's question, or
/// by an auth replica whose clock runs behind, is still found next time.
pub const ACCESS_CHANGES_LOOKBACK_MS: i64 = 60_000;

/// See [`Store::subject`]. The version is read first: a concurrent change
/// then makes the token at worst stale (refused, renewed), never a new
/// version with old rights.
async fn subject(conn: &mut AnyConnection, user_id: i64) -> ServiceResult<Option<Subject>> {
    let row: Option<(String, String, String, String, i64)> = sqlx::query_as(
        "SELECT login, name, surname, last_name, access_version FROM users WHERE id = $1",
    )
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((login, name, surname, last_name, access_version)) = row else {
        return Ok(None);
    };
    let rights = sqlx::query_scalar(
        "SELECT r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id WHERE ur.user_id = $1 ORDER BY r.id",
    )
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    let departments = links(conn, Link::UserDepartments, user_id).await?;
    Ok(Some(Subject {
        user_id,
        login,
        name,
        surname,
        last_name,
        rights,
        departments,
        access_version,
    }))
}

/// Makes every access token of `user_id` signed so far stale; the new version.
async fn raise_access_version(
    conn: &mut AnyConnection,
    user_id: i64,
    now: i64,
) -> ServiceResult<i64> {
    Ok(sqlx::query_scalar(
        "UPDATE users SET access_version = access_version + 1, access_changed_at = $1 \
         WHERE id = $2 RETURNING access_version",
    )
    .bind(now)
    .bind(user_id)
    .fetch_one(&mut *conn)
    .await?)
}

async fn links(conn: &mut AnyConnection, link: Link, owner: i64) -> ServiceResult<Vec<i64>> {
    Ok(sqlx::query_scalar(link.select_of_owner())
        .bind(owner)
        .fetch_all(&mut *conn)
        .await?)
}

async fn all_links(conn: &mut AnyConnection, link: Link) -> ServiceResult<HashMap<i64, Vec<i64>>> {
    let pairs: Vec<(i64, i64)> = sqlx::query_as(link.select_all())
        .fetch_all(&mut *conn)
        .await?;
    let mut by_owner: HashMap<i64, Vec<i64>> = HashMap::new();
    for (owner, target) in pairs {
        by_owner.entry(owner).or_default().push(target);
    }
    Ok(by_owner)
}

async fn write_links(
    conn: &mut AnyConnection,
    link: Link,
    owner: i64,
    targets: &IdSet,
) -> ServiceResult<()> {
    for target in targets.iter() {
        sqlx::query(link.insert())
            .bind(owner)
            .bind(target)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Refuses the first id of `ids` that names nothing.
async fn check_links(conn: &mut AnyConnection, to: LinkTo, ids: &IdSet) -> ServiceResult<()> {
    for id in ids.iter() {
        let found: Option<i64> = sqlx::query_scalar(to.exists())
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
        if found.is_none() {
            return Err(to.unknown(id));
        }
    }
    Ok(())
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

async fn user(conn: &mut AnyConnection, id: i64) -> ServiceResult<Option<UserRecord>> {
    let row: Option<UserRow> = sqlx::query_as(USER_COLUMNS_BY_ID)
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

async fn departments_of(
    conn: &mut AnyConnection,
    user_id: i64,
) -> ServiceResult<Vec<DepartmentRecord>> {
    Ok(sqlx::query_as(
        "SELECT d.id, d.title FROM departments d JOIN department_users du ON du.department_id = d.id \
         WHERE du.user_id = $1 ORDER BY d.title, d.id",
    )
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?)
}

async fn department_with_members(
    conn: &mut AnyConnection,
    id: i64,
) -> ServiceResult<Option<DepartmentWithMembers>> {
    let department: Option<DepartmentRecord> =
        sqlx::query_as("SELECT id, title FROM departments WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    let Some(department) = department else {
        return Ok(None);
    };
    let members = sqlx::query_as(
        "SELECT u.id, u.name, u.surname, u.last_name FROM department_users du JOIN users u ON u.id = du.user_id \
         WHERE du.department_id = $1 ORDER BY u.surname, u.name, u.id",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some(DepartmentWithMembers {
        id: department.id,
        title: department.title,
        members,
    }))
}

async fn insert_refresh_token(
    conn: &mut AnyConnection,
    family_id: i64,
    token: &SecretHash,
    now: i64,
    expires_at: i64,
) -> ServiceResult<()> {
    sqlx::query("INSERT INTO refresh_tokens (family_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(family_id)
        .bind(token.as_str())
        .bind(now)
        .bind(expires_at)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

async fn revoke_family(conn: &mut AnyConnection, family_id: i64, now: i64) -> ServiceResult<()> {
    sqlx::query("UPDATE refresh_families SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
        .bind(now)
        .bind(family_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
