//! Two-step sign-in (issue 39.4): LoginMfa is public (its token is the
//! credential); GetMyMfa, EnrolMfa, ConfirmMfa, DisableMfa and
//! RegenerateRecoveryCodes any signed-in person, for their own factor only;
//! ResetUserMfa UserManagement.

use portal_kit::audit::{AuditContext, action};
use portal_kit::{Caller, Right, ServiceError};
use portal_proto::auth::v1 as pb;
use tonic::Request;

use super::{AuthRpc, RpcResult, reply, sessions};
use crate::app::mfa::{MSG_MFA_REQUIRED, REASON_MFA_REQUIRED};
use crate::domain::user::MSG_USER_NOT_FOUND;

impl AuthRpc {
    pub(super) async fn second_step(
        &self,
        request: Request<pb::LoginMfaRequest>,
    ) -> RpcResult<pb::LoginMfaResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let used_from = sessions::used_from(&request, &self.trusted_proxies);
        let pb::LoginMfaRequest {
            mfa_token,
            code,
            device_token,
        } = request.into_inner();
        let signed_in = self
            .sessions
            .finish_sign_in(&mfa_token, &code, &device_token, &context, &used_from)
            .await?;
        reply(signed_in.into())
    }

    pub(super) async fn own_mfa(
        &self,
        request: Request<pb::GetMyMfaRequest>,
    ) -> RpcResult<pb::GetMyMfaResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.claims()?.user_id;
        let enabled = matches!(self.store.mfa_factor(user_id).await?, Some(f) if f.confirmed);
        let left = if enabled {
            self.store.recovery_codes_left(user_id).await?
        } else {
            0
        };
        reply(pb::GetMyMfaResponse {
            enabled,
            required: self
                .sessions
                .second_factor()
                .required_for(caller.is_admin_type()),
            recovery_codes_left: i32::try_from(left).unwrap_or(i32::MAX),
        })
    }

    pub(super) async fn begin_mfa(
        &self,
        request: Request<pb::EnrolMfaRequest>,
    ) -> RpcResult<pb::EnrolMfaResponse> {
        let user_id = Caller::of(&request).claims()?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        // The login as it is now names the app's entry (a token may be older).
        let subject = self.store.subject(user_id).await?;
        let login = subject.map(|s| s.login).unwrap_or_default();
        let (secret, otpauth_url) = self
            .sessions
            .second_factor()
            .enrol(&context, user_id, &login)
            .await?;
        tracing::info!(user_id, "authenticator enrolment begun");
        let qr_png = portal_kit::qr::png(&otpauth_url)?;
        reply(pb::EnrolMfaResponse {
            secret,
            otpauth_url,
            qr_png,
        })
    }

    pub(super) async fn turn_mfa_on(
        &self,
        request: Request<pb::ConfirmMfaRequest>,
    ) -> RpcResult<pb::ConfirmMfaResponse> {
        let user_id = Caller::of(&request).claims()?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let recovery_codes = self
            .sessions
            .second_factor()
            .confirm(&context, user_id, &request.into_inner().code)
            .await?;
        tracing::info!(user_id, "two-step sign-in turned on");
        reply(pb::ConfirmMfaResponse { recovery_codes })
    }

    pub(super) async fn turn_mfa_off(
        &self,
        request: Request<pb::DisableMfaRequest>,
    ) -> RpcResult<pb::DisableMfaResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.claims()?.user_id;
        if self
            .sessions
            .second_factor()
            .required_for(caller.is_admin_type())
        {
            return Err(ServiceError::conflict(MSG_MFA_REQUIRED)
                .because(REASON_MFA_REQUIRED)
                .into());
        }
        let context = AuditContext::of(&request, &self.trusted_proxies);
        self.sessions
            .second_factor()
            .prove(user_id, &request.into_inner().code)
            .await?;
        self.store
            .remove_factor(&context, user_id, action::MFA_DISABLE)
            .await?;
        tracing::info!(user_id, "two-step sign-in turned off by its person");
        reply(pb::DisableMfaResponse {})
    }

    pub(super) async fn new_recovery_codes(
        &self,
        request: Request<pb::RegenerateRecoveryCodesRequest>,
    ) -> RpcResult<pb::RegenerateRecoveryCodesResponse> {
        let user_id = Caller::of(&request).claims()?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        self.sessions
            .second_factor()
            .prove(user_id, &request.into_inner().code)
            .await?;
        let recovery_codes = self
            .sessions
            .second_factor()
            .renew_codes(&context, user_id)
            .await?;
        tracing::info!(user_id, "new recovery codes");
        reply(pb::RegenerateRecoveryCodesResponse { recovery_codes })
    }

    pub(super) async fn reset_persons_mfa(
        &self,
        request: Request<pb::ResetUserMfaRequest>,
    ) -> RpcResult<pb::ResetUserMfaResponse> {
        let admin = Caller::of(&request).require(Right::UserManagement)?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let user_id = request.into_inner().user_id;
        if self.store.subject(user_id).await?.is_none() {
            return Err(ServiceError::not_found(MSG_USER_NOT_FOUND).into());
        }
        let removed = self
            .store
            .remove_factor(&context, user_id, action::MFA_RESET)
            .await?;
        tracing::info!(
            by = admin,
            user_id,
            removed,
            "a person's second factor reset"
        );
        reply(pb::ResetUserMfaResponse { removed })
    }
}
