//! Whom the portal's e-mail may reach: people not blocked, with an address.

use portal_kit::ServiceResult;
use sqlx::FromRow;

use super::{Store, fetch_in};

#[derive(Clone, Debug, FromRow)]
pub struct MailRecipientRecord {
    pub id: i64,
    pub email: String,
    pub name: String,
    pub last_name: String,
}

/// The most ids one question may name.
pub const MAX_RECIPIENT_IDS: usize = 1000;

impl Store {
    /// Of `user_ids`, those whose status does not block sign-in and who have
    /// an e-mail address, by id.
    pub async fn mail_recipients(
        &self,
        user_ids: &[i64],
    ) -> ServiceResult<Vec<MailRecipientRecord>> {
        let mut conn = self.pool.acquire().await?;
        let mut rows: Vec<MailRecipientRecord> = fetch_in(
            &mut conn,
            "SELECT u.id, u.email, u.name, u.last_name FROM users u LEFT JOIN statuses s ON s.id = u.status_id \
             WHERE u.id IN {} AND COALESCE(s.blocks_sign_in, 0) = 0 AND u.email <> ''",
            user_ids,
        )
        .await?;
        rows.sort_by_key(|row| row.id);
        rows.dedup_by_key(|row| row.id);
        Ok(rows)
    }
}
