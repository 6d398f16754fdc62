//! What directory sign-in (issue 39.1) reads and writes: the person a
//! directory entry is, and the rights its groups give.

use portal_kit::audit::AuditContext;
use portal_kit::{Right, ServiceResult};

use super::Store;
use super::access::raise_access_version;
use super::audit::rights_changed;
use super::user::{
    Credentials, CredentialsRow, credentials_of, lock_user_managers, right_names,
    select_credentials,
};
use crate::domain::login::LoginKey;

impl Store {
    /// The person of a directory entry: the one holding its employee number
    /// (`number`), else the one of the typed login, unless that one is linked
    /// to another number (two people, not one).
    pub async fn directory_person(
        &self,
        number: Option<&str>,
        login: &LoginKey,
    ) -> ServiceResult<Option<Credentials>> {
        let mut conn = self.read().await?;
        if let Some(number) = number {
            let row: Option<CredentialsRow> =
                sqlx::query_as(select_credentials("u.employee_number = $1"))
                    .bind(number)
                    .fetch_optional(&mut *conn)
                    .await?;
            if let Some(row) = row {
                return Ok(Some(credentials_of(row)));
            }
        }
        let row: Option<CredentialsRow> = sqlx::query_as(select_credentials("u.login_key = $1"))
            .bind(login.as_str())
            .fetch_optional(&mut *conn)
            .await?;
        Ok(row
            .filter(|(.., linked)| linked.is_none() || linked.as_deref() == number)
            .map(credentials_of))
    }

    /// Gives `user_id` the rights of `given` and takes those of `managed` it
    /// does not give, recorded as `grant` / `revoke` in `context`; the rights
    /// of no group stay as they are. The last holder of UserManagement keeps
    /// it: someone must always manage users. Answers whether the rights changed.
    pub async fn set_directory_rights(
        &self,
        context: &AuditContext,
        user_id: i64,
        given: &[Right],
        managed: &[Right],
        now: i64,
    ) -> ServiceResult<bool> {
        let mut tx = self.write().await?;
        lock_user_managers(&mut tx).await?;
        let before = right_names(&mut tx, user_id).await?;
        let holds = |right: Right| before.iter().any(|name| name == right.as_str());
        let mut changed = false;
        for &right in managed {
            let give = given.contains(&right);
            if give == holds(right) {
                continue;
            }
            if !give && right == Right::UserManagement && last_manager(&mut tx, user_id).await? {
                tracing::warn!(
                    user_id,
                    "the directory's groups would take UserManagement from its last holder: kept"
                );
                continue;
            }
            let statement = if give {
                "INSERT INTO user_rights (user_id, right_id) SELECT $1, id FROM rights WHERE name = $2"
            } else {
                "DELETE FROM user_rights WHERE user_id = $1 \
                 AND right_id = (SELECT id FROM rights WHERE name = $2)"
            };
            sqlx::query(statement)
                .bind(user_id)
                .bind(right.as_str())
                .execute(&mut *tx)
                .await?;
            changed = true;
        }
        if changed {
            let after = right_names(&mut tx, user_id).await?;
            rights_changed(&mut tx, context, user_id, &before, &after).await?;
            // Tokens signed before say the old rights.
            raise_access_version(&mut tx, user_id, now).await?;
        }
        tx.commit().await?;
        Ok(changed)
    }
}

/// Whether `user_id` is the only one who may sign in and manage users.
async fn last_manager(conn: &mut sqlx::AnyConnection, user_id: i64) -> ServiceResult<bool> {
    let others: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM user_rights ur JOIN rights r ON r.id = ur.right_id \
         JOIN users u ON u.id = ur.user_id LEFT JOIN statuses s ON s.id = u.status_id \
         WHERE r.name = $1 AND COALESCE(s.blocks_sign_in, 0) = 0 AND u.id <> $2",
    )
    .bind(Right::UserManagement.as_str())
    .bind(user_id)
    .fetch_one(&mut *conn)
    .await?;
    Ok(others == 0)
}
