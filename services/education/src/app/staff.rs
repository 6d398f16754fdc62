//! People by the HR system's keys: auth decides. Education keeps only user
//! ids; the employee numbers in the records it hands other systems, and the
//! people an assignment by employee number or department code names, are
//! asked of auth's `ResolveStaff` with the caller's own token (so auth applies
//! its own rule to the caller), within what is left of the caller's call.

use std::collections::HashMap;
use std::time::Duration;

use portal_kit::error::{REASON_ACCESS_REVOKED, REASON_KEY};
use portal_kit::serve::ServiceChannel;
use portal_kit::token::MSG_SESSION_EXPIRED;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::auth::v1::{ResolveStaffRequest, ResolveStaffResponse};
use tonic::Request;
use tonic::metadata::MetadataMap;

pub const MSG_AUTH_UNAVAILABLE: &str = "Сервис сотрудников временно недоступен, попробуйте позже";

/// The metadata forwarded to auth: only the caller's credentials.
const AUTHORIZATION: &str = "authorization";

/// Whose behalf auth is asked on: the caller's metadata (their token) and
/// how long the answer may take.
#[derive(Clone, Copy)]
pub struct OnBehalf<'a> {
    pub metadata: &'a MetadataMap,
    pub limit: Duration,
}

#[derive(Clone)]
pub struct Staff {
    auth: AuthServiceClient<ServiceChannel>,
}

impl Staff {
    /// `auth`: every replica of the auth service.
    pub fn new(auth: ServiceChannel) -> Staff {
        Staff {
            auth: AuthServiceClient::new(auth),
        }
    }

    /// Auth's answer for `keys`, asked on the caller's behalf.
    pub async fn resolve(
        &self,
        caller: OnBehalf<'_>,
        keys: ResolveStaffRequest,
    ) -> ServiceResult<ResolveStaffResponse> {
        let mut request = Request::new(keys);
        portal_kit::deadline::limit(&mut request, caller.limit);
        if let Some(token) = caller.metadata.get(AUTHORIZATION) {
            request.metadata_mut().insert(AUTHORIZATION, token.clone());
        }
        match self.auth.clone().resolve_staff(request).await {
            Ok(reply) => Ok(reply.into_inner()),
            Err(status) => Err(refusal(&status)),
        }
    }

    /// The employee number of each of `user_ids` that HR keeps.
    pub async fn employee_numbers(
        &self,
        caller: OnBehalf<'_>,
        user_ids: Vec<i64>,
    ) -> ServiceResult<HashMap<i64, String>> {
        if user_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let keys = ResolveStaffRequest {
            user_ids,
            ..Default::default()
        };
        Ok(self
            .resolve(caller, keys)
            .await?
            .people
            .into_iter()
            .filter(|person| !person.employee_number.is_empty())
            .map(|person| (person.user_id, person.employee_number))
            .collect())
    }
}

/// What auth's refusal means for the caller here.
fn refusal(status: &tonic::Status) -> ServiceError {
    match status.code() {
        // Auth learned of a block or a change of rights before education did:
        // the caller's token is as stale here.
        tonic::Code::Unauthenticated
            if status
                .metadata()
                .get(REASON_KEY)
                .is_some_and(|reason| reason.as_bytes() == REASON_ACCESS_REVOKED.as_bytes()) =>
        {
            ServiceError::AccessRevoked
        }
        // The token expired between education's check and auth's.
        tonic::Code::Unauthenticated => ServiceError::Unauthenticated(MSG_SESSION_EXPIRED.into()),
        // Auth's own rule refused the caller: its Russian message stands.
        tonic::Code::PermissionDenied => ServiceError::PermissionDenied(status.message().into()),
        _ => {
            tracing::warn!(%status, "auth did not resolve staff keys");
            ServiceError::Unavailable(MSG_AUTH_UNAVAILABLE.into())
        }
    }
}
