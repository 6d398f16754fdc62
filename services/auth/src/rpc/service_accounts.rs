//! ServiceAccountService: IssueServiceToken is public (the client's
//! credentials are in the request); every other call UserManagement, and none
//! serves a service account (a person's right is asked for).

use portal_kit::audit::{AuditContext, client_address};
use portal_kit::db::now_millis;
use portal_kit::net::TrustedProxies;
use portal_kit::revocation::{AccessVersions, Holder};
use portal_kit::{Caller, Right, ServiceResult};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::service_account_service_server::ServiceAccountService;
use tonic::Request;

use super::{RpcResult, reply};
use crate::app::service_tokens::{ServiceTokens, TokenRequest};
use crate::domain::client_credentials::PublicKey;
use crate::domain::secret::SecretToken;
use crate::domain::service_account::{ServiceAccountDraft, new_client_id};
use crate::store::Store;
use crate::store::rows::ServiceAccountRecord;

/// Other hospital systems' accounts, and their tokens.
pub struct ServiceAccountRpc {
    store: Store,
    tokens: ServiceTokens,
    trusted_proxies: TrustedProxies,
    /// This replica's own token check: a disabled account's tokens are
    /// refused here at once, before the next poll.
    versions: AccessVersions,
}

impl ServiceAccountRpc {
    pub fn new(
        store: Store,
        tokens: ServiceTokens,
        trusted_proxies: TrustedProxies,
        versions: AccessVersions,
    ) -> ServiceAccountRpc {
        ServiceAccountRpc {
            store,
            tokens,
            trusted_proxies,
            versions,
        }
    }

    /// Enforces a raised access version of account `id` here at once.
    fn raised(&self, id: i64, version: Option<i64>) {
        if let Some(version) = version {
            self.versions.raise([(Holder::ServiceAccount(id), version)]);
        }
    }

    /// Disables or enables account `id` for a UserManagement caller; its
    /// tokens stop (or the stale ones stay stopped) here at once.
    async fn set_active<T>(
        &self,
        request: &Request<T>,
        id: i64,
        active: bool,
    ) -> ServiceResult<ServiceAccountRecord> {
        let claims = Caller::of(request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(request, &self.trusted_proxies);
        let (updated, raised) = self
            .store
            .set_service_account_active(&context, id, active, now_millis())
            .await?;
        tracing::info!(
            by = claims.user_id,
            service_account_id = id,
            active,
            access_version = raised,
            "service account disabled or enabled"
        );
        self.raised(id, raised);
        Ok(updated)
    }
}

#[tonic::async_trait]
impl ServiceAccountService for ServiceAccountRpc {
    async fn list_service_accounts(
        &self,
        request: Request<pb::ListServiceAccountsRequest>,
    ) -> RpcResult<pb::ListServiceAccountsResponse> {
        Caller::of(&request).require(Right::UserManagement)?;
        let accounts = self.store.service_accounts().await?;
        reply(pb::ListServiceAccountsResponse {
            service_accounts: accounts.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_service_account(
        &self,
        request: Request<pb::CreateServiceAccountRequest>,
    ) -> RpcResult<pb::CreateServiceAccountResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let r = request.into_inner();
        let draft = ServiceAccountDraft::parse(
            &r.name,
            &r.description,
            &r.scopes,
            r.owner_id,
            claims.user_id,
        )?;
        let client_id = new_client_id();
        let secret = SecretToken::generate();
        let created = self
            .store
            .create_service_account(&context, &draft, &client_id, &secret.hash(), now_millis())
            .await?;
        tracing::info!(
            by = claims.user_id,
            service_account_id = created.id,
            %client_id,
            "service account created"
        );
        reply(pb::CreateServiceAccountResponse {
            id: created.id,
            client_id,
            client_secret: secret.into_string(),
            secret_id: created.secret_id,
        })
    }

    async fn update_service_account(
        &self,
        request: Request<pb::UpdateServiceAccountRequest>,
    ) -> RpcResult<pb::UpdateServiceAccountResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let r = request.into_inner();
        let draft = ServiceAccountDraft::parse(
            &r.name,
            &r.description,
            &r.scopes,
            r.owner_id,
            claims.user_id,
        )?;
        let (updated, raised) = self
            .store
            .update_service_account(&context, r.id, &draft, now_millis())
            .await?;
        tracing::info!(
            by = claims.user_id,
            service_account_id = r.id,
            access_version = raised,
            "service account updated"
        );
        self.raised(r.id, raised);
        reply(pb::UpdateServiceAccountResponse {
            service_account: Some(updated.into()),
        })
    }

    async fn rotate_service_account_secret(
        &self,
        request: Request<pb::RotateServiceAccountSecretRequest>,
    ) -> RpcResult<pb::RotateServiceAccountSecretResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let id = request.get_ref().id;
        let secret = SecretToken::generate();
        let secret_id = self
            .store
            .add_service_account_secret(&context, id, &secret.hash(), now_millis())
            .await?;
        tracing::info!(
            by = claims.user_id,
            service_account_id = id,
            secret_id,
            "service account secret rotated"
        );
        reply(pb::RotateServiceAccountSecretResponse {
            client_secret: secret.into_string(),
            secret_id,
        })
    }

