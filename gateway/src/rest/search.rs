//! Search across the portal (issue 25): `GET /api/search?q=&kinds=` asks
//! every service that keeps an index (auth, education, wiki, files) at once,
//! each within the call's time-out and on the caller's behalf, so each
//! answers only what the caller may open; their hits are merged by rank and
//! each gets the link of its web page. A service that is down or too slow is
//! left out (and logged), not a failure of the whole search.

use crate::rest::route::get;
use axum::extract::State;
use futures_util::future::join_all;
use portal_kit::ServiceError;
use portal_kit::search::{DEFAULT_LIMIT, MAX_LIMIT, MSG_EMPTY_QUERY, REASON_EMPTY_QUERY};
use portal_proto::search::v1::SearchResponse;
use portal_proto::search::v1::{SearchRequest, search_service_client::SearchServiceClient};
use serde::{Deserialize, Serialize};
use tonic::Status;
use utoipa::{IntoParams, ToSchema};

use super::{ApiError, ApiResult, AppState, CallContext, Data, Endpoint, Query, docs, left_out};

pub fn endpoints() -> Vec<Endpoint> {
    vec![Endpoint::get(
        "/api/search",
        "Поиск по порталу: курсы, статьи, тесты, оборудование, документы, сотрудники и отделения, которые может открыть сотрудник",
        docs::query::<SearchQuery>,
        get(search),
    )]
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct SearchQuery {
    /// What the person typed: Russian word forms, `ё` and Latin lookalikes
    /// alike; the last word may be the start of one.
    q: String,
    /// The kinds to look for, comma-separated (`course`, `article`, `test`,
    /// `environment-model`, `environment`, `document`, `user`,
    /// `department`); none = every kind.
    #[serde(default)]
    kinds: Option<String>,
    /// At most this many hits, 1..50; 20 when left out.
    #[serde(default)]
    limit: Option<i32>,
}

/// One hit, as the web lists it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Found {
    kind: String,
    id: i64,
    title: String,
    /// Plain text HTML-escaped, the matching words in `<mark>`.
    snippet: String,
    /// The web page that opens it.
    url: String,
    #[serde(skip)]
    rank: f64,
}

/// A service's hits as the web lists them.
fn found(answer: SearchResponse) -> Vec<Found> {
    answer
        .hits
        .into_iter()
        .map(|hit| Found {
            url: url(&hit.kind, hit.id, &hit.path_ids),
            kind: hit.kind,
            id: hit.id,
            title: hit.title,
            snippet: hit.snippet,
            rank: hit.rank,
        })
        .collect()
}

async fn search(
    State(state): State<AppState>,
    caller: CallContext,
    Query(query): Query<SearchQuery>,
) -> ApiResult<Vec<Found>> {
    if portal_kit::search::Query::parse(&query.q).is_none() {
        let refusal = ServiceError::invalid(MSG_EMPTY_QUERY).because(REASON_EMPTY_QUERY);
        return Err(Status::from(refusal).into());
    }
    let kinds: Vec<String> = query
        .kinds
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|kind| !kind.is_empty())
        .map(str::to_owned)
        .collect();
    portal_kit::search::known_kinds(&kinds).map_err(Status::from)?;
    let limit = query
        .limit
        .and_then(|limit| usize::try_from(limit).ok())
        .filter(|limit| *limit > 0)
        .map_or(DEFAULT_LIMIT, |limit| limit.min(MAX_LIMIT));
    let request = SearchRequest {
        query: query.q,
        kinds,
        limit: i32::try_from(limit).unwrap_or(i32::MAX),
    };
    // Every service serves the same SearchService over its own items.
    let upstreams = &state.upstreams;
    let services = [
        ("auth", &upstreams.auth),
        ("education", &upstreams.education),
        ("wiki", &upstreams.wiki),
        ("files", &upstreams.files),
    ];
    let answers = join_all(services.map(|(_, upstream)| {
        let mut client = SearchServiceClient::new(upstream.channel.clone());
        let request = caller.request(request.clone());
        async move { client.search(request).await }
    }))
    .await;
    let mut hits = Vec::new();
    for ((service, _), answer) in services.into_iter().zip(answers) {
        hits.extend(answered(
            service,
            answer.map(|reply| found(reply.into_inner())),
        )?);
    }
    hits.sort_by(|a, b| {
        b.rank
            .total_cmp(&a.rank)
            .then_with(|| a.title.cmp(&b.title))
    });
    hits.truncate(limit);
    Ok(Data(hits))
}

/// A service's hits; none, logged, when it could not answer (down, too
/// slow, or a release without search), so the others' still count. A
/// refusal of the caller (an expired or revoked token) fails the search as
/// it would any call.
fn answered(service: &str, answer: Result<Vec<Found>, Status>) -> Result<Vec<Found>, ApiError> {
    match answer {
        Ok(hits) => Ok(hits),
        Err(status) if left_out(&status) => {
            tracing::warn!(service, code = ?status.code(), cause = %status.message(), "search left a service out");
            Ok(Vec::new())
        }
        Err(status) => Err(status.into()),
    }
}

/// The web page of a hit (the routes of `web/src/config/paths.ts`), from the
/// ids above it on that page's path; an item reached by no such path (a
/// manager's article in no course, an editor's model without units) opens in
/// the admin pages.
fn url(kind: &str, id: i64, path: &[i64]) -> String {
    match (kind, path) {
        ("course", _) => format!("/courses/{id}"),
        ("article", [course, ..]) => format!("/courses/{course}/article/{id}"),
        ("article", []) => format!("/admin/education/articles/{id}"),
        ("test", [course, article, ..]) => {
            format!("/courses/{course}/article/{article}/test/{id}")
        }
        ("test", _) => format!("/admin/education/tests/{id}"),
        // A model or a unit opens the model's instruction, the tab a person
        // looking for a device wants (issue 37).
        ("environment-model", [department, ..]) => {
            format!("/departments/environments/{department}/environment/{id}/short-instruction")
        }
        ("environment-model", []) => format!("/admin/equipments/equipment-models/{id}"),
        ("environment", [department, model, ..]) => {
            format!("/departments/environments/{department}/environment/{model}/short-instruction")
        }
        ("document", [department, model, ..]) => {
            format!("/departments/environments/{department}/environment/{model}/documentation")
        }
        ("document", [model]) => format!("/admin/equipments/equipment-models/{model}"),
        ("user", _) => format!("/admin/users-management/admin-users/{id}"),
        ("department", _) => format!("/admin/users-management/admin-departments/{id}"),
        _ => "/home".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_links_to_its_page_or_else_to_the_admin_page() {
        assert_eq!(url("test", 3, &[1, 2]), "/courses/1/article/2/test/3");
        assert_eq!(url("article", 2, &[]), "/admin/education/articles/2");
        assert_eq!(
            url("environment", 9, &[4, 5]),
            "/departments/environments/4/environment/5/short-instruction"
        );
        assert_eq!(
            url("environment-model", 5, &[4]),
            "/departments/environments/4/environment/5/short-instruction"
        );
        assert_eq!(
            url("document", 7, &[4, 5]),
            "/departments/environments/4/environment/5/documentation"
        );
        assert_eq!(
            url("document", 7, &[5]),
            "/admin/equipments/equipment-models/5"
        );
    }
}

docs::typed!(Found);
