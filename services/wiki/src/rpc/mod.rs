//! The gRPC face of the wiki: each call checks its caller, parses the request
//! into domain types, asks the store, and maps the answer back.
//!
//! Access per call (the contract's comments): every write needs
//! EquipmentEditing; reads of equipment follow the caller's departments
//! ([`Scope`]): what is not theirs is NOT_FOUND, a department not theirs
//! PERMISSION_DENIED; reference data is for anyone signed in; the public
//! instruction needs nothing. Service accounts (other hospital systems) call
//! only the register's calls and the list of models, by their scopes.
//! Clearance to operate equipment asks education (passes) and auth (a
//! department's members) with the caller's own token: GetClearance is the
//! caller's own for a model they see; GetDepartmentClearance needs EquipmentEditing
//! or EducationManagement, the department in the caller's scope, and auth's
//! leave to list its members; CheckClearanceCourse tells education whether
//! a course clears the caller to operate a model they see.
//! Writes record who made them (a person or a service account). Search: the
//! shared SearchService (`portal.search.v1`) in [`search`].

mod unit;

mod reference;

mod required_training;

mod search;

pub use search::SearchRpc;

use std::collections::HashMap;

use portal_kit::access::{Actor, Scope as Grant};
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::net::TrustedProxies;
use portal_kit::text::Field;
use portal_kit::token::Claims;
use portal_kit::{Caller, Right, ServiceResult};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::wiki_service_server::WikiService;
use tonic::{Request, Response, Status};

use crate::app::clearance::Training;
use crate::app::maintenance;
use crate::app::qr_codes::QrCodes;
use crate::convert::{instruction_revision, model};
use crate::domain::instruction::Sanitizer;
use crate::domain::maintenance::Kind;
use crate::domain::model::{ModelDraft, ModelInput};
use crate::domain::scope::Scope;
use crate::store::model::ModelRecord;
use crate::store::reference::{NameTable, NamedRecord};
use crate::store::unit::{UnitFilter, UnitRecord};
use crate::store::{Author, Store, WriteContext, Writer};
use portal_kit::day::Day;

pub struct WikiRpc {
    store: Store,
    /// Education and auth, for clearance to operate equipment.
    training: Training,
    sanitizer: Sanitizer,
    /// What QR codes point to (`PORTAL_PUBLIC_URL`), each code drawn once.
    qr_codes: QrCodes,
    /// Whose forwarded client address the audit log believes.
    proxies: TrustedProxies,
    /// Answers the deprecated Search.
    search: SearchRpc,
}

impl WikiRpc {
    pub fn new(
        store: Store,
        public_url: &str,
        training: Training,
        proxies: TrustedProxies,
    ) -> WikiRpc {
        WikiRpc {
            search: SearchRpc::new(store.clone()),
            store,
            training,
            sanitizer: Sanitizer::new(public_url),
            qr_codes: QrCodes::new(public_url),
            proxies,
        }
    }

    /// Who makes a write, from where: what its audit record names.
    fn audit<T>(&self, request: &Request<T>) -> AuditContext {
        AuditContext::of(request, &self.proxies)
    }

    /// A table of names, for anyone signed in.
    async fn names<T>(
        &self,
        request: &Request<T>,
        table: NameTable,
    ) -> ServiceResult<Vec<NamedRecord>> {
        Caller::of(request).claims()?;
        self.store.names(table).await
    }

    /// Adds a name to a table; EquipmentEditing.
    async fn create_named<T>(
        &self,
        request: &Request<T>,
        table: NameTable,
        field: &Field,
        name: &str,
    ) -> ServiceResult<NamedRecord> {
        Caller::of(request).require(Right::EquipmentEditing)?;
        let name = field.required(name)?;
        self.store
            .create_name(&self.audit(request), table, &name)
            .await
    }

    /// A model with the units `scope` sees and its QR code.
    async fn full_model(
        &self,
        scope: &Scope,
        record: ModelRecord,
    ) -> ServiceResult<pb::EnvironmentModel> {
        let filter = UnitFilter {
            model_id: Some(record.id),
            ..UnitFilter::default()
        };
        let units = self.store.units(scope, filter).await?;
        let qr_code = self.qr_codes.png(record.id, None)?;
        let required = self.store.required_courses(record.id).await?;
        Ok(model(record, units, qr_code, required))
    }
}

type RpcResult<T> = Result<Response<T>, Status>;

fn reply<T>(message: T) -> RpcResult<T> {
    Ok(Response::new(message))
}

/// A person as the writer of a unit.
fn person(claims: &Claims) -> Writer {
    Actor::Person(claims).into()
}

