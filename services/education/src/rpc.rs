//! The gRPC face of education: each call checks its caller, parses the request
//! into domain types, asks the store, and maps the answer back.
//!
//! Access per call (the contract's comments): every write, GetFullCourseInfo,
//! GetFullTest, ListAllTestResults, GetCourseCompliance and GetQuestionAnalysis
//! need EducationManagement; the reads of courses, articles and tests need a
//! signed-in caller and show a learner only what is assigned to them (anything
//! else is NOT_FOUND, as if it did not exist); a `user_id` in a request must be
//! the caller's own unless they hold EducationManagement; CompleteTest is the
//! caller's own always. A learner's view of a test never carries `is_correct`:
//! only GetFullTest, EducationManagement's, returns the `Test` message.

use std::collections::HashMap;

use portal_kit::db::{now_millis, timestamp_from_millis};
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_server::EducationService;
use tonic::{Request, Response, Status};

use crate::domain::article::{ArticleDraft, ContentCleaner};
use crate::domain::attempt::{MSG_EMPTY_TEST, Submission, draw, expires_at, shuffled};
use crate::domain::compliance::{Standing, standing};
use crate::domain::course::CourseDraft;
use crate::domain::date::Day;
use crate::domain::statistics::{FilterInput, ResultFilter};
use crate::domain::test::{QuestionInput, TestDraft};
use crate::store::{
    ArticleRecord, AttemptChoice, CourseRecord, FullQuestion, ResultRecord, Store, TestRecord,
    TriesUsed, Viewer,
};

pub struct EducationRpc {
    store: Store,
    cleaner: ContentCleaner,
}

impl EducationRpc {
    pub fn new(store: Store, cleaner: ContentCleaner) -> EducationRpc {
        EducationRpc { store, cleaner }
    }
}

type RpcResult<T> = Result<Response<T>, Status>;

fn reply<T>(message: T) -> RpcResult<T> {
    Ok(Response::new(message))
}

/// Everything for education managers, the caller's assignments for anyone else
/// signed in.
fn viewer(caller: &Caller) -> ServiceResult<Viewer> {
    let user_id = caller.user_id()?;
    Ok(if caller.has(Right::EducationManagement) {
        Viewer::Everything
    } else {
        Viewer::Assignee(user_id)
    })
}

/// The user a request is about: `user_id` 0 is the caller; anyone else needs
/// EducationManagement.
fn subject_user(caller: &Caller, user_id: i64) -> ServiceResult<i64> {
    let user_id = if user_id == 0 {
        caller.user_id()?
    } else {
        user_id
    };
    caller.require_self_or(user_id, Right::EducationManagement)?;
    Ok(user_id)
}

#[tonic::async_trait]
impl EducationService for EducationRpc {
    // --- Articles ---

