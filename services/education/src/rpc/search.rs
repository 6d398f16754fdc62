//! `portal.search.v1.SearchService` over courses, articles and tests, which
//! also answers EducationService's deprecated Search.

use portal_kit::Caller;
use portal_kit::search::{self, Asked};
use portal_proto::search::v1 as pb;
use portal_proto::search::v1::search_service_server::SearchService;
use tonic::{Request, Response, Status};

use super::viewer;
use crate::store::Store;
use crate::store::search::KINDS;

pub struct SearchRpc {
    store: Store,
}

impl SearchRpc {
    pub fn new(store: Store) -> SearchRpc {
        SearchRpc { store }
    }
}

#[tonic::async_trait]
impl SearchService for SearchRpc {
    /// With EducationManagement everything; anyone else signed in what is
    /// assigned to them.
    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        let viewer = viewer(&Caller::of(&request))?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &KINDS)?;
        let found = self.store.search(viewer, &asked).await?;
        Ok(search::answer(found))
    }
}
