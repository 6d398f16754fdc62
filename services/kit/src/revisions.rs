//! Revisions as education (articles, tests) and the wiki (short
//! instructions) keep them: every save writes the version it saved, in a table
//! of its own per kind of item, and a restore is one more save. Such a save
//! names the revision it restored (`restored_from_id`), so a history can say
//! «восстановлено из версии от …».

use sqlx::AnyConnection;

use crate::ServiceResult;

/// A table of revisions: its name and the column of the item each belongs to.
#[derive(Clone, Copy, Debug)]
pub struct RevisionTable {
    pub table: &'static str,
    pub item: &'static str,
}

/// A restore in a write transaction: the revision it restores, and the
/// newest revision of the item before its save, so that what the save writes
/// (nothing, when a save writes no revision of an unchanged text) is marked
/// as restored from it.
#[derive(Debug)]
pub struct Restore {
    revisions: RevisionTable,
    item_id: i64,
    from: i64,
    newest_before: i64,
}

impl Restore {
    /// Before the save of item `item_id` from its revision `from`.
    pub async fn begin(
        conn: &mut AnyConnection,
        revisions: RevisionTable,
        item_id: i64,
        from: i64,
    ) -> ServiceResult<Restore> {
        let newest_before: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT COALESCE(MAX(id), 0) FROM {} WHERE {} = $1",
            revisions.table, revisions.item
        )))
        .bind(item_id)
        .fetch_one(&mut *conn)
        .await?;
        Ok(Restore {
            revisions,
            item_id,
            from,
            newest_before,
        })
    }

    /// After the save, in the same transaction: the revision it wrote names
    /// the one restored.
    pub async fn mark(self, conn: &mut AnyConnection) -> ServiceResult<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE {} SET restored_from_id = $1 WHERE {} = $2 AND id > $3",
            self.revisions.table, self.revisions.item
        )))
        .bind(self.from)
        .bind(self.item_id)
        .bind(self.newest_before)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }
}
