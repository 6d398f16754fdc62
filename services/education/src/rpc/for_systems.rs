//! The calls of other hospital systems (issue 21): training records after a cursor
//! and their watch stream, every assignee's standing, and AssignCourse by HR keys;
//! open to EducationManagement and to the scopes training.read / training.assign.

use super::{EducationRpc, RecordStream, RpcResult, author, expires_at, reply};
use crate::app::integration::{self, Watch};
use crate::app::staff::OnBehalf;
use crate::convert;
use crate::domain::integration::{AssignmentKeys, Page};
use portal_kit::access::Scope;
use portal_kit::db::now_millis;
use portal_kit::deadline::Deadline;
use portal_kit::{Caller, Right};
use portal_proto::education::v1 as pb;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Request;

pub(super) async fn list_training_records(
    rpc: &EducationRpc,
    request: Request<pb::ListTrainingRecordsRequest>,
) -> RpcResult<pb::ListTrainingRecordsResponse> {
    let deadline = Deadline::of_call(request.metadata());
    let caller = Caller::of(&request);
    caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)?;
    let page = Page::parse(request.get_ref().after, request.get_ref().limit)?;
    let on_behalf = OnBehalf {
        metadata: request.metadata(),
        deadline,
    };
    let records = integration::records(&rpc.store, &rpc.staff, on_behalf, page).await?;
    let (records, next) = convert::records(records, page.after);
    reply(pb::ListTrainingRecordsResponse { records, next })
}

pub(super) async fn watch_training_records(
    rpc: &EducationRpc,
    request: Request<pb::WatchTrainingRecordsRequest>,
) -> RpcResult<RecordStream> {
    let caller = Caller::of(&request);
    let actor = caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)?;
    let after = Page::parse(request.get_ref().after, 0)?.after;
    let watch = Watch {
        store: rpc.store.clone(),
        staff: rpc.staff.clone(),
        metadata: request.metadata().clone(),
        expires_at: expires_at(actor),
        shutdown: rpc.shutdown.clone(),
    };
    let mut cursor = after;
    let stream = ReceiverStream::new(watch.start(after)).map(move |batch| {
        let (records, next) = convert::records(batch?, cursor);
        cursor = next;
        Ok(pb::WatchTrainingRecordsResponse { records, next })
    });
    reply(Box::pin(stream) as RecordStream)
}

pub(super) async fn list_training_compliance(
    rpc: &EducationRpc,
    request: Request<pb::ListTrainingComplianceRequest>,
) -> RpcResult<pb::ListTrainingComplianceResponse> {
    let deadline = Deadline::of_call(request.metadata());
    let caller = Caller::of(&request);
    caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)?;
    let m = request.get_ref();
    let page = Page::parse(m.after_course_id, m.limit)?;
    let after = (page.after, m.after_user_id);
    let on_behalf = OnBehalf {
        metadata: request.metadata(),
        deadline,
    };
    let (items, today) = integration::compliance(
        &rpc.store,
        &rpc.staff,
        on_behalf,
        m.course_id,
        after,
        page.limit,
    )
    .await?;
    let (next_course_id, next_user_id) = items
        .last()
        .map_or(after, |item| (item.row.course_id, item.row.user_id));
    reply(pb::ListTrainingComplianceResponse {
        items: items.into_iter().map(Into::into).collect(),
        next_course_id,
        next_user_id,
        today: today.to_string(),
    })
}

pub(super) async fn assign_course(
    rpc: &EducationRpc,
    request: Request<pb::AssignCourseRequest>,
) -> RpcResult<pb::AssignCourseResponse> {
    let deadline = Deadline::of_call(request.metadata());
    let caller = Caller::of(&request);
    let author =
        author(caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingAssign)?);
    let m = request.get_ref();
    let keys = AssignmentKeys::parse(
        &m.employee_numbers,
        &m.department_codes,
        &m.user_ids,
        &m.date_deadline,
    )?;
    let on_behalf = OnBehalf {
        metadata: request.metadata(),
        deadline,
    };
    let assignment = integration::assign_course(
        &rpc.store,
        &rpc.staff,
        on_behalf,
        m.course_id,
        keys,
        (author, &rpc.audit(&request)),
        now_millis(),
    )
    .await?;
    reply(assignment.into())
}
