//! The gRPC face of auth: each call checks its caller, parses the request into
//! domain types, asks the store or the sessions, and answers through
//! [`crate::convert`].
//!
//! Access per call (the contract's comments): Login, RefreshToken and Logout are
//! public; GetMe, ListDepartments, ListDepartmentsByIds, GetDepartment and the
//! reference lists need a signed-in caller; ListDepartmentsWithUsers and
//! GetDepartmentWithUsers any admin-type right, and only UserManagement and
//! EducationManagement (which assigns courses to people) read other
//! departments' people: EquipmentEditing alone lists its own departments and is
//! refused another's; ListUsers UserManagement; GetUser the user themself or
//! UserManagement; every write UserManagement. ResolveStaff: UserManagement or
//! EducationManagement, or a service account with staff.read, training.read
//! or training.assign; SyncStaff and SyncStaffStream UserManagement or a
//! service account with staff.write.
//!
//! ListMySessions and EndMySessions any signed-in person (their own sessions);
//! EndUserSessions UserManagement ([`sessions`]). RequestPasswordReset and
//! ResetPassword are public ([`password_reset`]). LoginMfa is public; the
//! caller's own second factor any signed-in person; ResetUserMfa
//! UserManagement ([`mfa`]). SendInvitation, InviteDepartment and
//! MakeFirstSignInCode UserManagement, FirstSignIn public ([`invitations`]).
//! Single sign-on's calls are public ([`sso`]).
//!
//! The internal services the gateway does not forward are in [`internal`],
//! ServiceAccountService in [`service_accounts`], the shared SearchService
//! (`portal.search.v1`) in [`search`].

mod internal;
mod invitations;
mod mfa;
mod password_reset;
mod search;
mod service_accounts;
mod sessions;
mod sso;

pub use internal::{AccessRevocationRpc, MailRecipientRpc};
pub use search::SearchRpc;
pub use service_accounts::ServiceAccountRpc;

use std::collections::HashSet;

use portal_kit::access::{Actor, Scope};
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::net::{TrustedProxies, limit_key};
use portal_kit::revocation::AccessVersions;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::auth_service_server::AuthService;
use tonic::{Request, Response, Status, Streaming};

use crate::app::password_check::PasswordCheck;
use crate::app::reset_mail::ResetMail;
use crate::app::sessions::{Sessions, SignInForm};
use crate::domain::department::DepartmentDraft;
use crate::domain::ids::IdSet;
use crate::domain::staff::{StaffBatch, StaffQuery, add_chunk};
use crate::domain::user::{NewUser, UserUpdate};
use crate::store::Store;
use crate::store::user::{SessionsEnded, UserUpdated};

pub struct AuthRpc {
    store: Store,
    /// Hashes passwords, and knows whose the directory checks.
    password_check: PasswordCheck,
    sessions: Sessions,
    trusted_proxies: TrustedProxies,
    /// This replica's own token check: a change made here is enforced here at
    /// once, before the next poll.
    versions: AccessVersions,
    /// `PORTAL_STAFF_SYNC_MAX_BLOCK_PERCENT`.
    staff_sync_max_block_percent: u8,
    /// The links of «Забыли пароль?».
    reset_mail: ResetMail,
    /// Answers the deprecated Search.
    search: SearchRpc,
}

impl AuthRpc {
    pub fn new(
        store: Store,
        password_check: PasswordCheck,
        sessions: Sessions,
        trusted_proxies: TrustedProxies,
        versions: AccessVersions,
        staff_sync_max_block_percent: u8,
        reset_mail: ResetMail,
    ) -> AuthRpc {
        AuthRpc {
            search: SearchRpc::new(store.clone()),
            store,
            password_check,
            sessions,
            trusted_proxies,
            versions,
            staff_sync_max_block_percent,
            reset_mail,
        }
    }

    /// Applies a parsed staff batch for `actor`; the author is logged (the
    /// users table keeps no author), and the tokens the sync made stale stop
    /// here at once.
    async fn sync_staff_batch(
        &self,
        actor: Actor<'_>,
        context: &AuditContext,
        batch: &StaffBatch,
    ) -> RpcResult<pb::SyncStaffResponse> {
        let outcome = self
            .store
            .sync_staff(
                context,
                batch,
                self.staff_sync_max_block_percent,
                now_millis(),
            )
            .await?;
        self.versions.raise(outcome.raised.iter().copied());
        let dry_run = outcome.dry_run;
        tracing::info!(
            by = actor.user_id(),
            by_service_account = actor.service_account_id(),
            dry_run = outcome.dry_run,
            full = batch.full,
            created = outcome.created,
            changed = outcome.changed,
            blocked = outcome.blocked,
            unchanged = outcome.unchanged,
            refused = outcome.errors.len(),
            "staff synced"
        );
        let mut answer: pb::SyncStaffResponse = outcome.into();
        if batch.invite && !dry_run {
            self.invite_synced(context, batch, &mut answer).await?;
        }
        reply(answer)
    }