    async fn revoke_service_account_secret(
        &self,
        request: Request<pb::RevokeServiceAccountSecretRequest>,
    ) -> RpcResult<pb::RevokeServiceAccountSecretResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let pb::RevokeServiceAccountSecretRequest { id, secret_id } = request.into_inner();
        let updated = self
            .store
            .revoke_service_account_secret(&context, id, secret_id)
            .await?;
        tracing::info!(
            by = claims.user_id,
            service_account_id = id,
            secret_id,
            "service account secret revoked"
        );
        reply(pb::RevokeServiceAccountSecretResponse {
            service_account: Some(updated.into()),
        })
    }

    async fn set_service_account_public_key(
        &self,
        request: Request<pb::SetServiceAccountPublicKeyRequest>,
    ) -> RpcResult<pb::SetServiceAccountPublicKeyResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let pb::SetServiceAccountPublicKeyRequest { id, public_key } = request.into_inner();
        let key = PublicKey::parse(&public_key)?;
        let updated = self
            .store
            .set_service_account_public_key(&context, id, key.as_ref().map_or("", PublicKey::pem))
            .await?;
        tracing::info!(
            by = claims.user_id,
            service_account_id = id,
            registered = key.is_some(),
            "service account public key set"
        );
        reply(pb::SetServiceAccountPublicKeyResponse {
            service_account: Some(updated.into()),
        })
    }

    async fn disable_service_account(
        &self,
        request: Request<pb::DisableServiceAccountRequest>,
    ) -> RpcResult<pb::DisableServiceAccountResponse> {
        let id = request.get_ref().id;
        let updated = self.set_active(&request, id, false).await?;
        reply(pb::DisableServiceAccountResponse {
            service_account: Some(updated.into()),
        })
    }

    async fn enable_service_account(
        &self,
        request: Request<pb::EnableServiceAccountRequest>,
    ) -> RpcResult<pb::EnableServiceAccountResponse> {
        let id = request.get_ref().id;
        let updated = self.set_active(&request, id, true).await?;
        reply(pb::EnableServiceAccountResponse {
            service_account: Some(updated.into()),
        })
    }

    async fn issue_service_token(
        &self,
        request: Request<pb::IssueServiceTokenRequest>,
    ) -> RpcResult<pb::IssueServiceTokenResponse> {
        let address = client_address(&self.trusted_proxies, &request)
            .map(|address| address.to_string())
            .unwrap_or_default();
        let r = request.into_inner();
        let token = self
            .tokens
            .issue(
                TokenRequest {
                    client_id: &r.client_id,
                    client_secret: &r.client_secret,
                    client_assertion_type: &r.client_assertion_type,
                    client_assertion: &r.client_assertion,
                    scope: &r.scope,
                },
                &address,
            )
            .await?;
        reply(token.into())
    }
}
