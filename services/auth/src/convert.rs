//! Records to messages.

use portal_kit::db::timestamp_from_millis;
use portal_kit::revocation::{Changes, Holder};
use portal_proto::auth::v1 as pb;

use crate::app::service_tokens::ServiceToken;
use crate::app::sessions::{IssuedTokens, SignInOutcome, SignedIn};
use crate::store::mail::MailRecipientRecord;
use crate::store::reference::{PositionRecord, RightRecord, StatusRecord};
use crate::store::rows::{
    DepartmentRecord, DepartmentWithMembers, MemberRecord, SecretRecord, ServiceAccountRecord,
    UserRecord,
};
use crate::store::staff::{ReferenceChange, ReferenceCounts, ResolvedStaff, SyncOutcome};
use crate::store::user::Me;

impl From<SignedIn> for pb::LoginResponse {
    fn from(signed_in: SignedIn) -> Self {
        let pb::RefreshTokenResponse {
            access_token,
            refresh_token,
            expires_in,
            refresh_expires_in,
        } = signed_in.tokens.into();
        pb::LoginResponse {
            access_token,
            refresh_token,
            expires_in,
            device_token: signed_in.device_token.into_string(),
            refresh_expires_in,
            device_expires_in: signed_in.device_expires_in,
            mfa_required: false,
            mfa_token: String::new(),
        }
    }
}

impl From<SignInOutcome> for pb::LoginResponse {
    fn from(outcome: SignInOutcome) -> Self {
        match outcome {
            SignInOutcome::SignedIn(signed_in) => signed_in.into(),
            SignInOutcome::SecondStep { mfa_token } => pb::LoginResponse {
                mfa_required: true,
                mfa_token: mfa_token.into_string(),
                ..Default::default()
            },
        }
    }
}

/// The same session as Login's answer, field for field.
impl From<SignedIn> for pb::LoginMfaResponse {
    fn from(signed_in: SignedIn) -> Self {
        let pb::LoginResponse {
            access_token,
            refresh_token,
            expires_in,
            device_token,
            refresh_expires_in,
            device_expires_in,
            ..
        } = signed_in.into();
        pb::LoginMfaResponse {
            access_token,
            refresh_token,
            expires_in,
            device_token,
            refresh_expires_in,
            device_expires_in,
        }
    }
}

impl From<IssuedTokens> for pb::RefreshTokenResponse {
    fn from(tokens: IssuedTokens) -> Self {
        let IssuedTokens {
            access_token,
            refresh_token,
            expires_in,
            refresh_expires_in,
        } = tokens;
        pb::RefreshTokenResponse {
            access_token,
            refresh_token: refresh_token.into_string(),
            expires_in,
            refresh_expires_in,
        }
    }
}

