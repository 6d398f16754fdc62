//! The education host's calls (spec §7): courses and articles under
//! `/api/course`, tests, attempts and results under `/api/test`, plus the
//! statistics filters, compliance view and question analysis beyond the spec.

use crate::upstream::Balanced;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use serde::{Deserialize, Serialize};

use super::{ApiError, ApiResult, AppState, Body, Caller, Data, Endpoint, Query, csv};

mod export;

/// The statistics page's next page, for clients that page; the body's `data`
/// stays the list spec §7 clients expect.
pub const NEXT_PAGE_HEADER: &str = "x-next-page-token";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/course/get-all-article",
            "Статьи (все или назначенные)",
            &[],
            get(list_articles),
        ),
        Endpoint::get(
            "/api/course/get-by-id-article",
            "Статья",
            &["idArticle"],
            get(get_article),
        ),
        Endpoint::get(
            "/api/course/get-all-article-by-course",
            "Статьи курса по порядку",
            &["courseId"],
            get(list_articles_by_course),
        ),
        Endpoint::get(
            "/api/course/get-all-courses",
            "Курсы (все или назначенные)",
            &[],
            get(list_courses),
        ),
        Endpoint::get(
            "/api/course/get-full-course-info",
            "Курс с назначенными сотрудниками и статьями",
            &["idCourse"],
            get(get_full_course_info),
        ),
        Endpoint::get(
            "/api/course/get-by-id-course",
            "Курс",
            &["idCourse"],
            get(get_course),
        ),
        Endpoint::get(
            "/api/course/get-all-courses-by-user",
            "Курсы, назначенные сотруднику",
            &["userId"],
            get(list_courses_by_user),
        ),
        Endpoint::post(
            "/api/course/create-course-with-user-and-articles",
            "Создать курс",
            post(create_course),
        ),
        Endpoint::post(
            "/api/course/update-course",
            "Изменить курс",
            post(update_course),
        ),
        Endpoint::post(
            "/api/course/create-article",
            "Создать статью",
            post(create_article),
        ),
        Endpoint::post(
            "/api/course/update-article",
            "Изменить статью",
            post(update_article),
        ),
        Endpoint::get(
            "/api/course/get-course-compliance",
            "Кто из назначенных просрочил курс или должен пройти его в ближайшие 7 дней",
            &["idCourse"],
            get(get_course_compliance),
        ),
        Endpoint::get(
            "/api/test/get-all-test",
            "Тесты без вопросов",
            &[],
            get(list_tests),
        ),
        Endpoint::get(
            "/api/test/get-by-id-test",
            "Тест без вопросов",
            &["idTest"],
            get(get_test),
        ),
        Endpoint::get(
            "/api/test/get-all-test-by-article",
            "Тесты статьи",
            &["articleId"],
            get(list_tests_by_article),
        ),
        Endpoint::get(
            "/api/test/get-test-summary",
            "Сводка теста и оставшиеся попытки",
            &["idTest", "userId"],
            get(get_test_summary),
        ),
        Endpoint::get(
            "/api/test/get-list-user-test-result-by-test-and-user-id",
            "Результаты сотрудника по тесту",
            &["idTest", "idUser"],
            get(list_user_test_results),
        ),
        Endpoint::get(
            "/api/test/get-by-id-full-test",
            "Тест с вопросами и правильными ответами",
            &["idTest"],
            get(get_full_test),
        ),
        Endpoint::get(
            "/api/test/get-all-user-test-result",
            "Результаты всех сотрудников, новые первыми (фильтры и страницы; следующая страница в заголовке X-Next-Page-Token)",
            &[
                "testId",
                "departmentId",
                "userId",
                "dateFrom",
                "dateTo",
                "pageSize",
                "pageToken",
            ],
            get(list_all_test_results),
        ),
        Endpoint::download(
            "/api/test/export-user-test-results",
            "Результаты всех сотрудников в CSV для Excel (UTF-8 с BOM, разделитель «;»), с фильтрами страницы статистики; utcOffset — часовой пояс читателя в минутах к востоку от UTC",
            &[
                "testId",
                "departmentId",
                "userId",
                "dateFrom",
                "dateTo",
                "utcOffset",
            ],
            csv::CONTENT_TYPE,
            get(export::export_test_results),
        ),
        Endpoint::get(
            "/api/test/get-my-tests",
            "Мои тесты и оставшиеся попытки",
            &[],
            get(list_my_tests),
        ),
        Endpoint::get(
            "/api/test/get-question-analysis",
            "Как часто на каждый вопрос теста отвечают правильно",
            &["idTest"],
            get(get_question_analysis),
        ),
        Endpoint::post(
            "/api/test/start-attempt",
            "Начать попытку: вопросы без правильных ответов",
            post(start_attempt),
        ),
        Endpoint::post(
            "/api/test/complete-test",
            "Завершить тест",
            post(complete_test),
        ),
        Endpoint::post(
            "/api/test/create-test-with-question-and-answers",
            "Создать тест",
            post(create_test),
        ),
        Endpoint::post("/api/test/update-test", "Изменить тест", post(update_test)),
    ]
}

