//! Units of a model and their care: add, edit, retire, the maintenance logbook,
//! named journals and the label sheet; EquipmentEditing writes, readers see their
//! departments' units.

use super::{RpcResult, WikiRpc, author, kind_of, person, reply};
use crate::app::{labels, maintenance};
use crate::convert::{due_unit, unit};
use crate::domain::journal::{JournalEntryDraft, JournalName};
use crate::domain::maintenance::{EntryDraft, EntryInput};
use crate::domain::scope::Scope;
use crate::domain::unit::UnitDraft;
use crate::store::unit::UnitFilter;
use portal_kit::day::Day;
use portal_kit::db::now_millis;
use portal_kit::{Caller, Right};
use portal_proto::wiki::v1 as pb;
use tonic::Request;

pub(super) async fn list_environments_by_model(
    rpc: &WikiRpc,
    request: Request<pb::ListEnvironmentsByModelRequest>,
) -> RpcResult<pb::ListEnvironmentsByModelResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let model_id = request.get_ref().environment_model_id;
    rpc.store.require_visible_model(&scope, model_id).await?;
    let filter = UnitFilter {
        model_id: Some(model_id),
        ..UnitFilter::default()
    };
    let today = Day::today();
    let units = rpc.store.units(&scope, filter).await?;
    reply(pb::ListEnvironmentsByModelResponse {
        environments: units.into_iter().map(|u| unit(u, today)).collect(),
    })
}

pub(super) async fn create_environment(
    rpc: &WikiRpc,
    request: Request<pb::CreateEnvironmentRequest>,
) -> RpcResult<pb::CreateEnvironmentResponse> {
    let caller = Caller::of(&request);
    let writer = person(caller.require(Right::EquipmentEditing)?);
    let m = request.get_ref();
    let draft = UnitDraft::parse(
        m.department_deployment,
        &m.serial_number,
        &m.inventory_number,
    )?;
    let created = rpc
        .store
        .create_unit(
            &rpc.audit(&request),
            m.environment_model_id,
            &draft,
            writer,
            now_millis(),
        )
        .await?;
    reply(pb::CreateEnvironmentResponse {
        environment: Some(unit(created, Day::today())),
    })
}

pub(super) async fn update_environment(
    rpc: &WikiRpc,
    request: Request<pb::UpdateEnvironmentRequest>,
) -> RpcResult<pb::UpdateEnvironmentResponse> {
    let caller = Caller::of(&request);
    let writer = person(caller.require(Right::EquipmentEditing)?);
    let m = request.get_ref();
    let draft = UnitDraft::parse(
        m.department_deployment,
        &m.serial_number,
        &m.inventory_number,
    )?;
    let updated = rpc
        .store
        .update_unit(&rpc.audit(&request), m.id, &draft, writer, now_millis())
        .await?;
    reply(pb::UpdateEnvironmentResponse {
        environment: Some(unit(updated, Day::today())),
    })
}

pub(super) async fn retire_environment(
    rpc: &WikiRpc,
    request: Request<pb::RetireEnvironmentRequest>,
) -> RpcResult<pb::RetireEnvironmentResponse> {
    let caller = Caller::of(&request);
    let writer = person(caller.require(Right::EquipmentEditing)?);
    rpc.store
        .retire_unit(
            &rpc.audit(&request),
            request.get_ref().id,
            writer,
            now_millis(),
        )
        .await?;
    reply(pb::RetireEnvironmentResponse {})
}

