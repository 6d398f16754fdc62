//! Revisions of articles and tests (issue 25), in the spec's style: a list of
//! an item's saves (who, when, size), one save's fields, and restoring one as
//! a new save. Education managers only; the service checks.

use crate::rest::route::{get, post};
use portal_proto::education::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::super::forward::{forward, method};
use super::super::{Body, Endpoint, Query, docs};
use super::{IdArticle, IdTest, TestJson, client};

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/course/get-article-revisions",
            "Версии статьи (кто и когда сохранил), новые первыми",
            docs::query::<IdArticle>,
            get(forward(
                |Query(query): Query<IdArticle>| pb::ListArticleRevisionsRequest {
                    article_id: query.id_article,
                },
                method!(client, list_article_revisions),
                |reply| reply.revisions,
            )),
        ),
        Endpoint::get(
            "/api/course/get-article-revision",
            "Версия статьи с её полями",
            docs::query::<ArticleRevision>,
            get(forward(
                |Query(query): Query<ArticleRevision>| pb::GetArticleRevisionRequest {
                    article_id: query.id_article,
                    revision_id: query.revision_id,
                },
                method!(client, get_article_revision),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/course/restore-article-revision",
            "Восстановить версию статьи (новая версия)",
            docs::json::<ArticleRevision>(),
            post(forward(
                |Body(body): Body<ArticleRevision>| pb::RestoreArticleRevisionRequest {
                    article_id: body.id_article,
                    revision_id: body.revision_id,
                },
                method!(client, restore_article_revision),
                |reply| reply.article,
            )),
        ),
        Endpoint::get(
            "/api/test/get-test-revisions",
            "Версии теста (кто и когда сохранил), новые первыми",
            docs::query::<IdTest>,
            get(forward(
                |Query(query): Query<IdTest>| pb::ListTestRevisionsRequest {
                    test_id: query.id_test,
                },
                method!(client, list_test_revisions),
                |reply| reply.revisions,
            )),
        ),
        Endpoint::get(
            "/api/test/get-test-revision",
            "Версия теста с вопросами и ответами",
            docs::query::<TestRevision>,
            get(forward(
                |Query(query): Query<TestRevision>| pb::GetTestRevisionRequest {
                    test_id: query.id_test,
                    revision_id: query.revision_id,
                },
                method!(client, get_test_revision),
                TestRevisionJson::from,
            )),
        ),
        Endpoint::post(
            "/api/test/restore-test-revision",
            "Восстановить версию теста (новая версия; результаты не меняются)",
            docs::json::<TestRevision>(),
            post(forward(
                |Body(body): Body<TestRevision>| pb::RestoreTestRevisionRequest {
                    test_id: body.id_test,
                    revision_id: body.revision_id,
                },
                method!(client, restore_test_revision),
                |reply| reply.test.map(TestJson::from),
            )),
        ),
    ]
}

/// An article's revision: `idArticle` as the article's other routes name it.
#[derive(Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ArticleRevision {
    id_article: i64,
    revision_id: i64,
}

/// A test's revision: `idTest` as the test's other routes name it.
#[derive(Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TestRevision {
    id_test: i64,
    revision_id: i64,
}

/// A test's revision with the test in spec §3's shape (`question[]` with
/// `answer[]`), as the test's other routes answer it.
#[derive(Serialize, ToSchema)]
struct TestRevisionJson {
    #[schema(schema_with = docs::maybe_message::<pb::Revision>)]
    revision: Option<pb::Revision>,
    test: Option<TestJson>,
}

impl From<pb::GetTestRevisionResponse> for TestRevisionJson {
    fn from(reply: pb::GetTestRevisionResponse) -> Self {
        TestRevisionJson {
            revision: reply.revision,
            test: reply.test.map(TestJson::from),
        }
    }
}

docs::typed!(TestRevisionJson);