fn client(state: &AppState) -> EducationServiceClient<Balanced> {
    EducationServiceClient::new(state.upstreams.education.channel.clone())
}

// --- Query parameters ---

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdArticle {
    id_article: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArticleId {
    article_id: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CourseId {
    course_id: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdCourse {
    id_course: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdTest {
    id_test: i64,
}

/// `userId` absent is the caller.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct UserId {
    user_id: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TestAndUser {
    id_test: i64,
    #[serde(default)]
    user_id: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TestAndIdUser {
    #[serde(default)]
    id_test: i64,
    #[serde(default)]
    id_user: i64,
}

#[derive(Deserialize, Default)]
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct CourseBody {
    id: i64,
    title: String,
    description: String,
    date_deadline: String,
    user_ids: Vec<i64>,
    article_ids: Vec<i64>,
}

/// Spec §7 sends `dateDeadLine` and `idTest`; the entity's names are accepted too.
#[derive(Deserialize, Default)]
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

async fn list_articles(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Vec<pb::Article>> {
    let reply = client(&state)
        .list_articles(caller.request(pb::ListArticlesRequest {}))
        .await?;
    Ok(Data(reply.into_inner().articles))
}

async fn get_article(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdArticle>,
) -> ApiResult<Option<pb::Article>> {
    let request = pb::GetArticleRequest {
        article_id: query.id_article,
    };
    let reply = client(&state).get_article(caller.request(request)).await?;
    Ok(Data(reply.into_inner().article))
}

async fn list_articles_by_course(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<CourseId>,
) -> ApiResult<Vec<pb::Article>> {
    let request = pb::ListArticlesByCourseRequest {
        course_id: query.course_id,
    };
    let reply = client(&state)
        .list_articles_by_course(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().articles))
}

async fn list_courses(State(state): State<AppState>, caller: Caller) -> ApiResult<Vec<pb::Course>> {
    let reply = client(&state)
        .list_courses(caller.request(pb::ListCoursesRequest {}))
        .await?;
    Ok(Data(reply.into_inner().courses))
}

async fn get_full_course_info(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdCourse>,
) -> ApiResult<FullCourseJson> {
    let request = pb::GetFullCourseInfoRequest {
        course_id: query.id_course,
    };
    let reply = client(&state)
        .get_full_course_info(caller.request(request))
        .await?
        .into_inner();
    Ok(Data(FullCourseJson {
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
    }))
}

async fn get_course(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdCourse>,
) -> ApiResult<Option<pb::Course>> {
    let request = pb::GetCourseRequest {
        course_id: query.id_course,
    };
    let reply = client(&state).get_course(caller.request(request)).await?;
    Ok(Data(reply.into_inner().course))
}

async fn list_courses_by_user(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<UserId>,
) -> ApiResult<Vec<pb::CourseRef>> {
    let request = pb::ListCoursesByUserRequest {
        user_id: query.user_id,
    };
    let reply = client(&state)
        .list_courses_by_user(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().courses))
}

async fn create_course(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<CourseBody>,
) -> ApiResult<Option<pb::Course>> {
    let request = pb::CreateCourseRequest {
        title: body.title,
        description: body.description,
        date_deadline: body.date_deadline,
        user_ids: body.user_ids,
        article_ids: body.article_ids,
    };
    let reply = client(&state)
        .create_course(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().course))
}

async fn update_course(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<CourseBody>,
) -> ApiResult<Option<pb::Course>> {
    let request = pb::UpdateCourseRequest {
        id: body.id,
        title: body.title,
        description: body.description,
        date_deadline: body.date_deadline,
        user_ids: body.user_ids,
        article_ids: body.article_ids,
    };
    let reply = client(&state)
        .update_course(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().course))
}

async fn create_article(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<ArticleBody>,
) -> ApiResult<Option<pb::Article>> {
    let request = pb::CreateArticleRequest {
        title: body.title,
        description: body.description,
        content: body.content,
        date_deadline: body.date_deadline,
        test_id: body.test_id,
    };
    let reply = client(&state)
        .create_article(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().article))
}

async fn update_article(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<ArticleBody>,
) -> ApiResult<Option<pb::Article>> {
    let request = pb::UpdateArticleRequest {
        id: body.id,
        title: body.title,
        description: body.description,
        content: body.content,
        date_deadline: body.date_deadline,
        test_id: body.test_id,
    };
    let reply = client(&state)
        .update_article(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().article))
}

async fn get_course_compliance(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdCourse>,
) -> ApiResult<pb::GetCourseComplianceResponse> {
    let request = pb::GetCourseComplianceRequest {
        course_id: query.id_course,
    };
    let reply = client(&state)
        .get_course_compliance(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner()))
}

