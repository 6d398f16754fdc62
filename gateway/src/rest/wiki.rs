//! The wiki host's calls (spec §7): equipment models under
//! `/api/environment-model` and equipment units under `/api/environment`, plus
//! the public instruction a device's QR code opens and the unit edits beyond
//! the spec, required training and clearance ([`clearance`]), and the
//! equipment register of other hospital systems ([`integration`]). Request bodies are the contract's messages themselves
//! (their JSON names are the spec's).

use crate::rest::route::{get, post};
use axum::extract::State;
use portal_kit::rich_text::MAX_MESSAGE_BYTES;
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;

use crate::upstream::Balanced;
use serde::Deserialize;
use utoipa::IntoParams;

use super::forward::{forward, method};
use super::{ApiResult, AppState, Body, Data, Endpoint, Query, docs, rich_text_write};

mod clearance;
mod integration;

pub fn endpoints() -> Vec<Endpoint> {
    let mut endpoints = vec![
        Endpoint::get(
            "/api/environment-model/get-all",
            "Модели оборудования отделений сотрудника (инженеру — все) с их единицами",
            docs::none,
            get(forward(
                |()| pb::ListEnvironmentModelsRequest {},
                method!(client, list_environment_models),
                |reply| reply.environment_models,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-all-by-department",
            "Модели оборудования отделения (id, name) и сколько единиц ждут обслуживания",
            docs::query::<DepartmentId>,
            get(forward(
                |Query(query): Query<DepartmentId>| pb::ListEnvironmentModelsByDepartmentRequest {
                    department_id: query.department_id,
                },
                method!(client, list_environment_models_by_department),
                |reply| reply.environment_models,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-by-id",
            "Модель оборудования с единицами и QR-кодом инструкции",
            docs::query::<EnvironmentModelId>,
            get(forward(
                |Query(query): Query<EnvironmentModelId>| pb::GetEnvironmentModelRequest {
                    environment_model_id: query.environment_model_id,
                },
                method!(client, get_environment_model),
                |reply| reply.environment_model,
            )),
        ),
        Endpoint::post(
            "/api/environment-model/create",
            "Создать модель оборудования",
            docs::Input::Message("portal.wiki.v1.CreateEnvironmentModelRequest"),
            rich_text_write(forward(
                |Body(body): Body<pb::CreateEnvironmentModelRequest>| body,
                method!(client, create_environment_model),
                |reply| reply.environment_model,
            )),
        ),
        Endpoint::post(
            "/api/environment-model/update",
            "Изменить модель оборудования",
            docs::Input::Message("portal.wiki.v1.UpdateEnvironmentModelRequest"),
            rich_text_write(forward(
                |Body(body): Body<pb::UpdateEnvironmentModelRequest>| body,
                method!(client, update_environment_model),
                |reply| reply.environment_model,
            )),
        ),
        Endpoint::post(
            "/api/environment-model/save-instruction",
            "Сохранить краткую инструкцию",
            docs::Input::Message("portal.wiki.v1.SaveInstructionRequest"),
            rich_text_write(forward(
                |Body(body): Body<pb::SaveInstructionRequest>| body,
                method!(client, save_instruction),
                // `success` and `errorMessage` (spec §7); `data` is the
                // instruction as stored.
                |reply| reply,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-instruction-revisions",
            "Версии краткой инструкции (кто и когда сохранил), новые первыми",
            docs::query::<EnvironmentModelId>,
            get(forward(
                |Query(query): Query<EnvironmentModelId>| pb::ListInstructionRevisionsRequest {
                    environment_model_id: query.environment_model_id,
                },
                method!(client, list_instruction_revisions),
                |reply| reply.revisions,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-instruction-revision",
            "Версия краткой инструкции с её текстом",
            docs::query::<InstructionRevision>,
            get(forward(
                |Query(query): Query<InstructionRevision>| pb::GetInstructionRevisionRequest {
                    environment_model_id: query.environment_model_id,
                    revision_id: query.revision_id,
                },
                method!(client, get_instruction_revision),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/environment-model/restore-instruction-revision",
            "Восстановить версию краткой инструкции (новая версия)",
            docs::Input::Message("portal.wiki.v1.RestoreInstructionRevisionRequest"),
            post(forward(
                |Body(body): Body<pb::RestoreInstructionRevisionRequest>| body,
                method!(client, restore_instruction_revision),
                |reply| reply.short_instruction,
            )),
        ),
        Endpoint::get(
            "/api/environment-model/get-public-instruction",
            "Краткая инструкция без входа: название модели и инструкция",
            docs::query::<EnvironmentModelId>,
            get(get_public_instruction),
        )
        .public(),
        Endpoint::get(
            "/api/environment/get-all-by-model-id",
            "Единицы оборудования модели",
            docs::query::<EnvironmentModelId>,
            get(forward(
                |Query(query): Query<EnvironmentModelId>| pb::ListEnvironmentsByModelRequest {
                    environment_model_id: query.environment_model_id,
                },
                method!(client, list_environments_by_model),
                |reply| reply.environments,
            )),
        ),
        Endpoint::post(
            "/api/environment/create",
            "Добавить единицу оборудования",
            docs::Input::Message("portal.wiki.v1.CreateEnvironmentRequest"),
            post(forward(
                |Body(body): Body<pb::CreateEnvironmentRequest>| body,
                method!(client, create_environment),
                |reply| reply.environment,
            )),
        ),
        Endpoint::post(
            "/api/environment/update",
            "Изменить единицу оборудования",
            docs::Input::Message("portal.wiki.v1.UpdateEnvironmentRequest"),
            post(forward(
                |Body(body): Body<pb::UpdateEnvironmentRequest>| body,
                method!(client, update_environment),
                |reply| reply.environment,
            )),
        ),
        Endpoint::post(
            "/api/environment/retire",
            "Списать единицу оборудования",
            docs::Input::Message("portal.wiki.v1.RetireEnvironmentRequest"),
            post(forward(
                |Body(body): Body<pb::RetireEnvironmentRequest>| body,
                method!(client, retire_environment),
                |reply| reply,
            )),
        ),
    ];
    endpoints.extend(clearance::endpoints());
    endpoints.extend(integration::endpoints());
    endpoints
}

/// The wiki's client, with room for instructions (their photos travel inside).
pub(super) fn client(state: &AppState) -> WikiServiceClient<Balanced> {
    WikiServiceClient::new(state.upstreams.wiki.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

// --- Query parameters ---

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct DepartmentId {
    department_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct EnvironmentModelId {
    environment_model_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct InstructionRevision {
    environment_model_id: i64,
    revision_id: i64,
}

// --- Equipment models ---

/// No sign-in: the page a device's QR code opens calls it without a token.
async fn get_public_instruction(
    State(state): State<AppState>,
    Query(query): Query<EnvironmentModelId>,
) -> ApiResult<pb::GetPublicInstructionResponse> {
    let mut request = tonic::Request::new(pb::GetPublicInstructionRequest {
        environment_model_id: query.environment_model_id,
    });
    portal_kit::deadline::limit(&mut request, state.upstreams.call_timeout);
    let reply = client(&state).get_public_instruction(request).await?;
    Ok(Data(reply.into_inner()))
}

// --- Equipment units ---
