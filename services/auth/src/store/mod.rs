//! Auth's queries: one set for SQLite and PostgreSQL through sqlx's Any driver,
//! one module per aggregate: [`user`] (with what sign-in reads of a login),
//! [`department`], the [`reference`](mod@reference) lists, [`session`] (refresh-token
//! families), known [`device`]s, the [`sign_in_attempt`]s the limits count,
//! [`access`] versions (whose tokens are stale), other systems'
//! [`service_account`]s, and single sign-on's flows and subjects ([`sso`]).
//! The records more than one of them answer with are in [`rows`].
//!
//! Reads run on a pooled connection; every write that touches more than one row
//! runs in one transaction, which checks the links it writes so that an unknown
//! id becomes a Russian message rather than a foreign-key error. On SQLite write
//! transactions start with `BEGIN IMMEDIATE`, so two writers queue on the busy
//! timeout instead of failing to upgrade a read lock.

pub mod access;
pub mod audit;
pub mod department;
pub mod device;
pub mod directory;
pub mod invitation;
pub mod mail;
pub mod mfa;
pub mod password_reset;
pub mod reference;
pub mod rows;
pub mod search;
pub mod service_account;
pub mod session;
pub mod sign_in_attempt;
pub mod sso;
pub mod staff;
pub mod user;

use std::collections::HashMap;

use portal_kit::ServiceResult;
use portal_kit::db::{Backend, placeholders};
use sqlx::any::{Any, AnyRow};
use sqlx::{AnyConnection, AnyPool, Encode, FromRow, Transaction, Type};

use crate::domain::ids::{IdSet, LinkTo};

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    /// A few connections of their own for a known device's sign-in
    /// ([`Store::for_sign_in`]).
    known_devices: AnyPool,
    backend: Backend,
}

impl Store {
    pub fn new(pool: AnyPool, known_devices: AnyPool, backend: Backend) -> Store {
        Store {
            pool,
            known_devices,
            backend,
        }
    }

    /// The store a sign-in's queries run on: for a browser known to the person
    /// (or, for its lookups, claiming to be one) the known devices' own
    /// connections, so a person's sign-in from their own browser does not queue
    /// behind a storm of strangers' guesses at the shared pool (it did, for
    /// ~0.5 s); else the shared pool. Every query is the same either way.
    pub fn for_sign_in(&self, from_known_device: bool) -> Store {
        if from_known_device {
            Store {
                pool: self.known_devices.clone(),
                ..self.clone()
            }
        } else {
            self.clone()
        }
    }

    async fn read(&self) -> ServiceResult<sqlx::pool::PoolConnection<Any>> {
        Ok(self.pool.acquire().await?)
    }

    async fn write(&self) -> ServiceResult<Transaction<'static, Any>> {
        portal_kit::db::begin_write(&self.pool, self.backend).await
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

    /// The start of a multi-row insert of (owner, target) pairs.
    fn insert_into(self) -> &'static str {
        match self {
            Link::UserDepartments => "INSERT INTO department_users (user_id, department_id)",
            Link::UserPositions => "INSERT INTO user_positions (user_id, position_id)",
            Link::UserRights => "INSERT INTO user_rights (user_id, right_id)",
            Link::DepartmentUsers => "INSERT INTO department_users (department_id, user_id)",
        }
    }

    /// Deletes one (owner, target) pair.
    fn delete_one(self) -> &'static str {
        match self {
            Link::UserDepartments => {
                "DELETE FROM department_users WHERE user_id = $1 AND department_id = $2"
            }
            Link::UserPositions => {
                "DELETE FROM user_positions WHERE user_id = $1 AND position_id = $2"
            }
            Link::UserRights => "DELETE FROM user_rights WHERE user_id = $1 AND right_id = $2",
            Link::DepartmentUsers => {
                "DELETE FROM department_users WHERE department_id = $1 AND user_id = $2"
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

/// Binds in one statement at most: far below SQLite's and PostgreSQL's limits.
const IN_CHUNK: usize = 500;

/// The rows of `sql` whose `{}` is a list of `keys`, asked [`IN_CHUNK`] keys
/// at a time (the Any driver binds no arrays).
async fn fetch_in<K, R>(conn: &mut AnyConnection, sql: &str, keys: &[K]) -> ServiceResult<Vec<R>>
where
    K: for<'q> Encode<'q, Any> + Type<Any> + Clone + Send + 'static,
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
{
    let mut rows = Vec::new();
    for chunk in keys.chunks(IN_CHUNK) {
        // Only numbered placeholders are put into the caller's SQL.
        let statement = sql.replace("{}", &placeholders(1, chunk.len()));
        let mut query = sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(statement));
        for key in chunk {
            query = query.bind(key.clone());
        }
        rows.extend(query.fetch_all(&mut *conn).await?);
    }
    Ok(rows)
}
