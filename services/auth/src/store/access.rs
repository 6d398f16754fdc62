//! Access versions: who an access token speaks of, and whose tokens a change
//! made stale (every service's token check asks).

use portal_kit::ServiceResult;
use portal_kit::db::now_millis;
use portal_kit::revocation::{ChangeSource, Changes, Holder};
use portal_kit::token::Subject;
use sqlx::AnyConnection;

use super::{Link, Store, links};

/// How far back [`Store::changes_since`] looks before its cursor: a change
/// stamped by a transaction that commits later than a reader's question, or
/// by an auth replica whose clock runs behind, is still found next time.
pub const ACCESS_CHANGES_LOOKBACK_MS: i64 = 60_000;

impl Store {
    /// Who an access token for `user_id` speaks of: names, right names,
    /// department ids, access version.
    pub async fn subject(&self, user_id: i64) -> ServiceResult<Option<Subject>> {
        subject(&mut *self.read().await?, user_id).await
    }

    /// The access versions of persons and service accounts changed since the
    /// cursor `since`, and the next cursor: this moment, taken before the query.
    pub async fn changes_since(&self, since: i64) -> ServiceResult<Changes> {
        let cursor = now_millis();
        let from = lookback_from(since);
        let persons = self
            .access_changes(from)
            .await?
            .into_iter()
            .map(|(user_id, version)| (Holder::Person(user_id), version));
        let accounts = self
            .service_account_access_changes(from)
            .await?
            .into_iter()
            .map(|(account_id, version)| (Holder::ServiceAccount(account_id), version));
        Ok(Changes {
            versions: persons.chain(accounts).collect(),
            cursor,
        })
    }

    /// The persons whose access version changed at `from` or later, with
    /// their versions.
    async fn access_changes(&self, from: i64) -> ServiceResult<Vec<(i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT id, access_version FROM users WHERE access_changed_at >= $1 AND access_version > 0",
        )
        .bind(from)
        .fetch_all(&self.pool)
        .await?)
    }
}

/// Where a question with cursor `since` starts: [`ACCESS_CHANGES_LOOKBACK_MS`]
/// before it, or at the beginning for 0.
fn lookback_from(since: i64) -> i64 {
    if since <= 0 {
        i64::MIN
    } else {
        since - ACCESS_CHANGES_LOOKBACK_MS
    }
}

/// See [`Store::subject`]. The version is read first: a concurrent change
/// then makes the token at worst stale (refused, renewed), never a new
/// version with old rights.
pub(super) async fn subject(
    conn: &mut AnyConnection,
    user_id: i64,
) -> ServiceResult<Option<Subject>> {
    let row: Option<(String, String, String, String, i64)> = sqlx::query_as(
        "SELECT login, name, surname, last_name, access_version FROM users WHERE id = $1",
    )
    .bind(user_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((login, name, surname, last_name, access_version)) = row else {
        return Ok(None);
    };
    let rights = sqlx::query_scalar(
        "SELECT r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id WHERE ur.user_id = $1 ORDER BY r.id",
    )
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    let departments = links(conn, Link::UserDepartments, user_id).await?;
    Ok(Some(Subject {
        user_id,
        login,
        name,
        surname,
        last_name,
        rights,
        departments,
        access_version,
    }))
}

/// Makes every access token of `user_id` signed so far stale; the new version.
pub(super) async fn raise_access_version(
    conn: &mut AnyConnection,
    user_id: i64,
    now: i64,
) -> ServiceResult<i64> {
    Ok(sqlx::query_scalar(
        "UPDATE users SET access_version = access_version + 1, access_changed_at = $1 \
         WHERE id = $2 RETURNING access_version",
    )
    .bind(now)
    .bind(user_id)
    .fetch_one(&mut *conn)
    .await?)
}

/// Auth's own replicas learn versions from the database they share.
impl ChangeSource for Store {
    async fn changes_since(&mut self, since: i64) -> Result<Changes, String> {
        Store::changes_since(self, since)
            .await
            .map_err(|error| error.to_string())
    }
}