pub(super) async fn list_maintenance_entries(
    rpc: &WikiRpc,
    request: Request<pb::ListMaintenanceEntriesRequest>,
) -> RpcResult<pb::ListMaintenanceEntriesResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let found = rpc
        .store
        .visible_unit(&scope, request.get_ref().environment_id)
        .await?;
    let entries = rpc.store.entries(found.id).await?;
    reply(pb::ListMaintenanceEntriesResponse {
        entries: entries.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_maintenance_entry(
    rpc: &WikiRpc,
    request: Request<pb::CreateMaintenanceEntryRequest>,
) -> RpcResult<pb::CreateMaintenanceEntryResponse> {
    let caller = Caller::of(&request);
    let claims = caller.require(Right::EquipmentEditing)?;
    let m = request.get_ref();
    let found = rpc
        .store
        .visible_unit(&Scope::Everything, m.environment_id)
        .await?;
    let draft = EntryDraft::parse(
        EntryInput {
            date: &m.date,
            kind: kind_of(m.kind),
            performed_by: &m.performed_by,
            description: &m.description,
            result: &m.result,
            next_due: &m.next_due,
        },
        Day::today(),
    )?;
    let created = rpc
        .store
        .create_entry(
            &rpc.audit(&request),
            found.id,
            &draft,
            &author(claims),
            now_millis(),
        )
        .await?;
    reply(pb::CreateMaintenanceEntryResponse {
        entry: Some(created.into()),
    })
}

pub(super) async fn list_maintenance_due(
    rpc: &WikiRpc,
    request: Request<pb::ListMaintenanceDueRequest>,
) -> RpcResult<pb::ListMaintenanceDueResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let today = Day::today();
    let due = maintenance::due(&rpc.store, &scope, today).await?;
    reply(pb::ListMaintenanceDueResponse {
        units: due.into_iter().map(|d| due_unit(d, today)).collect(),
        today: today.to_string(),
    })
}

pub(super) async fn list_journals(
    rpc: &WikiRpc,
    request: Request<pb::ListJournalsRequest>,
) -> RpcResult<pb::ListJournalsResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let model_id = request.get_ref().environment_model_id;
    rpc.store.require_visible_model(&scope, model_id).await?;
    let journals = rpc.store.journals(model_id).await?;
    reply(pb::ListJournalsResponse {
        journals: journals.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_journal(
    rpc: &WikiRpc,
    request: Request<pb::CreateJournalRequest>,
) -> RpcResult<pb::CreateJournalResponse> {
    Caller::of(&request).require(Right::EquipmentEditing)?;
    let m = request.get_ref();
    let name = JournalName::parse(&m.name)?;
    let created = rpc
        .store
        .create_journal(
            &rpc.audit(&request),
            m.environment_model_id,
            &name,
            now_millis(),
        )
        .await?;
    reply(pb::CreateJournalResponse {
        journal: Some(created.into()),
    })
}

pub(super) async fn list_journal_entries(
    rpc: &WikiRpc,
    request: Request<pb::ListJournalEntriesRequest>,
) -> RpcResult<pb::ListJournalEntriesResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let journal = rpc.store.journal(request.get_ref().journal_id).await?;
    rpc.store
        .require_visible_model(&scope, journal.environment_model_id)
        .await?;
    let entries = rpc.store.journal_entries(journal.id).await?;
    reply(pb::ListJournalEntriesResponse {
        entries: entries.into_iter().map(Into::into).collect(),
    })
}

pub(super) async fn create_journal_entry(
    rpc: &WikiRpc,
    request: Request<pb::CreateJournalEntryRequest>,
) -> RpcResult<pb::CreateJournalEntryResponse> {
    let caller = Caller::of(&request);
    let claims = caller.require(Right::EquipmentEditing)?;
    let m = request.get_ref();
    let draft = JournalEntryDraft::parse(&m.date, &m.text)?;
    let created = rpc
        .store
        .create_journal_entry(
            &rpc.audit(&request),
            m.journal_id,
            &draft,
            &author(claims),
            now_millis(),
        )
        .await?;
    reply(pb::CreateJournalEntryResponse {
        entry: Some(created.into()),
    })
}

pub(super) async fn get_label_sheet(
    rpc: &WikiRpc,
    request: Request<pb::GetLabelSheetRequest>,
) -> RpcResult<pb::GetLabelSheetResponse> {
    let scope = Scope::of(&Caller::of(&request))?;
    let department_id = request.get_ref().department_id;
    scope.require(department_id)?;
    let labels = labels::sheet(&rpc.store, &rpc.qr_codes, &scope, department_id).await?;
    reply(pb::GetLabelSheetResponse {
        labels: labels.into_iter().map(Into::into).collect(),
    })
}
