//! The education host's calls (spec §7): courses and articles under
//! `/api/course`, tests, attempts and results under `/api/test`, plus the
//! statistics filters, compliance view and question analysis beyond the spec;
//! other systems' training calls under `/api/integration` ([`integration`]).

use crate::rest::route::{get, post};
use crate::upstream::Balanced;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use portal_kit::rich_text::MAX_MESSAGE_BYTES;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use serde::{Deserialize, Serialize};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AllOfBuilder, ArrayBuilder, ObjectBuilder, Schema};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::forward::{forward, method};
use super::{
    ApiError, AppState, Body, CallContext, Data, Endpoint, Query, csv, docs, rich_text_write,
};

mod export;
mod integration;
mod revisions;

/// The statistics page's next page, for clients that page; the body's `data`
/// stays the list spec §7 clients expect.
pub const NEXT_PAGE_HEADER: &str = "x-next-page-token";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/course/get-all-article",
            "Статьи (все или назначенные)",
            docs::none,
            get(forward(
                |()| pb::ListArticlesRequest {},
                method!(client, list_articles),
                |reply| reply.articles,
            )),
        ),
        Endpoint::get(
            "/api/course/get-by-id-article",
            "Статья",
            docs::query::<IdArticle>,
            get(forward(
                |Query(query): Query<IdArticle>| pb::GetArticleRequest {
                    article_id: query.id_article,
                },
                method!(client, get_article),
                |reply| reply.article,
            )),
        ),
        Endpoint::get(
            "/api/course/get-all-article-by-course",
            "Статьи курса по порядку",
            docs::query::<CourseId>,
            get(forward(
                |Query(query): Query<CourseId>| pb::ListArticlesByCourseRequest {
                    course_id: query.course_id,
                },
                method!(client, list_articles_by_course),
                |reply| reply.articles,
            )),
        ),
        Endpoint::get(
            "/api/course/get-all-courses",
            "Курсы (все или назначенные)",
            docs::none,
            get(forward(
                |()| pb::ListCoursesRequest {},
                method!(client, list_courses),
                |reply| reply.courses,
            )),
        ),
        Endpoint::get(
            "/api/course/get-full-course-info",
            "Курс с назначенными сотрудниками и статьями",
            docs::query::<IdCourse>,
            get(forward(
                |Query(query): Query<IdCourse>| pb::GetFullCourseInfoRequest {
                    course_id: query.id_course,
                },
                method!(client, get_full_course_info),
                FullCourseJson::from,
            )),
        ),
        Endpoint::get(
            "/api/course/get-by-id-course",
            "Курс",
            docs::query::<IdCourse>,
            get(forward(
                |Query(query): Query<IdCourse>| pb::GetCourseRequest {
                    course_id: query.id_course,
                },
                method!(client, get_course),
                |reply| reply.course,
            )),
        ),
        Endpoint::get(
            "/api/course/get-all-courses-by-user",
            "Курсы, назначенные сотруднику",
            docs::query::<UserId>,
            get(forward(
                |Query(query): Query<UserId>| pb::ListCoursesByUserRequest {
                    user_id: query.user_id,
                },
                method!(client, list_courses_by_user),
                |reply| reply.courses,
            )),
        ),
        Endpoint::post(
            "/api/course/create-course-with-user-and-articles",
            "Создать курс",
            docs::json::<CourseBody>(),
            post(forward(
                |Body(body): Body<CourseBody>| pb::CreateCourseRequest {
                    title: body.title,
                    description: body.description,
                    date_deadline: body.date_deadline,
                    user_ids: body.user_ids,
                    article_ids: body.article_ids,
                    validity_months: body.validity_months.unwrap_or(0),
                },
                method!(client, create_course),
                |reply| reply.course,
            )),
        ),
        Endpoint::post(
            "/api/course/update-course",
            "Изменить курс",
            docs::json::<CourseBody>(),
            post(forward(
                |Body(body): Body<CourseBody>| pb::UpdateCourseRequest {
                    id: body.id,
                    title: body.title,
                    description: body.description,
                    date_deadline: body.date_deadline,
                    user_ids: body.user_ids,
                    article_ids: body.article_ids,
                    validity_months: body.validity_months,
                },
                method!(client, update_course),
                |reply| reply.course,
            )),
        ),
        Endpoint::post(
            "/api/course/enroll-for-clearance",
            "Записаться на курс, который требуется для допуска к оборудованию своего отделения",
            docs::Input::Message("portal.education.v1.EnrollForClearanceRequest"),
            post(forward(
                |Body(body): Body<pb::EnrollForClearanceRequest>| body,
                method!(client, enroll_for_clearance),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/course/create-article",
            "Создать статью",
            docs::json::<ArticleBody>(),
            rich_text_write(forward(
                |Body(body): Body<ArticleBody>| pb::CreateArticleRequest {
                    title: body.title,
                    description: body.description,
                    content: body.content,
                    date_deadline: body.date_deadline,
                    test_id: body.test_id,
                },
                method!(client, create_article),
                |reply| reply.article,
            )),
        ),
        Endpoint::post(
            "/api/course/update-article",
            "Изменить статью",
            docs::json::<ArticleBody>(),
            rich_text_write(forward(
                |Body(body): Body<ArticleBody>| pb::UpdateArticleRequest {
                    id: body.id,
                    title: body.title,
                    description: body.description,
                    content: body.content,
                    date_deadline: body.date_deadline,
                    test_id: body.test_id,
                },
                method!(client, update_article),
                |reply| reply.article,
            )),
        ),
        Endpoint::get(
            "/api/course/get-course-compliance",
            "Кто из назначенных просрочил курс или должен пройти его в ближайшие 7 дней",
            docs::query::<IdCourse>,
            get(forward(
                |Query(query): Query<IdCourse>| pb::GetCourseComplianceRequest {
                    course_id: query.id_course,
                },
                method!(client, get_course_compliance),
                |reply| reply,
            )),
        ),
        Endpoint::get(
            "/api/test/get-all-test",
            "Тесты без вопросов",
            docs::none,
            get(forward(
                |()| pb::ListTestsRequest {},
                method!(client, list_tests),
                |reply| reply.tests,
            )),
        ),
        Endpoint::get(
            "/api/test/get-by-id-test",
            "Тест без вопросов",
            docs::query::<IdTest>,
            get(forward(
                |Query(query): Query<IdTest>| pb::GetTestRequest {
                    test_id: query.id_test,
                },
                method!(client, get_test),
                |reply| reply.test,
            )),
        ),
        Endpoint::get(
            "/api/test/get-all-test-by-article",
            "Тесты статьи",
            docs::query::<ArticleId>,
            get(forward(
                |Query(query): Query<ArticleId>| pb::ListTestsByArticleRequest {
                    article_id: query.article_id,
                },
                method!(client, list_tests_by_article),
                |reply| reply.tests,
            )),
        ),
        Endpoint::get(
            "/api/test/get-test-summary",
            "Сводка теста и оставшиеся попытки",
            docs::query::<TestAndUser>,
            get(forward(
                |Query(query): Query<TestAndUser>| pb::GetTestSummaryRequest {
                    test_id: query.id_test,
                    user_id: query.user_id,
                },
                method!(client, get_test_summary),
                |reply| reply.summary,
            )),
        ),
        Endpoint::get(
            "/api/test/get-list-user-test-result-by-test-and-user-id",
            "Результаты сотрудника по тесту",
            docs::query::<TestAndIdUser>,
            get(forward(
                |Query(query): Query<TestAndIdUser>| pb::ListUserTestResultsRequest {
                    test_id: query.id_test,
                    user_id: query.id_user,
                },
                method!(client, list_user_test_results),
                |reply| reply.results,
            )),
        ),
        Endpoint::get(
            "/api/test/get-by-id-full-test",
            "Тест с вопросами и правильными ответами",
            docs::query::<IdTest>,
            get(forward(
                |Query(query): Query<IdTest>| pb::GetFullTestRequest {
                    test_id: query.id_test,
                },
                method!(client, get_full_test),
                |reply| reply.test.map(TestJson::from),
            )),
        ),
        Endpoint::get(
            "/api/test/get-all-user-test-result",
            "Результаты всех сотрудников, новые первыми (фильтры и страницы; следующая страница в заголовке X-Next-Page-Token)",
            docs::query::<ResultFilter>,
            axum::routing::get(list_all_test_results),
        )
        .answers::<Vec<pb::TestResult>>(),
        Endpoint::download(
            "/api/test/export-user-test-results",
            "Результаты всех сотрудников в CSV для Excel (UTF-8 с BOM, разделитель «;»), с фильтрами страницы статистики; utcOffset — часовой пояс читателя в минутах к востоку от UTC",
            docs::query::<export::ExportFilter>,
            csv::CONTENT_TYPE,
            axum::routing::get(export::export_test_results),
        ),
        Endpoint::get(
            "/api/test/get-my-tests",
            "Мои тесты и оставшиеся попытки",
            docs::none,
            get(forward(
                |()| pb::ListMyTestsRequest {},
                method!(client, list_my_tests),
                |reply| reply.tests,
            )),
        ),
        Endpoint::get(
            "/api/test/get-question-analysis",
            "Как часто на каждый вопрос теста отвечают правильно",
            docs::query::<IdTest>,
            get(forward(
                |Query(query): Query<IdTest>| pb::GetQuestionAnalysisRequest {
                    test_id: query.id_test,
                },
                method!(client, get_question_analysis),
                |reply| reply.questions,
            )),
        ),
        Endpoint::post(
            "/api/test/start-attempt",
            "Начать попытку: вопросы без правильных ответов",
            docs::json::<StartBody>(),
            post(forward(
                |Body(body): Body<StartBody>| pb::StartAttemptRequest {
                    test_id: body.test_id,
                },
                method!(client, start_attempt),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/test/complete-test",
            "Завершить тест",
            docs::json::<CompleteBody>(),
            post(forward(
                |Body(body): Body<CompleteBody>| pb::CompleteTestRequest {
                    test_id: body.test_id,
                    user_id: body.user_id,
                    question_with_answers: body.question_with_answers,
                    attempt_id: body.attempt_id,
                },
                method!(client, complete_test),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/test/create-test-with-question-and-answers",
            "Создать тест",
            docs::json::<TestJson>(),
            post(forward(
                |Body(body): Body<TestJson>| body.create_request(),
                method!(client, create_test),
                |reply| reply.test.map(TestJson::from),
            )),
        ),
        Endpoint::post(
            "/api/test/update-test",
            "Изменить тест",
            docs::json::<TestJson>(),
            post(forward(
                |Body(body): Body<TestJson>| body.update_request(),
                method!(client, update_test),
                |reply| reply.test.map(TestJson::from),
            )),
        ),
    ]
    .into_iter()
    .chain(integration::endpoints())
    .chain(revisions::endpoints())
    .collect()
}

/// Articles carry rich text up to its limit both ways.
pub(super) fn client(state: &AppState) -> EducationServiceClient<Balanced> {
    EducationServiceClient::new(state.upstreams.education.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

// --- Query parameters ---

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct IdArticle {
    id_article: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct ArticleId {
    article_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct CourseId {
    course_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct IdCourse {
    id_course: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct IdTest {
    id_test: i64,
}

/// `userId` absent is the caller.
#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
struct UserId {
    user_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct TestAndUser {
    id_test: i64,
    #[serde(default)]
    user_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct TestAndIdUser {
    #[serde(default)]
    id_test: i64,
    #[serde(default)]
    id_user: i64,
}

#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
struct ResultFilter {
    test_id: i64,
    department_id: i64,
    user_id: i64,
    date_from: String,
    date_to: String,
    page_size: i32,
    page_token: String,
}

// --- Courses and articles ---

/// A course as spec §3 shows one in the editor: its fields, `userCourse`
/// entries with a `userId` and `courseArticle` entries holding an article.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FullCourseJson {
    #[serde(flatten)]
    course: Option<pb::Course>,
    user_course: Vec<UserCourse>,
    course_article: Vec<CourseArticle>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UserCourse {
    user_id: i64,
}

#[derive(Serialize)]
struct CourseArticle {
    article: pb::Article,
}

impl From<pb::GetFullCourseInfoResponse> for FullCourseJson {
    fn from(reply: pb::GetFullCourseInfoResponse) -> Self {
        FullCourseJson {
            course: reply.course,
            user_course: reply
                .user_ids
                .into_iter()
                .map(|user_id| UserCourse { user_id })
                .collect(),
            course_article: reply
                .articles
                .into_iter()
                .map(|article| CourseArticle { article })
                .collect(),
        }
    }
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct CourseBody {
    id: i64,
    title: String,
    description: String,
    date_deadline: String,
    user_ids: Vec<i64>,
    article_ids: Vec<i64>,
    /// Months a pass stays valid (issue 24); 0: never expires. Absent: never
    /// expires for a new course, unchanged for an update.
    validity_months: Option<i32>,
}

/// Spec §7 sends `dateDeadLine` and `idTest`; the entity's names are accepted too.
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct ArticleBody {
    id: i64,
    title: String,
    description: String,
    content: String,
    #[serde(alias = "dateDeadLine")]
    date_deadline: String,
    #[serde(alias = "idTest")]
    test_id: i64,
}

// --- Tests ---

/// A full test as spec §3 names it: `question[]` with `answer[]` and `isCorrect`.
#[derive(Serialize, Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct TestJson {
    id: i64,
    title: String,
    description: String,
    total_points_required: i32,
    number_of_questions: i32,
    number_of_tries: i32,
    article_id: i64,
    #[serde(alias = "questions")]
    question: Vec<QuestionJson>,
}

#[derive(Serialize, Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct QuestionJson {
    id: i64,
    title: String,
    #[serde(alias = "answers")]
    answer: Vec<AnswerJson>,
}

#[derive(Serialize, Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct AnswerJson {
    id: i64,
    title: String,
    is_correct: bool,
}

impl From<pb::Test> for TestJson {
    fn from(test: pb::Test) -> Self {
        TestJson {
            id: test.id,
            title: test.title,
            description: test.description,
            total_points_required: test.total_points_required,
            number_of_questions: test.number_of_questions,
            number_of_tries: test.number_of_tries,
            article_id: test.article_id,
            question: test
                .questions
                .into_iter()
                .map(|q| QuestionJson {
                    id: q.id,
                    title: q.title,
                    answer: q
                        .answers
                        .into_iter()
                        .map(|a| AnswerJson {
                            id: a.id,
                            title: a.title,
                            is_correct: a.is_correct,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

impl TestJson {
    fn create_request(self) -> pb::CreateTestRequest {
        pb::CreateTestRequest {
            title: self.title.clone(),
            description: self.description.clone(),
            total_points_required: self.total_points_required,
            number_of_questions: self.number_of_questions,
            number_of_tries: self.number_of_tries,
            article_id: self.article_id,
            questions: self.questions(),
        }
    }

    fn update_request(self) -> pb::UpdateTestRequest {
        pb::UpdateTestRequest {
            id: self.id,
            title: self.title.clone(),
            description: self.description.clone(),
            total_points_required: self.total_points_required,
            number_of_questions: self.number_of_questions,
            number_of_tries: self.number_of_tries,
            article_id: self.article_id,
            questions: self.questions(),
        }
    }

    fn questions(self) -> Vec<pb::Question> {
        self.question
            .into_iter()
            .map(|q| pb::Question {
                id: q.id,
                title: q.title,
                answers: q
                    .answer
                    .into_iter()
                    .map(|a| pb::Answer {
                        id: a.id,
                        title: a.title,
                        is_correct: a.is_correct,
                    })
                    .collect(),
            })
            .collect()
    }
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct CompleteBody {
    test_id: i64,
    user_id: i64,
    #[schema(schema_with = question_with_answers)]
    question_with_answers: Vec<pb::QuestionWithAnswer>,
    attempt_id: i64,
}

fn question_with_answers() -> utoipa::openapi::Array {
    utoipa::openapi::ArrayBuilder::new()
        .items(docs::message("portal.education.v1.QuestionWithAnswer"))
        .build()
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct StartBody {
    test_id: i64,
}

async fn list_all_test_results(
    State(state): State<AppState>,
    caller: CallContext,
    Query(query): Query<ResultFilter>,
) -> Result<Response, ApiError> {
    let request = pb::ListAllTestResultsRequest {
        test_id: query.test_id,
        department_id: query.department_id,
        user_id: query.user_id,
        date_from: query.date_from,
        date_to: query.date_to,
        page_size: query.page_size,
        page_token: query.page_token,
    };
    let reply = client(&state)
        .list_all_test_results(caller.request(request))
        .await?
        .into_inner();
    let mut response = Data(reply.results).into_response();
    if let Ok(value) = HeaderValue::from_str(&reply.next_page_token)
        && !reply.next_page_token.is_empty()
    {
        response.headers_mut().insert(NEXT_PAGE_HEADER, value);
    }
    Ok(response)
}

docs::typed!(TestJson);

/// A course with its people and articles: the course's own fields (`null`
/// when there is none) beside `userCourse` and `courseArticle`.
impl docs::Answer for FullCourseJson {
    fn data(named: &mut docs::Named) -> RefOr<Schema> {
        let links = ObjectBuilder::new()
            .property(
                "userCourse",
                ArrayBuilder::new().items(
                    ObjectBuilder::new()
                        .property("userId", i64::schema())
                        .required("userId"),
                ),
            )
            .required("userCourse")
            .property(
                "courseArticle",
                ArrayBuilder::new().items(
                    ObjectBuilder::new()
                        .property("article", <pb::Article as docs::Answer>::data(named))
                        .required("article"),
                ),
            )
            .required("courseArticle");
        let course = <pb::Course as docs::Answer>::data(named);
        Schema::from(AllOfBuilder::new().item(course).item(links).build()).into()
    }
}