    async fn list_articles(
        &self,
        request: Request<pb::ListArticlesRequest>,
    ) -> RpcResult<pb::ListArticlesResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let articles = self.store.articles(viewer).await?;
        reply(pb::ListArticlesResponse {
            articles: articles.into_iter().map(article).collect(),
        })
    }

    async fn get_article(
        &self,
        request: Request<pb::GetArticleRequest>,
    ) -> RpcResult<pb::GetArticleResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let found = self
            .store
            .article(viewer, request.get_ref().article_id)
            .await?;
        reply(pb::GetArticleResponse {
            article: Some(article(found)),
        })
    }

    async fn list_articles_by_course(
        &self,
        request: Request<pb::ListArticlesByCourseRequest>,
    ) -> RpcResult<pb::ListArticlesByCourseResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let course_id = request.get_ref().course_id;
        self.store.course(viewer, course_id).await?;
        let articles = self.store.course_articles(course_id).await?;
        reply(pb::ListArticlesByCourseResponse {
            articles: articles.into_iter().map(article).collect(),
        })
    }

    async fn create_article(
        &self,
        request: Request<pb::CreateArticleRequest>,
    ) -> RpcResult<pb::CreateArticleResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let pb::CreateArticleRequest {
            title,
            description,
            content,
            date_deadline,
            test_id,
        } = request.into_inner();
        let draft = ArticleDraft::parse(
            &self.cleaner,
            &title,
            &description,
            &content,
            &date_deadline,
            test_id,
        )?;
        let created = self.store.create_article(&draft, now_millis()).await?;
        reply(pb::CreateArticleResponse {
            article: Some(article(created)),
        })
    }

    async fn update_article(
        &self,
        request: Request<pb::UpdateArticleRequest>,
    ) -> RpcResult<pb::UpdateArticleResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let pb::UpdateArticleRequest {
            id,
            title,
            description,
            content,
            date_deadline,
            test_id,
        } = request.into_inner();
        let draft = ArticleDraft::parse(
            &self.cleaner,
            &title,
            &description,
            &content,
            &date_deadline,
            test_id,
        )?;
        let updated = self.store.update_article(id, &draft).await?;
        reply(pb::UpdateArticleResponse {
            article: Some(article(updated)),
        })
    }

    // --- Courses ---

    async fn list_courses(
        &self,
        request: Request<pb::ListCoursesRequest>,
    ) -> RpcResult<pb::ListCoursesResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let courses = self.store.courses(viewer).await?;
        reply(pb::ListCoursesResponse {
            courses: courses.into_iter().map(course).collect(),
        })
    }

    async fn get_course(
        &self,
        request: Request<pb::GetCourseRequest>,
    ) -> RpcResult<pb::GetCourseResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let found = self
            .store
            .course(viewer, request.get_ref().course_id)
            .await?;
        reply(pb::GetCourseResponse {
            course: Some(course(found)),
        })
    }

    async fn get_full_course_info(
        &self,
        request: Request<pb::GetFullCourseInfoRequest>,
    ) -> RpcResult<pb::GetFullCourseInfoResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let course_id = request.get_ref().course_id;
        let found = self.store.course(Viewer::Everything, course_id).await?;
        let user_ids = self.store.course_assignees(course_id).await?;
        let articles = self.store.course_articles(course_id).await?;
        reply(pb::GetFullCourseInfoResponse {
            course: Some(course(found)),
            user_ids,
            articles: articles.into_iter().map(article).collect(),
        })
    }

    async fn list_courses_by_user(
        &self,
        request: Request<pb::ListCoursesByUserRequest>,
    ) -> RpcResult<pb::ListCoursesByUserResponse> {
        let user_id = subject_user(&Caller::of(&request), request.get_ref().user_id)?;
        let courses = self.store.courses(Viewer::Assignee(user_id)).await?;
        reply(pb::ListCoursesByUserResponse {
            courses: courses
                .into_iter()
                .map(|c| pb::CourseRef {
                    id: c.id,
                    title: c.title,
                })
                .collect(),
        })
    }

    async fn create_course(
        &self,
        request: Request<pb::CreateCourseRequest>,
    ) -> RpcResult<pb::CreateCourseResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let pb::CreateCourseRequest {
            title,
            description,
            date_deadline,
            user_ids,
            article_ids,
        } = request.into_inner();
        let draft = CourseDraft::parse(
            &title,
            &description,
            &date_deadline,
            &user_ids,
            &article_ids,
        )?;
        let created = self.store.create_course(&draft, now_millis()).await?;
        reply(pb::CreateCourseResponse {
            course: Some(course(created)),
        })
    }

    async fn update_course(
        &self,
        request: Request<pb::UpdateCourseRequest>,
    ) -> RpcResult<pb::UpdateCourseResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let pb::UpdateCourseRequest {
            id,
            title,
            description,
            date_deadline,
            user_ids,
            article_ids,
        } = request.into_inner();
        let draft = CourseDraft::parse(
            &title,
            &description,
            &date_deadline,
            &user_ids,
            &article_ids,
        )?;
        let updated = self.store.update_course(id, &draft).await?;
        reply(pb::UpdateCourseResponse {
            course: Some(course(updated)),
        })
    }

    // --- Tests (reading) ---

    async fn list_tests(
        &self,
        request: Request<pb::ListTestsRequest>,
    ) -> RpcResult<pb::ListTestsResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let tests = self.store.tests(viewer).await?;
        reply(pb::ListTestsResponse {
            tests: tests.into_iter().map(test_info).collect(),
        })
    }

    async fn get_test(
        &self,
        request: Request<pb::GetTestRequest>,
    ) -> RpcResult<pb::GetTestResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let test = self.store.test(viewer, request.get_ref().test_id).await?;
        reply(pb::GetTestResponse {
            test: Some(test_info(test)),
        })
    }

    async fn list_tests_by_article(
        &self,
        request: Request<pb::ListTestsByArticleRequest>,
    ) -> RpcResult<pb::ListTestsByArticleResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let found = self
            .store
            .article(viewer, request.get_ref().article_id)
            .await?;
        let tests = self.store.tests_of_article(&found).await?;
        reply(pb::ListTestsByArticleResponse {
            tests: tests.into_iter().map(test_info).collect(),
        })
    }

    async fn get_test_summary(
        &self,
        request: Request<pb::GetTestSummaryRequest>,
    ) -> RpcResult<pb::GetTestSummaryResponse> {
        let caller = Caller::of(&request);
        let user_id = subject_user(&caller, request.get_ref().user_id)?;
        let test = self
            .store
            .test(viewer(&caller)?, request.get_ref().test_id)
            .await?;
        let used = self.store.tries_used(test.id, user_id).await?;
        reply(pb::GetTestSummaryResponse {
            summary: Some(summary(test, used)),
        })
    }

    async fn list_user_test_results(
        &self,
        request: Request<pb::ListUserTestResultsRequest>,
    ) -> RpcResult<pb::ListUserTestResultsResponse> {
        let caller = Caller::of(&request);
        let user_id = subject_user(&caller, request.get_ref().user_id)?;
        let test_id = request.get_ref().test_id;
        let results = self
            .store
            .user_results(user_id, (test_id > 0).then_some(test_id))
            .await?;
        reply(pb::ListUserTestResultsResponse {
            results: results.into_iter().map(test_result).collect(),
        })
    }

    async fn list_my_tests(
        &self,
        request: Request<pb::ListMyTestsRequest>,
    ) -> RpcResult<pb::ListMyTestsResponse> {
        let user_id = Caller::of(&request).user_id()?;
        let assigned = self.store.assigned_tests(user_id).await?;
        let mut used = self.store.tries_by_test(user_id).await?;
        let tests: HashMap<i64, TestRecord> = self
            .store
            .tests(Viewer::Assignee(user_id))
            .await?
            .into_iter()
            .map(|test| (test.id, test))
            .collect();
        let mut mine: Vec<pb::AssignedTest> = Vec::new();
        let mut listed: HashMap<i64, usize> = HashMap::new();
        // One entry per test, under the first article that links it, due by the
        // earliest of its links' deadlines.
        for link in assigned {
            let Some(test) = tests.get(&link.test_id) else {
                continue;
            };
            if let Some(&index) = listed.get(&test.id) {
                let entry = &mut mine[index];
                if link.date_deadline < entry.date_deadline {
                    entry.date_deadline = link.date_deadline;
                }
                continue;
            }
            listed.insert(test.id, mine.len());
            let tries = used.remove(&test.id).unwrap_or_default();
            mine.push(pb::AssignedTest {
                summary: Some(summary(test.clone(), tries)),
                article_id: link.article_id,
                article_title: link.article_title,
                is_passed: tries.passed > 0,
                course_id: link.course_id,
                date_deadline: link.date_deadline,
            });
        }
        reply(pb::ListMyTestsResponse { tests: mine })
    }

    // --- Tests (taking) ---

    async fn start_attempt(
        &self,
        request: Request<pb::StartAttemptRequest>,
    ) -> RpcResult<pb::StartAttemptResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.user_id()?;
        let test = self
            .store
            .test(viewer(&caller)?, request.get_ref().test_id)
            .await?;
        let questions = self.store.full_questions(test.id).await?;
        if questions.is_empty() {
            return Err(ServiceError::conflict(MSG_EMPTY_TEST).into());
        }
        let all: Vec<i64> = questions.iter().map(|q| q.question.id).collect();
        let count = usize::try_from(test.number_of_questions).unwrap_or(usize::MAX);
        let open = self
            .store
            .start_attempt(&test, user_id, now_millis(), |seen| draw(&all, seen, count))
            .await?;
        let used = self.store.tries_used(test.id, user_id).await?;
        let mut by_id: HashMap<i64, FullQuestion> =
            questions.into_iter().map(|q| (q.question.id, q)).collect();
        let questions = open
            .question_ids
            .iter()
            .filter_map(|id| by_id.remove(id))
            .map(drawn_question)
            .collect();
        reply(pb::StartAttemptResponse {
            attempt_id: open.id,
            questions,
            started_at: Some(timestamp_from_millis(open.started_at)),
            number_of_tries_left: tries_left(&test, used),
            expires_at: Some(timestamp_from_millis(expires_at(open.started_at))),
        })
    }

    async fn complete_test(
        &self,
        request: Request<pb::CompleteTestRequest>,
    ) -> RpcResult<pb::CompleteTestResponse> {
        let caller = Caller::of(&request);
        let claims = caller.claims()?;
        let message = request.get_ref();
        if message.user_id != 0 && message.user_id != claims.user_id {
            return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
        }
        let test = self.store.test(viewer(&caller)?, message.test_id).await?;
        let submission = Submission::parse(
            message
                .question_with_answers
                .iter()
                .map(|qa| (qa.question_id, qa.answer_id)),
        )?;
        let choice = match message.attempt_id {
            0 => AttemptChoice::Open,
            id => AttemptChoice::Started(id),
        };
        let completed = self
            .store
            .complete_attempt(
                &test,
                claims.user_id,
                choice,
                &submission,
                &claims.departments,
                now_millis(),
            )
            .await?;
        let used = self.store.tries_used(test.id, claims.user_id).await?;
        reply(pb::CompleteTestResponse {
            total_point: count(completed.total_point),
            is_passed: completed.is_passed,
            total_points_possible: count(completed.points_possible),
            test_result_id: completed.attempt_id,
            number_of_tries_left: tries_left(&test, used),
        })
    }

    // --- Tests (administration) ---

    async fn get_full_test(
        &self,
        request: Request<pb::GetFullTestRequest>,
    ) -> RpcResult<pb::GetFullTestResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let test = self
            .store
            .test(Viewer::Everything, request.get_ref().test_id)
            .await?;
        let questions = self.store.full_questions(test.id).await?;
        reply(pb::GetFullTestResponse {
            test: Some(full_test(test, questions)),
        })
    }

    async fn list_all_test_results(
        &self,
        request: Request<pb::ListAllTestResultsRequest>,
    ) -> RpcResult<pb::ListAllTestResultsResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let message = request.get_ref();
        let filter = ResultFilter::parse(FilterInput {
            test_id: message.test_id,
            department_id: message.department_id,
            user_id: message.user_id,
            date_from: &message.date_from,
            date_to: &message.date_to,
            page_size: message.page_size,
            page_token: &message.page_token,
        })?;
        let page = self.store.results(&filter).await?;
        reply(pb::ListAllTestResultsResponse {
            results: page.rows.into_iter().map(test_result).collect(),
            next_page_token: page.next.map(|mark| mark.token()).unwrap_or_default(),
            total_count: page.total.unwrap_or(0),
        })
    }

    async fn get_course_compliance(
        &self,
        request: Request<pb::GetCourseComplianceRequest>,
    ) -> RpcResult<pb::GetCourseComplianceResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let course_id = request.get_ref().course_id;
        let found = self.store.course(Viewer::Everything, course_id).await?;
        let tests = self.store.course_test_ids(course_id).await?;
        let mut passed = self.store.passed_by_assignees(course_id).await?;
        let today = Day::today();
        let deadline = Day::stored(&found.date_deadline);
        let mut assignees: Vec<(Standing, pb::AssigneeCompliance)> = self
            .store
            .course_assignees(course_id)
            .await?
            .into_iter()
            .map(|user_id| {
                let done = passed
                    .remove(&user_id)
                    .unwrap_or_default()
                    .intersection(&tests)
                    .count();
                let standing = standing(done, tests.len(), deadline, today);
                let entry = pb::AssigneeCompliance {
                    user_id,
                    tests_passed: count_usize(done),
                    tests_total: count_usize(tests.len()),
                    is_complete: standing == Standing::Complete,
                    is_overdue: standing == Standing::Overdue,
                    is_due_soon: standing == Standing::DueSoon,
                };
                (standing, entry)
            })
            .collect();
        assignees.sort_by_key(|(standing, entry)| (*standing, entry.user_id));
        reply(pb::GetCourseComplianceResponse {
            course: Some(course(found)),
            assignees: assignees.into_iter().map(|(_, entry)| entry).collect(),
            today: today.to_string(),
        })
    }

    async fn get_question_analysis(
        &self,
        request: Request<pb::GetQuestionAnalysisRequest>,
    ) -> RpcResult<pb::GetQuestionAnalysisResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let test = self
            .store
            .test(Viewer::Everything, request.get_ref().test_id)
            .await?;
        let stats = self.store.question_stats(test.id).await?;
        reply(pb::GetQuestionAnalysisResponse {
            questions: stats
                .into_iter()
                .map(|q| pb::QuestionAnalysis {
                    question_id: q.id,
                    title: q.title,
                    times_answered: count(q.answered),
                    times_correct: count(q.correct),
                })
                .collect(),
        })
    }

    async fn create_test(
        &self,
        request: Request<pb::CreateTestRequest>,
    ) -> RpcResult<pb::CreateTestResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let m = request.get_ref();
        let draft = TestDraft::parse(
            &m.title,
            &m.description,
            [
                m.total_points_required,
                m.number_of_questions,
                m.number_of_tries,
            ],
            m.article_id,
            question_inputs(&m.questions),
        )?;
        let created = self.store.create_test(&draft, now_millis()).await?;
        let questions = self.store.full_questions(created.id).await?;
        reply(pb::CreateTestResponse {
            test: Some(full_test(created, questions)),
        })
    }

    async fn update_test(
        &self,
        request: Request<pb::UpdateTestRequest>,
    ) -> RpcResult<pb::UpdateTestResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let m = request.get_ref();
        let draft = TestDraft::parse(
            &m.title,
            &m.description,
            [
                m.total_points_required,
                m.number_of_questions,
                m.number_of_tries,
            ],
            m.article_id,
            question_inputs(&m.questions),
        )?;
        let updated = self.store.update_test(m.id, &draft).await?;
        let questions = self.store.full_questions(updated.id).await?;
        reply(pb::UpdateTestResponse {
            test: Some(full_test(updated, questions)),
        })
    }
}

