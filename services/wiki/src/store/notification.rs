//! The read marks of the wiki's bell items (`portal_kit::read_marks`).

use std::collections::HashSet;

use portal_kit::audit::AuditContext;
use portal_kit::{ServiceResult, read_marks};

use super::Store;

impl Store {
    /// The items `user_id` marked read.
    pub async fn read_marks(&self, user_id: i64) -> ServiceResult<HashSet<String>> {
        let mut conn = self.pool.acquire().await?;
        read_marks::read_marks(&mut conn, user_id).await
    }

    /// Marks `keys` read for `user_id`.
    pub async fn mark_read(
        &self,
        audit: &AuditContext,
        user_id: i64,
        keys: &[String],
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        read_marks::mark_read(&mut tx, user_id, keys, now, audit).await?;
        tx.commit().await?;
        Ok(())
    }
}
