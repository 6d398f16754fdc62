//! Required training of an equipment model (issue 24) under
//! `/api/environment-model`: the courses a model requires, and who is cleared
//! to operate it — the caller, or each member of a department. The wiki
//! decides, asking education and auth with the caller's token. Bodies and
//! answers are the contract's messages.

use crate::rest::route::{get, post};
use portal_proto::wiki::v1 as pb;
use serde::Deserialize;
use utoipa::IntoParams;

use super::super::forward::{forward, method};
use super::super::{Body, Endpoint, Query, docs};
use super::{EnvironmentModelId, client};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post(
            "/api/environment-model/set-required-courses",
            "Обучение для допуска: курсы, которые требует модель (заменяет список)",
            docs::Input::Message("portal.wiki.v1.SetRequiredCoursesRequest"),
            post(forward(
                |Body(body): Body<pb::SetRequiredCoursesRequest>| body,
                method!(client, set_required_courses),
                |reply| reply,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-clearance",
            "Допуск сотрудника к работе с моделью: пройдены ли все требуемые курсы, каких не хватает, до какого срока",
            docs::query::<EnvironmentModelId>,
            get(forward(
                |Query(query): Query<EnvironmentModelId>| pb::GetClearanceRequest {
                    environment_model_id: query.environment_model_id,
                },
                method!(client, get_clearance),
                |reply| reply,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-department-clearance",
            "Допуск сотрудников отделения к работе с моделью: кто допущен, кто нет, у кого допуск истекает в течение 30 дней",
            docs::query::<ModelInDepartment>,
            get(forward(
                |Query(query): Query<ModelInDepartment>| pb::GetDepartmentClearanceRequest {
                    environment_model_id: query.environment_model_id,
                    department_id: query.department_id,
                },
                method!(client, get_department_clearance),
                |reply| reply,
            )),
        ),
    ]
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct ModelInDepartment {
    environment_model_id: i64,
    department_id: i64,
}