fn question_inputs(questions: &[pb::Question]) -> Vec<QuestionInput<'_>> {
    questions
        .iter()
        .map(|q| QuestionInput {
            id: q.id,
            title: &q.title,
            answers: q
                .answers
                .iter()
                .map(|a| (a.id, a.title.as_str(), a.is_correct))
                .collect(),
        })
        .collect()
}

/// A stored count as the contract's int32; counts here are far below its limit.
fn count(value: i64) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn count_usize(value: usize) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn tries_left(test: &TestRecord, used: TriesUsed) -> i32 {
    count((test.number_of_tries - used.started).max(0))
}

fn article(record: ArticleRecord) -> pb::Article {
    pb::Article {
        id: record.id,
        title: record.title,
        description: record.description,
        content: record.content,
        date_deadline: record.date_deadline.unwrap_or_default(),
        test_id: record.test_id.unwrap_or(0),
    }
}

fn course(record: CourseRecord) -> pb::Course {
    pb::Course {
        id: record.id,
        title: record.title,
        description: record.description,
        date_creation: Some(timestamp_from_millis(record.date_creation)),
        date_deadline: record.date_deadline,
    }
}

fn test_info(record: TestRecord) -> pb::TestInfo {
    pb::TestInfo {
        id: record.id,
        title: record.title,
        description: record.description,
        total_points_required: count(record.total_points_required),
        number_of_questions: count(record.number_of_questions),
        number_of_tries: count(record.number_of_tries),
        article_id: record.article_id.unwrap_or(0),
    }
}

