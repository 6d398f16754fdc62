//! Search of courses, articles and tests (issue 25): a learner finds only
//! what is assigned to them, a manager everything, each hit with the path
//! of its page.

use portal_kit::testing;
use portal_proto::education::v1 as pb;
use portal_proto::search::v1::SearchHit;

use crate::helpers::*;

/// The hits of `query`, which the deprecated Search must answer alike.
#[allow(deprecated)]
async fn search(app: &TestApp, token: &str, query: &str) -> Vec<SearchHit> {
    let mut client = app.client.clone();
    let answer = testing::search_as(app, token, query, async |r| client.search(r).await).await;
    answer.expect("search").hits
}

fn found(hits: &[SearchHit]) -> Vec<(&str, i64)> {
    hits.iter().map(|h| (h.kind.as_str(), h.id)).collect()
}

async fn course(app: &TestApp, title: &str, users: &[i64], articles: &[i64]) -> pb::Course {
    app.client
        .clone()
        .create_course(authed(
            pb::CreateCourseRequest {
                title: title.into(),
                description: "Обязательный курс".into(),
                date_deadline: "2099-01-31".into(),
                user_ids: users.to_vec(),
                article_ids: articles.to_vec(),
                validity_months: 0,
            },
            &app.admin_token(),
        ))
        .await
        .unwrap()
        .into_inner()
        .course
        .unwrap()
}

#[tokio::test]
async fn a_learner_finds_only_what_is_assigned_to_them() {
    on_each_backend(|app| async move {
        let test = app
            .create_test(test_request([1, 1, 1], questions(1)))
            .await
            .unwrap();
        let article = app
            .create_article("<p>Перед <b>обработкой</b> рук снимите кольца</p>", test.id)
            .await;
        let assigned = course(&app, "Гигиена рук", &[LEARNER_ID], &[article.id]).await;
        let hidden = course(&app, "Секретная реанимация", &[OTHER_LEARNER_ID], &[]).await;
        let learner = app.learner_token();

        // "обработке рук": another form of the article's words.
        let hits = search(&app, &learner, "обработке рук").await;
        assert_eq!(found(&hits), [("article", article.id)]);
        assert_eq!(hits[0].path_ids, [assigned.id]);
        assert!(
            hits[0]
                .snippet
                .contains("<mark>обработкой</mark> <mark>рук</mark>"),
            "{}",
            hits[0].snippet
        );
        let tests = search(&app, &learner, &test.title).await;
        assert!(
            tests
                .iter()
                .any(|h| h.kind == "test" && h.path_ids == [assigned.id, article.id]),
            "{tests:?}"
        );

        // A prefix of a course not theirs finds nothing; a manager finds it.
        assert!(search(&app, &learner, "секретн").await.is_empty());
        assert!(
            search(&app, &app.token(OTHER_LEARNER_ID, &[]), "гигиен")
                .await
                .is_empty()
        );
        let manager = search(&app, &app.admin_token(), "секретн").await;
        assert_eq!(found(&manager), [("course", hidden.id)]);

        // A renamed course is found by its new name at once.
        app.client
            .clone()
            .update_course(authed(
                pb::UpdateCourseRequest {
                    id: assigned.id,
                    title: "Антисептика".into(),
                    description: "Обязательный курс".into(),
                    date_deadline: "2099-01-31".into(),
                    user_ids: vec![LEARNER_ID],
                    article_ids: vec![article.id],
                    validity_months: None,
                },
                &app.admin_token(),
            ))
            .await
            .unwrap();
        assert_eq!(
            found(&search(&app, &learner, "антисептику").await),
            [("course", assigned.id)]
        );
    })
    .await;
}

#[tokio::test]
async fn anyone_signed_in_searches_and_no_service_account() {
    on_each_backend(|app| async move { testing::assert_search_access(&app).await }).await;
}

#[test]
fn the_search_matrix_covers_every_rpc_of_the_contract() {
    testing::assert_matrix_covers(testing::SEARCH_MATRIX, "portal.search.v1", "SearchService");
}
