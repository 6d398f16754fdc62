//! Departments and their members.

use std::collections::HashMap;

use portal_kit::audit::{AuditContext, action};
use portal_kit::db::{Keyed, conflict_on_unique, for_update, rekey};
use portal_kit::text::name_key;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::AnyConnection;

use super::access::raise_access_version;
use super::audit::department_written;
use super::rows::{DepartmentRecord, DepartmentWithMembers, MemberRecord};
use super::search;
use super::{Link, Store, check_links, links, write_links};
use crate::domain::department::{DepartmentDraft, MSG_DEPARTMENT_NOT_FOUND, MSG_TITLE_TAKEN};
use crate::domain::ids::{IdSet, LinkTo};

const KEYED_TITLES: Keyed = Keyed {
    table: "departments",
    text: "title",
    key: "title_key",
};

impl Store {
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

    pub async fn department(&self, id: i64) -> ServiceResult<DepartmentRecord> {
        sqlx::query_as("SELECT id, title FROM departments WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_DEPARTMENT_NOT_FOUND))
    }

    pub async fn department_with_members(&self, id: i64) -> ServiceResult<DepartmentWithMembers> {
        let mut conn = self.read().await?;
        department_with_members(&mut conn, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_DEPARTMENT_NOT_FOUND))
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
        context: &AuditContext,
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
        department_written(&mut tx, context, action::CREATE, None, &department).await?;
        search::index_department(&mut tx, id).await?;
        tx.commit().await?;
        Ok(department)
    }

    /// Renames a department and replaces its members; the access versions of
    /// those who joined or left are raised (their tokens name their
    /// departments), and returned.
    pub async fn update_department(
        &self,
        context: &AuditContext,
        id: i64,
        draft: &DepartmentDraft,
        now: i64,
    ) -> ServiceResult<(DepartmentWithMembers, Vec<(i64, i64)>)> {
        let mut tx = self.write().await?;
        let old = department_with_members(&mut tx, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_DEPARTMENT_NOT_FOUND))?;
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
        department_written(&mut tx, context, action::UPDATE, Some(&old), &department).await?;
        search::index_department(&mut tx, id).await?;
        tx.commit().await?;
        Ok((department, raised))
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

    /// Gives every department title its key (see [`name_key`]) where it has none
    /// yet: rows from before the key existed.
    pub async fn key_department_titles(&self) -> ServiceResult<()> {
        rekey(&self.pool, &KEYED_TITLES, name_key).await
    }
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

/// Department `id` with its members as `conn` sees it, locked until a write
/// transaction's end ([`for_update`]): what the write changes it from.
async fn department_with_members(
    conn: &mut AnyConnection,
    id: i64,
) -> ServiceResult<Option<DepartmentWithMembers>> {
    let department: Option<DepartmentRecord> = sqlx::query_as(for_update(
        conn,
        "SELECT id, title FROM departments WHERE id = $1",
        "departments",
    ))
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
