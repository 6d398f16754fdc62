//! What single sign-on (issue 39.2) keeps: the flows between their start and
//! callback, which person each provider subject is, and the logout tokens
//! already taken.

use portal_kit::ServiceResult;

use super::Store;
use super::user::{Credentials, CredentialsRow, credentials_of, select_credentials};
use crate::domain::secret::SecretHash;

/// A flow waiting for its callback.
pub struct Flow {
    pub nonce: String,
    pub pkce_verifier: String,
    pub return_to: String,
}

impl Store {
    /// Keeps a flow begun, by its state's hash, until `expires_at`; flows
    /// expired by `now` go on the way (nobody finishes them).
    pub async fn save_sso_flow(
        &self,
        state: &SecretHash,
        flow: &Flow,
        now: i64,
        expires_at: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM sso_flows WHERE expires_at < $1")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO sso_flows (state_hash, nonce, pkce_verifier, return_to, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(state.as_str())
        .bind(&flow.nonce)
        .bind(&flow.pkce_verifier)
        .bind(&flow.return_to)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes the flow of a state, once: a second callback with the same
    /// state (a replay, a reload) finds nothing, as does an expired one.
    pub async fn take_sso_flow(&self, state: &SecretHash, now: i64) -> ServiceResult<Option<Flow>> {
        let mut tx = self.write().await?;
        let row: Option<(String, String, String, i64)> = sqlx::query_as(
            "DELETE FROM sso_flows WHERE state_hash = $1 \
             RETURNING nonce, pkce_verifier, return_to, expires_at",
        )
        .bind(state.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row.filter(|(_, _, _, expires_at)| *expires_at >= now).map(
            |(nonce, pkce_verifier, return_to, _)| Flow {
                nonce,
                pkce_verifier,
                return_to,
            },
        ))
    }

    /// The person a provider's subject signed in as before, if any.
    pub async fn sso_person(
        &self,
        issuer: &str,
        subject: &str,
    ) -> ServiceResult<Option<Credentials>> {
        let row: Option<CredentialsRow> = sqlx::query_as(select_credentials(
            "u.id = (SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2)",
        ))
        .bind(issuer)
        .bind(subject)
        .fetch_optional(&mut *self.read().await?)
        .await?;
        Ok(row.map(credentials_of))
    }

    /// Links a provider's subject to `user_id` (again, if it was another's:
    /// the provider's word on who it is stands).
    pub async fn link_sso_subject(
        &self,
        issuer: &str,
        subject: &str,
        user_id: i64,
        now: i64,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO sso_identities (issuer, subject, user_id, linked_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (issuer, subject) DO UPDATE SET user_id = excluded.user_id, linked_at = excluded.linked_at",
        )
        .bind(issuer)
        .bind(subject)
        .bind(user_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes a logout token's `jti` until `expires_at`: `false` when it was
    /// taken before (a replay ends nothing).
    pub async fn take_logout_token(
        &self,
        jti: &str,
        expires_at: i64,
        now: i64,
    ) -> ServiceResult<bool> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM sso_logout_tokens WHERE expires_at < $1")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let taken = sqlx::query(
            "INSERT INTO sso_logout_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING",
        )
        .bind(jti)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(taken == 1)
    }

    /// The people a provider's logout names: by its session (`sid`) the
    /// people of the portal's sessions opened with it, by its subject the
    /// person linked to it.
    pub async fn sso_logout_people(
        &self,
        issuer: &str,
        subject: Option<&str>,
        session: Option<&str>,
    ) -> ServiceResult<Vec<i64>> {
        let mut conn = self.read().await?;
        let mut people: Vec<i64> = Vec::new();
        if let Some(session) = session {
            people = sqlx::query_scalar(
                "SELECT DISTINCT user_id FROM refresh_families \
                 WHERE sso_session = $1 AND revoked_at IS NULL",
            )
            .bind(session)
            .fetch_all(&mut *conn)
            .await?;
        }
        if let Some(subject) = subject {
            let linked: Option<i64> = sqlx::query_scalar(
                "SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2",
            )
            .bind(issuer)
            .bind(subject)
            .fetch_optional(&mut *conn)
            .await?;
            people.extend(linked);
        }
        people.sort_unstable();
        people.dedup();
        Ok(people)
    }
}