/// The caller as an author: their id and full name.
fn author(claims: &Claims) -> Author {
    Author {
        id: claims.user_id,
        name: claims.display_name(),
    }
}

#[tonic::async_trait]
impl WikiService for WikiRpc {
    // --- Equipment models ---

    async fn list_environment_models(
        &self,
        request: Request<pb::ListEnvironmentModelsRequest>,
    ) -> RpcResult<pb::ListEnvironmentModelsResponse> {
        let scope = Scope::of_or_granted(&Caller::of(&request), Grant::EquipmentRead)?;
        let mut units: HashMap<i64, Vec<UnitRecord>> = HashMap::new();
        for u in self.store.units(&scope, UnitFilter::default()).await? {
            units.entry(u.environment_model_id).or_default().push(u);
        }
        let mut required = self.store.every_required_course().await?;
        let environment_models = self
            .store
            .models(&scope)
            .await?
            .into_iter()
            .map(|record| {
                let units = units.remove(&record.id).unwrap_or_default();
                let required = required.remove(&record.id).unwrap_or_default();
                model(record, units, Vec::new(), required)
            })
            .collect();
        reply(pb::ListEnvironmentModelsResponse { environment_models })
    }

    async fn list_environment_models_by_department(
        &self,
        request: Request<pb::ListEnvironmentModelsByDepartmentRequest>,
    ) -> RpcResult<pb::ListEnvironmentModelsByDepartmentResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let department_id = request.get_ref().department_id;
        scope.require(department_id)?;
        let models =
            maintenance::department_models(&self.store, &scope, department_id, Day::today())
                .await?;
        let environment_models = models.into_iter().map(Into::into).collect();
        reply(pb::ListEnvironmentModelsByDepartmentResponse { environment_models })
    }

    async fn get_environment_model(
        &self,
        request: Request<pb::GetEnvironmentModelRequest>,
    ) -> RpcResult<pb::GetEnvironmentModelResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let record = self
            .store
            .visible_model(&scope, request.get_ref().environment_model_id)
            .await?;
        reply(pb::GetEnvironmentModelResponse {
            environment_model: Some(self.full_model(&scope, record).await?),
        })
    }

    async fn check_environment_model_visible(
        &self,
        request: Request<pb::CheckEnvironmentModelVisibleRequest>,
    ) -> RpcResult<pb::CheckEnvironmentModelVisibleResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let visible = self
            .store
            .is_model_visible(&scope, request.get_ref().environment_model_id)
            .await?;
        let department_id = if visible {
            self.store
                .model_department(&scope, request.get_ref().environment_model_id)
                .await?
                .unwrap_or(0)
        } else {
            0
        };
        reply(pb::CheckEnvironmentModelVisibleResponse {
            visible,
            department_id,
        })
    }

    async fn create_environment_model(
        &self,
        request: Request<pb::CreateEnvironmentModelRequest>,
    ) -> RpcResult<pb::CreateEnvironmentModelResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let draft = ModelDraft::parse(
            ModelInput {
                name: &m.name,
                brand_name: &m.brand_name,
                description: &m.description,
                short_instruction: &m.short_instruction,
                manufacturer_id: m.manufacturer_id,
                environment_type_id: m.environment_type_id,
            },
            &self.sanitizer,
        )?;
        let created = self
            .store
            .create_model(
                &self.audit(&request),
                &draft,
                Some(&author(claims)),
                now_millis(),
            )
            .await?;
        reply(pb::CreateEnvironmentModelResponse {
            environment_model: Some(self.full_model(&Scope::Everything, created).await?),
        })
    }

    async fn update_environment_model(
        &self,
        request: Request<pb::UpdateEnvironmentModelRequest>,
    ) -> RpcResult<pb::UpdateEnvironmentModelResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let draft = ModelDraft::parse(
            ModelInput {
                name: &m.name,
                brand_name: &m.brand_name,
                description: &m.description,
                short_instruction: &m.short_instruction,
                manufacturer_id: m.manufacturer_id,
                environment_type_id: m.environment_type_id,
            },
            &self.sanitizer,
        )?;
        let updated = self
            .store
            .update_model(
                &self.audit(&request),
                m.id,
                &draft,
                &author(claims),
                now_millis(),
            )
            .await?;
        reply(pb::UpdateEnvironmentModelResponse {
            environment_model: Some(self.full_model(&Scope::Everything, updated).await?),
        })
    }

    async fn save_instruction(
        &self,
        request: Request<pb::SaveInstructionRequest>,
    ) -> RpcResult<pb::SaveInstructionResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let short_instruction = self.sanitizer.clean(&m.short_instruction)?;
        self.store
            .save_instruction(
                &self.audit(&request),
                m.environment_model_id,
                &short_instruction,
                &author(claims),
                now_millis(),
            )
            .await?;
        reply(pb::SaveInstructionResponse { short_instruction })
    }

    async fn list_instruction_revisions(
        &self,
        request: Request<pb::ListInstructionRevisionsRequest>,
    ) -> RpcResult<pb::ListInstructionRevisionsResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let revisions = self
            .store
            .instruction_revisions(request.get_ref().environment_model_id)
            .await?;
        reply(pb::ListInstructionRevisionsResponse {
            revisions: revisions.into_iter().map(instruction_revision).collect(),
        })
    }

    async fn get_instruction_revision(
        &self,
        request: Request<pb::GetInstructionRevisionRequest>,
    ) -> RpcResult<pb::GetInstructionRevisionResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let (revision, short_instruction) = self
            .store
            .instruction_revision(m.environment_model_id, m.revision_id)
            .await?;
        reply(pb::GetInstructionRevisionResponse {
            revision: Some(instruction_revision(revision)),
            short_instruction,
        })
    }

    async fn restore_instruction_revision(
        &self,
        request: Request<pb::RestoreInstructionRevisionRequest>,
    ) -> RpcResult<pb::RestoreInstructionRevisionResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EquipmentEditing)?;
        let audit = self.audit(&request);
        let m = request.get_ref();
        let short_instruction = self
            .store
            .restore_instruction(
                &audit,
                m.environment_model_id,
                m.revision_id,
                WriteContext {
                    by: &author(claims),
                    now: now_millis(),
                },
            )
            .await?;
        reply(pb::RestoreInstructionRevisionResponse { short_instruction })
    }

    async fn get_public_instruction(
        &self,
        request: Request<pb::GetPublicInstructionRequest>,
    ) -> RpcResult<pb::GetPublicInstructionResponse> {
        Caller::of(&request).refuse_service_account()?;
        let record = self
            .store
            .model(request.get_ref().environment_model_id)
            .await?;
        reply(pb::GetPublicInstructionResponse {
            name: record.name,
            short_instruction: record.short_instruction,
        })
    }

    // --- Required training (clearance to operate) ---

    async fn set_required_courses(
        &self,
        request: Request<pb::SetRequiredCoursesRequest>,
    ) -> RpcResult<pb::SetRequiredCoursesResponse> {
        required_training::set_required_courses(self, request).await
    }

    async fn get_clearance(
        &self,
        request: Request<pb::GetClearanceRequest>,
    ) -> RpcResult<pb::GetClearanceResponse> {
        required_training::get_clearance(self, request).await
    }

    async fn get_department_clearance(
        &self,
        request: Request<pb::GetDepartmentClearanceRequest>,
    ) -> RpcResult<pb::GetDepartmentClearanceResponse> {
        required_training::get_department_clearance(self, request).await
    }

    async fn check_clearance_course(
        &self,
        request: Request<pb::CheckClearanceCourseRequest>,
    ) -> RpcResult<pb::CheckClearanceCourseResponse> {
        required_training::check_clearance_course(self, request).await
    }

    // --- Equipment units ---

    async fn list_environments_by_model(
        &self,
        request: Request<pb::ListEnvironmentsByModelRequest>,
    ) -> RpcResult<pb::ListEnvironmentsByModelResponse> {
        unit::list_environments_by_model(self, request).await
    }

    async fn create_environment(
        &self,
        request: Request<pb::CreateEnvironmentRequest>,
    ) -> RpcResult<pb::CreateEnvironmentResponse> {
        unit::create_environment(self, request).await
    }

    async fn update_environment(
        &self,
        request: Request<pb::UpdateEnvironmentRequest>,
    ) -> RpcResult<pb::UpdateEnvironmentResponse> {
        unit::update_environment(self, request).await
    }

    async fn retire_environment(
        &self,
        request: Request<pb::RetireEnvironmentRequest>,
    ) -> RpcResult<pb::RetireEnvironmentResponse> {
        unit::retire_environment(self, request).await
    }

    // --- Maintenance logbook ---

    async fn list_maintenance_entries(
        &self,
        request: Request<pb::ListMaintenanceEntriesRequest>,
    ) -> RpcResult<pb::ListMaintenanceEntriesResponse> {
        unit::list_maintenance_entries(self, request).await
    }

    async fn create_maintenance_entry(
        &self,
        request: Request<pb::CreateMaintenanceEntryRequest>,
    ) -> RpcResult<pb::CreateMaintenanceEntryResponse> {
        unit::create_maintenance_entry(self, request).await
    }

    async fn list_maintenance_due(
        &self,
        request: Request<pb::ListMaintenanceDueRequest>,
    ) -> RpcResult<pb::ListMaintenanceDueResponse> {
        unit::list_maintenance_due(self, request).await
    }

    // --- Journals ---

    async fn list_journals(
        &self,
        request: Request<pb::ListJournalsRequest>,
    ) -> RpcResult<pb::ListJournalsResponse> {
        unit::list_journals(self, request).await
    }

    async fn create_journal(
        &self,
        request: Request<pb::CreateJournalRequest>,
    ) -> RpcResult<pb::CreateJournalResponse> {
        unit::create_journal(self, request).await
    }

    async fn list_journal_entries(
        &self,
        request: Request<pb::ListJournalEntriesRequest>,
    ) -> RpcResult<pb::ListJournalEntriesResponse> {
        unit::list_journal_entries(self, request).await
    }

    async fn create_journal_entry(
        &self,
        request: Request<pb::CreateJournalEntryRequest>,
    ) -> RpcResult<pb::CreateJournalEntryResponse> {
        unit::create_journal_entry(self, request).await
    }

    // --- Labels ---

    async fn get_label_sheet(
        &self,
        request: Request<pb::GetLabelSheetRequest>,
    ) -> RpcResult<pb::GetLabelSheetResponse> {
        unit::get_label_sheet(self, request).await
    }

    // --- Reference data ---

    async fn list_countries(
        &self,
        request: Request<pb::ListCountriesRequest>,
    ) -> RpcResult<pb::ListCountriesResponse> {
        reference::list_countries(self, request).await
    }

    async fn create_country(
        &self,
        request: Request<pb::CreateCountryRequest>,
    ) -> RpcResult<pb::CreateCountryResponse> {
        reference::create_country(self, request).await
    }

    async fn list_manufacturers(
        &self,
        request: Request<pb::ListManufacturersRequest>,
    ) -> RpcResult<pb::ListManufacturersResponse> {
        reference::list_manufacturers(self, request).await
    }

    async fn create_manufacturer(
        &self,
        request: Request<pb::CreateManufacturerRequest>,
    ) -> RpcResult<pb::CreateManufacturerResponse> {
        reference::create_manufacturer(self, request).await
    }

    async fn list_environment_types(
        &self,
        request: Request<pb::ListEnvironmentTypesRequest>,
    ) -> RpcResult<pb::ListEnvironmentTypesResponse> {
        reference::list_environment_types(self, request).await
    }

    async fn create_environment_type(
        &self,
        request: Request<pb::CreateEnvironmentTypeRequest>,
    ) -> RpcResult<pb::CreateEnvironmentTypeResponse> {
        reference::create_environment_type(self, request).await
    }

    async fn list_common_documents(
        &self,
        request: Request<pb::ListCommonDocumentsRequest>,
    ) -> RpcResult<pb::ListCommonDocumentsResponse> {
        reference::list_common_documents(self, request).await
    }

    async fn create_common_document(
        &self,
        request: Request<pb::CreateCommonDocumentRequest>,
    ) -> RpcResult<pb::CreateCommonDocumentResponse> {
        reference::create_common_document(self, request).await
    }

    // --- Equipment register ---

    async fn list_equipment_units(
        &self,
        request: Request<pb::ListEquipmentUnitsRequest>,
    ) -> RpcResult<pb::ListEquipmentUnitsResponse> {
        reference::list_equipment_units(self, request).await
    }

    async fn upsert_equipment_units(
        &self,
        request: Request<pb::UpsertEquipmentUnitsRequest>,
    ) -> RpcResult<pb::UpsertEquipmentUnitsResponse> {
        reference::upsert_equipment_units(self, request).await
    }

    /// Deprecated: SearchService's Search answers it.
    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        portal_kit::search::answer_deprecated(&self.search, request).await
    }
}

fn kind_of(value: i32) -> Option<Kind> {
    match pb::MaintenanceKind::try_from(value).ok()? {
        pb::MaintenanceKind::Unspecified => None,
        pb::MaintenanceKind::Preventive => Some(Kind::Preventive),
        pb::MaintenanceKind::Corrective => Some(Kind::Corrective),
        pb::MaintenanceKind::Inspection => Some(Kind::Inspection),
        pb::MaintenanceKind::Calibration => Some(Kind::Calibration),
    }
}
