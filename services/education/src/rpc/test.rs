//! Tests, their attempts and results: a learner's own tries and hand-ins, and
//! EducationManagement's full tests, statistics and writes.

use super::{EducationRpc, RpcResult, editor, question_inputs, reply, subject_user, viewer};
use crate::app::attempts;
use crate::app::compliance::course_compliance;
use crate::app::my_tests::my_tests;
use crate::convert;
use crate::domain::attempt::Submission;
use crate::domain::statistics::{FilterInput, ResultFilter};
use crate::domain::test::TestDraft;
use crate::store::WriteContext;
use crate::store::{AttemptChoice, Viewer};
use portal_kit::db::now_millis;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::{Caller, Right, ServiceError};
use portal_proto::education::v1 as pb;
use tonic::Request;

pub(super) async fn list_tests(
    rpc: &EducationRpc,
    request: Request<pb::ListTestsRequest>,
) -> RpcResult<pb::ListTestsResponse> {
    let viewer = viewer(&Caller::of(&request))?;
    let tests = rpc.store.tests(viewer).await?;
    reply(pb::ListTestsResponse {
        tests: tests.into_iter().map(pb::TestInfo::from).collect(),
    })
}

pub(super) async fn get_test(
    rpc: &EducationRpc,
    request: Request<pb::GetTestRequest>,
) -> RpcResult<pb::GetTestResponse> {
    let viewer = viewer(&Caller::of(&request))?;
    let test = rpc.store.test(viewer, request.get_ref().test_id).await?;
    reply(pb::GetTestResponse {
        test: Some(test.into()),
    })
}

pub(super) async fn list_tests_by_article(
    rpc: &EducationRpc,
    request: Request<pb::ListTestsByArticleRequest>,
) -> RpcResult<pb::ListTestsByArticleResponse> {
    let viewer = viewer(&Caller::of(&request))?;
    let found = rpc
        .store
        .article(viewer, request.get_ref().article_id)
        .await?;
    let tests = rpc.store.tests_of_article(&found).await?;
    reply(pb::ListTestsByArticleResponse {
        tests: tests.into_iter().map(pb::TestInfo::from).collect(),
    })
}

pub(super) async fn get_test_summary(
    rpc: &EducationRpc,
    request: Request<pb::GetTestSummaryRequest>,
) -> RpcResult<pb::GetTestSummaryResponse> {
    let caller = Caller::of(&request);
    let user_id = subject_user(&caller, request.get_ref().user_id)?;
    let test = rpc
        .store
        .test(viewer(&caller)?, request.get_ref().test_id)
        .await?;
    let (used, open) = rpc.store.tries_used(test.id, user_id, now_millis()).await?;
    reply(pb::GetTestSummaryResponse {
        summary: Some(convert::summary(test, used, open)),
    })
}

pub(super) async fn list_user_test_results(
    rpc: &EducationRpc,
    request: Request<pb::ListUserTestResultsRequest>,
) -> RpcResult<pb::ListUserTestResultsResponse> {
    let caller = Caller::of(&request);
    let user_id = subject_user(&caller, request.get_ref().user_id)?;
    let test_id = request.get_ref().test_id;
    let results = rpc
        .store
        .user_results(user_id, (test_id > 0).then_some(test_id))
        .await?;
    reply(pb::ListUserTestResultsResponse {
        results: results.into_iter().map(pb::TestResult::from).collect(),
    })
}

pub(super) async fn list_my_tests(
    rpc: &EducationRpc,
    request: Request<pb::ListMyTestsRequest>,
) -> RpcResult<pb::ListMyTestsResponse> {
    let user_id = Caller::of(&request).user_id()?;
    let mine = my_tests(&rpc.store, user_id, now_millis()).await?;
    reply(pb::ListMyTestsResponse {
        tests: mine.into_iter().map(pb::AssignedTest::from).collect(),
    })
}

