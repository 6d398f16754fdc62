//! The gRPC face of education's notifications (`NotificationService`): the
//! bell's items and read marks, each person's digest choice, and the admin's
//! "send today's digests now". A file of its own beside [`crate::rpc`], as
//! its contract is.

use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::net::TrustedProxies;
use portal_kit::read_marks;
use portal_kit::{Caller, Right, ServiceError};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::notification_service_server::NotificationService;
use tonic::{Request, Response, Status};

use crate::app::digest::{Digests, SendNow};
use crate::app::notifications::my_items;
use crate::domain::date::Day;
use crate::domain::notification::ITEM_PREFIX;
use crate::store::Store;

pub struct NotificationRpc {
    store: Store,
    digests: Digests,
    /// Whose forwarded client address the audit log believes.
    proxies: TrustedProxies,
}

impl NotificationRpc {
    pub fn new(store: Store, digests: Digests, proxies: TrustedProxies) -> NotificationRpc {
        NotificationRpc {
            store,
            digests,
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
        let user_id = Caller::of(&request).user_id()?;
        let items = my_items(&self.store, user_id, Day::today()).await?;
        let today = Day::today();
        Ok(Response::new(pb::ListMyNotificationsResponse {
            notifications: items
                .into_iter()
                .map(|item| pb::Notification {
                    id: item.course.key(),
                    kind: "course".into(),
                    link: item.course.link(),
                    due_date: item.course.due.to_string(),
                    overdue: item.course.due < today,
                    title: item.course.title,
                    read: item.read,
                })
                .collect(),
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
            .mark_read(user_id, &keys, now_millis(), &audit)
            .await?;
        Ok(Response::new(pb::MarkNotificationsReadResponse {}))
    }

    async fn get_my_digest_settings(
        &self,
        request: Request<pb::GetMyDigestSettingsRequest>,
    ) -> RpcResult<pb::GetMyDigestSettingsResponse> {
        let user_id = Caller::of(&request).user_id()?;
        Ok(Response::new(pb::GetMyDigestSettingsResponse {
            digest_enabled: self.store.digest_enabled(user_id).await?,
        }))
    }

    async fn set_my_digest_settings(
        &self,
        request: Request<pb::SetMyDigestSettingsRequest>,
    ) -> RpcResult<pb::SetMyDigestSettingsResponse> {
        let user_id = Caller::of(&request).user_id()?;
        let audit = AuditContext::of(&request, &self.proxies);
        let enabled = request.into_inner().digest_enabled;
        self.store
            .set_digest_enabled(user_id, enabled, now_millis(), &audit)
            .await?;
        Ok(Response::new(pb::SetMyDigestSettingsResponse {
            digest_enabled: enabled,
        }))
    }

    async fn send_digests_now(
        &self,
        request: Request<pb::SendDigestsNowRequest>,
    ) -> RpcResult<pb::SendDigestsNowResponse> {
        let caller = Caller::of(&request);
        caller.claims()?;
        if !(caller.has(Right::UserManagement) || caller.has(Right::EducationManagement)) {
            return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
        }
        let started = self
            .digests
            .send_today(AuditContext::of(&request, &self.proxies))?;
        Ok(Response::new(pb::SendDigestsNowResponse {
            already_running: started == SendNow::AlreadyRunning,
            ..Default::default()
        }))
    }
}
