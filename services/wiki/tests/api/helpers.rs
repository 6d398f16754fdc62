//! Spawns the real wiki service on a random port with a fresh database and
//! talks to it through the generated tonic client. Education and auth, which
//! clearance to operate equipment asks, are not running unless a test starts
//! them ([`spawn_with_training`]): elsewhere they answer UNAVAILABLE.

use std::future::Future;
use std::ops::Deref;

use portal_kit::Right;
use portal_kit::audit::AuditSettings;
use portal_kit::day::Day;
use portal_kit::db::Backend;
use portal_kit::serve::ServiceChannel;
use portal_kit::testing::{self, ServiceHarness, TestDatabase, TestKeys, reserve, serve, serve_on};
pub use portal_kit::testing::{assert_status, authed, code};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use portal_wiki::{SERVICE_NAME, WikiSettings};
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::Status;
use tonic::transport::{Channel, Endpoint};
use tower::ServiceExt;

pub type Client = WikiServiceClient<Channel>;
pub type EducationClient =
    portal_proto::education::v1::education_service_client::EducationServiceClient<Channel>;

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
    // Nothing listens on the discard port: a call there is UNAVAILABLE.
    let nowhere = Endpoint::from_static("http://127.0.0.1:9").connect_lazy();
    let routes = |database_url: String, keys: &TestKeys| {
        portal_wiki::routes(settings(database_url, keys, seed_demo, &nowhere, &nowhere))
    };
    TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await)
}

fn settings(
    database_url: String,
    keys: &TestKeys,
    seed_demo: bool,
    education: &Channel,
    auth: &Channel,
) -> WikiSettings {
    WikiSettings {
        database: database_url.into(),
        public_key_file: keys.public_key_file.clone(),
        access_versions: Default::default(),
        public_url: PUBLIC_URL.into(),
        seed_demo,
        education: service_channel(education),
        auth: service_channel(auth),
        audit: AuditSettings::loopback(),
        shutdown: CancellationToken::new(),
        internal: keys.internal.clone(),
    }
}

fn service_channel(channel: &Channel) -> ServiceChannel {
    ServiceChannel::new(
        channel
            .clone()
            .map_err(|error| Status::from_error(Box::new(error))),
    )
}

/// The wiki with the real auth and education beside it (each on its own
/// database of `backend`, trusting the same keys), all three with their demo
/// data: auth's demo staff and departments, education's demo courses and
/// passes, the wiki's demo equipment (its ventilator requires the CPR course).
pub struct TrainingApp {
    wiki: TestApp,
    /// Education, as the people of these tests call it, and its channel
    /// (its audit log).
    pub education: EducationClient,
    pub education_channel: Channel,
    /// Stop education (and its watches), then auth; their databases.
    _education: (DropGuard, DropGuard, TestDatabase),
    _auth: (DropGuard, TestDatabase),
}

impl Deref for TrainingApp {
    type Target = TestApp;

    fn deref(&self) -> &TestApp {
        &self.wiki
    }
}

pub async fn spawn_with_training(backend: Backend) -> TrainingApp {
    let keys = TestKeys::new();
    let auth_database = TestDatabase::new(backend).await;
    let auth_routes = portal_auth::routes(portal_auth::AuthSettings {
        database: auth_database.url.clone().into(),
        private_key_file: keys.private_key_file.clone(),
        public_key_file: keys.public_key_file.clone(),
        admin_login: "admin".into(),
        admin_password: Some("admin-password-1".to_owned().into()),
        seed_demo: true,
        public_url: PUBLIC_URL.into(),
        audit: AuditSettings::loopback(),
        shutdown: CancellationToken::new(),
        staff_sync_max_block_percent: 10,
        mfa_for_admins: false,
        internal: keys.internal.clone(),
        mail: None,
        directory: None,
        sso: None,
    })
    .await
    .expect("auth starts");
    let (auth, auth_serving) = serve(portal_auth::SERVICE_NAME, auth_routes).await;
    // Education and the wiki ask each other: education is given the wiki's
    // channel first, and served once the wiki stands.
    let (education_port, education) = reserve().await;
    let routes = |database_url: String, keys: &TestKeys| {
        portal_wiki::routes(settings(database_url, keys, true, &education, &auth))
    };
    let wiki = TestApp(
        ServiceHarness::start_with_keys(backend, keys, SERVICE_NAME, routes, Client::new).await,
    );
    let education_database = TestDatabase::new(backend).await;
    let shutdown = CancellationToken::new();
    let education_routes = portal_education::routes(portal_education::EducationSettings {
        database: education_database.url.clone().into(),
        public_key_file: wiki.keys.public_key_file.clone(),
        public_url: PUBLIC_URL.into(),
        frame_hosts: Default::default(),
        access_versions: Default::default(),
        seed_demo: true,
        auth: service_channel(&auth),
        // Digests are off here; a self-enrolment asks the wiki.
        wiki: service_channel(&wiki.channel),
        shutdown: shutdown.clone(),
        internal: wiki.keys.internal.clone(),
        digests: portal_education::app::digest::DigestSettings::off(PUBLIC_URL),
        audit: AuditSettings::loopback(),
    })
    .await
    .expect("education starts");
    let education_serving = serve_on(
        education_port,
        portal_education::SERVICE_NAME,
        education_routes,
    );
    TrainingApp {
        education: EducationClient::new(education.clone()),
        education_channel: education,
        wiki,
        _education: (shutdown.drop_guard(), education_serving, education_database),
        _auth: (auth_serving, auth_database),
    }
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
    /// The wiki started again on the same database, as a new replica would
    /// (its start-up work runs and its daily housekeeping begins), and
    /// stopped.
    pub async fn start_again(&self) {
        let nowhere = Endpoint::from_static("http://127.0.0.1:9").connect_lazy();
        let database_url = self.database.url.clone();
        portal_wiki::routes(settings(
            database_url,
            &self.keys,
            false,
            &nowhere,
            &nowhere,
        ))
        .await
        .expect("the wiki starts again");
    }

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

    /// A model's instruction revisions, newest first, as an editor reads them.
    pub async fn instruction_revisions(&self, model_id: i64) -> Vec<pb::InstructionRevision> {
        self.client
            .clone()
            .list_instruction_revisions(authed(
                pb::ListInstructionRevisionsRequest {
                    environment_model_id: model_id,
                },
                &self.editor_token(),
            ))
            .await
            .expect("list instruction revisions")
            .into_inner()
            .revisions
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
