//! Single sign-on's calls (issue 39.2), all public: GetSignInOptions for the
//! sign-in page, StartSso and FinishSso around the provider's own page (the
//! flow's state is the credential), BackchannelLogout (the provider's signed
//! logout token is).

use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::auth::v1 as pb;
use tonic::Request;

use super::{AuthRpc, RpcResult, reply, sessions};
use crate::app::sso_sign_in::{MSG_SSO_OFF, REASON_SSO_OFF, SsoSignIn};
use crate::store::session::Ending;

impl AuthRpc {
    fn single_sign_on(&self) -> ServiceResult<&SsoSignIn> {
        self.sessions
            .single_sign_on()
            .ok_or_else(|| ServiceError::conflict(MSG_SSO_OFF).because(REASON_SSO_OFF))
    }

    pub(super) async fn sign_in_options(
        &self,
        _request: Request<pb::GetSignInOptionsRequest>,
    ) -> RpcResult<pb::GetSignInOptionsResponse> {
        let sso_name = self
            .sessions
            .single_sign_on()
            .map(|sso| sso.sso().settings().name.clone())
            .unwrap_or_default();
        reply(pb::GetSignInOptionsResponse { sso_name })
    }

    pub(super) async fn begin_single_sign_on(
        &self,
        request: Request<pb::StartSsoRequest>,
    ) -> RpcResult<pb::StartSsoResponse> {
        let begun = self
            .single_sign_on()?
            .start(&request.into_inner().return_to)
            .await?;
        reply(pb::StartSsoResponse {
            authorization_url: begun.authorization_url,
            state: begun.state,
        })
    }

    pub(super) async fn complete_single_sign_on(
        &self,
        request: Request<pb::FinishSsoRequest>,
    ) -> RpcResult<pb::FinishSsoResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let used_from = sessions::used_from(&request, &self.trusted_proxies);
        let single_sign_on = self.single_sign_on()?;
        let pb::FinishSsoRequest {
            code,
            state,
            error,
            device_token,
        } = request.into_inner();
        let finished = single_sign_on
            .finish(&code, &state, &error, &context)
            .await?;
        let outcome = self
            .sessions
            .sign_in_by_sso(finished.found, &device_token, &context, &used_from)
            .await?;
        reply(pb::FinishSsoResponse {
            sign_in: Some(outcome.into()),
            return_to: finished.return_to,
        })
    }

    /// Ends every session of the people the logout token names, each
    /// refused by the other services within a second (as an administrator's
    /// ending does); a token seen before ends nothing.
    pub(super) async fn end_by_provider(
        &self,
        request: Request<pb::BackchannelLogoutRequest>,
    ) -> RpcResult<pb::BackchannelLogoutResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let single_sign_on = self.single_sign_on()?;
        let logout = single_sign_on
            .sso()
            .check_logout_token(&request.into_inner().logout_token)
            .await?;
        let now = now_millis();
        let expires_at = logout.expires_at.saturating_mul(1000);
        if !self
            .store
            .take_logout_token(&logout.jti, expires_at, now)
            .await?
        {
            tracing::info!("a back-channel logout token came again: nothing more to end");
            return reply(pb::BackchannelLogoutResponse { ended: 0 });
        }
        let people = self
            .store
            .sso_logout_people(
                &logout.issuer,
                logout.subject.as_deref(),
                logout.session.as_deref(),
            )
            .await?;
        let mut ended = 0;
        for user_id in people {
            ended += self.end(&context, user_id, &Ending::AllBut(None)).await?;
        }
        tracing::info!(ended, "the OpenID provider ended a person's sessions");
        reply(pb::BackchannelLogoutResponse { ended })
    }

    /// Where to send the browser after signing out of a session of single
    /// sign-on, so the provider's ends too ("" for any other session).
    pub(super) async fn end_session_url(&self, single_sign_on: bool) -> String {
        match self.sessions.single_sign_on() {
            Some(sso) if single_sign_on => sso.sso().end_session_url().await.unwrap_or_default(),
            _ => String::new(),
        }
    }
}
