//! The gRPC face of education: each call checks its caller, parses the request
//! into domain types, asks the store (or a use case in [`crate::app`] when it
//! takes more than one store call and a rule), and maps the answer back with
//! [`crate::convert`].
//!
//! Access per call (the contract's comments): every write, GetFullCourseInfo,
//! GetFullTest, ListAllTestResults, GetCourseCompliance and GetQuestionAnalysis
//! need EducationManagement; the reads of courses, articles and tests need a
//! signed-in caller and show a learner only what is assigned to them (anything
//! else is NOT_FOUND, as if it did not exist); a `user_id` in a request must be
//! the caller's own unless they hold EducationManagement; CompleteTest is the
//! caller's own always. A learner's view of a test never carries `is_correct`:
//! only GetFullTest, EducationManagement's, returns the `Test` message.
//! The integration calls (ListTrainingRecords, WatchTrainingRecords,
//! ListTrainingCompliance, AssignCourse) are open to EducationManagement and
//! to service accounts with training.read (the reads) or training.assign
//! (AssignCourse); every other call refuses service accounts.
//! EnrollForClearance is the caller's own, for a course the wiki says clears
//! them to operate equipment they see ([`crate::app::clearance`]).

use std::pin::Pin;

use portal_kit::access::{Actor, Scope};
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::deadline::Deadline;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::net::TrustedProxies;
use portal_kit::search::Asked;
use portal_kit::token::Claims;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_server::EducationService;
use tokio_stream::Stream;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

use crate::app::attempts;
use crate::app::clearance::{self, Equipment};
use crate::app::compliance::course_compliance;
use crate::app::integration::{self, Watch};
use crate::app::my_tests::my_tests;
use crate::app::passes;
use crate::app::staff::{OnBehalf, Staff};
use crate::convert;
use crate::domain::article::{ArticleDraft, ContentCleaner};
use crate::domain::attempt::Submission;
use crate::domain::course::CourseDraft;
use crate::domain::integration::{AssignmentKeys, Author, Page};
use crate::domain::pass::PassQuery;
use crate::domain::statistics::{FilterInput, ResultFilter};
use crate::domain::test::{QuestionInput, TestDraft};
use crate::store::search;
use crate::store::{AttemptChoice, Editor, Store, Viewer};

pub struct EducationRpc {
    store: Store,
    cleaner: ContentCleaner,
    /// Auth, for the HR system's keys.
    staff: Staff,
    /// The wiki, for the courses that clear a person to operate equipment.
    equipment: Equipment,
    /// Ends the open watch streams when the server stops.
    shutdown: CancellationToken,
    /// Whose forwarded client address the audit log believes.
    proxies: TrustedProxies,
}

impl EducationRpc {
    pub fn new(
        store: Store,
        cleaner: ContentCleaner,
        (staff, equipment): (Staff, Equipment),
        shutdown: CancellationToken,
        proxies: TrustedProxies,
    ) -> EducationRpc {
        EducationRpc {
            store,
            cleaner,
            staff,
            equipment,
            shutdown,
            proxies,
        }
    }

    /// Who makes a write, from where: what its audit record names.
    fn audit<T>(&self, request: &Request<T>) -> AuditContext {
        AuditContext::of(request, &self.proxies)
    }
}

/// The stream of WatchTrainingRecords.
type RecordStream =
    Pin<Box<dyn Stream<Item = Result<pb::WatchTrainingRecordsResponse, Status>> + Send>>;

/// Who recorded a write, for the integration calls open to people and systems.
fn author(actor: Actor<'_>) -> Author {
    match actor {
        Actor::Person(claims) => Author::Person(claims.user_id),
        Actor::ServiceAccount(claims) => Author::ServiceAccount(claims.account_id),
    }
}

/// When the token of an integration caller expires, Unix seconds.
fn expires_at(actor: Actor<'_>) -> u64 {
    match actor {
        Actor::Person(claims) => claims.exp,
        Actor::ServiceAccount(claims) => claims.exp,
    }
}

type RpcResult<T> = Result<Response<T>, Status>;

