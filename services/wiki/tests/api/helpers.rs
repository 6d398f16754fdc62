//! Spawns the real wiki service on a random port with a fresh database and
//! talks to it through the generated tonic client.

use std::future::Future;

use portal_kit::Right;
use portal_kit::day::Day;
use portal_kit::db::Backend;
use portal_kit::testing::{self, ServiceHarness, TestKeys};
pub use portal_kit::testing::{assert_status, authed, code};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use portal_wiki::{SERVICE_NAME, WikiSettings};
use tonic::Status;
use tonic::transport::Channel;

pub type Client = WikiServiceClient<Channel>;

pub const PUBLIC_URL: &str = "https://portal.example";
pub const EDITOR_ID: i64 = 1;
pub const LEARNER_ID: i64 = 10;
/// The learner's department, and another one.
pub const OWN_DEPARTMENT: i64 = 4;
pub const OTHER_DEPARTMENT: i64 = 5;

portal_kit::test_app!(Client);

/// Runs `scenario` once on every backend of this run, each time on a fresh service.
pub async fn on_each_backend<F: Future<Output = ()>>(scenario: impl Fn(TestApp) -> F) {
    testing::on_each_backend(|backend| spawn_app(backend, false), scenario).await;
}

pub async fn spawn_app(backend: Backend, seed_demo: bool) -> TestApp {
    let routes = |database_url: String, keys: &TestKeys| {
        portal_wiki::routes(WikiSettings {
            database: database_url.into(),
            public_key_file: keys.public_key_file.clone(),
            access_versions: Default::default(),
            public_url: PUBLIC_URL.into(),
            seed_demo,
        })
    };
    TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await)
}

pub fn model_request(name: &str, instruction: &str) -> pb::CreateEnvironmentModelRequest {
    pb::CreateEnvironmentModelRequest {
        name: name.into(),
        brand_name: "Mindray".into(),
        description: "Прикроватный монитор".into(),
        short_instruction: instruction.into(),
        manufacturer_id: 0,
        environment_type_id: 0,
    }
}

impl TestApp {
    pub fn editor_token(&self) -> String {
        self.keys.token(EDITOR_ID, &[Right::EquipmentEditing], &[])
    }

    pub fn learner_token(&self) -> String {
        self.keys.token(LEARNER_ID, &[], &[OWN_DEPARTMENT])
    }

    pub async fn create_model(&self, name: &str, instruction: &str) -> pb::EnvironmentModel {
        self.client
            .clone()
            .create_environment_model(authed(
                model_request(name, instruction),
                &self.editor_token(),
            ))
            .await
            .expect("create model")
            .into_inner()
            .environment_model
            .expect("created model")
    }

    pub async fn create_unit(
        &self,
        model_id: i64,
        department_id: i64,
        inventory_number: &str,
    ) -> Result<pb::Environment, Status> {
        self.client
            .clone()
            .create_environment(authed(
                pb::CreateEnvironmentRequest {
                    environment_model_id: model_id,
                    department_deployment: department_id,
                    serial_number: format!("SN-{inventory_number}"),
                    inventory_number: inventory_number.into(),
                },
                &self.editor_token(),
            ))
            .await
            .map(|r| r.into_inner().environment.expect("created unit"))
    }

    pub async fn log(
        &self,
        unit_id: i64,
        date: &str,
        next_due: &str,
    ) -> Result<pb::MaintenanceEntry, Status> {
        self.client
            .clone()
            .create_maintenance_entry(authed(
                pb::CreateMaintenanceEntryRequest {
                    environment_id: unit_id,
                    date: date.into(),
                    kind: pb::MaintenanceKind::Preventive as i32,
                    performed_by: "ООО «Медтехсервис»".into(),
                    description: "Плановое ТО".into(),
                    result: "Исправен".into(),
                    next_due: next_due.into(),
                },
                &self.editor_token(),
            ))
            .await
            .map(|r| r.into_inner().entry.expect("created entry"))
    }

    pub async fn create_journal(&self, model_id: i64, name: &str) -> pb::Journal {
        self.client
            .clone()
            .create_journal(authed(
                pb::CreateJournalRequest {
                    environment_model_id: model_id,
                    name: name.into(),
                },
                &self.editor_token(),
            ))
            .await
            .expect("create journal")
            .into_inner()
            .journal
            .expect("created journal")
    }
}

/// A calendar day `days` from today (UTC), `YYYY-MM-DD`.
pub fn day(days: i64) -> String {
    Day::today().plus_days(days).to_string()
}
