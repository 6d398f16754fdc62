//! Training for other hospital systems (issue 21), in the spec's style:
//! records after a cursor, every assignee's standing, and assigning a course
//! by the HR system's keys. Callers are education managers or service
//! accounts (training.read, training.assign); the service checks. The watch
//! stream of new records (WatchTrainingRecords) is gRPC only.

use crate::rest::route::{get, post};
use portal_proto::education::v1 as pb;
use serde::Deserialize;
use utoipa::IntoParams;

use super::super::forward::{forward, method};
use super::super::{Body, Endpoint, Query, docs};
use super::client;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/integration/training-records",
            "Результаты тестов после курсора (для внешних систем; новые — потоком WatchTrainingRecords по gRPC)",
            docs::query::<RecordsQuery>,
            get(forward(
                |Query(query): Query<RecordsQuery>| pb::ListTrainingRecordsRequest {
                    after: query.after,
                    limit: query.limit,
                },
                method!(client, list_training_records),
                |reply| reply,
            )),
        ),
        Endpoint::get(
            "/api/integration/training-compliance",
            "Назначенные курсы сотрудников: пройдено, просрочено, срок (для внешних систем)",
            docs::query::<ComplianceQuery>,
            get(forward(
                |Query(query): Query<ComplianceQuery>| pb::ListTrainingComplianceRequest {
                    course_id: query.course_id,
                    after_course_id: query.after_course_id,
                    after_user_id: query.after_user_id,
                    limit: query.limit,
                },
                method!(client, list_training_compliance),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/integration/assign-course",
            "Назначить курс сотрудникам по табельным номерам, отделениям или идентификаторам",
            docs::Input::Message("portal.education.v1.AssignCourseRequest"),
            post(forward(
                |Body(body): Body<pb::AssignCourseRequest>| body,
                method!(client, assign_course),
                |reply| reply,
            )),
        ),
    ]
}

/// The cursor and page size of the records.
#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
struct RecordsQuery {
    /// Records after this `seq` (the `next` of the previous answer); 0 = from the first.
    after: i64,
    /// At most this many records; 0 = 500, at most 5000.
    limit: i32,
}

/// The course, the cursor and the page size of the standings.
#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
struct ComplianceQuery {
    /// Only this course's assignees; 0 = every course.
    course_id: i64,
    /// The `nextCourseId` of the previous answer; 0 = from the first.
    after_course_id: i64,
    /// The `nextUserId` of the previous answer.
    after_user_id: i64,
    /// At most this many assignments; 0 = 500, at most 5000.
    limit: i32,
}
