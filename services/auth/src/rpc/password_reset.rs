//! «Забыли пароль?» (issue 39.3): RequestPasswordReset sends a one-time link,
//! ResetPassword sets the new password with it. Both are public: the login
//! answers the same whoever it is, the link's token is the credential.

use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::net::limit_key;
use portal_proto::auth::v1 as pb;
use tonic::Request;

use super::{AuthRpc, RpcResult, reply};
use crate::domain::common_passwords;
use crate::domain::login::LoginKey;
use crate::domain::secret::SecretToken;
use crate::store::password_reset::{ResetAsked, ResetRequested, invalid_link};

impl AuthRpc {
    pub(super) async fn ask_password_reset(
        &self,
        request: Request<pb::RequestPasswordResetRequest>,
    ) -> RpcResult<pb::RequestPasswordResetResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let login = LoginKey::of(&request.into_inner().login);
        let answer = pb::RequestPasswordResetResponse {
            directory_sign_in: self.password_check.directory_is_on(),
            directory_reset_url: self
                .password_check
                .directory_reset_url()
                .unwrap_or_default()
                .to_owned(),
        };
        if login.as_str().is_empty() {
            return reply(answer);
        }
        if !self.reset_mail.is_on() {
            tracing::warn!(
                "a password reset was asked for, but no mail relay is set (PORTAL_SMTP_URL): nothing sent"
            );
            return reply(answer);
        }
        let address = context
            .address
            .map_or_else(|| "unknown".to_owned(), limit_key);
        let token = SecretToken::generate();
        let asked = ResetAsked {
            login: &login,
            address: &address,
            token: &token.hash(),
            now: now_millis(),
            directory: self.password_check.directory_is_on(),
        };
        match self.store.request_password_reset(&context, &asked).await? {
            ResetRequested::Limited => {
                tracing::info!(
                    address,
                    "password reset requests over the limit: nothing sent"
                )
            }
            ResetRequested::NoOne => {}
            ResetRequested::Send { user_id, email } => {
                self.reset_mail.send(user_id, &email, &token)
            }
        }
        reply(answer)
    }

    pub(super) async fn set_forgotten_password(
        &self,
        request: Request<pb::ResetPasswordRequest>,
    ) -> RpcResult<pb::ResetPasswordResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let pb::ResetPasswordRequest { token, password } = request.into_inner();
        let token = SecretToken::from_client(&token);
        if token.is_empty() {
            return Err(invalid_link().into());
        }
        let token = token.hash();
        // The link first: a made-up token costs no password hash.
        self.store.password_reset_user(&token, now_millis()).await?;
        let password = common_passwords::chosen(&password)?;
        let hash = self.password_check.passwords().hash(&password).await?;
        let (user_id, version) = self
            .store
            .reset_password(&context, &token, &hash, now_millis())
            .await?;
        // Refused here at once; the other services within a second.
        self.versions.raise([(user_id, version)]);
        tracing::info!(user_id, "password reset with a link: sessions ended");
        reply(pb::ResetPasswordResponse {})
    }
}
