//! Revisions of articles and tests (issue 25): lists, one version, and a restore,
//! which is a new save; EducationManagement.

use super::{EducationRpc, RpcResult, editor, reply};
use crate::convert;
use crate::store::WriteContext;
use portal_kit::db::now_millis;
use portal_kit::{Caller, Right};
use portal_proto::education::v1 as pb;
use tonic::Request;

pub(super) async fn list_article_revisions(
    rpc: &EducationRpc,
    request: Request<pb::ListArticleRevisionsRequest>,
) -> RpcResult<pb::ListArticleRevisionsResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let revisions = rpc
        .store
        .article_revisions(request.get_ref().article_id)
        .await?;
    reply(pb::ListArticleRevisionsResponse {
        revisions: revisions.into_iter().map(pb::Revision::from).collect(),
    })
}

pub(super) async fn get_article_revision(
    rpc: &EducationRpc,
    request: Request<pb::GetArticleRevisionRequest>,
) -> RpcResult<pb::GetArticleRevisionResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let m = request.get_ref();
    let (revision, article) = rpc
        .store
        .article_revision(m.article_id, m.revision_id)
        .await?;
    reply(pb::GetArticleRevisionResponse {
        revision: Some(revision.into()),
        article: Some(article.into()),
    })
}

pub(super) async fn restore_article_revision(
    rpc: &EducationRpc,
    request: Request<pb::RestoreArticleRevisionRequest>,
) -> RpcResult<pb::RestoreArticleRevisionResponse> {
    let caller = Caller::of(&request);
    let claims = caller.require(Right::EducationManagement)?;
    let audit = rpc.audit(&request);
    let m = request.get_ref();
    let article = rpc
        .store
        .restore_article(
            m.article_id,
            m.revision_id,
            WriteContext {
                editor: &editor(claims),
                now: now_millis(),
            },
            &audit,
        )
        .await?;
    reply(pb::RestoreArticleRevisionResponse {
        article: Some(article.into()),
    })
}

pub(super) async fn list_test_revisions(
    rpc: &EducationRpc,
    request: Request<pb::ListTestRevisionsRequest>,
) -> RpcResult<pb::ListTestRevisionsResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let revisions = rpc.store.test_revisions(request.get_ref().test_id).await?;
    reply(pb::ListTestRevisionsResponse {
        revisions: revisions.into_iter().map(pb::Revision::from).collect(),
    })
}

pub(super) async fn get_test_revision(
    rpc: &EducationRpc,
    request: Request<pb::GetTestRevisionRequest>,
) -> RpcResult<pb::GetTestRevisionResponse> {
    Caller::of(&request).require(Right::EducationManagement)?;
    let m = request.get_ref();
    let (revision, test, questions) = rpc.store.test_revision(m.test_id, m.revision_id).await?;
    reply(pb::GetTestRevisionResponse {
        revision: Some(revision.into()),
        test: Some(convert::full_test(test, questions)),
    })
}

pub(super) async fn restore_test_revision(
    rpc: &EducationRpc,
    request: Request<pb::RestoreTestRevisionRequest>,
) -> RpcResult<pb::RestoreTestRevisionResponse> {
    let caller = Caller::of(&request);
    let claims = caller.require(Right::EducationManagement)?;
    let audit = rpc.audit(&request);
    let m = request.get_ref();
    let restored = rpc
        .store
        .restore_test(
            m.test_id,
            m.revision_id,
            WriteContext {
                editor: &editor(claims),
                now: now_millis(),
            },
            &audit,
        )
        .await?;
    let questions = rpc.store.full_questions(restored.id).await?;
    reply(pb::RestoreTestRevisionResponse {
        test: Some(convert::full_test(restored, questions)),
    })
}
