//! The shared search (`portal.search.v1`) as every service's tests see it:
//! its access rule, and its answers checked against the deprecated `Search`
//! of the service's own contract.

use super::*;
use portal_proto::search::v1::search_service_client::SearchServiceClient;
use portal_proto::search::v1::{SearchRequest, SearchResponse};
use prost::Message;
use tonic::Response;

/// The shared search's rule, the same in every service: anyone signed in
/// may ask (each finds only what they may open), no service account.
pub const SEARCH_MATRIX: &[AccessRule] = &[(
    "Search",
    [
        Code::Unauthenticated,
        Code::Ok,
        Code::Ok,
        Code::Ok,
        Code::Ok,
    ],
)];

/// Calls the `SearchService` a service serves beside its own (on
/// `harness`'s channel) as every caller of [`SEARCH_MATRIX`] and with a
/// service account's token of each scope, and fails on any answer but the
/// rule's.
pub async fn assert_search_access<C>(harness: &ServiceHarness<C>) {
    let mut client = SearchServiceClient::new(harness.channel.clone());
    matrix::assert_served_beside(harness, SEARCH_MATRIX, async |token| {
        let request = SearchRequest {
            query: "монитор".into(),
            ..Default::default()
        };
        code(&client.search(with_token(request, token)).await)
    })
    .await;
}

/// A service's answer to `query` (every kind, the default limit) from
/// `token`'s holder, asked of the `SearchService` it serves beside its own;
/// its deprecated `Search` (`deprecated`, handed the request as its own
/// contract's message) must answer the same: the same bytes, or a refusal
/// with the same code.
pub async fn search_as<C, Q, A>(
    harness: &ServiceHarness<C>,
    token: &str,
    query: &str,
    deprecated: impl AsyncFnOnce(Request<Q>) -> Result<Response<A>, Status>,
) -> Result<SearchResponse, Status>
where
    Q: Message + Default,
    A: Message + Debug,
{
    let request = SearchRequest {
        query: query.into(),
        ..Default::default()
    };
    let own = Q::decode(request.encode_to_vec().as_slice()).expect("the same message");
    let own = deprecated(authed(own, token)).await;
    let shared = shared_search(harness, token, query).await;
    match (&own, &shared) {
        (Ok(own), Ok(shared)) => assert_eq!(
            own.get_ref().encode_to_vec(),
            shared.encode_to_vec(),
            "the deprecated Search answers as the shared one, on {:?}",
            harness.backend
        ),
        (Err(own), Err(shared)) => assert_eq!(own.code(), shared.code(), "{own:?}"),
        _ => panic!("the deprecated Search answered {own:?}, the shared one {shared:?}"),
    }
    shared
}

/// A service's answer to `query` from `token`'s holder, asked of the
/// `SearchService` it serves beside its own alone (where the index may change
/// between two calls, as while a text is read in the background).
pub async fn shared_search<C>(
    harness: &ServiceHarness<C>,
    token: &str,
    query: &str,
) -> Result<SearchResponse, Status> {
    let request = SearchRequest {
        query: query.into(),
        ..Default::default()
    };
    SearchServiceClient::new(harness.channel.clone())
        .search(authed(request, token))
        .await
        .map(Response::into_inner)
}
