//! Auth's search (issue 25) through the shared SearchService: user managers
//! find people and departments, anyone else signed in nothing; the
//! deprecated AuthService.Search answers the same.

use portal_kit::testing::{self, SEARCH_MATRIX, assert_matrix_covers};
use portal_proto::search::v1::SearchHit;

use crate::helpers::*;

/// The hits of `query`, which the deprecated Search must answer alike.
#[allow(deprecated)]
async fn search(app: &TestApp, token: &str, query: &str) -> Vec<SearchHit> {
    let mut client = app.client.clone();
    let answer = testing::search_as(app, token, query, async |r| client.search(r).await).await;
    answer.expect("search").hits
}

#[tokio::test]
async fn user_managers_find_a_department_and_anyone_else_nothing() {
    on_each_backend(false, |app| async move {
        let department = app
            .create_department("Кардиологическое отделение", &[])
            .await;
        let hits = search(&app, &app.admin_token(), "кардиологическое").await;
        let found: Vec<_> = hits.iter().map(|h| (h.kind.as_str(), h.id)).collect();
        assert_eq!(found, [("department", department.id)]);
        let learner = app.token(7, &[]);
        assert!(search(&app, &learner, "кардиологическое").await.is_empty());
    })
    .await;
}

#[tokio::test]
async fn anyone_signed_in_searches_and_no_service_account() {
    on_each_backend(false, |app| async move {
        testing::assert_search_access(&app).await;
    })
    .await;
}

#[test]
fn the_search_matrix_covers_every_rpc_of_the_contract() {
    assert_matrix_covers(SEARCH_MATRIX, "portal.search.v1", "SearchService");
}
