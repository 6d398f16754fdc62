//! The records the store answers with, shared by the aggregate that writes
//! each and by what reads it beside its own (a user's departments, the audit
//! record of a write): kept apart so that those modules need not reach into
//! one another.

use sqlx::FromRow;

use crate::domain::service_account::Scopes;

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
    /// The HR system's employee number, if any.
    pub employee_number: Option<String>,
    /// Who vouches for it: `sync` (the staff sync made the person), `admin`
    /// (an administrator linked them), or nobody.
    pub hr_link: Option<String>,
    pub department_ids: Vec<i64>,
    pub position_ids: Vec<i64>,
    pub right_ids: Vec<i64>,
}

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

/// A client secret as admins see it: never its value.
#[derive(Clone, Debug, PartialEq, Eq, FromRow)]
pub struct SecretRecord {
    pub id: i64,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

/// A service account as admins see it.
#[derive(Clone, Debug)]
pub struct ServiceAccountRecord {
    pub id: i64,
    pub client_id: String,
    pub name: String,
    pub description: String,
    pub owner_id: i64,
    pub owner_name: String,
    pub scopes: Scopes,
    pub active: bool,
    pub has_public_key: bool,
    /// Oldest first.
    pub secrets: Vec<SecretRecord>,
    pub last_used_at: Option<i64>,
    pub last_used_from: String,
    pub created_at: i64,
}
