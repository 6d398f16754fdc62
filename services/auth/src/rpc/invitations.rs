//! A first sign-in without an administrator typing a password (issue 39.3):
//! SendInvitation, InviteDepartment and MakeFirstSignInCode need
//! UserManagement; FirstSignIn is public (the code is the credential). An
//! invitation's link is taken by ResetPassword ([`super::password_reset`]).

use portal_kit::audit::AuditContext;
use portal_kit::db::{now_millis, timestamp_from_millis};
use portal_kit::net::limit_key;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::auth::v1 as pb;
use tonic::Request;

use super::{AuthRpc, RpcResult, reply};
use crate::app::reset_mail::Invitation;
use crate::domain::common_passwords;
use crate::domain::invitation::{MSG_CODE_REQUIRED, Skip};
use crate::domain::login::LoginKey;
use crate::domain::one_time::{new_code, typed_code};
use crate::domain::staff::StaffBatch;
use crate::domain::user::MSG_USER_NOT_FOUND;
use crate::store::invitation::{CodeEntered, Invitations, Invitee};

impl AuthRpc {
    pub(super) async fn invite_one(
        &self,
        request: Request<pb::SendInvitationRequest>,
    ) -> RpcResult<pb::SendInvitationResponse> {
        let admin = Caller::of(&request).require(Right::UserManagement)?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let user_id = request.into_inner().user_id;
        let mut done = self.invite(&context, &[user_id]).await?;
        if let Some((_, skip)) = done.skipped.pop() {
            return Err(skip.refusal().into());
        }
        let Some(sent) = done.sent.pop() else {
            return Err(ServiceError::not_found(MSG_USER_NOT_FOUND).into());
        };
        tracing::info!(by = admin, user_id, "invitation sent");
        reply(pb::SendInvitationResponse {
            email: sent.person.email,
            expires_at: Some(timestamp_from_millis(sent.expires_at)),
        })
    }

    pub(super) async fn invite_members(
        &self,
        request: Request<pb::InviteDepartmentRequest>,
    ) -> RpcResult<pb::InviteDepartmentResponse> {
        let admin = Caller::of(&request).require(Right::UserManagement)?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let department_id = request.into_inner().department_id;
        let members = self.store.member_ids(department_id).await?;
        // Refused as a whole rather than every member skipped alike.
        if !self.reset_mail.is_on() {
            return Err(Skip::MailOff.refusal().into());
        }
        let done = self.invite(&context, &members).await?;
        let sent = i32::try_from(done.sent.len()).unwrap_or(i32::MAX);
        tracing::info!(
            by = admin,
            department_id,
            sent,
            skipped = done.skipped.len(),
            "department invited"
        );
        reply(pb::InviteDepartmentResponse {
            sent,
            invited: done
                .sent
                .into_iter()
                .map(|i| invitee(i.person, None))
                .collect(),
            skipped: done
                .skipped
                .into_iter()
                .map(|(person, skip)| invitee(person, Some(skip)))
                .collect(),
        })
    }

    /// Stores invitations for `user_ids` and mails them once stored.
    pub(super) async fn invite(
        &self,
        context: &AuditContext,
        user_ids: &[i64],
    ) -> ServiceResult<Invitations> {
        let done = self
            .store
            .invite(context, user_ids, self.reset_mail.is_on(), now_millis())
            .await?;
        let letters: Vec<Invitation> = done
            .sent
            .iter()
            .map(|i| Invitation {
                user_id: i.person.user_id,
                email: &i.person.email,
                addressed_as: &i.person.addressed_as,
                login: &i.person.login,
                token: &i.token,
            })
            .collect();
        self.reset_mail.send_invitations(&letters);
        Ok(done)
    }

    /// Invites the people of a staff sync's batch who have no password yet
    /// (created by it or still without one), after its transaction; answers
    /// those invited and those who could not be for want of an address or a
    /// relay (people with a password or blocked are not candidates).
    pub(super) async fn invite_synced(
        &self,
        context: &AuditContext,
        batch: &StaffBatch,
        answer: &mut pb::SyncStaffResponse,
    ) -> ServiceResult<()> {
        let numbers: Vec<String> = batch
            .people
            .iter()
            .map(|p| p.employee_number.as_str().to_owned())
            .collect();
        let ids = self.store.ids_of_employees(&numbers).await?;
        let done = self.invite(context, &ids).await?;
        answer.invited = done
            .sent
            .into_iter()
            .map(|i| invitee(i.person, None))
            .collect();
        answer.not_invited = done
            .skipped
            .into_iter()
            .filter(|(_, skip)| matches!(skip, Skip::NoEmail | Skip::MailOff))
            .map(|(person, skip)| invitee(person, Some(skip)))
            .collect();
        Ok(())
    }

    pub(super) async fn make_code(
        &self,
        request: Request<pb::MakeFirstSignInCodeRequest>,
    ) -> RpcResult<pb::MakeFirstSignInCodeResponse> {
        let admin = Caller::of(&request).require(Right::UserManagement)?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let user_id = request.into_inner().user_id;
        let code = new_code();
        let made = self
            .store
            .make_first_sign_in_code(&context, user_id, &typed_code(&code).hash(), now_millis())
            .await?;
        tracing::info!(by = admin, user_id, "first sign-in code made");
        reply(pb::MakeFirstSignInCodeResponse {
            code,
            login: made.person.login,
            full_name: made.person.full_name,
            sign_in_url: self.reset_mail.first_sign_in_url(),
            expires_at: Some(timestamp_from_millis(made.expires_at)),
        })
    }

    pub(super) async fn sign_in_first_time(
        &self,
        request: Request<pb::FirstSignInRequest>,
    ) -> RpcResult<pb::FirstSignInResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let address = context
            .address
            .map_or_else(|| "unknown".to_owned(), limit_key);
        let pb::FirstSignInRequest {
            login,
            code,
            password,
        } = request.into_inner();
        let login = LoginKey::of(&login);
        let code = typed_code(&code);
        if login.as_str().is_empty() || code.is_empty() || password.is_empty() {
            return Err(ServiceError::invalid(MSG_CODE_REQUIRED).into());
        }
        let code = code.hash();
        let entered = CodeEntered {
            login: &login,
            code: &code,
            address: &address,
            now: now_millis(),
        };
        // The code first: a wrong one costs no password hash.
        self.store.first_sign_in_user(&context, &entered).await?;
        let password = common_passwords::chosen(&password)?;
        let hash = self.password_check.passwords().hash(&password).await?;
        let entered = CodeEntered {
            now: now_millis(),
            ..entered
        };
        let (user_id, version) = self.store.first_sign_in(&context, &entered, &hash).await?;
        // Refused here at once; the other services within a second.
        self.versions.raise([(user_id, version)]);
        tracing::info!(user_id, "first password set with a printed code");
        reply(pb::FirstSignInResponse {})
    }
}

/// A person invited (`skip` none) or skipped, as the answers list them.
pub(super) fn invitee(person: Invitee, skip: Option<Skip>) -> pb::Invitee {
    pb::Invitee {
        user_id: person.user_id,
        login: person.login,
        full_name: person.full_name,
        employee_number: person.employee_number,
        reason: skip.map(Skip::reason).unwrap_or_default().to_owned(),
        message: skip.map(Skip::message).unwrap_or_default().to_owned(),
    }
}