/// The caller as the author of a revision.
fn editor(claims: &Claims) -> Editor {
    Editor {
        id: Some(claims.user_id),
        name: claims.display_name(),
    }
}

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
    type WatchTrainingRecordsStream = RecordStream;

    // --- Articles ---

    async fn list_articles(
        &self,
        request: Request<pb::ListArticlesRequest>,
    ) -> RpcResult<pb::ListArticlesResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let articles = self.store.articles(viewer).await?;
        reply(pb::ListArticlesResponse {
            articles: articles.into_iter().map(pb::Article::from).collect(),
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
            article: Some(found.into()),
        })
    }

    async fn list_articles_by_course(
        &self,
        request: Request<pb::ListArticlesByCourseRequest>,
    ) -> RpcResult<pb::ListArticlesByCourseResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let course_id = request.get_ref().course_id;
        // Only a course the caller may see lists its articles: NOT_FOUND else.
        self.store.course(viewer, course_id).await?;
        let articles = self.store.course_articles(course_id).await?;
        reply(pb::ListArticlesByCourseResponse {
            articles: articles.into_iter().map(pb::Article::from).collect(),
        })
    }

    async fn create_article(
        &self,
        request: Request<pb::CreateArticleRequest>,
    ) -> RpcResult<pb::CreateArticleResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EducationManagement)?;
        let audit = self.audit(&request);
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
        let created = self
            .store
            .create_article(&draft, &editor(claims), now_millis(), &audit)
            .await?;
        reply(pb::CreateArticleResponse {
            article: Some(created.into()),
        })
    }

    async fn update_article(
        &self,
        request: Request<pb::UpdateArticleRequest>,
    ) -> RpcResult<pb::UpdateArticleResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EducationManagement)?;
        let audit = self.audit(&request);
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
        let updated = self
            .store
            .update_article(id, &draft, &editor(claims), now_millis(), &audit)
            .await?;
        reply(pb::UpdateArticleResponse {
            article: Some(updated.into()),
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
            courses: courses.into_iter().map(pb::Course::from).collect(),
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
            course: Some(found.into()),
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
            course: Some(found.into()),
            user_ids,
            articles: articles.into_iter().map(pb::Article::from).collect(),
        })
    }

    async fn list_courses_by_user(
        &self,
        request: Request<pb::ListCoursesByUserRequest>,
    ) -> RpcResult<pb::ListCoursesByUserResponse> {
        let user_id = subject_user(&Caller::of(&request), request.get_ref().user_id)?;
        let courses = self.store.courses(Viewer::Assignee(user_id)).await?;
        reply(pb::ListCoursesByUserResponse {
            courses: courses.into_iter().map(pb::CourseRef::from).collect(),
        })
    }

    async fn list_course_passes(
        &self,
        request: Request<pb::ListCoursePassesRequest>,
    ) -> RpcResult<pb::ListCoursePassesResponse> {
        let caller = Caller::of(&request);
        let m = request.get_ref();
        let on_behalf = OnBehalf {
            metadata: request.metadata(),
            limit: Deadline::of_call(request.metadata()).remaining(),
        };
        passes::require_readable(&self.staff, &caller, on_behalf, &m.user_ids).await?;
        let query = PassQuery::parse(&m.user_ids, &m.course_ids)?;
        let (courses, passes) = passes::course_passes(&self.store, &query).await?;
        reply(pb::ListCoursePassesResponse {
            courses: courses
                .into_iter()
                .map(|(id, title)| pb::CourseRef { id, title })
                .collect(),
            passes: passes.into_iter().map(Into::into).collect(),
        })
    }

    async fn create_course(
        &self,
        request: Request<pb::CreateCourseRequest>,
    ) -> RpcResult<pb::CreateCourseResponse> {
        let admin = Author::Person(
            Caller::of(&request)
                .require(Right::EducationManagement)?
                .user_id,
        );
        let audit = self.audit(&request);
        let pb::CreateCourseRequest {
            title,
            description,
            date_deadline,
            user_ids,
            article_ids,
            validity_months,
        } = request.into_inner();
        let draft = CourseDraft::parse(
            &title,
            &description,
            &date_deadline,
            Some(validity_months),
            &user_ids,
            &article_ids,
        )?;
        let created = self
            .store
            .create_course(&draft, admin, now_millis(), &audit)
            .await?;
        reply(pb::CreateCourseResponse {
            course: Some(created.into()),
        })
    }

    async fn update_course(
        &self,
        request: Request<pb::UpdateCourseRequest>,
    ) -> RpcResult<pb::UpdateCourseResponse> {
        let admin = Author::Person(
            Caller::of(&request)
                .require(Right::EducationManagement)?
                .user_id,
        );
        let audit = self.audit(&request);
        let pb::UpdateCourseRequest {
            id,
            title,
            description,
            date_deadline,
            user_ids,
            article_ids,
            validity_months,
        } = request.into_inner();
        let draft = CourseDraft::parse(
            &title,
            &description,
            &date_deadline,
            validity_months,
            &user_ids,
            &article_ids,
        )?;
        let updated = self
            .store
            .update_course(id, &draft, admin, now_millis(), &audit)
            .await?;
        reply(pb::UpdateCourseResponse {
            course: Some(updated.into()),
        })
    }

    async fn enroll_for_clearance(
        &self,
        request: Request<pb::EnrollForClearanceRequest>,
    ) -> RpcResult<pb::EnrollForClearanceResponse> {
        let limit = Deadline::of_call(request.metadata()).remaining();
        let user_id = Caller::of(&request).user_id()?;
        let on_behalf = OnBehalf {
            metadata: request.metadata(),
            limit,
        };
        let ids = (user_id, request.get_ref().course_id);
        let at = (now_millis(), &self.audit(&request));
        let (course, enrolled) =
            clearance::enroll(&self.store, &self.equipment, on_behalf, ids, at).await?;
        reply(pb::EnrollForClearanceResponse {
            course: Some(course.into()),
            enrolled,
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
            tests: tests.into_iter().map(pb::TestInfo::from).collect(),
        })
    }

    async fn get_test(
        &self,
        request: Request<pb::GetTestRequest>,
    ) -> RpcResult<pb::GetTestResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let test = self.store.test(viewer, request.get_ref().test_id).await?;
        reply(pb::GetTestResponse {
            test: Some(test.into()),
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
            tests: tests.into_iter().map(pb::TestInfo::from).collect(),
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
        let (used, open) = self
            .store
            .tries_used(test.id, user_id, now_millis())
            .await?;
        reply(pb::GetTestSummaryResponse {
            summary: Some(convert::summary(test, used, open)),
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
            results: results.into_iter().map(pb::TestResult::from).collect(),
        })
    }

    async fn list_my_tests(
        &self,
        request: Request<pb::ListMyTestsRequest>,
    ) -> RpcResult<pb::ListMyTestsResponse> {
        let user_id = Caller::of(&request).user_id()?;
        let mine = my_tests(&self.store, user_id, now_millis()).await?;
        reply(pb::ListMyTestsResponse {
            tests: mine.into_iter().map(pb::AssignedTest::from).collect(),
        })
    }

    // --- Tests (taking) ---

    async fn start_attempt(
        &self,
        request: Request<pb::StartAttemptRequest>,
    ) -> RpcResult<pb::StartAttemptResponse> {
        let caller = Caller::of(&request);
        let user_id = caller.user_id()?;
        let started = attempts::start(
            &self.store,
            viewer(&caller)?,
            request.get_ref().test_id,
            user_id,
            now_millis(),
            &self.audit(&request),
        )
        .await?;
        reply(started.into())
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
        let now = now_millis();
        let choice = match message.attempt_id {
            0 => AttemptChoice::Open,
            id => AttemptChoice::Started(id),
        };
        let (completed, used) = self
            .store
            .complete_attempt(
                &test,
                claims.user_id,
                choice,
                &submission,
                &claims.departments,
                (now, &self.audit(&request)),
            )
            .await?;
        reply(convert::completed(completed, &test, used))
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
            test: Some(convert::full_test(test, questions)),
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
            results: page.rows.into_iter().map(pb::TestResult::from).collect(),
            next_page_token: page.next.map(|mark| mark.token()).unwrap_or_default(),
            total_count: page.total.map_or(0, |total| total.counted),
            total_count_capped: page.total.is_some_and(|total| total.capped),
        })
    }

    async fn get_course_compliance(
        &self,
        request: Request<pb::GetCourseComplianceRequest>,
    ) -> RpcResult<pb::GetCourseComplianceResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let compliance = course_compliance(&self.store, request.get_ref().course_id).await?;
        reply(compliance.into())
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
            questions: stats.into_iter().map(pb::QuestionAnalysis::from).collect(),
        })
    }

    async fn create_test(
        &self,
        request: Request<pb::CreateTestRequest>,
    ) -> RpcResult<pb::CreateTestResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EducationManagement)?;
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
        let created = self
            .store
            .create_test(&draft, &editor(claims), now_millis(), &self.audit(&request))
            .await?;
        let questions = self.store.full_questions(created.id).await?;
        reply(pb::CreateTestResponse {
            test: Some(convert::full_test(created, questions)),
        })
    }

    async fn update_test(
        &self,
        request: Request<pb::UpdateTestRequest>,
    ) -> RpcResult<pb::UpdateTestResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EducationManagement)?;
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
        let updated = self
            .store
            .update_test(
                m.id,
                &draft,
                &editor(claims),
                now_millis(),
                &self.audit(&request),
            )
            .await?;
        let questions = self.store.full_questions(updated.id).await?;
        reply(pb::UpdateTestResponse {
            test: Some(convert::full_test(updated, questions)),
        })
    }

    // --- Revisions ---

    async fn list_article_revisions(
        &self,
        request: Request<pb::ListArticleRevisionsRequest>,
    ) -> RpcResult<pb::ListArticleRevisionsResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let revisions = self
            .store
            .article_revisions(request.get_ref().article_id)
            .await?;
        reply(pb::ListArticleRevisionsResponse {
            revisions: revisions.into_iter().map(pb::Revision::from).collect(),
        })
    }

    async fn get_article_revision(
        &self,
        request: Request<pb::GetArticleRevisionRequest>,
    ) -> RpcResult<pb::GetArticleRevisionResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let m = request.get_ref();
        let (revision, article) = self
            .store
            .article_revision(m.article_id, m.revision_id)
            .await?;
        reply(pb::GetArticleRevisionResponse {
            revision: Some(revision.into()),
            article: Some(article.into()),
        })
    }

    async fn restore_article_revision(
        &self,
        request: Request<pb::RestoreArticleRevisionRequest>,
    ) -> RpcResult<pb::RestoreArticleRevisionResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EducationManagement)?;
        let audit = self.audit(&request);
        let m = request.get_ref();
        let article = self
            .store
            .restore_article(
                m.article_id,
                m.revision_id,
                (&editor(claims), now_millis()),
                &audit,
            )
            .await?;
        reply(pb::RestoreArticleRevisionResponse {
            article: Some(article.into()),
        })
    }

    async fn list_test_revisions(
        &self,
        request: Request<pb::ListTestRevisionsRequest>,
    ) -> RpcResult<pb::ListTestRevisionsResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let revisions = self.store.test_revisions(request.get_ref().test_id).await?;
        reply(pb::ListTestRevisionsResponse {
            revisions: revisions.into_iter().map(pb::Revision::from).collect(),
        })
    }

    async fn get_test_revision(
        &self,
        request: Request<pb::GetTestRevisionRequest>,
    ) -> RpcResult<pb::GetTestRevisionResponse> {
        Caller::of(&request).require(Right::EducationManagement)?;
        let m = request.get_ref();
        let (revision, test, questions) =
            self.store.test_revision(m.test_id, m.revision_id).await?;
        reply(pb::GetTestRevisionResponse {
            revision: Some(revision.into()),
            test: Some(convert::full_test(test, questions)),
        })
    }

    async fn restore_test_revision(
        &self,
        request: Request<pb::RestoreTestRevisionRequest>,
    ) -> RpcResult<pb::RestoreTestRevisionResponse> {
        let caller = Caller::of(&request);
        let claims = caller.require(Right::EducationManagement)?;
        let audit = self.audit(&request);
        let m = request.get_ref();
        let restored = self
            .store
            .restore_test(
                m.test_id,
                m.revision_id,
                (&editor(claims), now_millis()),
                &audit,
            )
            .await?;
        let questions = self.store.full_questions(restored.id).await?;
        reply(pb::RestoreTestRevisionResponse {
            test: Some(convert::full_test(restored, questions)),
        })
    }

    // --- Integration ---

    async fn list_training_records(
        &self,
        request: Request<pb::ListTrainingRecordsRequest>,
    ) -> RpcResult<pb::ListTrainingRecordsResponse> {
        let deadline = Deadline::of_call(request.metadata());
        let caller = Caller::of(&request);
        caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)?;
        let page = Page::parse(request.get_ref().after, request.get_ref().limit)?;
        let on_behalf = OnBehalf {
            metadata: request.metadata(),
            limit: deadline.remaining(),
        };
        let records = integration::records(&self.store, &self.staff, on_behalf, page).await?;
        let (records, next) = convert::records(records, page.after);
        reply(pb::ListTrainingRecordsResponse { records, next })
    }

    async fn watch_training_records(
        &self,
        request: Request<pb::WatchTrainingRecordsRequest>,
    ) -> RpcResult<Self::WatchTrainingRecordsStream> {
        let caller = Caller::of(&request);
        let actor =
            caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)?;
        let after = Page::parse(request.get_ref().after, 0)?.after;
        let watch = Watch {
            store: self.store.clone(),
            staff: self.staff.clone(),
            metadata: request.metadata().clone(),
            expires_at: expires_at(actor),
            shutdown: self.shutdown.clone(),
        };
        let mut cursor = after;
        let stream = ReceiverStream::new(watch.start(after)).map(move |batch| {
            let (records, next) = convert::records(batch?, cursor);
            cursor = next;
            Ok(pb::WatchTrainingRecordsResponse { records, next })
        });
        reply(Box::pin(stream) as RecordStream)
    }

    async fn list_training_compliance(
        &self,
        request: Request<pb::ListTrainingComplianceRequest>,
    ) -> RpcResult<pb::ListTrainingComplianceResponse> {
        let deadline = Deadline::of_call(request.metadata());
        let caller = Caller::of(&request);
        caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)?;
        let m = request.get_ref();
        let page = Page::parse(m.after_course_id, m.limit)?;
        let after = (page.after, m.after_user_id);
        let on_behalf = OnBehalf {
            metadata: request.metadata(),
            limit: deadline.remaining(),
        };
        let (items, today) = integration::compliance(
            &self.store,
            &self.staff,
            on_behalf,
            m.course_id,
            after,
            page.limit,
        )
        .await?;
        let (next_course_id, next_user_id) = items
            .last()
            .map_or(after, |item| (item.row.course_id, item.row.user_id));
        reply(pb::ListTrainingComplianceResponse {
            items: items.into_iter().map(Into::into).collect(),
            next_course_id,
            next_user_id,
            today: today.to_string(),
        })
    }

    async fn assign_course(
        &self,
        request: Request<pb::AssignCourseRequest>,
    ) -> RpcResult<pb::AssignCourseResponse> {
        let deadline = Deadline::of_call(request.metadata());
        let caller = Caller::of(&request);
        let author = author(
            caller.require_right_or_scope(Right::EducationManagement, Scope::TrainingAssign)?,
        );
        let m = request.get_ref();
        let keys = AssignmentKeys::parse(
            &m.employee_numbers,
            &m.department_codes,
            &m.user_ids,
            &m.date_deadline,
        )?;
        let on_behalf = OnBehalf {
            metadata: request.metadata(),
            limit: deadline.remaining(),
        };
        let assignment = integration::assign_course(
            &self.store,
            &self.staff,
            on_behalf,
            m.course_id,
            keys,
            (author, &self.audit(&request)),
            now_millis(),
        )
        .await?;
        reply(assignment.into())
    }

    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        let viewer = viewer(&Caller::of(&request))?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &search::KINDS)?;
        let found = self.store.search(viewer, &asked).await?;
        reply(pb::SearchResponse {
            hits: found
                .into_iter()
                .map(portal_kit::search_hit!(pb::SearchHit))
                .collect(),
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
