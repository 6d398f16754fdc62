//! The wiki host's calls (spec §7): equipment models under
//! `/api/environment-model` and equipment units under `/api/environment`, plus
//! the public instruction a device's QR code opens and the unit edits beyond
//! the spec. Request bodies are the contract's messages themselves (their JSON
//! names are the spec's).

use axum::extract::{DefaultBodyLimit, State};
use axum::handler::Handler;
use axum::routing::{MethodRouter, get, post};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use portal_wiki::domain::instruction::MAX_MESSAGE_BYTES;

use crate::upstream::Balanced;
use serde::Deserialize;

use super::{ApiResult, AppState, Body, Caller, Data, Endpoint, Query};

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/environment-model/get-all",
            "Модели оборудования отделений сотрудника (инженеру — все) с их единицами",
            &[],
            get(list_models),
        ),
        Endpoint::get(
            "/api/environment-model/get-all-by-department",
            "Модели оборудования отделения (id, name) и сколько единиц ждут обслуживания",
            &["departmentId"],
            get(list_models_by_department),
        ),
        Endpoint::get(
            "/api/environment-model/get-by-id",
            "Модель оборудования с единицами и QR-кодом инструкции",
            &["environmentModelId"],
            get(get_model),
        ),
        Endpoint::post(
            "/api/environment-model/create",
            "Создать модель оборудования",
            instruction_write(create_model),
        ),
        Endpoint::post(
            "/api/environment-model/update",
            "Изменить модель оборудования",
            instruction_write(update_model),
        ),
        Endpoint::post(
            "/api/environment-model/save-instruction",
            "Сохранить краткую инструкцию",
            instruction_write(save_instruction),
        ),
        Endpoint::get(
            "/api/environment-model/get-public-instruction",
            "Краткая инструкция без входа: название модели и инструкция",
            &["environmentModelId"],
            get(get_public_instruction),
        ),
        Endpoint::get(
            "/api/environment/get-all-by-model-id",
            "Единицы оборудования модели",
            &["environmentModelId"],
            get(list_units),
        ),
        Endpoint::post(
            "/api/environment/create",
            "Добавить единицу оборудования",
            post(create_unit),
        ),
        Endpoint::post(
            "/api/environment/update",
            "Изменить единицу оборудования",
            post(update_unit),
        ),
        Endpoint::post(
            "/api/environment/retire",
            "Списать единицу оборудования",
            post(retire_unit),
        ),
    ]
}

fn client(state: &AppState) -> WikiServiceClient<Balanced> {
    WikiServiceClient::new(state.upstreams.wiki.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

/// A write carrying an instruction: up to the wiki's own limit (images travel
/// inside it), beyond axum's 2 MB default.
fn instruction_write<H, T>(handler: H) -> MethodRouter<AppState>
where
    H: Handler<T, AppState>,
    T: 'static,
{
    post(handler).layer(DefaultBodyLimit::max(MAX_MESSAGE_BYTES))
}

// --- Query parameters ---

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DepartmentId {
    department_id: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EnvironmentModelId {
    environment_model_id: i64,
}

// --- Equipment models ---

async fn list_models(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Vec<pb::EnvironmentModel>> {
    let reply = client(&state)
        .list_environment_models(caller.request(pb::ListEnvironmentModelsRequest {}))
        .await?;
    Ok(Data(reply.into_inner().environment_models))
}

async fn list_models_by_department(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<DepartmentId>,
) -> ApiResult<Vec<pb::EnvironmentModelRef>> {
    let request = pb::ListEnvironmentModelsByDepartmentRequest {
        department_id: query.department_id,
    };
    let reply = client(&state)
        .list_environment_models_by_department(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().environment_models))
}

async fn get_model(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<EnvironmentModelId>,
) -> ApiResult<Option<pb::EnvironmentModel>> {
    let request = pb::GetEnvironmentModelRequest {
        environment_model_id: query.environment_model_id,
    };
    let reply = client(&state)
        .get_environment_model(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().environment_model))
}

async fn create_model(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<pb::CreateEnvironmentModelRequest>,
) -> ApiResult<Option<pb::EnvironmentModel>> {
    let reply = client(&state)
        .create_environment_model(caller.request(body))
        .await?;
    Ok(Data(reply.into_inner().environment_model))
}

async fn update_model(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<pb::UpdateEnvironmentModelRequest>,
) -> ApiResult<Option<pb::EnvironmentModel>> {
    let reply = client(&state)
        .update_environment_model(caller.request(body))
        .await?;
    Ok(Data(reply.into_inner().environment_model))
}

/// Answers `success` and `errorMessage` (spec §7); `data` is the instruction
/// as stored.
async fn save_instruction(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<pb::SaveInstructionRequest>,
) -> ApiResult<pb::SaveInstructionResponse> {
    let reply = client(&state)
        .save_instruction(caller.request(body))
        .await?;
    Ok(Data(reply.into_inner()))
}

/// No sign-in: the page a device's QR code opens calls it without a token.
async fn get_public_instruction(
    State(state): State<AppState>,
    Query(query): Query<EnvironmentModelId>,
) -> ApiResult<pb::GetPublicInstructionResponse> {
    let request = pb::GetPublicInstructionRequest {
        environment_model_id: query.environment_model_id,
    };
    let reply = client(&state)
        .get_public_instruction(tonic::Request::new(request))
        .await?;
    Ok(Data(reply.into_inner()))
}

// --- Equipment units ---

async fn list_units(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<EnvironmentModelId>,
) -> ApiResult<Vec<pb::Environment>> {
    let request = pb::ListEnvironmentsByModelRequest {
        environment_model_id: query.environment_model_id,
    };
    let reply = client(&state)
        .list_environments_by_model(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().environments))
}

async fn create_unit(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<pb::CreateEnvironmentRequest>,
) -> ApiResult<Option<pb::Environment>> {
    let reply = client(&state)
        .create_environment(caller.request(body))
        .await?;
    Ok(Data(reply.into_inner().environment))
}

async fn update_unit(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<pb::UpdateEnvironmentRequest>,
) -> ApiResult<Option<pb::Environment>> {
    let reply = client(&state)
        .update_environment(caller.request(body))
        .await?;
    Ok(Data(reply.into_inner().environment))
}

async fn retire_unit(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<pb::RetireEnvironmentRequest>,
) -> ApiResult<pb::RetireEnvironmentResponse> {
    let reply = client(&state)
        .retire_environment(caller.request(body))
        .await?;
    Ok(Data(reply.into_inner()))
}
