//! `portal.search.v1.SearchService` over documents, which also answers
//! FilesService's deprecated Search.

use std::collections::{BTreeMap, BTreeSet};

use futures_util::future::join_all;
use portal_kit::Caller;
use portal_kit::deadline::Deadline;
use portal_kit::search::{self, Asked};
use portal_proto::search::v1 as pb;
use portal_proto::search::v1::search_service_server::SearchService;
use tonic::{Request, Response, Status};

use crate::app::models::Models;
use crate::store::Store;
use crate::store::search::KINDS;

pub struct SearchRpc {
    store: Store,
    /// The wiki, which decides whose models a document's are.
    models: Models,
}

impl SearchRpc {
    pub fn new(store: Store, models: Models) -> SearchRpc {
        SearchRpc { store, models }
    }
}

#[tonic::async_trait]
impl SearchService for SearchRpc {
    /// Any signed-in person, who finds the documents of the equipment models
    /// they see.
    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        let deadline = Deadline::of_call(request.metadata());
        Caller::of(&request).claims()?;
        let m = request.get_ref();
        let asked = Asked::parse(&m.query, &m.kinds, m.limit, &KINDS)?;
        // More than asked: some may be of models the caller does not see.
        let found = self.store.search(&asked, asked.limit * 4).await?;
        let models: BTreeSet<i64> = found
            .iter()
            .filter_map(|f| f.path_ids.first().copied())
            .collect();
        let answers = join_all(
            models
                .iter()
                .map(|id| self.models.check(request.metadata(), deadline, *id)),
        )
        .await;
        // Each visible model's path: the department whose page shows it, if any.
        let mut paths = BTreeMap::new();
        for (id, answer) in models.iter().zip(answers) {
            let answer = answer?;
            if answer.visible {
                let department = (answer.department_id > 0).then_some(answer.department_id);
                paths.insert(*id, department.into_iter().chain([*id]).collect::<Vec<_>>());
            }
        }
        let visible = found
            .into_iter()
            .filter_map(|mut f| {
                let path = paths.get(f.path_ids.first()?)?;
                f.path_ids.clone_from(path);
                Some(f)
            })
            .take(asked.limit)
            .collect();
        Ok(search::answer(visible))
    }
}
