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
//! Writes record who made them (a person or a service account).

use std::collections::HashMap;

use portal_kit::access::{Actor, Scope as Grant};
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::net::TrustedProxies;
use portal_kit::search::Asked;
use portal_kit::text::Field;
use portal_kit::token::Claims;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::wiki_service_server::WikiService;
use tonic::{Request, Response, Status};

use crate::app::clearance::{self, OnBehalf, Training};
use crate::app::qr_codes::QrCodes;
use crate::app::{labels, maintenance, register};
use crate::convert::{
    due_unit, equipment_unit, instruction_revision, member_clearance, model, unit,
};
use crate::domain::clearance::RequiredCourses;
use crate::domain::instruction::Sanitizer;
use crate::domain::journal::{JournalEntryDraft, JournalName};
use crate::domain::maintenance::{EntryDraft, EntryInput, Kind};
use crate::domain::model::{ModelDraft, ModelInput};
use crate::domain::reference::{COUNTRY, DocumentDraft, ENVIRONMENT_TYPE, MANUFACTURER};
use crate::domain::register::{Batch, Page, RowInput};
use crate::domain::scope::Scope;
use crate::domain::unit::UnitDraft;
use crate::store::model::ModelRecord;
use crate::store::reference::{NameTable, NamedRecord};
use crate::store::search;
use crate::store::unit::{UnitFilter, UnitRecord};
use crate::store::{Author, Store, Writer};
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
}

impl WikiRpc {
    pub fn new(
        store: Store,
        public_url: &str,
        training: Training,
        proxies: TrustedProxies,
    ) -> WikiRpc {
        WikiRpc {
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
                (&author(claims), now_millis()),
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
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let required = RequiredCourses::parse(&m.course_ids)?;
        let model_id = m.environment_model_id;
        // An unknown model is NOT_FOUND before education is asked anything.
        self.store
            .require_visible_model(&Scope::Everything, model_id)
            .await?;
        let course_ids = clearance::set_required(
            &self.store,
            &self.training,
            OnBehalf::of(&request),
            model_id,
            &required,
            &self.audit(&request),
        )
        .await?;
        reply(pb::SetRequiredCoursesResponse { course_ids })
    }

    async fn get_clearance(
        &self,
        request: Request<pb::GetClearanceRequest>,
    ) -> RpcResult<pb::GetClearanceResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.user_id()?;
        let model_id = request.get_ref().environment_model_id;
        // A model the caller sees, as GetEnvironmentModel: another
        // department's is NOT_FOUND, so it tells nothing of it (issue 37).
        self.store
            .require_visible_model(&Scope::of(&caller)?, model_id)
            .await?;
        let (found, missing) = clearance::of_person(
            &self.store,
            &self.training,
            OnBehalf::of(&request),
            user_id,
            model_id,
            now_millis(),
        )
        .await?;
        reply(crate::convert::clearance(&found, missing))
    }

    async fn get_department_clearance(
        &self,
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
        self.store
            .require_visible_model(&scope, m.environment_model_id)
            .await?;
        let now = now_millis();
        let (required, people) = clearance::of_department(
            &self.store,
            &self.training,
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

    async fn check_clearance_course(
        &self,
        request: Request<pb::CheckClearanceCourseRequest>,
    ) -> RpcResult<pb::CheckClearanceCourseResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let course_id = request.get_ref().course_id;
        let environment_model_ids = self.store.models_requiring(&scope, course_id).await?;
        reply(pb::CheckClearanceCourseResponse {
            clears: !environment_model_ids.is_empty(),
            environment_model_ids,
        })
    }

    // --- Equipment units ---

    async fn list_environments_by_model(
        &self,
        request: Request<pb::ListEnvironmentsByModelRequest>,
    ) -> RpcResult<pb::ListEnvironmentsByModelResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let model_id = request.get_ref().environment_model_id;
        self.store.require_visible_model(&scope, model_id).await?;
        let filter = UnitFilter {
            model_id: Some(model_id),
            ..UnitFilter::default()
        };
        let today = Day::today();
        let units = self.store.units(&scope, filter).await?;
        reply(pb::ListEnvironmentsByModelResponse {
            environments: units.into_iter().map(|u| unit(u, today)).collect(),
        })
    }

