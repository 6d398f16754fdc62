//! Whom the portal's e-mail may reach: people not blocked, with an address,
//! with their departments and rights (what the wiki decides their items by).

use std::collections::HashMap;

use portal_kit::ServiceResult;
use sqlx::{AnyConnection, FromRow};

use super::{Store, fetch_in};

#[derive(Clone, Debug, FromRow)]
pub struct MailRecipientRecord {
    pub id: i64,
    pub email: String,
    pub name: String,
    pub last_name: String,
    #[sqlx(skip)]
    pub department_ids: Vec<i64>,
    /// Rights' names, by the right's id.
    #[sqlx(skip)]
    pub rights: Vec<String>,
}

/// The most ids one question may name, and the most people of one page.
pub const MAX_RECIPIENT_IDS: usize = 1000;

/// Whom mail may reach, of the users `u`: not blocked, with an address.
const MAILABLE: &str = "SELECT u.id, u.email, u.name, u.last_name FROM users u LEFT JOIN statuses s ON s.id = u.status_id \
     WHERE COALESCE(s.blocks_sign_in, 0) = 0 AND u.email <> ''";

impl Store {
    /// Of `user_ids`, those whose status does not block sign-in and who have
    /// an e-mail address, by id.
    pub async fn mail_recipients(
        &self,
        user_ids: &[i64],
    ) -> ServiceResult<Vec<MailRecipientRecord>> {
        let mut conn = self.pool.acquire().await?;
        let mut rows: Vec<MailRecipientRecord> =
            fetch_in(&mut conn, &format!("{MAILABLE} AND u.id IN {{}}"), user_ids).await?;
        rows.sort_by_key(|row| row.id);
        rows.dedup_by_key(|row| row.id);
        with_access(&mut conn, rows).await
    }

    /// Everyone [`mail_recipients`](Self::mail_recipients) would answer,
    /// with ids above `after`, at most `limit`, by id.
    pub async fn mail_recipients_after(
        &self,
        after: i64,
        limit: i64,
    ) -> ServiceResult<Vec<MailRecipientRecord>> {
        let mut conn = self.pool.acquire().await?;
        let rows: Vec<MailRecipientRecord> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{MAILABLE} AND u.id > $1 ORDER BY u.id LIMIT $2"
        )))
        .bind(after)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
        with_access(&mut conn, rows).await
    }
}

/// `rows` with each person's departments and rights: two queries.
async fn with_access(
    conn: &mut AnyConnection,
    mut rows: Vec<MailRecipientRecord>,
) -> ServiceResult<Vec<MailRecipientRecord>> {
    let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
    let departments: Vec<(i64, i64)> = fetch_in(
        conn,
        "SELECT user_id, department_id FROM department_users WHERE user_id IN {} ORDER BY user_id, department_id",
        &ids,
    )
    .await?;
    let rights: Vec<(i64, String)> = fetch_in(
        conn,
        "SELECT ur.user_id, r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id \
         WHERE ur.user_id IN {} ORDER BY ur.user_id, r.id",
        &ids,
    )
    .await?;
    let mut by_id: HashMap<i64, &mut MailRecipientRecord> =
        rows.iter_mut().map(|row| (row.id, row)).collect();
    for (user_id, department_id) in departments {
        if let Some(row) = by_id.get_mut(&user_id) {
            row.department_ids.push(department_id);
        }
    }
    for (user_id, right) in rights {
        if let Some(row) = by_id.get_mut(&user_id) {
            row.rights.push(right);
        }
    }
    Ok(rows)
}
