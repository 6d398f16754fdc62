//! Spawns the real education service on a random port with a fresh database and
//! talks to it through the generated tonic client.

use std::future::Future;

use portal_education::{EducationSettings, SERVICE_NAME};
use portal_kit::Right;
use portal_kit::db::Backend;
use portal_kit::serve::serve_grpc;
use portal_kit::testing::{TestDatabase, TestKeys, backends};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

pub type Client = EducationServiceClient<Channel>;

pub const ADMIN_ID: i64 = 1;
pub const LEARNER_ID: i64 = 10;
pub const OTHER_LEARNER_ID: i64 = 11;
pub const LEARNER_DEPARTMENT: i64 = 4;

pub struct TestApp {
    pub client: Client,
    pub keys: TestKeys,
    pub backend: Backend,
    _database: TestDatabase,
    shutdown: CancellationToken,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Runs `scenario` once on every backend of this run (SQLite, and PostgreSQL
/// when `PORTAL_TEST_POSTGRES_URL` is set), each time on a fresh service.
pub async fn on_each_backend<F, Fut>(scenario: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    for backend in backends() {
        eprintln!("--- on {backend:?}");
        scenario(spawn_app(backend).await).await;
    }
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    let keys = TestKeys::new();
    let database = TestDatabase::new(backend).await;
    let routes = portal_education::routes(EducationSettings {
        database_url: database.url.clone(),
        public_key_file: keys.public_key_file.clone(),
        seed_demo: false,
    })
    .await
    .expect("education starts");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a port");
    let address = listener.local_addr().expect("local address");
    let shutdown = CancellationToken::new();
    tokio::spawn(serve_grpc(listener, SERVICE_NAME, routes, shutdown.clone()));
    let client = EducationServiceClient::connect(format!("http://{address}"))
        .await
        .expect("connect to education");
    TestApp {
        client,
        keys,
        backend,
        _database: database,
        shutdown,
    }
}

/// A request carrying `token` as its bearer token.
pub fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("header value"),
    );
    request
}

pub fn code<T>(result: &Result<T, Status>) -> Code {
    match result {
        Ok(_) => Code::Ok,
        Err(status) => status.code(),
    }
}

/// Asserts a call failed with `code` and `message`.
pub fn assert_status<T: std::fmt::Debug>(result: Result<T, Status>, code: Code, message: &str) {
    match result {
        Ok(value) => panic!("expected {code:?} '{message}', got {value:?}"),
        Err(status) => {
            assert_eq!(status.code(), code, "{status:?}");
            assert_eq!(status.message(), message, "{status:?}");
        }
    }
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
            date_deadline: "2030-01-31".into(),
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
            .create_course("2030-01-31", &[LEARNER_ID], &[article.id])
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
        let pool = sqlx::AnyPool::connect(&self._database.url)
            .await
            .expect("connect to the test database");
        sqlx::query("UPDATE attempts SET started_at = started_at - $1")
            .bind(by_ms)
            .execute(&pool)
            .await
            .expect("backdate attempts");
        pool.close().await;
    }

    pub async fn complete(
        &self,
        token: &str,
        test: &pb::Test,
        correct: usize,
        attempt_id: i64,
    ) -> Result<pb::CompleteTestResponse, Status> {
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
