//! `portal.search.v1.SearchService` over people and departments, which also
//! answers AuthService's deprecated Search.

use portal_kit::search::{self, Asked};
use portal_kit::{Caller, Right};
use portal_proto::search::v1 as pb;
use portal_proto::search::v1::search_service_server::SearchService;
use tonic::{Request, Response, Status};

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
    /// UserManagement finds people and departments; anyone else signed in
    /// nothing (the gateway asks every service on everyone's behalf).
    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        let caller = Caller::of(&request);
        caller.claims()?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &KINDS)?;
        let found = if caller.has(Right::UserManagement) {
            self.store.search(&asked).await?
        } else {
            Vec::new()
        };
        Ok(search::answer(found))
    }
}
