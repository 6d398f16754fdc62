//! Spawns the real auth service on a random port with a fresh database and talks
//! to it through the generated tonic client.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};

pub use portal_auth::AuthSettings;
use portal_auth::SERVICE_NAME;
use portal_auth::app::reset_mail::MailRelay;
use portal_auth::directory::DirectorySettings;
use portal_auth::sso::SsoSettings;
use portal_kit::Right;
use portal_kit::audit::AuditSettings;
use portal_kit::db::Backend;
use portal_kit::net::TrustedProxies;
pub use portal_kit::smtp_sink::SmtpSink;
use portal_kit::testing::{self, ServiceHarness, TestKeys};
pub use portal_kit::testing::{assert_status, authed, code};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::auth::v1::service_account_service_client::ServiceAccountServiceClient;
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::transport::Channel;
use tonic::{Request, Status};

pub const ADMIN_LOGIN: &str = "admin";
/// Where the tests' portal says it is reached (its token endpoint is the
/// audience of client assertions).
pub const PUBLIC_URL: &str = "https://portal.hospital.example";
pub const ADMIN_PASSWORD: &str = "admin-test-password";
/// The bootstrap admin is the first user of a fresh database.
pub const ADMIN_ID: i64 = 1;
pub const RIGHT_USER_MANAGEMENT: i64 = 1;
pub const RIGHT_EDUCATION_MANAGEMENT: i64 = 2;
pub const RIGHT_EQUIPMENT_EDITING: i64 = 3;

pub type Client = AuthServiceClient<Channel>;

portal_kit::test_app!(Client);

/// Runs `scenario` once on every backend of this run, each time on a fresh service.
pub async fn on_each_backend<F: Future<Output = ()>>(
    seed_demo: bool,
    scenario: impl Fn(TestApp) -> F,
) {
    testing::on_each_backend(|backend| spawn_app(backend, seed_demo), scenario).await;
}

pub fn settings(database_url: &str, keys: &TestKeys, seed_demo: bool) -> AuthSettings {
    AuthSettings {
        database: database_url.into(),
        private_key_file: keys.private_key_file.clone(),
        public_key_file: keys.public_key_file.clone(),
        admin_login: ADMIN_LOGIN.into(),
        admin_password: Some(ADMIN_PASSWORD.into()),
        seed_demo,
        // The tests call from loopback, as the gateway of `all` does.
        audit: AuditSettings::loopback(),
        public_url: PUBLIC_URL.into(),
        shutdown: CancellationToken::new(),
        staff_sync_max_block_percent: 10,
        mfa_for_admins: false,
        internal: keys.internal.clone(),
        mail: None,
        directory: None,
        sso: None,
    }
}

pub async fn spawn_app(backend: Backend, seed_demo: bool) -> TestApp {
    let routes =
        |url: String, keys: &TestKeys| portal_auth::routes(settings(&url, keys, seed_demo));
    TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await)
}

/// Auth with `PORTAL_MFA_FOR_ADMINS=true`.
pub async fn spawn_requiring_mfa_for_admins(backend: Backend) -> TestApp {
    let routes = |url: String, keys: &TestKeys| {
        portal_auth::routes(AuthSettings {
            mfa_for_admins: true,
            ..settings(&url, keys, false)
        })
    };
    TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await)
}

/// Auth with a mail relay (the real SMTP sink of the tests), for the links
/// of «Забыли пароль?».
pub struct Mailing {
    pub app: TestApp,
    pub sink: SmtpSink,
}

pub async fn spawn_mailing(backend: Backend) -> Mailing {
    let sink = SmtpSink::start().await;
    let mail = MailRelay {
        relay: sink.url().into(),
        from: "Портал <portal@hospital.example>"
            .parse()
            .expect("a mailbox"),
    };
    let routes = |url: String, keys: &TestKeys| {
        portal_auth::routes(AuthSettings {
            mail: Some(mail),
            ..settings(&url, keys, false)
        })
    };
    let app = TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await);
    Mailing { app, sink }
}

/// Auth whose people without a portal password sign in by `directory`.
pub async fn spawn_with_directory(backend: Backend, directory: DirectorySettings) -> TestApp {
    let routes = |url: String, keys: &TestKeys| {
        portal_auth::routes(AuthSettings {
            directory: Some(directory),
            ..settings(&url, keys, false)
        })
    };
    TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await)
}

