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
//! them to operate equipment they see ([`crate::app::clearance`]). Search:
//! the shared SearchService (`portal.search.v1`) in [`search`].

mod revision;

mod for_systems;

mod search;

mod test;

pub use search::SearchRpc;

use std::pin::Pin;

use portal_kit::access::Actor;
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::net::TrustedProxies;
use portal_kit::token::Claims;
use portal_kit::{Caller, Right, ServiceResult};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_server::EducationService;
use tokio_stream::Stream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

use crate::app::clearance::{self, Equipment};
use crate::app::passes;
use crate::app::staff::{OnBehalf, Staff};
use crate::domain::article::{ArticleDraft, ContentCleaner};
use crate::domain::course::CourseDraft;
use crate::domain::integration::Author;
use crate::domain::pass::PassQuery;
use crate::domain::test::QuestionInput;
use crate::store::{Editor, Store, Viewer, WriteContext};

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
    /// Answers the deprecated Search.
    search: SearchRpc,
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
            search: SearchRpc::new(store.clone()),
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
            .create_article(
                &draft,
                WriteContext {
                    editor: &editor(claims),
                    now: now_millis(),
                },
                &audit,
            )
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
            .update_article(
                id,
                &draft,
                WriteContext {
                    editor: &editor(claims),
                    now: now_millis(),
                },
                &audit,
            )
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
        let on_behalf = OnBehalf::of(&request);
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
        let on_behalf = OnBehalf::of(&request);
        let user_id = Caller::of(&request).user_id()?;
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
        test::list_tests(self, request).await
    }

    async fn get_test(
        &self,
        request: Request<pb::GetTestRequest>,
    ) -> RpcResult<pb::GetTestResponse> {
        test::get_test(self, request).await
    }

    async fn list_tests_by_article(
        &self,
        request: Request<pb::ListTestsByArticleRequest>,
    ) -> RpcResult<pb::ListTestsByArticleResponse> {
        test::list_tests_by_article(self, request).await
    }

    async fn get_test_summary(
        &self,
        request: Request<pb::GetTestSummaryRequest>,
    ) -> RpcResult<pb::GetTestSummaryResponse> {
        test::get_test_summary(self, request).await
    }

    async fn list_user_test_results(
        &self,
        request: Request<pb::ListUserTestResultsRequest>,
    ) -> RpcResult<pb::ListUserTestResultsResponse> {
        test::list_user_test_results(self, request).await
    }

    async fn list_my_tests(
        &self,
        request: Request<pb::ListMyTestsRequest>,
    ) -> RpcResult<pb::ListMyTestsResponse> {
        test::list_my_tests(self, request).await
    }

    // --- Tests (taking) ---

    async fn start_attempt(
        &self,
        request: Request<pb::StartAttemptRequest>,
    ) -> RpcResult<pb::StartAttemptResponse> {
        test::start_attempt(self, request).await
    }

    async fn complete_test(
        &self,
        request: Request<pb::CompleteTestRequest>,
    ) -> RpcResult<pb::CompleteTestResponse> {
        test::complete_test(self, request).await
    }

    // --- Tests (administration) ---

    async fn get_full_test(
        &self,
        request: Request<pb::GetFullTestRequest>,
    ) -> RpcResult<pb::GetFullTestResponse> {
        test::get_full_test(self, request).await
    }

    async fn list_all_test_results(
        &self,
        request: Request<pb::ListAllTestResultsRequest>,
    ) -> RpcResult<pb::ListAllTestResultsResponse> {
        test::list_all_test_results(self, request).await
    }

    async fn get_course_compliance(
        &self,
        request: Request<pb::GetCourseComplianceRequest>,
    ) -> RpcResult<pb::GetCourseComplianceResponse> {
        test::get_course_compliance(self, request).await
    }

    async fn get_question_analysis(
        &self,
        request: Request<pb::GetQuestionAnalysisRequest>,
    ) -> RpcResult<pb::GetQuestionAnalysisResponse> {
        test::get_question_analysis(self, request).await
    }

    async fn create_test(
        &self,
        request: Request<pb::CreateTestRequest>,
    ) -> RpcResult<pb::CreateTestResponse> {
        test::create_test(self, request).await
    }

    async fn update_test(
        &self,
        request: Request<pb::UpdateTestRequest>,
    ) -> RpcResult<pb::UpdateTestResponse> {
        test::update_test(self, request).await
    }

    // --- Revisions ---

    async fn list_article_revisions(
        &self,
        request: Request<pb::ListArticleRevisionsRequest>,
    ) -> RpcResult<pb::ListArticleRevisionsResponse> {
        revision::list_article_revisions(self, request).await
    }

    async fn get_article_revision(
        &self,
        request: Request<pb::GetArticleRevisionRequest>,
    ) -> RpcResult<pb::GetArticleRevisionResponse> {
        revision::get_article_revision(self, request).await
    }

    async fn restore_article_revision(
        &self,
        request: Request<pb::RestoreArticleRevisionRequest>,
    ) -> RpcResult<pb::RestoreArticleRevisionResponse> {
        revision::restore_article_revision(self, request).await
    }

    async fn list_test_revisions(
        &self,
        request: Request<pb::ListTestRevisionsRequest>,
    ) -> RpcResult<pb::ListTestRevisionsResponse> {
        revision::list_test_revisions(self, request).await
    }

    async fn get_test_revision(
        &self,
        request: Request<pb::GetTestRevisionRequest>,
    ) -> RpcResult<pb::GetTestRevisionResponse> {
        revision::get_test_revision(self, request).await
    }

    async fn restore_test_revision(
        &self,
        request: Request<pb::RestoreTestRevisionRequest>,
    ) -> RpcResult<pb::RestoreTestRevisionResponse> {
        revision::restore_test_revision(self, request).await
    }

    // --- Integration ---

    async fn list_training_records(
        &self,
        request: Request<pb::ListTrainingRecordsRequest>,
    ) -> RpcResult<pb::ListTrainingRecordsResponse> {
        for_systems::list_training_records(self, request).await
    }

    async fn watch_training_records(
        &self,
        request: Request<pb::WatchTrainingRecordsRequest>,
    ) -> RpcResult<Self::WatchTrainingRecordsStream> {
        for_systems::watch_training_records(self, request).await
    }

    async fn list_training_compliance(
        &self,
        request: Request<pb::ListTrainingComplianceRequest>,
    ) -> RpcResult<pb::ListTrainingComplianceResponse> {
        for_systems::list_training_compliance(self, request).await
    }

    async fn assign_course(
        &self,
        request: Request<pb::AssignCourseRequest>,
    ) -> RpcResult<pb::AssignCourseResponse> {
        for_systems::assign_course(self, request).await
    }

    /// Deprecated: SearchService's Search answers it.
    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        portal_kit::search::answer_deprecated(&self.search, request).await
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