// --- Tests ---

/// A full test as spec §3 names it: `question[]` with `answer[]` and `isCorrect`.
#[derive(Serialize, Deserialize, Default)]
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

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct QuestionJson {
    id: i64,
    title: String,
    #[serde(alias = "answers")]
    answer: Vec<AnswerJson>,
}

#[derive(Serialize, Deserialize, Default)]
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct CompleteBody {
    test_id: i64,
    user_id: i64,
    question_with_answers: Vec<pb::QuestionWithAnswer>,
    attempt_id: i64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct StartBody {
    test_id: i64,
}

async fn list_tests(State(state): State<AppState>, caller: Caller) -> ApiResult<Vec<pb::TestInfo>> {
    let reply = client(&state)
        .list_tests(caller.request(pb::ListTestsRequest {}))
        .await?;
    Ok(Data(reply.into_inner().tests))
}

async fn get_test(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdTest>,
) -> ApiResult<Option<pb::TestInfo>> {
    let request = pb::GetTestRequest {
        test_id: query.id_test,
    };
    let reply = client(&state).get_test(caller.request(request)).await?;
    Ok(Data(reply.into_inner().test))
}

async fn list_tests_by_article(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<ArticleId>,
) -> ApiResult<Vec<pb::TestInfo>> {
    let request = pb::ListTestsByArticleRequest {
        article_id: query.article_id,
    };
    let reply = client(&state)
        .list_tests_by_article(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().tests))
}

async fn get_test_summary(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<TestAndUser>,
) -> ApiResult<Option<pb::TestSummary>> {
    let request = pb::GetTestSummaryRequest {
        test_id: query.id_test,
        user_id: query.user_id,
    };
    let reply = client(&state)
        .get_test_summary(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().summary))
}

async fn list_user_test_results(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<TestAndIdUser>,
) -> ApiResult<Vec<pb::TestResult>> {
    let request = pb::ListUserTestResultsRequest {
        test_id: query.id_test,
        user_id: query.id_user,
    };
    let reply = client(&state)
        .list_user_test_results(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().results))
}

async fn get_full_test(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdTest>,
) -> ApiResult<Option<TestJson>> {
    let request = pb::GetFullTestRequest {
        test_id: query.id_test,
    };
    let reply = client(&state)
        .get_full_test(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().test.map(TestJson::from)))
}

async fn list_all_test_results(
    State(state): State<AppState>,
    caller: Caller,
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

async fn list_my_tests(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Vec<pb::AssignedTest>> {
    let reply = client(&state)
        .list_my_tests(caller.request(pb::ListMyTestsRequest {}))
        .await?;
    Ok(Data(reply.into_inner().tests))
}

async fn get_question_analysis(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<IdTest>,
) -> ApiResult<Vec<pb::QuestionAnalysis>> {
    let request = pb::GetQuestionAnalysisRequest {
        test_id: query.id_test,
    };
    let reply = client(&state)
        .get_question_analysis(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner().questions))
}

async fn start_attempt(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<StartBody>,
) -> ApiResult<pb::StartAttemptResponse> {
    let request = pb::StartAttemptRequest {
        test_id: body.test_id,
    };
    let reply = client(&state)
        .start_attempt(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner()))
}

async fn complete_test(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<CompleteBody>,
) -> ApiResult<pb::CompleteTestResponse> {
    let request = pb::CompleteTestRequest {
        test_id: body.test_id,
        user_id: body.user_id,
        question_with_answers: body.question_with_answers,
        attempt_id: body.attempt_id,
    };
    let reply = client(&state)
        .complete_test(caller.request(request))
        .await?;
    Ok(Data(reply.into_inner()))
}

async fn create_test(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<TestJson>,
) -> ApiResult<Option<TestJson>> {
    let request = pb::CreateTestRequest {
        title: body.title.clone(),
        description: body.description.clone(),
        total_points_required: body.total_points_required,
        number_of_questions: body.number_of_questions,
        number_of_tries: body.number_of_tries,
        article_id: body.article_id,
        questions: body.questions(),
    };
    let reply = client(&state).create_test(caller.request(request)).await?;
    Ok(Data(reply.into_inner().test.map(TestJson::from)))
}

async fn update_test(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<TestJson>,
) -> ApiResult<Option<TestJson>> {
    let request = pb::UpdateTestRequest {
        id: body.id,
        title: body.title.clone(),
        description: body.description.clone(),
        total_points_required: body.total_points_required,
        number_of_questions: body.number_of_questions,
        number_of_tries: body.number_of_tries,
        article_id: body.article_id,
        questions: body.questions(),
    };
    let reply = client(&state).update_test(caller.request(request)).await?;
    Ok(Data(reply.into_inner().test.map(TestJson::from)))
}
