//! Reference data (countries, manufacturers, equipment types, common documents)
//! and the register other hospital systems read and upsert by inventory number.

use super::{RpcResult, WikiRpc, reply};
use crate::convert::equipment_unit;
use crate::domain::reference::{COUNTRY, DocumentDraft, ENVIRONMENT_TYPE, MANUFACTURER};
use crate::domain::register::{Batch, Page, RowInput};
use crate::store::reference::NameTable;
use crate::store::{WriteContext, Writer};
use portal_kit::access::Scope as Grant;
use portal_kit::day::Day;
use portal_kit::db::now_millis;
use portal_kit::{Caller, Right};
use portal_proto::wiki::v1 as pb;
use tonic::Request;

pub(super) async fn list_countries(
    rpc: &WikiRpc,
    request: Request<pb::ListCountriesRequest>,
) -> RpcResult<pb::ListCountriesResponse> {
    let rows = rpc.names(&request, NameTable::Countries).await?;
    reply(pb::ListCountriesResponse {
        countries: rows.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_country(
    rpc: &WikiRpc,
    request: Request<pb::CreateCountryRequest>,
) -> RpcResult<pb::CreateCountryResponse> {
    let name = &request.get_ref().name;
    let row = rpc
        .create_named(&request, NameTable::Countries, &COUNTRY, name)
        .await?;
    reply(pb::CreateCountryResponse {
        country: Some(row.into()),
    })
}

pub(super) async fn list_manufacturers(
    rpc: &WikiRpc,
    request: Request<pb::ListManufacturersRequest>,
) -> RpcResult<pb::ListManufacturersResponse> {
    Caller::of(&request).claims()?;
    let rows = rpc.store.manufacturers().await?;
    reply(pb::ListManufacturersResponse {
        manufacturers: rows.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_manufacturer(
    rpc: &WikiRpc,
    request: Request<pb::CreateManufacturerRequest>,
) -> RpcResult<pb::CreateManufacturerResponse> {
    Caller::of(&request).require(Right::EquipmentEditing)?;
    let m = request.get_ref();
    let name = MANUFACTURER.required(&m.name)?;
    let created = rpc
        .store
        .create_manufacturer(
            &rpc.audit(&request),
            &name,
            (m.country_id > 0).then_some(m.country_id),
        )
        .await?;
    reply(pb::CreateManufacturerResponse {
        manufacturer: Some(created.into()),
    })
}

pub(super) async fn list_environment_types(
    rpc: &WikiRpc,
    request: Request<pb::ListEnvironmentTypesRequest>,
) -> RpcResult<pb::ListEnvironmentTypesResponse> {
    let rows = rpc.names(&request, NameTable::EnvironmentTypes).await?;
    reply(pb::ListEnvironmentTypesResponse {
        environment_types: rows.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_environment_type(
    rpc: &WikiRpc,
    request: Request<pb::CreateEnvironmentTypeRequest>,
) -> RpcResult<pb::CreateEnvironmentTypeResponse> {
    let name = &request.get_ref().name;
    let row = rpc
        .create_named(
            &request,
            NameTable::EnvironmentTypes,
            &ENVIRONMENT_TYPE,
            name,
        )
        .await?;
    reply(pb::CreateEnvironmentTypeResponse {
        environment_type: Some(row.into()),
    })
}

pub(super) async fn list_common_documents(
    rpc: &WikiRpc,
    request: Request<pb::ListCommonDocumentsRequest>,
) -> RpcResult<pb::ListCommonDocumentsResponse> {
    Caller::of(&request).claims()?;
    let rows = rpc.store.documents().await?;
    reply(pb::ListCommonDocumentsResponse {
        common_documents: rows.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_common_document(
    rpc: &WikiRpc,
    request: Request<pb::CreateCommonDocumentRequest>,
) -> RpcResult<pb::CreateCommonDocumentResponse> {
    Caller::of(&request).require(Right::EquipmentEditing)?;
    let m = request.get_ref();
    let draft = DocumentDraft::parse(&m.title, &m.description, &m.url)?;
    let created = rpc
        .store
        .create_document(&rpc.audit(&request), &draft)
        .await?;
    reply(pb::CreateCommonDocumentResponse {
        common_document: Some(created.into()),
    })
}

pub(super) async fn list_equipment_units(
    rpc: &WikiRpc,
    request: Request<pb::ListEquipmentUnitsRequest>,
) -> RpcResult<pb::ListEquipmentUnitsResponse> {
    Caller::of(&request).require_right_or_scope(Right::EquipmentEditing, Grant::EquipmentRead)?;
    let m = request.get_ref();
    let today = Day::today();
    let (units, next) = rpc
        .store
        .register_page(Page::parse(m.after, m.limit))
        .await?;
    reply(pb::ListEquipmentUnitsResponse {
        units: units
            .into_iter()
            .map(|u| equipment_unit(u, today))
            .collect(),
        next,
        today: today.to_string(),
    })
}

pub(super) async fn upsert_equipment_units(
    rpc: &WikiRpc,
    request: Request<pb::UpsertEquipmentUnitsRequest>,
) -> RpcResult<pb::UpsertEquipmentUnitsResponse> {
    let caller = Caller::of(&request);
    let writer = Writer::from(
        caller.require_right_or_scope(Right::EquipmentEditing, Grant::EquipmentWrite)?,
    );
    let m = request.get_ref();
    let inputs: Vec<RowInput<'_>> = m
        .units
        .iter()
        .map(|u| RowInput {
            inventory_number: &u.inventory_number,
            serial_number: &u.serial_number,
            model_id: u.model_id,
            department_id: u.department_id,
            retired: u.retired,
        })
        .collect();
    let batch = Batch::parse(&inputs)?;
    let done = rpc
        .store
        .upsert_units(
            &batch,
            WriteContext {
                by: writer,
                now: now_millis(),
            },
            m.dry_run,
            &rpc.audit(&request),
        )
        .await?;
    reply(done.into())
}
