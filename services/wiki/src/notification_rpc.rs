//! The gRPC face of the wiki's part of the bell (`NotificationService`): the
//! caller's equipment items and their read marks. A file of its own beside
//! [`crate::rpc`], as its contract is.

use portal_kit::audit::AuditContext;
use portal_kit::day::Day;
use portal_kit::db::now_millis;
use portal_kit::net::TrustedProxies;
use portal_kit::{Caller, read_marks};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::notification_service_server::NotificationService;
use tonic::{Request, Response, Status};

use crate::app::clearance::{OnBehalf, Training};
use crate::app::notifications::{ITEM_PREFIX, my_items};
use crate::convert;
use crate::store::Store;

pub struct NotificationRpc {
    store: Store,
    training: Training,
    /// Whose forwarded client address the audit log believes.
    proxies: TrustedProxies,
}

impl NotificationRpc {
    pub fn new(store: Store, training: Training, proxies: TrustedProxies) -> NotificationRpc {
        NotificationRpc {
            store,
            training,
            proxies,
        }
    }
}

type RpcResult<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl NotificationService for NotificationRpc {
    async fn list_my_notifications(
        &self,
        request: Request<pb::ListMyNotificationsRequest>,
    ) -> RpcResult<pb::ListMyNotificationsResponse> {
        let caller = Caller::of(&request);
        let on_behalf = OnBehalf::of(&request);
        let items = my_items(
            &self.store,
            &self.training,
            on_behalf,
            &caller,
            Day::today(),
        )
        .await?;
        Ok(Response::new(pb::ListMyNotificationsResponse {
            notifications: items.into_iter().map(convert::notification).collect(),
        }))
    }

    async fn mark_notifications_read(
        &self,
        request: Request<pb::MarkNotificationsReadRequest>,
    ) -> RpcResult<pb::MarkNotificationsReadResponse> {
        let user_id = Caller::of(&request).user_id()?;
        let audit = AuditContext::of(&request, &self.proxies);
        let keys = read_marks::own_keys(ITEM_PREFIX, request.into_inner().ids)?;
        self.store
            .mark_read(&audit, user_id, &keys, now_millis())
            .await?;
        Ok(Response::new(pb::MarkNotificationsReadResponse {}))
    }
}
