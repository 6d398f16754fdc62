//! `portal.search.v1.SearchService` over equipment models and units, which
//! also answers WikiService's deprecated Search.

use portal_kit::Caller;
use portal_kit::search::{self, Asked};
use portal_proto::search::v1 as pb;
use portal_proto::search::v1::search_service_server::SearchService;
use tonic::{Request, Response, Status};

use crate::domain::scope::Scope;
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
    /// The models and units the caller sees, as ListEnvironmentModels has them.
    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        let scope = Scope::of(&Caller::of(&request))?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &KINDS)?;
        let found = self.store.search(&scope, &asked).await?;
        Ok(search::answer(found))
    }
}