/// Auth whose people may sign in by the OpenID provider of `sso`.
pub async fn spawn_with_sso(backend: Backend, sso: SsoSettings) -> TestApp {
    let routes = |url: String, keys: &TestKeys| {
        portal_auth::routes(AuthSettings {
            sso: Some(sso),
            ..settings(&url, keys, false)
        })
    };
    TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await)
}

/// Auth with `directory` and a mail relay (a fresh sink).
pub async fn spawn_directory_mailing(backend: Backend, directory: DirectorySettings) -> Mailing {
    let sink = SmtpSink::start().await;
    let mail = MailRelay {
        relay: sink.url().into(),
        from: "portal@hospital.example".parse().expect("a mailbox"),
    };
    let routes = |url: String, keys: &TestKeys| {
        portal_auth::routes(AuthSettings {
            mail: Some(mail),
            directory: Some(directory),
            ..settings(&url, keys, false)
        })
    };
    let app = TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, Client::new).await);
    Mailing { app, sink }
}

/// Runs `scenario` once on every backend of this run, each time on a fresh
/// service that sends mail to a fresh sink.
pub async fn on_each_backend_mailing<F: Future<Output = ()>>(scenario: impl Fn(Mailing) -> F) {
    testing::on_each_backend(spawn_mailing, scenario).await;
}

pub type Accounts = ServiceAccountServiceClient<Channel>;

/// Auth with a client of its ServiceAccountService too, and the channel to
/// it (for its other services).
pub struct WithAccounts {
    pub app: TestApp,
    pub accounts: Accounts,
    pub channel: Channel,
}

pub async fn spawn_with_accounts(backend: Backend) -> WithAccounts {
    let routes = |url: String, keys: &TestKeys| portal_auth::routes(settings(&url, keys, false));
    let mut shared = None;
    let clients = |channel: Channel| {
        shared = Some(channel.clone());
        Client::new(channel)
    };
    let app = TestApp(ServiceHarness::start(backend, SERVICE_NAME, routes, clients).await);
    let channel = shared.expect("the harness's channel");
    WithAccounts {
        app,
        accounts: Accounts::new(channel.clone()),
        channel,
    }
}

/// Runs `scenario` once on every backend of this run, each time on a fresh
/// service with its ServiceAccountService client.
pub async fn on_each_backend_with_accounts<F: Future<Output = ()>>(
    scenario: impl Fn(WithAccounts) -> F,
) {
    testing::on_each_backend(spawn_with_accounts, scenario).await;
}

/// Another auth process on the same database and keys; it stops when dropped.
pub struct Replica {
    _serving: DropGuard,
    pub client: Client,
}

/// A request the gateway forwarded for the client at `address`.
pub fn from_address<T>(message: T, address: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-forwarded-for", address.parse().expect("header value"));
    request
}

/// A sign-in from a browser holding `device_token` (from an earlier sign-in).
pub fn login_from_device(login: &str, password: &str, device_token: &str) -> pb::LoginRequest {
    pb::LoginRequest {
        device_token: device_token.into(),
        ..login_request(login, password)
    }
}

pub fn login_request(login: &str, password: &str) -> pb::LoginRequest {
    pb::LoginRequest {
        login: login.into(),
        password: password.into(),
        device_token: String::new(),
    }
}

static UNIQUE: AtomicU32 = AtomicU32::new(0);

/// A login no other call of this process has used.
pub fn unique_login(prefix: &str) -> String {
    format!("{prefix}{}", UNIQUE.fetch_add(1, Ordering::Relaxed))
}

pub fn creating(draft: pb::UserDraft) -> pb::CreateUserRequest {
    pb::CreateUserRequest { user: Some(draft) }
}

pub fn updating(id: i64, draft: pb::UserDraft) -> pb::UpdateUserRequest {
    pb::UpdateUserRequest {
        id,
        user: Some(draft),
    }
}

impl TestApp {
    /// A token for the bootstrap admin, who holds every right.
    pub fn admin_token(&self) -> String {
        self.keys.token(ADMIN_ID, &Right::ALL, &[])
    }

    pub fn token(&self, user_id: i64, rights: &[Right]) -> String {
        self.keys.token(user_id, rights, &[])
    }

    /// Creates a user through the API, as the admin.
    pub async fn create_user(&self, draft: pb::UserDraft) -> pb::User {
        self.client
            .clone()
            .create_user(authed(creating(draft), &self.admin_token()))
            .await
            .expect("create user")
            .into_inner()
            .user
            .expect("created user")
    }

