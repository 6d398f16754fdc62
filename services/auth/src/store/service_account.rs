//! Service accounts: other hospital systems, their client secrets (digests
//! only), what a token request reads of a client id, the failures the token
//! limit counts, and the assertion ids already used.

use portal_kit::audit::{AuditContext, action};
use portal_kit::db::{Keyed, conflict_on_unique, for_update, is_unique_violation, rekey};
use portal_kit::text::name_key;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::audit::service_account_written;
use super::rows::{SecretRecord, ServiceAccountRecord};
use super::{Store, check_links};
use crate::domain::client_credentials::{Failures, failure_window_start};
use crate::domain::ids::{IdSet, LinkTo};
use crate::domain::secret::SecretHash;
use crate::domain::service_account::{
    MAX_SECRETS, MSG_NAME_TAKEN, MSG_SECRET_NOT_FOUND, MSG_SERVICE_ACCOUNT_NOT_FOUND, Scopes,
    ServiceAccountDraft, full_name,
};

#[derive(Clone, Debug, FromRow)]
struct AccountRow {
    id: i64,
    client_id: String,
    name: String,
    description: String,
    owner_id: i64,
    owner_surname: Option<String>,
    owner_name: Option<String>,
    owner_last_name: Option<String>,
    scopes: String,
    active: i64,
    public_key: String,
    last_used_at: Option<i64>,
    last_used_from: String,
    created_at: i64,
}

impl ServiceAccountRecord {
    fn from_row(row: AccountRow, secrets: Vec<SecretRecord>) -> ServiceAccountRecord {
        ServiceAccountRecord {
            id: row.id,
            client_id: row.client_id,
            name: row.name,
            description: row.description,
            owner_id: row.owner_id,
            owner_name: full_name(
                row.owner_surname.as_deref().unwrap_or_default(),
                row.owner_name.as_deref().unwrap_or_default(),
                row.owner_last_name.as_deref().unwrap_or_default(),
            ),
            scopes: Scopes::from_stored(&row.scopes),
            active: row.active != 0,
            has_public_key: !row.public_key.is_empty(),
            secrets,
            last_used_at: row.last_used_at,
            last_used_from: row.last_used_from,
            created_at: row.created_at,
        }
    }
}

/// What a token request needs to know of a client id.
#[derive(Clone, Debug)]
pub struct Client {
    pub account_id: i64,
    pub name: String,
    pub client_id: String,
    pub scopes: Scopes,
    pub active: bool,
    /// The registered public key's PEM; '' for none.
    pub public_key: String,
    pub access_version: i64,
    /// The alive secrets: id and SHA-256 digest (hex).
    pub secrets: Vec<(i64, String)>,
}

/// A new account's ids and its first secret's id.
#[derive(Clone, Copy, Debug)]
pub struct Created {
    pub id: i64,
    pub secret_id: i64,
}

const KEYED_NAMES: Keyed = Keyed {
    table: "service_accounts",
    text: "name",
    key: "name_key",
};

const ACCOUNT_COLUMNS: &str = "SELECT a.id, a.client_id, a.name, a.description, a.owner_id, \
     u.surname AS owner_surname, u.name AS owner_name, u.last_name AS owner_last_name, \
     a.scopes, a.active, a.public_key, a.last_used_at, a.last_used_from, a.created_at \
     FROM service_accounts a LEFT JOIN users u ON u.id = a.owner_id";

fn not_found() -> ServiceError {
    ServiceError::not_found(MSG_SERVICE_ACCOUNT_NOT_FOUND)
}

fn name_taken() -> ServiceError {
    ServiceError::conflict(MSG_NAME_TAKEN)
}

