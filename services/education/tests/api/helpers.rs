//! Spawns the real education service on a random port with a fresh database and
//! talks to it through the generated tonic client. A real auth service runs
//! beside it (its own database, the same token keys): education asks it for
//! the HR system's keys.

use std::future::Future;
use std::ops::Deref;

use portal_education::app::digest::DigestSettings;
use portal_education::{EducationSettings, SERVICE_NAME};
use portal_kit::Right;
use portal_kit::audit::AuditSettings;
use portal_kit::db::Backend;
use portal_kit::rich_text::FrameHosts;
use portal_kit::serve::ServiceChannel;
use portal_kit::testing::{self, ServiceHarness, TestDatabase, TestKeys, serve};
pub use portal_kit::testing::{assert_status, authed, code};
use portal_proto::auth::v1 as auth_pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::Status;
use tonic::transport::Channel;
use tower::ServiceExt;

pub type Client = EducationServiceClient<Channel>;
pub type AuthClient = AuthServiceClient<Channel>;

pub const ADMIN_ID: i64 = 1;
pub const LEARNER_ID: i64 = 10;
pub const OTHER_LEARNER_ID: i64 = 11;
pub const LEARNER_DEPARTMENT: i64 = 4;

/// The education service and the auth service beside it; derefs to education.
pub struct TestApp {
    // First: open watch streams end before the services stop.
    _stop_watches: DropGuard,
    service: ServiceHarness<Client>,
    /// Auth, as education's tests set up its staff.
    pub auth: AuthClient,
    auth_channel: Channel,
    /// Ends education's watch streams, as the server's shutdown does.
    pub shutdown: CancellationToken,
    /// Stops auth; its database.
    _auth: (DropGuard, TestDatabase),
}

impl Deref for TestApp {
    type Target = ServiceHarness<Client>;

    fn deref(&self) -> &Self::Target {
        &self.service
    }
}

/// Runs `scenario` once on every backend of this run, each time on a fresh service.
pub async fn on_each_backend<F: Future<Output = ()>>(scenario: impl Fn(TestApp) -> F) {
    testing::on_each_backend(spawn_app, scenario).await;
}

/// The portal the test service thinks it serves, and the one other host its
/// articles may frame.
pub const PORTAL: &str = "https://portal.example";
pub const FRAME_HOST: &str = "rutube.ru";

/// The settings of a test service on `database_url`, asking auth on `auth`.
pub fn settings(
    database_url: String,
    keys: &TestKeys,
    auth: &Channel,
    shutdown: &CancellationToken,
) -> EducationSettings {
    EducationSettings {
        database: database_url.into(),
        public_key_file: keys.public_key_file.clone(),
        public_url: PORTAL.into(),
        frame_hosts: FrameHosts::parse(FRAME_HOST).expect("frame hosts"),
        access_versions: Default::default(),
        seed_demo: false,
        auth: ServiceChannel::new(
            auth.clone()
                .map_err(|error| Status::from_error(Box::new(error))),
        ),
        // No wiki runs beside these tests: the digest's equipment items are
        // left out, as when the wiki is away (gateway/tests has them).
        wiki: nowhere(),
        shutdown: shutdown.clone(),
        internal: keys.internal.clone(),
        digests: DigestSettings::off(PORTAL),
        audit: AuditSettings::loopback(),
    }
}

/// A channel to a port nothing listens on: every call is refused at once.
pub fn nowhere() -> ServiceChannel {
    ServiceChannel::new(
        Channel::from_static("http://127.0.0.1:9")
            .connect_lazy()
            .map_err(|error| Status::from_error(Box::new(error))),
    )
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    let keys = TestKeys::new();
    let (auth_channel, auth_serving, auth_database) = start_auth(backend, &keys).await;
    let shutdown = CancellationToken::new();
    let routes = |database_url, keys: &TestKeys| {
        portal_education::routes(settings(database_url, keys, &auth_channel, &shutdown))
    };
    let service =
        ServiceHarness::start_with_keys(backend, keys, SERVICE_NAME, routes, Client::new).await;
    TestApp {
        _stop_watches: shutdown.clone().drop_guard(),
        service,
        auth: AuthClient::new(auth_channel.clone()),
        auth_channel,
        shutdown,
        _auth: (auth_serving, auth_database),
    }
}

