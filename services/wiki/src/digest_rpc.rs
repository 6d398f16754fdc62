//! The gRPC face of the wiki's part of the daily digest
//! (`DigestItemService`, internal): the courses equipment requires, and each
//! named person's items by the bell's own rules. No token: the gateway does
//! not forward it and only the services reach the wiki's port, as with
//! auth's `MailRecipientService`. A file of its own beside [`crate::rpc`], as
//! its contract is.

use portal_kit::day::Day;
use portal_kit::db::now_millis;
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::digest_item_service_server::DigestItemService;
use tonic::{Request, Response, Status};

use crate::app::clearance::{millis, required_course_ids};
use crate::app::notifications::digest_items;
use crate::convert;
use crate::domain::digest::{self, Person};
use crate::store::Store;

pub struct DigestRpc {
    store: Store,
}

impl DigestRpc {
    pub fn new(store: Store) -> DigestRpc {
        DigestRpc { store }
    }
}

type RpcResult<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl DigestItemService for DigestRpc {
    async fn list_required_courses(
        &self,
        _request: Request<pb::ListRequiredCoursesRequest>,
    ) -> RpcResult<pb::ListRequiredCoursesResponse> {
        let required = self.store.every_required_course().await?;
        Ok(Response::new(pb::ListRequiredCoursesResponse {
            course_ids: required_course_ids(&required),
        }))
    }

    async fn list_digest_items(
        &self,
        request: Request<pb::ListDigestItemsRequest>,
    ) -> RpcResult<pb::ListDigestItemsResponse> {
        let m = request.into_inner();
        let people = digest::people(
            m.people
                .into_iter()
                .map(|p| Person::named(p.user_id, p.department_ids, &p.rights))
                .collect(),
            m.passes.iter().map(|pass| {
                (
                    pass.user_id,
                    pass.course_id,
                    pass.valid_until.as_ref().map(millis),
                )
            }),
        )?;
        let items = digest_items(&self.store, &people, now_millis(), Day::today()).await?;
        Ok(Response::new(pb::ListDigestItemsResponse {
            people: items
                .into_iter()
                .map(|(user_id, items)| pb::PersonDigestItems {
                    user_id,
                    items: items.into_iter().map(convert::notification).collect(),
                })
                .collect(),
        }))
    }
}