    /// Creates a named staff member with `password` and the given links.
    pub async fn staff(
        &self,
        login: &str,
        password: &str,
        rights: &[i64],
        departments: &[i64],
    ) -> pb::User {
        self.create_user(pb::UserDraft {
            name: "Ольга".into(),
            surname: "Смирнова".into(),
            last_name: "Викторовна".into(),
            login: login.into(),
            password: password.into(),
            email: format!("{login}@hospital.example"),
            right_ids: rights.to_vec(),
            department_ids: departments.to_vec(),
            ..Default::default()
        })
        .await
    }

    pub async fn create_department(
        &self,
        title: &str,
        user_ids: &[i64],
    ) -> pb::DepartmentWithUsers {
        self.client
            .clone()
            .create_department(authed(
                pb::CreateDepartmentRequest {
                    title: title.into(),
                    user_ids: user_ids.to_vec(),
                },
                &self.admin_token(),
            ))
            .await
            .expect("create department")
            .into_inner()
            .department
            .expect("created department")
    }

    /// Another auth service on this one's database, as a second replica would be;
    /// `trusted_proxies` says whose forwarded addresses it believes.
    pub async fn replica(&self, trusted_proxies: TrustedProxies) -> Replica {
        let settings = AuthSettings {
            audit: AuditSettings {
                trusted_proxies,
                ..AuditSettings::loopback()
            },
            ..settings(&self.database.url, &self.keys, false)
        };
        let routes = portal_auth::routes(settings).await.expect("auth starts");
        let (channel, serving) = testing::serve(SERVICE_NAME, routes).await;
        Replica {
            _serving: serving,
            client: Client::new(channel),
        }
    }

    /// A connection of its own to the service's database, to look at or set up
    /// what the API does not show.
    pub async fn database(&self) -> sqlx::AnyPool {
        portal_kit::db::Database::connect(&self.database.url, &portal_auth::migrations())
            .await
            .expect("connect to the test database")
            .pool
    }

    pub async fn login(&self, login: &str, password: &str) -> Result<pb::LoginResponse, Status> {
        self.client
            .clone()
            .login(login_request(login, password))
            .await
            .map(|r| r.into_inner())
    }

    /// Signs in and returns the new session's refresh token.
    pub async fn session_of(&self, login: &str, password: &str) -> String {
        self.login(login, password)
            .await
            .expect("sign in")
            .refresh_token
    }

    pub async fn refresh(&self, refresh_token: &str) -> Result<pb::RefreshTokenResponse, Status> {
        self.client
            .clone()
            .refresh_token(pb::RefreshTokenRequest {
                refresh_token: refresh_token.into(),
            })
            .await
            .map(|r| r.into_inner())
    }

    pub async fn status_id(&self, name: &str) -> i64 {
        let statuses = self
            .client
            .clone()
            .list_statuses(authed(pb::ListStatusesRequest {}, &self.admin_token()))
            .await
            .expect("list statuses")
            .into_inner()
            .statuses;
        statuses
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.id)
            .expect("seeded status")
    }

    /// Gives `user` a status that blocks sign-in («Уволен»).
    pub async fn block(&self, user: &pb::User) {
        let dismissed = self.status_id("Уволен").await;
        let draft = pb::UserDraft {
            status_id: dismissed,
            ..TestApp::unchanged(user)
        };
        self.update_user(user.id, draft).await.expect("blocked");
    }

    /// A draft that keeps everything of `user` as it is.
    pub fn unchanged(user: &pb::User) -> pb::UserDraft {
        pb::UserDraft {
            name: user.name.clone(),
            surname: user.surname.clone(),
            last_name: user.last_name.clone(),
            login: user.login.clone(),
            password: String::new(),
            email: user.email.clone(),
            status_id: user.status_id,
            department_ids: user.department_ids.clone(),
            position_ids: user.position_ids.clone(),
            right_ids: user.right_ids.clone(),
            employee_number: None,
        }
    }

    pub async fn update_user(&self, id: i64, draft: pb::UserDraft) -> Result<pb::User, Status> {
        self.client
            .clone()
            .update_user(authed(updating(id, draft), &self.admin_token()))
            .await
            .map(|r| r.into_inner().user.expect("updated user"))
    }
}
