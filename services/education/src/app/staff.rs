//! People by the HR system's keys: auth decides. Education keeps only user
//! ids; the employee numbers in the records it hands other systems, and the
//! people an assignment by employee number or department code names, are
//! asked of auth's `ResolveStaff` with the caller's own token (so auth applies
//! its own rule to the caller), within what is left of the caller's call.
//! So are the members of the caller's departments an equipment editor may
//! read the passes of (auth's `GetDepartmentWithUsers`).

use std::collections::HashMap;

use portal_kit::ServiceResult;
pub use portal_kit::on_behalf::OnBehalf;
use portal_kit::on_behalf::refusal;
use portal_kit::serve::ServiceChannel;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::auth::v1::{
    GetDepartmentWithUsersRequest, ResolveStaffRequest, ResolveStaffResponse,
};

pub const MSG_AUTH_UNAVAILABLE: &str = "Сервис сотрудников временно недоступен, попробуйте позже";

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
        match self.auth.clone().resolve_staff(caller.request(keys)).await {
            Ok(reply) => Ok(reply.into_inner()),
            Err(status) => Err(refusal(&status, MSG_AUTH_UNAVAILABLE)),
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

    /// The user ids of the members of `department_id` as auth lists them to
    /// the caller (auth refuses a department an equipment editor is not in);
    /// none for a department auth no longer has.
    pub async fn department_members(
        &self,
        caller: OnBehalf<'_>,
        department_id: i64,
    ) -> ServiceResult<Vec<i64>> {
        let request = caller.request(GetDepartmentWithUsersRequest { department_id });
        match self.auth.clone().get_department_with_users(request).await {
            Ok(reply) => Ok(reply
                .into_inner()
                .department
                .map(|department| department.users.iter().map(|user| user.id).collect())
                .unwrap_or_default()),
            // Deleted since the caller's token was signed: it has no members.
            Err(status) if status.code() == tonic::Code::NotFound => Ok(Vec::new()),
            Err(status) => Err(refusal(&status, MSG_AUTH_UNAVAILABLE)),
        }
    }
}