/// The real auth service on a free port, signing and verifying with `keys`.
async fn start_auth(backend: Backend, keys: &TestKeys) -> (Channel, DropGuard, TestDatabase) {
    let database = TestDatabase::new(backend).await;
    let routes = portal_auth::routes(portal_auth::AuthSettings {
        database: database.url.clone().into(),
        private_key_file: keys.private_key_file.clone(),
        public_key_file: keys.public_key_file.clone(),
        admin_login: "admin".into(),
        admin_password: Some("admin-password-1".to_owned().into()),
        seed_demo: false,
        public_url: "http://127.0.0.1:8080".into(),
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
    let (channel, serving) = serve(portal_auth::SERVICE_NAME, routes).await;
    (channel, serving, database)
}

/// `n` questions, the first answer of each correct.
pub fn questions(n: usize) -> Vec<pb::Question> {
    (1..=n)
        .map(|i| pb::Question {
            id: 0,
            title: format!("Вопрос {i}"),
            answers: vec![
                pb::Answer {
                    id: 0,
                    title: format!("Верно {i}"),
                    is_correct: true,
                },
                pb::Answer {
                    id: 0,
                    title: format!("Неверно {i}"),
                    is_correct: false,
                },
            ],
        })
        .collect()
}

pub fn test_request(settings: [i32; 3], questions: Vec<pb::Question>) -> pb::CreateTestRequest {
    pb::CreateTestRequest {
        title: "Гигиена рук".into(),
        description: "Пять моментов".into(),
        total_points_required: settings[0],
        number_of_questions: settings[1],
        number_of_tries: settings[2],
        article_id: 0,
        questions,
    }
}

/// A course assigned to the learner, with an article and its test.
pub struct Assigned {
    pub course: pb::Course,
    pub article: pb::Article,
    pub test: pb::Test,
}

impl TestApp {
    /// The settings the service was started with, to start it again.
    pub fn settings(&self) -> EducationSettings {
        settings(
            self.database.url.clone(),
            &self.keys,
            &self.auth_channel,
            &self.shutdown,
        )
    }

    /// A second education service on the same database, as another replica
    /// would be; it stops when the guard is dropped.
    pub async fn replica(&self) -> (Client, DropGuard) {
        let routes = portal_education::routes(self.settings())
            .await
            .expect("a second replica starts");
        let (channel, serving) = serve(SERVICE_NAME, routes).await;
        (Client::new(channel), serving)
    }

    /// People as the HR system keeps them, made in the real auth: for each
    /// (employee number, department code) a user in that department, whose
    /// auth ids come back in the same order. Users and departments are made
    /// through auth's calls; their HR keys are written into auth's columns.
    pub async fn hr_staff(&self, people: &[(&str, &str)]) -> Vec<i64> {
        let admin = self.admin_token();
        let auth_db = sqlx::AnyPool::connect(&self._auth.1.url)
            .await
            .expect("connect to auth's database");
        let mut departments = std::collections::HashMap::new();
        let mut ids = Vec::new();
        for (employee_number, code) in people {
            if !departments.contains_key(code) {
                let department = self
                    .auth
                    .clone()
                    .create_department(authed(
                        auth_pb::CreateDepartmentRequest {
                            title: format!("Отделение {code}"),
                            user_ids: vec![],
                        },
                        &admin,
                    ))
                    .await
                    .expect("create a department")
                    .into_inner()
                    .department
                    .expect("the department")
                    .id;
                sqlx::query("UPDATE departments SET code = $1 WHERE id = $2")
                    .bind(*code)
                    .bind(department)
                    .execute(&auth_db)
                    .await
                    .expect("the department's HR code");
                departments.insert(code, department);
            }
            let digits: String = employee_number
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            let user = self
                .auth
                .clone()
                .create_user(authed(
                    auth_pb::CreateUserRequest {
                        user: Some(auth_pb::UserDraft {
                            name: "Анна".into(),
                            surname: format!("Сотрудник {digits}"),
                            login: format!("hr{digits}"),
                            password: "password-123".into(),
                            department_ids: vec![departments[code]],
                            ..Default::default()
                        }),
                    },
                    &admin,
                ))
                .await
                .expect("create a user")
                .into_inner()
                .user
                .expect("the user")
                .id;
            sqlx::query("UPDATE users SET employee_number = $1 WHERE id = $2")
                .bind(*employee_number)
                .bind(user)
                .execute(&auth_db)
                .await
                .expect("the user's employee number");
            ids.push(user);
        }
        auth_db.close().await;
        ids
    }

    /// The (first) department of each of `people`, as auth keeps it.
    pub async fn departments_of(&self, people: &[i64]) -> std::collections::HashMap<i64, i64> {
        self.auth
            .clone()
            .resolve_staff(authed(
                auth_pb::ResolveStaffRequest {
                    user_ids: people.to_vec(),
                    ..Default::default()
                },
                &self.admin_token(),
            ))
            .await
            .expect("auth resolves the people")
            .into_inner()
            .people
            .into_iter()
            .filter_map(|person| Some((person.user_id, *person.department_ids.first()?)))
            .collect()
    }

    /// Who assigned the course to the user: (person, service account).
    pub async fn assigned_by(&self, course_id: i64, user_id: i64) -> (Option<i64>, Option<i64>) {
        let pool = sqlx::AnyPool::connect(&self.database.url)
            .await
            .expect("connect to the test database");
        let author = sqlx::query_as(
            "SELECT assigned_by_user_id, assigned_by_service_account_id FROM course_users WHERE course_id = $1 AND user_id = $2",
        )
        .bind(course_id)
        .bind(user_id)
        .fetch_one(&pool)
        .await
        .expect("the assignment");
        pool.close().await;
        author
    }

    /// Auth's database, where tests set what auth's calls do not (a status).
    pub fn auth_database_url(&self) -> String {
        self._auth.1.url.clone()
    }

    pub fn admin_token(&self) -> String {
        self.keys.token(ADMIN_ID, &Right::ALL, &[])
    }

    pub fn learner_token(&self) -> String {
        self.keys.token(LEARNER_ID, &[], &[LEARNER_DEPARTMENT])
    }

    pub fn token(&self, user_id: i64, rights: &[Right]) -> String {
        self.keys.token(user_id, rights, &[])
    }

    pub async fn create_test(&self, request: pb::CreateTestRequest) -> Result<pb::Test, Status> {
        self.client
            .clone()
            .create_test(authed(request, &self.admin_token()))
            .await
            .map(|r| r.into_inner().test.expect("created test"))
    }

    pub async fn create_article(&self, content: &str, test_id: i64) -> pb::Article {
        let request = pb::CreateArticleRequest {
            title: "Гигиена рук".into(),
            description: "Пять моментов ВОЗ".into(),
            content: content.into(),
            date_deadline: "2099-01-31".into(),
            test_id,
        };
        self.client
            .clone()
            .create_article(authed(request, &self.admin_token()))
            .await
            .expect("create article")
            .into_inner()
            .article
            .expect("created article")
    }

    pub async fn create_course(
        &self,
        deadline: &str,
        user_ids: &[i64],
        article_ids: &[i64],
    ) -> pb::Course {
        let request = pb::CreateCourseRequest {
            title: "Профилактика ИСМП".into(),
            description: "Обязательный курс".into(),
            date_deadline: deadline.into(),
            user_ids: user_ids.to_vec(),
            article_ids: article_ids.to_vec(),
            validity_months: 0,
        };
        self.client
            .clone()
            .create_course(authed(request, &self.admin_token()))
            .await
            .expect("create course")
            .into_inner()
            .course
            .expect("created course")
    }

    /// A test of `settings` with `n` questions, linked to an article of a course
    /// assigned to [`LEARNER_ID`].
    pub async fn assigned(&self, settings: [i32; 3], n: usize) -> Assigned {
        let test = self
            .create_test(test_request(settings, questions(n)))
            .await
            .expect("create test");
        let article = self.create_article("<p>Текст</p>", test.id).await;
        let course = self
            .create_course("2099-01-31", &[LEARNER_ID], &[article.id])
            .await;
        Assigned {
            course,
            article,
            test,
        }
    }

    /// Moves every attempt's start `by_ms` into the past, as if it had been
    /// started that long ago.
    pub async fn backdate_attempts(&self, by_ms: i64) {
        let pool = sqlx::AnyPool::connect(&self.database.url)
            .await
            .expect("connect to the test database");
        sqlx::query("UPDATE attempts SET started_at = started_at - $1")
            .bind(by_ms)
            .execute(&pool)
            .await
            .expect("backdate attempts");
        pool.close().await;
    }

    /// Moves `user_id`'s attempts `days` into the past, as if they had been
    /// taken (and passed) that long ago: how a test reaches past a validity.
    pub async fn backdate_attempts_of(&self, user_id: i64, days: i64) {
        let pool = sqlx::AnyPool::connect(&self.database.url)
            .await
            .expect("connect to the test database");
        sqlx::query(
            "UPDATE attempts SET started_at = started_at - $1, completed_at = completed_at - $2 WHERE user_id = $3",
        )
        .bind(days * 86_400_000)
        .bind(days * 86_400_000)
        .bind(user_id)
        .execute(&pool)
        .await
        .expect("backdate attempts");
        pool.close().await;
    }

    /// Completes an attempt of the holder of `token`: `attempt_id`, or with 0
    /// an attempt started now (the test must draw all its questions).
    pub async fn complete(
        &self,
        token: &str,
        test: &pb::Test,
        correct: usize,
        attempt_id: i64,
    ) -> Result<pb::CompleteTestResponse, Status> {
        if attempt_id == 0 {
            let start = pb::StartAttemptRequest { test_id: test.id };
            self.client
                .clone()
                .start_attempt(authed(start, token))
                .await?;
        }
        let request = pb::CompleteTestRequest {
            test_id: test.id,
            user_id: 0,
            question_with_answers: answers(test, correct),
            attempt_id,
        };
        self.client
            .clone()
            .complete_test(authed(request, token))
            .await
            .map(|r| r.into_inner())
    }

    /// An article's revisions, newest first, as an admin reads them.
    pub async fn article_revisions(&self, article_id: i64) -> Vec<pb::Revision> {
        self.client
            .clone()
            .list_article_revisions(authed(
                pb::ListArticleRevisionsRequest { article_id },
                &self.admin_token(),
            ))
            .await
            .expect("list article revisions")
            .into_inner()
            .revisions
    }

    /// A test's revisions, newest first, as an admin reads them.
    pub async fn test_revisions(&self, test_id: i64) -> Vec<pb::Revision> {
        self.client
            .clone()
            .list_test_revisions(authed(
                pb::ListTestRevisionsRequest { test_id },
                &self.admin_token(),
            ))
            .await
            .expect("list test revisions")
            .into_inner()
            .revisions
    }

    /// The demo learner's own summary of a test: tries used and left.
    pub async fn learner_summary(&self, test_id: i64) -> pb::TestSummary {
        let request = pb::GetTestSummaryRequest {
            test_id,
            user_id: 0,
        };
        self.client
            .clone()
            .get_test_summary(authed(request, &self.learner_token()))
            .await
            .expect("the learner's summary")
            .into_inner()
            .summary
            .expect("a summary")
    }
}

/// Answers to the test's first `number_of_questions` questions, the first
/// `correct` of them right.
pub fn answers(test: &pb::Test, correct: usize) -> Vec<pb::QuestionWithAnswer> {
    let drawn = usize::try_from(test.number_of_questions).unwrap();
    test.questions
        .iter()
        .take(drawn)
        .enumerate()
        .map(|(i, q)| pb::QuestionWithAnswer {
            question_id: q.id,
            answer_id: q
                .answers
                .iter()
                .find(|a| a.is_correct == (i < correct))
                .unwrap()
                .id,
        })
        .collect()
}