    /// Whose department members `caller` may read: everyone's (`None`) for
    /// UserManagement and EducationManagement, else only those of the
    /// departments the caller belongs to now; refused without an admin-type right.
    async fn people_readable(&self, caller: &Caller) -> ServiceResult<Option<HashSet<i64>>> {
        let claims = caller.require_admin_type()?;
        if caller.has(Right::UserManagement) || caller.has(Right::EducationManagement) {
            return Ok(None);
        }
        let own = self.store.departments_of(claims.user_id).await?;
        Ok(Some(own.into_iter().map(|d| d.id).collect()))
    }
}

/// Who may turn the HR system's keys into ids (ResolveStaff): the people
/// who read everyone's staff (UserManagement, EducationManagement), and
/// systems that read staff or training, or assign training.
fn require_staff_reader(caller: &Caller) -> ServiceResult<()> {
    const SCOPES: [Scope; 3] = [Scope::StaffRead, Scope::TrainingRead, Scope::TrainingAssign];
    if caller.has(Right::EducationManagement) || SCOPES.into_iter().any(|s| caller.has_scope(s)) {
        return Ok(());
    }
    // UserManagement, else the refusal this caller gets: unauthenticated,
    // no rights, or a system's missing scope.
    caller
        .require_right_or_scope(Right::UserManagement, Scope::StaffRead)
        .map(drop)
}

type RpcResult<T> = Result<Response<T>, Status>;

fn reply<T>(message: T) -> RpcResult<T> {
    Ok(Response::new(message))
}

