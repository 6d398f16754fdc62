//! Tokens for other hospital systems: the OAuth 2.0 client-credentials grant
//! (RFC 6749 §4.4) over the store, by the rules of
//! [`crate::domain::client_credentials`].

use portal_kit::db::now_millis;
use portal_kit::token::{SERVICE_TOKEN_TTL, ServiceAccountSubject, TokenIssuer};
use portal_kit::{ServiceError, ServiceResult};

use crate::domain::client_credentials::{
    AssertionId, Proof, PublicKey, assertion_audiences, failure_verdict, granted_scopes,
    invalid_client,
};
use crate::domain::secret::SecretToken;
use crate::domain::service_account::Scopes;
use crate::store::Store;
use crate::store::service_account::Client;

/// No client id is longer: a longer one is refused without being stored.
const MAX_CLIENT_ID_CHARS: usize = 64;

/// A token request as it came: credentials of one kind, and the scopes wanted.
#[derive(Clone, Copy, Debug)]
pub struct TokenRequest<'a> {
    pub client_id: &'a str,
    pub client_secret: &'a str,
    pub client_assertion_type: &'a str,
    pub client_assertion: &'a str,
    /// Scopes separated by spaces; empty for every granted one.
    pub scope: &'a str,
}

/// An access token for a system (RFC 6749 §5.1).
#[derive(Debug)]
pub struct ServiceToken {
    pub access_token: String,
    /// Seconds.
    pub expires_in: i32,
    pub scopes: Scopes,
}

#[derive(Clone)]
pub struct ServiceTokens {
    store: Store,
    issuer: TokenIssuer,
    /// The audiences a client assertion may name.
    audiences: [String; 2],
}

/// How a client proved itself: by which secret, or by an assertion.
enum Proven {
    Secret(i64),
    Assertion,
}

impl ServiceTokens {
    /// `public_url`: where systems reach the portal, whose token endpoint
    /// assertions may name as their audience.
    pub fn new(store: Store, issuer: TokenIssuer, public_url: &str) -> ServiceTokens {
        ServiceTokens {
            store,
            issuer,
            audiences: assertion_audiences(public_url),
        }
    }

    /// Issues a token to the client `request` proves, from client `address`
    /// ('' when unknown). Every failed proof answers alike; past the limit
    /// of failures for its client id it is turned away uncounted.
    pub async fn issue(
        &self,
        request: TokenRequest<'_>,
        address: &str,
    ) -> ServiceResult<ServiceToken> {
        let proof = Proof::parse(
            request.client_id,
            request.client_secret,
            request.client_assertion_type,
            request.client_assertion,
        )?;
        let client_id = proof.client_id();
        if client_id.chars().count() > MAX_CLIENT_ID_CHARS {
            return Err(invalid_client());
        }
        let now = now_millis();
        let client = self.store.client(client_id).await?;
        let proven = match &client {
            Some(client) => self.prove(client, &proof, now).await?,
            None => None,
        };
        let (Some(client), Some(proven)) = (client.filter(|c| c.active), proven) else {
            return Err(self.failed(client_id, address, now).await);
        };
        let scopes = granted_scopes(request.scope, &client.scopes)?;
        let access_token = self
            .issuer
            .issue_service_account(ServiceAccountSubject {
                account_id: client.account_id,
                name: client.name.clone(),
                client_id: client.client_id.clone(),
                scopes: scopes.as_slice().to_vec(),
                access_version: client.access_version,
            })
            .map_err(ServiceError::internal)?;
        let secret_id = match proven {
            Proven::Secret(id) => Some(id),
            Proven::Assertion => None,
        };
        self.store
            .record_service_token(client.account_id, secret_id, address, now)
            .await?;
        tracing::info!(
            service_account_id = client.account_id,
            client_id = %client.client_id,
            scope = %scopes.to_stored(),
            by_assertion = secret_id.is_none(),
            address,
            "service token issued"
        );
        Ok(ServiceToken {
            access_token,
            expires_in: i32::try_from(SERVICE_TOKEN_TTL.as_secs()).unwrap_or(i32::MAX),
            scopes,
        })
    }

    /// Whether `proof` is `client`'s: a secret among its alive ones (every
    /// digest compared in constant time), or an assertion its key signed,
    /// not used before.
    async fn prove(
        &self,
        client: &Client,
        proof: &Proof,
        now: i64,
    ) -> ServiceResult<Option<Proven>> {
        match proof {
            Proof::Secret { secret, .. } => {
                let hash = SecretToken::from_client(secret).hash();
                let mut found = None;
                for (id, stored) in &client.secrets {
                    if hash.matches(stored) {
                        found = Some(Proven::Secret(*id));
                    }
                }
                Ok(found)
            }
            Proof::Assertion { assertion, .. } => {
                let Some(key) = PublicKey::from_stored(&client.public_key) else {
                    return Ok(None);
                };
                let audiences = self.audiences.each_ref().map(String::as_str);
                let now_secs = u64::try_from(now / 1000).unwrap_or_default();
                let Some(AssertionId { jti, expires_at }) =
                    key.verify_assertion(assertion, &client.client_id, &audiences, now_secs)
                else {
                    return Ok(None);
                };
                let expires_at = i64::try_from(expires_at.saturating_mul(1000)).unwrap_or(i64::MAX);
                let first_use = self
                    .store
                    .use_assertion_id(client.account_id, &jti, expires_at, now)
                    .await?;
                if !first_use {
                    tracing::warn!(
                        service_account_id = client.account_id,
                        "a client assertion was presented again: refused"
                    );
                }
                Ok(first_use.then_some(Proven::Assertion))
            }
        }
    }

    /// Counts a failed proof for `client_id` (unless past the limit, which
    /// turns it away uncounted) and answers the one refusal.
    async fn failed(&self, client_id: &str, address: &str, now: i64) -> ServiceError {
        let outcome = async {
            let failures = self.store.token_failures(client_id, now).await?;
            failure_verdict(failures, now)?;
            self.store.record_token_failure(client_id, now).await
        };
        match outcome.await {
            Ok(()) => {
                tracing::info!(client_id, address, "service token refused: invalid client");
                invalid_client()
            }
            Err(refusal) => {
                tracing::warn!(
                    client_id,
                    address,
                    "service token refused: too many failures"
                );
                refusal
            }
        }
    }
}