    async fn create_environment(
        &self,
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
        let created = self
            .store
            .create_unit(
                &self.audit(&request),
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

    async fn update_environment(
        &self,
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
        let updated = self
            .store
            .update_unit(&self.audit(&request), m.id, &draft, writer, now_millis())
            .await?;
        reply(pb::UpdateEnvironmentResponse {
            environment: Some(unit(updated, Day::today())),
        })
    }

    async fn retire_environment(
        &self,
        request: Request<pb::RetireEnvironmentRequest>,
    ) -> RpcResult<pb::RetireEnvironmentResponse> {
        let caller = Caller::of(&request);
        let writer = person(caller.require(Right::EquipmentEditing)?);
        self.store
            .retire_unit(
                &self.audit(&request),
                request.get_ref().id,
                writer,
                now_millis(),
            )
            .await?;
        reply(pb::RetireEnvironmentResponse {})
    }

    // --- Maintenance logbook ---

    async fn list_maintenance_entries(
        &self,
        request: Request<pb::ListMaintenanceEntriesRequest>,
    ) -> RpcResult<pb::ListMaintenanceEntriesResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let found = self
            .store
            .visible_unit(&scope, request.get_ref().environment_id)
            .await?;
        let entries = self.store.entries(found.id).await?;
        reply(pb::ListMaintenanceEntriesResponse {
            entries: entries.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_maintenance_entry(
        &self,
        request: Request<pb::CreateMaintenanceEntryRequest>,
    ) -> RpcResult<pb::CreateMaintenanceEntryResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let found = self
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
        let created = self
            .store
            .create_entry(
                &self.audit(&request),
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

    async fn list_maintenance_due(
        &self,
        request: Request<pb::ListMaintenanceDueRequest>,
    ) -> RpcResult<pb::ListMaintenanceDueResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let today = Day::today();
        let due = maintenance::due(&self.store, &scope, today).await?;
        reply(pb::ListMaintenanceDueResponse {
            units: due.into_iter().map(|d| due_unit(d, today)).collect(),
            today: today.to_string(),
        })
    }

    // --- Journals ---

    async fn list_journals(
        &self,
        request: Request<pb::ListJournalsRequest>,
    ) -> RpcResult<pb::ListJournalsResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let model_id = request.get_ref().environment_model_id;
        self.store.require_visible_model(&scope, model_id).await?;
        let journals = self.store.journals(model_id).await?;
        reply(pb::ListJournalsResponse {
            journals: journals.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_journal(
        &self,
        request: Request<pb::CreateJournalRequest>,
    ) -> RpcResult<pb::CreateJournalResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let name = JournalName::parse(&m.name)?;
        let created = self
            .store
            .create_journal(
                &self.audit(&request),
                m.environment_model_id,
                &name,
                now_millis(),
            )
            .await?;
        reply(pb::CreateJournalResponse {
            journal: Some(created.into()),
        })
    }

    async fn list_journal_entries(
        &self,
        request: Request<pb::ListJournalEntriesRequest>,
    ) -> RpcResult<pb::ListJournalEntriesResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let journal = self.store.journal(request.get_ref().journal_id).await?;
        self.store
            .require_visible_model(&scope, journal.environment_model_id)
            .await?;
        let entries = self.store.journal_entries(journal.id).await?;
        reply(pb::ListJournalEntriesResponse {
            entries: entries.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_journal_entry(
        &self,
        request: Request<pb::CreateJournalEntryRequest>,
    ) -> RpcResult<pb::CreateJournalEntryResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let draft = JournalEntryDraft::parse(&m.date, &m.text)?;
        let created = self
            .store
            .create_journal_entry(
                &self.audit(&request),
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

    // --- Labels ---

    async fn get_label_sheet(
        &self,
        request: Request<pb::GetLabelSheetRequest>,
    ) -> RpcResult<pb::GetLabelSheetResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let department_id = request.get_ref().department_id;
        scope.require(department_id)?;
        let labels = labels::sheet(&self.store, &self.qr_codes, &scope, department_id).await?;
        reply(pb::GetLabelSheetResponse {
            labels: labels.into_iter().map(Into::into).collect(),
        })
    }

    // --- Reference data ---

    async fn list_countries(
        &self,
        request: Request<pb::ListCountriesRequest>,
    ) -> RpcResult<pb::ListCountriesResponse> {
        let rows = self.names(&request, NameTable::Countries).await?;
        reply(pb::ListCountriesResponse {
            countries: rows.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_country(
        &self,
        request: Request<pb::CreateCountryRequest>,
    ) -> RpcResult<pb::CreateCountryResponse> {
        let name = &request.get_ref().name;
        let row = self
            .create_named(&request, NameTable::Countries, &COUNTRY, name)
            .await?;
        reply(pb::CreateCountryResponse {
            country: Some(row.into()),
        })
    }

    async fn list_manufacturers(
        &self,
        request: Request<pb::ListManufacturersRequest>,
    ) -> RpcResult<pb::ListManufacturersResponse> {
        Caller::of(&request).claims()?;
        let rows = self.store.manufacturers().await?;
        reply(pb::ListManufacturersResponse {
            manufacturers: rows.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_manufacturer(
        &self,
        request: Request<pb::CreateManufacturerRequest>,
    ) -> RpcResult<pb::CreateManufacturerResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let name = MANUFACTURER.required(&m.name)?;
        let created = self
            .store
            .create_manufacturer(
                &self.audit(&request),
                &name,
                (m.country_id > 0).then_some(m.country_id),
            )
            .await?;
        reply(pb::CreateManufacturerResponse {
            manufacturer: Some(created.into()),
        })
    }

    async fn list_environment_types(
        &self,
        request: Request<pb::ListEnvironmentTypesRequest>,
    ) -> RpcResult<pb::ListEnvironmentTypesResponse> {
        let rows = self.names(&request, NameTable::EnvironmentTypes).await?;
        reply(pb::ListEnvironmentTypesResponse {
            environment_types: rows.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_environment_type(
        &self,
        request: Request<pb::CreateEnvironmentTypeRequest>,
    ) -> RpcResult<pb::CreateEnvironmentTypeResponse> {
        let name = &request.get_ref().name;
        let row = self
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

    async fn list_common_documents(
        &self,
        request: Request<pb::ListCommonDocumentsRequest>,
    ) -> RpcResult<pb::ListCommonDocumentsResponse> {
        Caller::of(&request).claims()?;
        let rows = self.store.documents().await?;
        reply(pb::ListCommonDocumentsResponse {
            common_documents: rows.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_common_document(
        &self,
        request: Request<pb::CreateCommonDocumentRequest>,
    ) -> RpcResult<pb::CreateCommonDocumentResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let m = request.get_ref();
        let draft = DocumentDraft::parse(&m.title, &m.description, &m.url)?;
        let created = self
            .store
            .create_document(&self.audit(&request), &draft)
            .await?;
        reply(pb::CreateCommonDocumentResponse {
            common_document: Some(created.into()),
        })
    }

    // --- Equipment register ---

    async fn list_equipment_units(
        &self,
        request: Request<pb::ListEquipmentUnitsRequest>,
    ) -> RpcResult<pb::ListEquipmentUnitsResponse> {
        Caller::of(&request)
            .require_right_or_scope(Right::EquipmentEditing, Grant::EquipmentRead)?;
        let m = request.get_ref();
        let today = Day::today();
        let (units, next) = self
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

    async fn upsert_equipment_units(
        &self,
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
        let done = register::upsert(
            &self.store,
            &batch,
            (writer, now_millis()),
            m.dry_run,
            &self.audit(&request),
        )
        .await?;
        reply(done.into())
    }

    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        let scope = Scope::of(&Caller::of(&request))?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &search::KINDS)?;
        let found = self.store.search(&scope, &asked).await?;
        reply(pb::SearchResponse {
            hits: found
                .into_iter()
                .map(portal_kit::search_hit!(pb::SearchHit))
                .collect(),
        })
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