fn summary(record: TestRecord, used: TriesUsed) -> pb::TestSummary {
    pb::TestSummary {
        number_of_tries_left: tries_left(&record, used),
        id: record.id,
        title: record.title,
        description: record.description,
        number_of_questions: count(record.number_of_questions),
        total_points_required: count(record.total_points_required),
        number_of_tries: count(record.number_of_tries),
    }
}

fn full_test(record: TestRecord, questions: Vec<FullQuestion>) -> pb::Test {
    pb::Test {
        id: record.id,
        title: record.title,
        description: record.description,
        total_points_required: count(record.total_points_required),
        number_of_questions: count(record.number_of_questions),
        number_of_tries: count(record.number_of_tries),
        article_id: record.article_id.unwrap_or(0),
        questions: questions
            .into_iter()
            .map(|q| pb::Question {
                id: q.question.id,
                title: q.question.title,
                answers: q
                    .answers
                    .into_iter()
                    .map(|a| pb::Answer {
                        id: a.id,
                        title: a.title,
                        is_correct: a.is_correct == 1,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// A question as a learner sees it: answers shuffled, no correctness.
fn drawn_question(question: FullQuestion) -> pb::DrawnQuestion {
    pb::DrawnQuestion {
        id: question.question.id,
        title: question.question.title,
        answers: shuffled(question.answers)
            .into_iter()
            .map(|a| pb::AnswerOption {
                id: a.id,
                title: a.title,
            })
            .collect(),
    }
}

fn test_result(record: ResultRecord) -> pb::TestResult {
    pb::TestResult {
        id: record.id,
        test: Some(pb::TestRef {
            id: record.test_id,
            title: record.test_title,
        }),
        user_id: record.user_id,
        total_point: count(record.total_point),
        is_passed: record.is_passed == 1,
        date_completion: Some(timestamp_from_millis(record.completed_at)),
        total_points_possible: count(record.points_possible),
    }
}
