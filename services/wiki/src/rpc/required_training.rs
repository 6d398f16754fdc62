//! Required training and clearance to operate a model (issue 24): the courses a
//! model requires, a person's own clearance and a department's.

use super::{RpcResult, WikiRpc, reply};
use crate::app::clearance::{self, OnBehalf};
use crate::convert::member_clearance;
use crate::domain::clearance::RequiredCourses;
use crate::domain::scope::Scope;
use portal_kit::db::now_millis;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::{Caller, Right, ServiceError};
use portal_proto::wiki::v1 as pb;
use tonic::Request;

pub(super) async fn set_required_courses(
    rpc: &WikiRpc,
    request: Request<pb::SetRequiredCoursesRequest>,
) -> RpcResult<pb::SetRequiredCoursesResponse> {
    Caller::of(&request).require(Right::EquipmentEditing)?;
    let m = request.get_ref();
    let required = RequiredCourses::parse(&m.course_ids)?;
    let model_id = m.environment_model_id;
    // An unknown model is NOT_FOUND before education is asked anything.
    rpc.store
        .require_visible_model(&Scope::Everything, model_id)
        .await?;
    let course_ids = clearance::set_required(
        &rpc.store,
        &rpc.training,
        OnBehalf::of(&request),
        model_id,
        &required,
        &rpc.audit(&request),
    )
    .await?;
    reply(pb::SetRequiredCoursesResponse { course_ids })
}

pub(super) async fn get_clearance(
    rpc: &WikiRpc,
    request: Request<pb::GetClearanceRequest>,
) -> RpcResult<pb::GetClearanceResponse> {
    let caller = Caller::of(&request);
    let user_id = caller.user_id()?;
    let model_id = request.get_ref().environment_model_id;
    // A model the caller sees, as GetEnvironmentModel: another
    // department's is NOT_FOUND, so it tells nothing of it (issue 37).
    rpc.store
        .require_visible_model(&Scope::of(&caller)?, model_id)
        .await?;
    let (found, missing) = clearance::of_person(
        &rpc.store,
        &rpc.training,
        OnBehalf::of(&request),
        user_id,
        model_id,
        now_millis(),
    )
    .await?;
    reply(crate::convert::clearance(&found, missing))
}

pub(super) async fn get_department_clearance(
    rpc: &WikiRpc,
    request: Request<pb::GetDepartmentClearanceRequest>,
) -> RpcResult<pb::GetDepartmentClearanceResponse> {
    let caller = Caller::of(&request);
    caller.claims()?;
    if !caller.has(Right::EquipmentEditing) && !caller.has(Right::EducationManagement) {
        return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
    }
    let scope = Scope::of(&caller)?;
    let m = request.get_ref();
    scope.require(m.department_id)?;
    rpc.store
        .require_visible_model(&scope, m.environment_model_id)
        .await?;
    let now = now_millis();
    let (required, people) = clearance::of_department(
        &rpc.store,
        &rpc.training,
        OnBehalf::of(&request),
        m.environment_model_id,
        m.department_id,
        now,
    )
    .await?;
    reply(pb::GetDepartmentClearanceResponse {
        people: people
            .into_iter()
            .map(|person| member_clearance(person, &required, now))
            .collect(),
        required_courses: required.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn check_clearance_course(
    rpc: &WikiRpc,
    request: Request<pb::CheckClearanceCourseRequest>,
) -> RpcResult<pb::CheckClearanceCourseResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let course_id = request.get_ref().course_id;
    let environment_model_ids = rpc.store.models_requiring(&scope, course_id).await?;
    reply(pb::CheckClearanceCourseResponse {
        clears: !environment_model_ids.is_empty(),
        environment_model_ids,
    })
}
