//! `portal.search.v1.SearchService`, which every service that keeps an index
//! serves over its own items: a found item as the contract's hit, and the
//! deprecated `Search` of a service's own contract answered by the shared one.

use portal_proto::search::v1 as pb;
use portal_proto::search::v1::search_service_server::SearchService;
use prost::Message;
use tonic::{Request, Response, Status};

use super::Found;
use crate::ServiceError;

impl From<Found> for pb::SearchHit {
    fn from(found: Found) -> pb::SearchHit {
        pb::SearchHit {
            kind: found.hit.kind,
            id: found.hit.entity_id,
            title: found.hit.title,
            snippet: found.hit.snippet,
            rank: found.hit.rank,
            path_ids: found.path_ids,
        }
    }
}

/// The answer of a search: the items found, best first.
pub fn answer(found: Vec<Found>) -> Response<pb::SearchResponse> {
    Response::new(pb::SearchResponse {
        hits: found.into_iter().map(pb::SearchHit::from).collect(),
    })
}

/// Answers a service's deprecated `Search` (its own contract's) by its
/// `SearchService`: the two contracts' messages have the same fields under
/// the same numbers, so each is the other re-read. The request's metadata and
/// extensions (the caller its token made) go along unchanged, and so do the
/// answer's.
pub async fn answer_deprecated<Q, A>(
    shared: &impl SearchService,
    request: Request<Q>,
) -> Result<Response<A>, Status>
where
    Q: Message,
    A: Message + Default,
{
    let (metadata, extensions, message) = request.into_parts();
    let request = Request::from_parts(metadata, extensions, reread(&message)?);
    let (metadata, message, extensions) = shared.search(request).await?.into_parts();
    Ok(Response::from_parts(
        metadata,
        reread(&message)?,
        extensions,
    ))
}

/// `message` decoded as `B`, a message with the same fields.
fn reread<A: Message, B: Message + Default>(message: &A) -> Result<B, Status> {
    B::decode(message.encode_to_vec().as_slice())
        .map_err(|error| ServiceError::internal(error).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Hit;
    use portal_proto::files::v1 as files;

    /// Answers one hit, naming in its title the caller the request carried.
    struct OneHit;

    #[derive(Clone)]
    struct CallerName(&'static str);

    #[tonic::async_trait]
    impl SearchService for OneHit {
        async fn search(
            &self,
            request: Request<pb::SearchRequest>,
        ) -> Result<Response<pb::SearchResponse>, Status> {
            let caller = request.extensions().get::<CallerName>().map_or("", |c| c.0);
            let asked = request.get_ref();
            let found = Found {
                hit: Hit {
                    kind: asked.kinds.join(","),
                    entity_id: i64::from(asked.limit),
                    title: format!("{} for {caller}", asked.query),
                    snippet: "<mark>a</mark>".into(),
                    rank: 0.5,
                },
                path_ids: vec![4, 5],
            };
            Ok(answer(vec![found]))
        }
    }

    #[tokio::test]
    async fn a_deprecated_search_is_answered_by_the_shared_one_with_its_caller() {
        let mut request = Request::new(files::SearchRequest {
            query: "монитор".into(),
            kinds: vec!["document".into()],
            limit: 7,
        });
        request.extensions_mut().insert(CallerName("nurse"));
        let answer: Response<files::SearchResponse> =
            answer_deprecated(&OneHit, request).await.unwrap();
        assert_eq!(
            answer.into_inner().hits,
            vec![files::SearchHit {
                kind: "document".into(),
                id: 7,
                title: "монитор for nurse".into(),
                snippet: "<mark>a</mark>".into(),
                rank: 0.5,
                path_ids: vec![4, 5],
            }]
        );
    }

    #[test]
    fn a_message_that_does_not_read_as_the_other_is_an_internal_error() {
        // A number (the hit's id) where the other has text under its number.
        let hit = pb::SearchHit {
            id: 3,
            ..Default::default()
        };
        let reread: Result<pb::SearchRequest, Status> = reread(&hit);
        assert_eq!(reread.unwrap_err().code(), tonic::Code::Internal);
    }
}
