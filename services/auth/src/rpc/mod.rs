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
//! ResetPassword are public ([`password_reset`]).
//!
//! ServiceAccountService: IssueServiceToken is public (the client's
//! credentials are in the request); every other call UserManagement, and none
//! serves a service account (a person's right is asked for).

mod password_reset;
mod sessions;

use std::collections::HashSet;

use portal_kit::access::{Actor, Scope};
use portal_kit::audit::{AuditContext, client_address};
use portal_kit::db::now_millis;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::net::{TrustedProxies, limit_key};
use portal_kit::revocation::{AccessVersions, Holder};
use portal_kit::search::Asked;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::access_revocation_service_server::AccessRevocationService;
use portal_proto::auth::v1::auth_service_server::AuthService;
use portal_proto::auth::v1::mail_recipient_service_server::MailRecipientService;
use portal_proto::auth::v1::service_account_service_server::ServiceAccountService;
use tonic::{Request, Response, Status, Streaming};

use crate::app::reset_mail::ResetMail;
use crate::app::service_tokens::{ServiceTokens, TokenRequest};
use crate::app::sessions::{Sessions, SignInForm};
use crate::convert;
use crate::domain::client_credentials::PublicKey;
use crate::domain::department::DepartmentDraft;
use crate::domain::ids::IdSet;
use crate::domain::password::Passwords;
use crate::domain::secret::SecretToken;
use crate::domain::service_account::{ServiceAccountDraft, new_client_id};
use crate::domain::staff::{StaffBatch, StaffQuery, add_chunk};
use crate::domain::user::{NewUser, UserUpdate};
use crate::store::Store;
use crate::store::mail::MAX_RECIPIENT_IDS;
use crate::store::search;
use crate::store::service_account::ServiceAccountRecord;
use crate::store::user::{SessionsEnded, UserUpdated};

pub struct AuthRpc {
    store: Store,
    passwords: Passwords,
    sessions: Sessions,
    trusted_proxies: TrustedProxies,
    /// This replica's own token check: a change made here is enforced here at
    /// once, before the next poll.
    versions: AccessVersions,
    /// `PORTAL_STAFF_SYNC_MAX_BLOCK_PERCENT`.
    staff_sync_max_block_percent: u8,
    /// The links of «Забыли пароль?».
    reset_mail: ResetMail,
}

impl AuthRpc {
    pub fn new(
        store: Store,
        passwords: Passwords,
        sessions: Sessions,
        trusted_proxies: TrustedProxies,
        versions: AccessVersions,
        staff_sync_max_block_percent: u8,
        reset_mail: ResetMail,
    ) -> AuthRpc {
        AuthRpc {
            store,
            passwords,
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
        reply(outcome.into())
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
        self.versions.raise(ended);
        reply(pb::LogoutResponse {})
    }

    async fn request_password_reset(
        &self,
        request: Request<pb::RequestPasswordResetRequest>,
    ) -> RpcResult<pb::RequestPasswordResetResponse> {
        self.ask_password_reset(request).await
    }

    async fn reset_password(
        &self,
        request: Request<pb::ResetPasswordRequest>,
    ) -> RpcResult<pb::ResetPasswordResponse> {
        self.set_forgotten_password(request).await
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
        let hash = self.passwords.hash(&new_user.password).await?;
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
            Some(password) => Some(self.passwords.hash(password).await?),
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

    /// UserManagement finds people and departments; anyone else signed in
    /// nothing (the gateway asks every service on everyone's behalf).
    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        let caller = Caller::of(&request);
        caller.claims()?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &search::KINDS)?;
        let found = if caller.has(Right::UserManagement) {
            self.store.search(&asked).await?
        } else {
            Vec::new()
        };
        reply(pb::SearchResponse {
            hits: found
                .into_iter()
                .map(portal_kit::search_hit!(pb::SearchHit))
                .collect(),
        })
    }
}

/// Whose tokens are stale, for the other services' token checks (internal:
/// the gateway does not forward it).
pub struct AccessRevocationRpc {
    store: Store,
}

impl AccessRevocationRpc {
    pub fn new(store: Store) -> AccessRevocationRpc {
        AccessRevocationRpc { store }
    }
}

#[tonic::async_trait]
impl AccessRevocationService for AccessRevocationRpc {
    async fn list_access_changes(
        &self,
        request: Request<pb::ListAccessChangesRequest>,
    ) -> RpcResult<pb::ListAccessChangesResponse> {
        let changes = self.store.changes_since(request.into_inner().since).await?;
        reply(convert::access_changes(changes))
    }
}

/// Whom the digest's mail may reach (internal: the gateway does not forward
/// it; education's background job asks it with no person's token).
pub struct MailRecipientRpc {
    store: Store,
}

impl MailRecipientRpc {
    pub fn new(store: Store) -> MailRecipientRpc {
        MailRecipientRpc { store }
    }
}

#[tonic::async_trait]
impl MailRecipientService for MailRecipientRpc {
    async fn list_mail_recipients(
        &self,
        request: Request<pb::ListMailRecipientsRequest>,
    ) -> RpcResult<pb::ListMailRecipientsResponse> {
        let ids = request.into_inner().user_ids;
        if ids.len() > MAX_RECIPIENT_IDS {
            return Err(ServiceError::invalid(MSG_TOO_MANY_RECIPIENTS).into());
        }
        let recipients = self.store.mail_recipients(&ids).await?;
        reply(pb::ListMailRecipientsResponse {
            recipients: recipients
                .into_iter()
                .map(convert::mail_recipient)
                .collect(),
        })
    }

    async fn list_mail_recipients_page(
        &self,
        request: Request<pb::ListMailRecipientsPageRequest>,
    ) -> RpcResult<pb::ListMailRecipientsPageResponse> {
        let m = request.into_inner();
        let size = match usize::try_from(m.page_size) {
            Ok(0) => MAX_RECIPIENT_IDS,
            Ok(size) if size <= MAX_RECIPIENT_IDS => size,
            _ => return Err(ServiceError::invalid(MSG_TOO_MANY_RECIPIENTS).into()),
        };
        let recipients = self
            .store
            .mail_recipients_after(m.after_user_id, i64::try_from(size).unwrap_or(i64::MAX))
            .await?;
        reply(pb::ListMailRecipientsPageResponse {
            last_user_id: recipients.last().map_or(0, |last| last.id),
            recipients: recipients
                .into_iter()
                .map(convert::mail_recipient)
                .collect(),
        })
    }
}

const MSG_TOO_MANY_RECIPIENTS: &str = "Не более 1000 сотрудников за один запрос";

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