impl From<Me> for pb::GetMeResponse {
    fn from(me: Me) -> Self {
        pb::GetMeResponse {
            user: Some(me.user.into()),
            status: me.status.map(Into::into),
            departments: me.departments.into_iter().map(Into::into).collect(),
            positions: me.positions.into_iter().map(Into::into).collect(),
            rights: me.rights.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<UserRecord> for pb::User {
    fn from(record: UserRecord) -> Self {
        pb::User {
            id: record.id,
            name: record.name,
            surname: record.surname,
            last_name: record.last_name,
            login: record.login,
            email: record.email,
            status_id: record.status_id.unwrap_or(0),
            department_ids: record.department_ids,
            position_ids: record.position_ids,
            right_ids: record.right_ids,
            created_at: Some(timestamp_from_millis(record.created_at)),
            employee_number: record.employee_number.unwrap_or_default(),
        }
    }
}

impl From<DepartmentRecord> for pb::Department {
    fn from(record: DepartmentRecord) -> Self {
        pb::Department {
            id: record.id,
            title: record.title,
        }
    }
}

impl From<MemberRecord> for pb::DepartmentMember {
    fn from(record: MemberRecord) -> Self {
        pb::DepartmentMember {
            id: record.id,
            name: record.name,
            surname: record.surname,
            last_name: record.last_name,
        }
    }
}

impl From<DepartmentWithMembers> for pb::DepartmentWithUsers {
    fn from(record: DepartmentWithMembers) -> Self {
        pb::DepartmentWithUsers {
            id: record.id,
            title: record.title,
            users: record.members.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<StatusRecord> for pb::Status {
    fn from(record: StatusRecord) -> Self {
        pb::Status {
            id: record.id,
            name: record.name,
            blocks_sign_in: record.blocks_sign_in != 0,
        }
    }
}

impl From<PositionRecord> for pb::Position {
    fn from(record: PositionRecord) -> Self {
        pb::Position {
            id: record.id,
            title: record.title,
        }
    }
}

impl From<RightRecord> for pb::Right {
    fn from(record: RightRecord) -> Self {
        pb::Right {
            id: record.id,
            name: record.name,
        }
    }
}

impl From<SecretRecord> for pb::ServiceAccountSecret {
    fn from(record: SecretRecord) -> Self {
        pb::ServiceAccountSecret {
            id: record.id,
            created_at: Some(timestamp_from_millis(record.created_at)),
            last_used_at: record.last_used_at.map(timestamp_from_millis),
        }
    }
}

impl From<ServiceAccountRecord> for pb::ServiceAccount {
    fn from(record: ServiceAccountRecord) -> Self {
        pb::ServiceAccount {
            id: record.id,
            client_id: record.client_id,
            name: record.name,
            description: record.description,
            owner_id: record.owner_id,
            owner_name: record.owner_name,
            scopes: record.scopes.names().map(str::to_owned).collect(),
            active: record.active,
            has_public_key: record.has_public_key,
            secrets: record.secrets.into_iter().map(Into::into).collect(),
            last_used_at: record.last_used_at.map(timestamp_from_millis),
            last_used_from: record.last_used_from,
            created_at: Some(timestamp_from_millis(record.created_at)),
        }
    }
}

impl From<ServiceToken> for pb::IssueServiceTokenResponse {
    fn from(token: ServiceToken) -> Self {
        pb::IssueServiceTokenResponse {
            access_token: token.access_token,
            token_type: "Bearer".into(),
            expires_in: token.expires_in,
            scope: token.scopes.to_stored(),
        }
    }
}

impl From<ResolvedStaff> for pb::ResolveStaffResponse {
    fn from(resolved: ResolvedStaff) -> Self {
        pb::ResolveStaffResponse {
            people: resolved
                .people
                .into_iter()
                .map(|person| pb::StaffKey {
                    user_id: person.user_id,
                    employee_number: person.employee_number,
                    department_ids: person.department_ids,
                    blocked: person.blocked,
                })
                .collect(),
            departments: resolved
                .departments
                .into_iter()
                .map(|department| pb::DepartmentKey {
                    department_id: department.department_id,
                    code: department.code,
                    member_ids: department.member_ids,
                })
                .collect(),
        }
    }
}

/// Counts and indexes are bounded by the batch's limits, far below `i32::MAX`.
fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl From<ReferenceCounts> for pb::ReferenceCounts {
    fn from(counts: ReferenceCounts) -> Self {
        pb::ReferenceCounts {
            created: count(counts.created),
            changed: count(counts.changed),
            unchanged: count(counts.unchanged),
        }
    }
}

impl From<ReferenceChange> for pb::ReferenceSync {
    fn from(change: ReferenceChange) -> Self {
        pb::ReferenceSync {
            code: change.code,
            action: change.action.as_str().to_owned(),
            changed: change.changed.into_iter().map(str::to_owned).collect(),
            id: change.id,
        }
    }
}

impl From<SyncOutcome> for pb::SyncStaffResponse {
    fn from(outcome: SyncOutcome) -> Self {
        pb::SyncStaffResponse {
            created: count(outcome.created),
            changed: count(outcome.changed),
            blocked: count(outcome.blocked),
            unchanged: count(outcome.unchanged),
            errors: outcome
                .errors
                .into_iter()
                .map(|error| pb::StaffSyncError {
                    section: error.section.as_str().to_owned(),
                    index: error.index.map_or(-1, count),
                    key: error.key,
                    message: error.message,
                    reason: error.reason.to_owned(),
                })
                .collect(),
            people: outcome
                .people
                .into_iter()
                .map(|change| pb::PersonSync {
                    employee_number: change.employee_number,
                    action: change.action.as_str().to_owned(),
                    changed: change.changed.into_iter().map(str::to_owned).collect(),
                    user_id: change.user_id,
                })
                .collect(),
            department_counts: Some(outcome.department_counts.into()),
            departments: outcome.departments.into_iter().map(Into::into).collect(),
            position_counts: Some(outcome.position_counts.into()),
            positions: outcome.positions.into_iter().map(Into::into).collect(),
            // Filled in after the sync's transaction, when it invites.
            invited: Vec::new(),
            not_invited: Vec::new(),
            dry_run: outcome.dry_run,
            managed: count(outcome.managed),
            mass_block_refused: outcome.mass_block_refused,
        }
    }
}

/// `Changes` is kit's, the message the contract's: a function, not a `From`.
pub fn access_changes(changes: Changes) -> pb::ListAccessChangesResponse {
    pb::ListAccessChangesResponse {
        changes: changes
            .versions
            .into_iter()
            .map(|(holder, access_version)| match holder {
                Holder::Person(user_id) => pb::AccessChange {
                    user_id,
                    access_version,
                    service_account_id: 0,
                },
                Holder::ServiceAccount(service_account_id) => pb::AccessChange {
                    user_id: 0,
                    access_version,
                    service_account_id,
                },
            })
            .collect(),
        cursor: changes.cursor,
    }
}

pub fn mail_recipient(record: MailRecipientRecord) -> pb::MailRecipient {
    pb::MailRecipient {
        user_id: record.id,
        email: record.email,
        name: record.name,
        last_name: record.last_name,
        department_ids: record.department_ids,
        rights: record.rights,
    }
}