pub(super) async fn start_attempt(
    rpc: &EducationRpc,
    request: Request<pb::StartAttemptRequest>,
) -> RpcResult<pb::StartAttemptResponse> {
    let caller = Caller::of(&request);
    let user_id = caller.user_id()?;
    let started = attempts::start(
        &rpc.store,
        viewer(&caller)?,
        request.get_ref().test_id,
        user_id,
        now_millis(),
        &rpc.audit(&request),
    )
    .await?;
    reply(started.into())
}

pub(super) async fn complete_test(
    rpc: &EducationRpc,
    request: Request<pb::CompleteTestRequest>,
) -> RpcResult<pb::CompleteTestResponse> {
    let caller = Caller::of(&request);
    let claims = caller.claims()?;
    let message = request.get_ref();
    if message.user_id != 0 && message.user_id != claims.user_id {
        return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
    }
    let test = rpc.store.test(viewer(&caller)?, message.test_id).await?;
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
    let (completed, used) = rpc
        .store
        .complete_attempt(
            &test,
            claims.user_id,
            choice,
            &submission,
            &claims.departments,
            (now, &rpc.audit(&request)),
        )
        .await?;
    reply(convert::completed(completed, &test, used))
}

pub(super) async fn get_full_test(
    rpc: &EducationRpc,
    request: Request<pb::GetFullTestRequest>,
) -> RpcResult<pb::GetFullTestResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let test = rpc
        .store
        .test(Viewer::Everything, request.get_ref().test_id)
        .await?;
    let questions = rpc.store.full_questions(test.id).await?;
    reply(pb::GetFullTestResponse {
        test: Some(convert::full_test(test, questions)),
    })
}

pub(super) async fn list_all_test_results(
    rpc: &EducationRpc,
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
    let page = rpc.store.results(&filter).await?;
    reply(pb::ListAllTestResultsResponse {
        results: page.rows.into_iter().map(pb::TestResult::from).collect(),
        next_page_token: page.next.map(|mark| mark.token()).unwrap_or_default(),
        total_count: page.total.map_or(0, |total| total.counted),
        total_count_capped: page.total.is_some_and(|total| total.capped),
    })
}

pub(super) async fn get_course_compliance(
    rpc: &EducationRpc,
    request: Request<pb::GetCourseComplianceRequest>,
) -> RpcResult<pb::GetCourseComplianceResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let compliance = course_compliance(&rpc.store, request.get_ref().course_id).await?;
    reply(compliance.into())
}

pub(super) async fn get_question_analysis(
    rpc: &EducationRpc,
    request: Request<pb::GetQuestionAnalysisRequest>,
) -> RpcResult<pb::GetQuestionAnalysisResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let test = rpc
        .store
        .test(Viewer::Everything, request.get_ref().test_id)
        .await?;
    let stats = rpc.store.question_stats(test.id).await?;
    reply(pb::GetQuestionAnalysisResponse {
        questions: stats.into_iter().map(pb::QuestionAnalysis::from).collect(),
    })
}

pub(super) async fn create_test(
    rpc: &EducationRpc,
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
    let created = rpc
        .store
        .create_test(
            &draft,
            WriteContext {
                editor: &editor(claims),
                now: now_millis(),
            },
            &rpc.audit(&request),
        )
        .await?;
    let questions = rpc.store.full_questions(created.id).await?;
    reply(pb::CreateTestResponse {
        test: Some(convert::full_test(created, questions)),
    })
}

pub(super) async fn update_test(
    rpc: &EducationRpc,
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
    let updated = rpc
        .store
        .update_test(
            m.id,
            &draft,
            WriteContext {
                editor: &editor(claims),
                now: now_millis(),
            },
            &rpc.audit(&request),
        )
        .await?;
    let questions = rpc.store.full_questions(updated.id).await?;
    reply(pb::UpdateTestResponse {
        test: Some(convert::full_test(updated, questions)),
    })
}