impl Store {
    /// Every service account, ordered by name.
    pub async fn service_accounts(&self) -> ServiceResult<Vec<ServiceAccountRecord>> {
        let mut conn = self.read().await?;
        let rows: Vec<AccountRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{ACCOUNT_COLUMNS} ORDER BY a.name_key, a.id"
        )))
        .fetch_all(&mut *conn)
        .await?;
        let secrets: Vec<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "SELECT account_id, id, created_at, last_used_at FROM service_account_secrets \
             ORDER BY account_id, id",
        )
        .fetch_all(&mut *conn)
        .await?;
        let mut by_account: std::collections::HashMap<i64, Vec<SecretRecord>> =
            std::collections::HashMap::new();
        for (account_id, id, created_at, last_used_at) in secrets {
            by_account
                .entry(account_id)
                .or_default()
                .push(SecretRecord {
                    id,
                    created_at,
                    last_used_at,
                });
        }
        Ok(rows
            .into_iter()
            .map(|row| {
                let secrets = by_account.remove(&row.id).unwrap_or_default();
                ServiceAccountRecord::from_row(row, secrets)
            })
            .collect())
    }

    pub async fn service_account(&self, id: i64) -> ServiceResult<ServiceAccountRecord> {
        account(&mut *self.read().await?, id).await
    }

    /// Registers an account with its first secret.
    pub async fn create_service_account(
        &self,
        context: &AuditContext,
        draft: &ServiceAccountDraft,
        client_id: &str,
        secret: &SecretHash,
        now: i64,
    ) -> ServiceResult<Created> {
        let mut tx = self.write().await?;
        check_links(
            &mut tx,
            LinkTo::User,
            &IdSet::from_request(&[draft.owner_id]),
        )
        .await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO service_accounts \
             (client_id, name, name_key, description, owner_id, scopes, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(client_id)
        .bind(&draft.name)
        .bind(draft.name_key())
        .bind(&draft.description)
        .bind(draft.owner_id)
        .bind(draft.scopes.to_stored())
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|error| conflict_on_unique(error, name_taken))?;
        let secret_id = insert_secret(&mut tx, id, secret, now).await?;
        recorded(&mut tx, context, id, None, true).await?;
        tx.commit().await?;
        Ok(Created { id, secret_id })
    }

    /// Replaces an account's fields; its new access version when its scopes
    /// changed (its tokens say other scopes now).
    pub async fn update_service_account(
        &self,
        context: &AuditContext,
        id: i64,
        draft: &ServiceAccountDraft,
        now: i64,
    ) -> ServiceResult<(ServiceAccountRecord, Option<i64>)> {
        let mut tx = self.write().await?;
        let stored: Option<String> =
            sqlx::query_scalar("SELECT scopes FROM service_accounts WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let stored = stored.ok_or_else(not_found)?;
        let old = account(&mut tx, id).await?;
        check_links(
            &mut tx,
            LinkTo::User,
            &IdSet::from_request(&[draft.owner_id]),
        )
        .await?;
        sqlx::query(
            "UPDATE service_accounts SET name = $1, name_key = $2, description = $3, \
             owner_id = $4, scopes = $5 WHERE id = $6",
        )
        .bind(&draft.name)
        .bind(draft.name_key())
        .bind(&draft.description)
        .bind(draft.owner_id)
        .bind(draft.scopes.to_stored())
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(|error| conflict_on_unique(error, name_taken))?;
        let raised = if Scopes::from_stored(&stored) == draft.scopes {
            None
        } else {
            Some(raise_access_version(&mut tx, id, now).await?)
        };
        let updated = recorded(&mut tx, context, id, Some(&old), false).await?;
        tx.commit().await?;
        Ok((updated, raised))
    }

    /// Adds a secret; with [`MAX_SECRETS`] alive already, the oldest goes.
    /// The account's row is written first, so two rotations at once (two
    /// tabs, two replicas) queue on it and never leave three secrets alive.
    pub async fn add_service_account_secret(
        &self,
        context: &AuditContext,
        id: i64,
        secret: &SecretHash,
        now: i64,
    ) -> ServiceResult<i64> {
        let mut tx = self.write().await?;
        let locked = sqlx::query(
            "UPDATE service_accounts SET access_version = access_version WHERE id = $1",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if locked == 0 {
            return Err(not_found());
        }
        let old = account(&mut tx, id).await?;
        let secret_id = insert_secret(&mut tx, id, secret, now).await?;
        sqlx::query(
            "DELETE FROM service_account_secrets WHERE account_id = $1 AND id NOT IN \
             (SELECT id FROM service_account_secrets WHERE account_id = $1 \
              ORDER BY id DESC LIMIT $2)",
        )
        .bind(id)
        .bind(MAX_SECRETS)
        .execute(&mut *tx)
        .await?;
        recorded(&mut tx, context, id, Some(&old), true).await?;
        tx.commit().await?;
        Ok(secret_id)
    }

    /// Revokes one secret of account `id`.
    pub async fn revoke_service_account_secret(
        &self,
        context: &AuditContext,
        id: i64,
        secret_id: i64,
    ) -> ServiceResult<ServiceAccountRecord> {
        let mut tx = self.write().await?;
        let old = account(&mut tx, id).await?;
        let deleted =
            sqlx::query("DELETE FROM service_account_secrets WHERE id = $1 AND account_id = $2")
                .bind(secret_id)
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        if deleted == 0 {
            return Err(ServiceError::not_found(MSG_SECRET_NOT_FOUND));
        }
        let updated = recorded(&mut tx, context, id, Some(&old), false).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Registers (or with '' removes) the key of account `id`'s assertions.
    pub async fn set_service_account_public_key(
        &self,
        context: &AuditContext,
        id: i64,
        pem: &str,
    ) -> ServiceResult<ServiceAccountRecord> {
        let mut tx = self.write().await?;
        let old = account(&mut tx, id).await?;
        let changed = sqlx::query("UPDATE service_accounts SET public_key = $1 WHERE id = $2")
            .bind(pem)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if changed == 0 {
            return Err(not_found());
        }
        let updated = recorded(&mut tx, context, id, Some(&old), false).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Enables or disables account `id`; its new access version if that
    /// changed it (a repeat changes nothing).
    pub async fn set_service_account_active(
        &self,
        context: &AuditContext,
        id: i64,
        active: bool,
        now: i64,
    ) -> ServiceResult<(ServiceAccountRecord, Option<i64>)> {
        let mut tx = self.write().await?;
        let old = account(&mut tx, id).await?;
        let changed =
            sqlx::query("UPDATE service_accounts SET active = $1 WHERE id = $2 AND active <> $1")
                .bind(i64::from(active))
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        let raised = if changed > 0 {
            Some(raise_access_version(&mut tx, id, now).await?)
        } else {
            None
        };
        let updated = recorded(&mut tx, context, id, Some(&old), false).await?;
        tx.commit().await?;
        Ok((updated, raised))
    }

    /// What a token request reads of `client_id`, if any account has it.
    pub async fn client(&self, client_id: &str) -> ServiceResult<Option<Client>> {
        let mut conn = self.read().await?;
        let row: Option<(i64, String, String, i64, String, i64)> = sqlx::query_as(
            "SELECT id, name, scopes, active, public_key, access_version \
             FROM service_accounts WHERE client_id = $1",
        )
        .bind(client_id)
        .fetch_optional(&mut *conn)
        .await?;
        let Some((account_id, name, scopes, active, public_key, access_version)) = row else {
            return Ok(None);
        };
        let secrets = sqlx::query_as(
            "SELECT id, secret_hash FROM service_account_secrets WHERE account_id = $1 ORDER BY id",
        )
        .bind(account_id)
        .fetch_all(&mut *conn)
        .await?;
        Ok(Some(Client {
            account_id,
            name,
            client_id: client_id.to_owned(),
            scopes: Scopes::from_stored(&scopes),
            active: active != 0,
            public_key,
            access_version,
            secrets,
        }))
    }

    /// Notes a token issued to `account_id` from `address`, by secret
    /// `secret_id` if one was used.
    pub async fn record_service_token(
        &self,
        account_id: i64,
        secret_id: Option<i64>,
        address: &str,
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE service_accounts SET last_used_at = $1, last_used_from = $2 WHERE id = $3",
        )
        .bind(now)
        .bind(address)
        .bind(account_id)
        .execute(&mut *tx)
        .await?;
        if let Some(secret_id) = secret_id {
            sqlx::query("UPDATE service_account_secrets SET last_used_at = $1 WHERE id = $2")
                .bind(now)
                .bind(secret_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Wrong credentials sent for `client_id` within the window ending `now`.
    pub async fn token_failures(&self, client_id: &str, now: i64) -> ServiceResult<Failures> {
        let (count, oldest_at): (i64, Option<i64>) = sqlx::query_as(
            "SELECT COUNT(*), MIN(at) FROM service_token_failures WHERE client_id = $1 AND at > $2",
        )
        .bind(client_id)
        .bind(failure_window_start(now))
        .fetch_one(&self.pool)
        .await?;
        Ok(Failures { count, oldest_at })
    }

    /// Counts wrong credentials for `client_id`, and forgets failures no
    /// window holds any more.
    pub async fn record_token_failure(&self, client_id: &str, now: i64) -> ServiceResult<()> {
        sqlx::query("DELETE FROM service_token_failures WHERE at <= $1")
            .bind(failure_window_start(now))
            .execute(&self.pool)
            .await?;
        sqlx::query("INSERT INTO service_token_failures (client_id, at) VALUES ($1, $2)")
            .bind(client_id)
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Takes assertion id `jti` of `account_id` until `expires_at` (Unix ms):
    /// false if it was taken already (a replayed assertion).
    pub async fn use_assertion_id(
        &self,
        account_id: i64,
        jti: &str,
        expires_at: i64,
        now: i64,
    ) -> ServiceResult<bool> {
        sqlx::query("DELETE FROM service_assertion_ids WHERE expires_at < $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        let inserted = sqlx::query(
            "INSERT INTO service_assertion_ids (account_id, jti, expires_at) VALUES ($1, $2, $3)",
        )
        .bind(account_id)
        .bind(jti)
        .bind(expires_at)
        .execute(&self.pool)
        .await;
        match inserted {
            Ok(_) => Ok(true),
            Err(error) if is_unique_violation(&error) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }

    /// Service accounts whose access version changed at `from` or later.
    pub(super) async fn service_account_access_changes(
        &self,
        from: i64,
    ) -> ServiceResult<Vec<(i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT id, access_version FROM service_accounts \
             WHERE access_changed_at >= $1 AND access_version > 0",
        )
        .bind(from)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Sets the name key of accounts from before it, or keyed by an older rule.
    pub async fn key_service_account_names(&self) -> ServiceResult<()> {
        rekey(&self.pool, &KEYED_NAMES, name_key).await
    }
}

/// Account `id` as a write left it, recorded in the audit log against
/// `before` (none: created); `secret_issued` when the write made a secret.
async fn recorded(
    conn: &mut AnyConnection,
    context: &AuditContext,
    id: i64,
    before: Option<&ServiceAccountRecord>,
    secret_issued: bool,
) -> ServiceResult<ServiceAccountRecord> {
    let after = account(conn, id).await?;
    let action = if before.is_some() {
        action::UPDATE
    } else {
        action::CREATE
    };
    service_account_written(conn, context, action, before, &after, secret_issued).await?;
    Ok(after)
}

/// Account `id` as `conn` sees it, locked until a write transaction's end
/// ([`for_update`]): what the write changes it from.
async fn account(conn: &mut AnyConnection, id: i64) -> ServiceResult<ServiceAccountRecord> {
    let select = format!("{ACCOUNT_COLUMNS} WHERE a.id = $1");
    let row: Option<AccountRow> = sqlx::query_as(for_update(conn, &select, "a"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    let row = row.ok_or_else(not_found)?;
    let secrets = sqlx::query_as(
        "SELECT id, created_at, last_used_at FROM service_account_secrets \
         WHERE account_id = $1 ORDER BY id",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(ServiceAccountRecord::from_row(row, secrets))
}

async fn insert_secret(
    conn: &mut AnyConnection,
    account_id: i64,
    secret: &SecretHash,
    now: i64,
) -> ServiceResult<i64> {
    Ok(sqlx::query_scalar(
        "INSERT INTO service_account_secrets (account_id, secret_hash, created_at) \
         VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(account_id)
    .bind(secret.as_str())
    .bind(now)
    .fetch_one(&mut *conn)
    .await?)
}

/// Makes every token of service account `id` signed so far stale; the new version.
async fn raise_access_version(conn: &mut AnyConnection, id: i64, now: i64) -> ServiceResult<i64> {
    Ok(sqlx::query_scalar(
        "UPDATE service_accounts SET access_version = access_version + 1, access_changed_at = $1 \
         WHERE id = $2 RETURNING access_version",
    )
    .bind(now)
    .bind(id)
    .fetch_one(&mut *conn)
    .await?)
}
