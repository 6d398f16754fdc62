//! The search index of people and departments (issue 25), for user
//! managers: written in the transaction of each write of them (a person's
//! full name as the title; login, e-mail and employee number as text; a
//! department's title and code).

use portal_kit::ServiceResult;
use portal_kit::search::{self, Allowed, Asked, Entry, Found};
use sqlx::AnyConnection;

use super::Store;

pub const USER: &str = "user";
pub const DEPARTMENT: &str = "department";
/// The kinds auth finds.
pub const KINDS: [&str; 2] = [USER, DEPARTMENT];

/// Indexes person `id` as they now stand in `conn`'s transaction.
pub(super) async fn index_user(conn: &mut AnyConnection, id: i64) -> sqlx::Result<()> {
    let row: Option<(String, String, String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT surname, name, last_name, login, email, employee_number FROM users WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((surname, name, last_name, login, email, employee_number)) = row else {
        return search::remove(conn, USER, id).await;
    };
    let title = [surname, name, last_name]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let body = format!("{login} {email} {}", employee_number.unwrap_or_default());
    let entry = Entry {
        kind: USER,
        entity_id: id,
        scope: None,
        title: &title,
        body: &body,
    };
    search::put(conn, &entry).await
}

/// Indexes department `id` as it now stands in `conn`'s transaction.
pub(super) async fn index_department(conn: &mut AnyConnection, id: i64) -> sqlx::Result<()> {
    let row: Option<(String, Option<String>)> =
        sqlx::query_as("SELECT title, code FROM departments WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    let Some((title, code)) = row else {
        return search::remove(conn, DEPARTMENT, id).await;
    };
    let entry = Entry {
        kind: DEPARTMENT,
        entity_id: id,
        scope: None,
        title: &title,
        body: &code.unwrap_or_default(),
    };
    search::put(conn, &entry).await
}

impl Store {
    /// Indexes every person and department the index lacks (those written
    /// before it existed); answers how many.
    pub async fn index_missing(&self) -> ServiceResult<usize> {
        let mut tx = self.write().await?;
        let users = search::unindexed(&mut tx, USER, "SELECT id FROM users").await?;
        for id in &users {
            index_user(&mut tx, *id).await?;
        }
        let departments =
            search::unindexed(&mut tx, DEPARTMENT, "SELECT id FROM departments").await?;
        for id in &departments {
            index_department(&mut tx, *id).await?;
        }
        tx.commit().await?;
        Ok(users.len() + departments.len())
    }

    /// The people and departments `asked` finds, best first; for a user
    /// manager only (the caller checks).
    pub async fn search(&self, asked: &Asked) -> ServiceResult<Vec<Found>> {
        let allowed: Vec<Allowed> = KINDS
            .into_iter()
            .filter(|kind| asked.wants(kind))
            .map(|kind| Allowed { kind, scopes: None })
            .collect();
        let mut conn = self.pool.acquire().await?;
        let hits =
            search::find(&mut conn, self.backend, &asked.query, &allowed, asked.limit).await?;
        Ok(hits
            .into_iter()
            .map(|hit| Found {
                hit,
                path_ids: Vec::new(),
            })
            .collect())
    }
}
