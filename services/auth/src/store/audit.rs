//! What auth's audit records say of its entities (issue 25): each write's
//! fields old → new as people read them, written by the write's own
//! transaction through `portal_kit::audit`. A user's rights are recorded by
//! name, also as `grant` and `revoke` records of their own, so "who passed
//! UserManagement to whom" is one filter; a password only as changed.

use portal_kit::ServiceResult;
use portal_kit::audit::{self, AuditContext, Changes, Event, action, entity};
use serde::Serialize;
use sqlx::AnyConnection;

use super::rows::{DepartmentWithMembers, ServiceAccountRecord, UserRecord};

/// Why a sign-in was refused, as its record says (never the password).
pub const REASON_WRONG_PASSWORD: &str = "wrong-password";
pub const REASON_UNKNOWN_LOGIN: &str = "unknown-login";
pub const REASON_BLOCKED: &str = "blocked";

/// A user's fields as recorded (not their rights: see [`rights_changed`]).
/// The staff sync fills them from its own reads (`store::staff`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UserFields<'a> {
    /// The HR system's key: the staff sync sets it on the people it
    /// creates, an administrator links (or unlinks) a person on their form.
    pub(super) employee_number: Option<&'a str>,
    /// Who vouches for the number: `sync` or `admin` (`users.hr_link`).
    pub(super) staff_link: Option<&'a str>,
    pub(super) surname: &'a str,
    pub(super) name: &'a str,
    pub(super) last_name: &'a str,
    pub(super) login: &'a str,
    pub(super) email: &'a str,
    pub(super) status_id: Option<i64>,
    /// Ascending.
    pub(super) department_ids: &'a [i64],
    /// Ascending.
    pub(super) position_ids: &'a [i64],
}

impl<'a> From<&'a UserRecord> for UserFields<'a> {
    fn from(user: &'a UserRecord) -> Self {
        UserFields {
            employee_number: user.employee_number.as_deref(),
            staff_link: user.hr_link.as_deref(),
            surname: &user.surname,
            name: &user.name,
            last_name: &user.last_name,
            login: &user.login,
            email: &user.email,
            status_id: user.status_id,
            department_ids: &user.department_ids,
            position_ids: &user.position_ids,
        }
    }
}

/// Records a user's write: its fields old → new (`before` none for a
/// create), a password set as changed without its value, and the rights it
/// granted and removed as `grant` / `revoke` records of their own.
pub(super) async fn user_written(
    conn: &mut AnyConnection,
    context: &AuditContext,
    action: &str,
    before: Option<(&UserRecord, &[String])>,
    after: (&UserRecord, &[String]),
    password_set: bool,
) -> ServiceResult<()> {
    let fields = Changes::diff(
        before.map(|(user, _)| UserFields::from(user)).as_ref(),
        Some(&UserFields::from(after.0)),
        &[],
    )
    .and(Changes::new().secret("password", password_set));
    let id = after.0.id;
    if !fields.is_empty() {
        let event = Event::new(entity::USER, id, action).changes(fields);
        audit::record(conn, context, event).await?;
    }
    rights_changed(
        conn,
        context,
        id,
        before.map_or(&[], |(_, rights)| rights),
        after.1,
    )
    .await
}

/// One `grant` record when `after` holds a right `before` did not, one
/// `revoke` when it lost one; each with the rights old → new.
pub(super) async fn rights_changed(
    conn: &mut AnyConnection,
    context: &AuditContext,
    user_id: i64,
    before: &[String],
    after: &[String],
) -> ServiceResult<()> {
    let granted = after.iter().any(|right| !before.contains(right));
    let revoked = before.iter().any(|right| !after.contains(right));
    for (happened, action) in [(granted, action::GRANT), (revoked, action::REVOKE)] {
        if happened {
            let changes = Changes::new().field("rights", before, after);
            let event = Event::new(entity::USER, user_id, action).changes(changes);
            audit::record(conn, context, event).await?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DepartmentFields<'a> {
    title: &'a str,
    user_ids: Vec<i64>,
}

impl<'a> From<&'a DepartmentWithMembers> for DepartmentFields<'a> {
    fn from(department: &'a DepartmentWithMembers) -> Self {
        let mut user_ids: Vec<i64> = department.members.iter().map(|m| m.id).collect();
        user_ids.sort_unstable();
        DepartmentFields {
            title: &department.title,
            user_ids,
        }
    }
}

/// Records a department's write: its title and members old → new.
pub(super) async fn department_written(
    conn: &mut AnyConnection,
    context: &AuditContext,
    action: &str,
    before: Option<&DepartmentWithMembers>,
    after: &DepartmentWithMembers,
) -> ServiceResult<()> {
    let changes = Changes::diff(
        before.map(DepartmentFields::from).as_ref(),
        Some(&DepartmentFields::from(after)),
        &[],
    );
    let event = Event::new(entity::DEPARTMENT, after.id, action).changes(changes);
    Ok(audit::record(conn, context, event).await?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServiceAccountFields<'a> {
    client_id: &'a str,
    name: &'a str,
    description: &'a str,
    owner_id: i64,
    scopes: Vec<&'static str>,
    active: bool,
    public_key: bool,
    secret_ids: Vec<i64>,
}

impl<'a> From<&'a ServiceAccountRecord> for ServiceAccountFields<'a> {
    fn from(account: &'a ServiceAccountRecord) -> Self {
        ServiceAccountFields {
            client_id: &account.client_id,
            name: &account.name,
            description: &account.description,
            owner_id: account.owner_id,
            scopes: account.scopes.names().collect(),
            active: account.active,
            public_key: account.has_public_key,
            secret_ids: account.secrets.iter().map(|secret| secret.id).collect(),
        }
    }
}

/// Records a service account's write: its fields old → new, its secrets by
/// id only, and a new secret as `secret` changed without its value.
pub(super) async fn service_account_written(
    conn: &mut AnyConnection,
    context: &AuditContext,
    action: &str,
    before: Option<&ServiceAccountRecord>,
    after: &ServiceAccountRecord,
    secret_issued: bool,
) -> ServiceResult<()> {
    let changes = Changes::diff(
        before.map(ServiceAccountFields::from).as_ref(),
        Some(&ServiceAccountFields::from(after)),
        &[],
    )
    .and(Changes::new().secret("secret", secret_issued));
    if changes.is_empty() {
        return Ok(());
    }
    let event = Event::new(entity::SERVICE_ACCOUNT, after.id, action).changes(changes);
    Ok(audit::record(conn, context, event).await?)
}