#[tonic::async_trait]
impl AuthService for AuthRpc {
    async fn login(&self, request: Request<pb::LoginRequest>) -> RpcResult<pb::LoginResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let address = context
            .address
            .map_or_else(|| "unknown".to_owned(), limit_key);
        let used_from = sessions::used_from(&request, &self.trusted_proxies);
        let pb::LoginRequest {
            login,
            password,
            device_token,
        } = request.into_inner();
        let form = SignInForm {
            login: &login,
            password: &password,
            device_token: &device_token,
        };
        let signed_in = self
            .sessions
            .sign_in(form, &address, &context, &used_from)
            .await?;
        reply(signed_in.into())
    }

    async fn refresh_token(
        &self,
        request: Request<pb::RefreshTokenRequest>,
    ) -> RpcResult<pb::RefreshTokenResponse> {
        let used_from = sessions::used_from(&request, &self.trusted_proxies);
        let tokens = self
            .sessions
            .refresh(&request.into_inner().refresh_token, &used_from)
            .await?;
        reply(tokens.into())
    }

    async fn logout(&self, request: Request<pb::LogoutRequest>) -> RpcResult<pb::LogoutResponse> {
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let ended = self
            .sessions
            .sign_out(&request.into_inner().refresh_token, &context)
            .await?;
        // Refused here at once; the other services within a second.
        let single_sign_on = ended.as_ref().is_some_and(|e| e.single_sign_on);
        self.versions
            .raise(ended.map(|e| (e.user_id, e.access_version)));
        reply(pb::LogoutResponse {
            end_session_url: self.end_session_url(single_sign_on).await,
        })
    }

    async fn request_password_reset(
        &self,
        request: Request<pb::RequestPasswordResetRequest>,
    ) -> RpcResult<pb::RequestPasswordResetResponse> {
        self.ask_password_reset(request).await
    }

    async fn get_sign_in_options(
        &self,
        request: Request<pb::GetSignInOptionsRequest>,
    ) -> RpcResult<pb::GetSignInOptionsResponse> {
        self.sign_in_options(request).await
    }

    async fn start_sso(
        &self,
        request: Request<pb::StartSsoRequest>,
    ) -> RpcResult<pb::StartSsoResponse> {
        self.begin_single_sign_on(request).await
    }

    async fn finish_sso(
        &self,
        request: Request<pb::FinishSsoRequest>,
    ) -> RpcResult<pb::FinishSsoResponse> {
        self.complete_single_sign_on(request).await
    }

    async fn backchannel_logout(
        &self,
        request: Request<pb::BackchannelLogoutRequest>,
    ) -> RpcResult<pb::BackchannelLogoutResponse> {
        self.end_by_provider(request).await
    }

    async fn reset_password(
        &self,
        request: Request<pb::ResetPasswordRequest>,
    ) -> RpcResult<pb::ResetPasswordResponse> {
        self.set_forgotten_password(request).await
    }

    async fn login_mfa(
        &self,
        request: Request<pb::LoginMfaRequest>,
    ) -> RpcResult<pb::LoginMfaResponse> {
        self.second_step(request).await
    }

    async fn get_my_mfa(
        &self,
        request: Request<pb::GetMyMfaRequest>,
    ) -> RpcResult<pb::GetMyMfaResponse> {
        self.own_mfa(request).await
    }

    async fn enrol_mfa(
        &self,
        request: Request<pb::EnrolMfaRequest>,
    ) -> RpcResult<pb::EnrolMfaResponse> {
        self.begin_mfa(request).await
    }

    async fn confirm_mfa(
        &self,
        request: Request<pb::ConfirmMfaRequest>,
    ) -> RpcResult<pb::ConfirmMfaResponse> {
        self.turn_mfa_on(request).await
    }

    async fn disable_mfa(
        &self,
        request: Request<pb::DisableMfaRequest>,
    ) -> RpcResult<pb::DisableMfaResponse> {
        self.turn_mfa_off(request).await
    }

    async fn regenerate_recovery_codes(
        &self,
        request: Request<pb::RegenerateRecoveryCodesRequest>,
    ) -> RpcResult<pb::RegenerateRecoveryCodesResponse> {
        self.new_recovery_codes(request).await
    }

    async fn reset_user_mfa(
        &self,
        request: Request<pb::ResetUserMfaRequest>,
    ) -> RpcResult<pb::ResetUserMfaResponse> {
        self.reset_persons_mfa(request).await
    }

    async fn send_invitation(
        &self,
        request: Request<pb::SendInvitationRequest>,
    ) -> RpcResult<pb::SendInvitationResponse> {
        self.invite_one(request).await
    }

    async fn invite_department(
        &self,
        request: Request<pb::InviteDepartmentRequest>,
    ) -> RpcResult<pb::InviteDepartmentResponse> {
        self.invite_members(request).await
    }

    async fn make_first_sign_in_code(
        &self,
        request: Request<pb::MakeFirstSignInCodeRequest>,
    ) -> RpcResult<pb::MakeFirstSignInCodeResponse> {
        self.make_code(request).await
    }

    async fn first_sign_in(
        &self,
        request: Request<pb::FirstSignInRequest>,
    ) -> RpcResult<pb::FirstSignInResponse> {
        self.sign_in_first_time(request).await
    }

    async fn get_me(&self, request: Request<pb::GetMeRequest>) -> RpcResult<pb::GetMeResponse> {
        let user_id = Caller::of(&request).user_id()?;
        reply(self.store.me(user_id).await?.into())
    }

    async fn list_my_sessions(
        &self,
        request: Request<pb::ListMySessionsRequest>,
    ) -> RpcResult<pb::ListMySessionsResponse> {
        self.own_sessions(request).await
    }

    async fn end_my_sessions(
        &self,
        request: Request<pb::EndMySessionsRequest>,
    ) -> RpcResult<pb::EndMySessionsResponse> {
        self.end_own_sessions(request).await
    }

    async fn end_user_sessions(
        &self,
        request: Request<pb::EndUserSessionsRequest>,
    ) -> RpcResult<pb::EndUserSessionsResponse> {
        self.end_persons_sessions(request).await
    }

    /// Every department for an admin-type right; a learner's own otherwise.
    async fn list_departments(
        &self,
        request: Request<pb::ListDepartmentsRequest>,
    ) -> RpcResult<pb::ListDepartmentsResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.user_id()?;
        let departments = if caller.is_admin_type() {
            self.store.departments().await?
        } else {
            self.store.departments_of(user_id).await?
        };
        reply(pb::ListDepartmentsResponse {
            departments: departments.into_iter().map(Into::into).collect(),
        })
    }

    /// Only the caller's own departments, unless they manage users: others are
    /// left out silently, like unknown ids.
    async fn list_departments_by_ids(
        &self,
        request: Request<pb::ListDepartmentsByIdsRequest>,
    ) -> RpcResult<pb::ListDepartmentsByIdsResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.user_id()?;
        let wanted = IdSet::from_request(&request.get_ref().department_ids);
        let visible = if caller.has(Right::UserManagement) {
            self.store.departments().await?
        } else {
            self.store.departments_of(user_id).await?
        };
        let departments = visible
            .into_iter()
            .filter(|d| wanted.contains(d.id))
            .map(Into::into)
            .collect();
        reply(pb::ListDepartmentsByIdsResponse { departments })
    }

    async fn list_departments_with_users(
        &self,
        request: Request<pb::ListDepartmentsWithUsersRequest>,
    ) -> RpcResult<pb::ListDepartmentsWithUsersResponse> {
        let mut departments = self.store.departments_with_members().await?;
        if let Some(own) = self.people_readable(&Caller::of(&request)).await? {
            departments.retain(|d| own.contains(&d.id));
        }
        reply(pb::ListDepartmentsWithUsersResponse {
            departments: departments.into_iter().map(Into::into).collect(),
        })
    }

    /// Any department for an admin-type right; a learner's own otherwise.
    async fn get_department(
        &self,
        request: Request<pb::GetDepartmentRequest>,
    ) -> RpcResult<pb::GetDepartmentResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.user_id()?;
        let department_id = request.get_ref().department_id;
        let found = self.store.department(department_id).await?;
        if !caller.is_admin_type() {
            let own = self.store.departments_of(user_id).await?;
            if !own.iter().any(|d| d.id == department_id) {
                return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
            }
        }
        reply(pb::GetDepartmentResponse {
            department: Some(found.into()),
        })
    }

    async fn get_department_with_users(
        &self,
        request: Request<pb::GetDepartmentWithUsersRequest>,
    ) -> RpcResult<pb::GetDepartmentWithUsersResponse> {
        let department_id = request.get_ref().department_id;
        if let Some(own) = self.people_readable(&Caller::of(&request)).await?
            && !own.contains(&department_id)
        {
            return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
        }
        let found = self.store.department_with_members(department_id).await?;
        reply(pb::GetDepartmentWithUsersResponse {
            department: Some(found.into()),
        })
    }

    async fn create_department(
        &self,
        request: Request<pb::CreateDepartmentRequest>,
    ) -> RpcResult<pb::CreateDepartmentResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let pb::CreateDepartmentRequest { title, user_ids } = request.into_inner();
        let draft = DepartmentDraft::parse(&title, &user_ids)?;
        let created = self
            .store
            .create_department(&context, &draft, now_millis())
            .await?;
        tracing::info!(
            by = claims.user_id,
            department_id = created.id,
            "department created"
        );
        reply(pb::CreateDepartmentResponse {
            department: Some(created.into()),
        })
    }

    async fn update_department(
        &self,
        request: Request<pb::UpdateDepartmentRequest>,
    ) -> RpcResult<pb::UpdateDepartmentResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let pb::UpdateDepartmentRequest {
            id,
            title,
            user_ids,
        } = request.into_inner();
        let draft = DepartmentDraft::parse(&title, &user_ids)?;
        let (updated, raised) = self
            .store
            .update_department(&context, id, &draft, now_millis())
            .await?;
        tracing::info!(
            by = claims.user_id,
            department_id = id,
            members_changed = raised.len(),
            "department updated"
        );
        self.versions.raise(raised);
        reply(pb::UpdateDepartmentResponse {
            department: Some(updated.into()),
        })
    }

    async fn list_rights(
        &self,
        request: Request<pb::ListRightsRequest>,
    ) -> RpcResult<pb::ListRightsResponse> {
        Caller::of(&request).claims()?;
        let rights = self.store.rights().await?;
        reply(pb::ListRightsResponse {
            rights: rights.into_iter().map(Into::into).collect(),
        })
    }

    async fn list_positions(
        &self,
        request: Request<pb::ListPositionsRequest>,
    ) -> RpcResult<pb::ListPositionsResponse> {
        Caller::of(&request).claims()?;
        let positions = self.store.positions().await?;
        reply(pb::ListPositionsResponse {
            positions: positions.into_iter().map(Into::into).collect(),
        })
    }

    async fn list_statuses(
        &self,
        request: Request<pb::ListStatusesRequest>,
    ) -> RpcResult<pb::ListStatusesResponse> {
        Caller::of(&request).claims()?;
        let statuses = self.store.statuses().await?;
        reply(pb::ListStatusesResponse {
            statuses: statuses.into_iter().map(Into::into).collect(),
        })
    }

    async fn list_users(
        &self,
        request: Request<pb::ListUsersRequest>,
    ) -> RpcResult<pb::ListUsersResponse> {
        Caller::of(&request).require(Right::UserManagement)?;
        let users = self.store.users().await?;
        reply(pb::ListUsersResponse {
            users: users.into_iter().map(Into::into).collect(),
        })
    }

    async fn get_user(
        &self,
        request: Request<pb::GetUserRequest>,
    ) -> RpcResult<pb::GetUserResponse> {
        let user_id = request.get_ref().user_id;
        Caller::of(&request).require_self_or(user_id, Right::UserManagement)?;
        let found = self.store.user(user_id).await?;
        reply(pb::GetUserResponse {
            user: Some(found.into()),
        })
    }

    async fn create_user(
        &self,
        request: Request<pb::CreateUserRequest>,
    ) -> RpcResult<pb::CreateUserResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let draft = request.into_inner().user.unwrap_or_default();
        let new_user = NewUser::parse(&draft)?;
        let hash = self
            .password_check
            .passwords()
            .hash(&new_user.password)
            .await?;
        let created = self
            .store
            .create_user(&context, &new_user.profile, &hash, now_millis())
            .await?;
        tracing::info!(by = claims.user_id, user_id = created.id, "user created");
        reply(pb::CreateUserResponse {
            user: Some(created.into()),
        })
    }

    async fn resolve_staff(
        &self,
        request: Request<pb::ResolveStaffRequest>,
    ) -> RpcResult<pb::ResolveStaffResponse> {
        require_staff_reader(&Caller::of(&request))?;
        let r = request.into_inner();
        let query = StaffQuery::parse(&r.employee_numbers, &r.department_codes, &r.user_ids);
        reply(self.store.resolve_staff(&query).await?.into())
    }

    async fn sync_staff(
        &self,
        request: Request<pb::SyncStaffRequest>,
    ) -> RpcResult<pb::SyncStaffResponse> {
        let caller = Caller::of(&request);
        let actor = caller.require_right_or_scope(Right::UserManagement, Scope::StaffWrite)?;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let batch = StaffBatch::parse(request.get_ref())?;
        self.sync_staff_batch(actor, &context, &batch).await
    }

    async fn sync_staff_stream(
        &self,
        request: Request<Streaming<pb::SyncStaffStreamRequest>>,
    ) -> RpcResult<pb::SyncStaffStreamResponse> {
        // Checked before a chunk is read: a refused caller sends nothing in vain.
        let caller = Caller::of(&request);
        let actor = caller.require_right_or_scope(Right::UserManagement, Scope::StaffWrite)?;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let mut chunks = request.into_inner();
        let mut whole = None;
        while let Some(message) = chunks.message().await? {
            add_chunk(&mut whole, message.chunk.unwrap_or_default())?;
        }
        let batch = StaffBatch::parse(&whole.unwrap_or_default())?;
        let result = self
            .sync_staff_batch(actor, &context, &batch)
            .await?
            .into_inner();
        reply(pb::SyncStaffStreamResponse {
            result: Some(result),
        })
    }

    async fn update_user(
        &self,
        request: Request<pb::UpdateUserRequest>,
    ) -> RpcResult<pb::UpdateUserResponse> {
        let claims = Caller::of(&request).require(Right::UserManagement)?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let r = request.into_inner();
        let update = UserUpdate::parse(r.id, &r.user.unwrap_or_default())?;
        let hash = match &update.password {
            Some(password) => Some(self.password_check.passwords().hash(password).await?),
            None => None,
        };
        let UserUpdated {
            user: updated,
            ended,
            access_version,
        } = self
            .store
            .update_user(
                &context,
                update.id,
                &update.profile,
                hash.as_ref(),
                now_millis(),
            )
            .await?;
        tracing::info!(
            by = claims.user_id,
            user_id = updated.id,
            access_version,
            "user updated"
        );
        if let Some(version) = access_version {
            self.versions.raise([(updated.id, version)]);
        }
        match ended {
            SessionsEnded::None => {}
            SessionsEnded::PasswordChanged => {
                tracing::info!(user_id = updated.id, "password changed: sessions ended")
            }
            SessionsEnded::Blocked => tracing::info!(
                user_id = updated.id,
                "status blocks sign-in: sessions ended"
            ),
        }
        reply(pb::UpdateUserResponse {
            user: Some(updated.into()),
        })
    }

    /// Deprecated: SearchService's Search answers it.
    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        portal_kit::search::answer_deprecated(&self.search, request).await
    }
}
