//! The internal services other services call and the gateway does not
//! forward: whose tokens are stale, and whom the digest may mail.

use portal_kit::ServiceError;
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::access_revocation_service_server::AccessRevocationService;
use portal_proto::auth::v1::mail_recipient_service_server::MailRecipientService;
use tonic::Request;

use super::{RpcResult, reply};
use crate::convert;
use crate::store::Store;
use crate::store::mail::MAX_RECIPIENT_IDS;

/// Whose tokens are stale, for the other services' token checks (internal:
/// the gateway does not forward it).
pub struct AccessRevocationRpc {
    store: Store,
}

impl AccessRevocationRpc {
    pub fn new(store: Store) -> AccessRevocationRpc {
        AccessRevocationRpc { store }
    }
}

#[tonic::async_trait]
impl AccessRevocationService for AccessRevocationRpc {
    async fn list_access_changes(
        &self,
        request: Request<pb::ListAccessChangesRequest>,
    ) -> RpcResult<pb::ListAccessChangesResponse> {
        let changes = self.store.changes_since(request.into_inner().since).await?;
        reply(convert::access_changes(changes))
    }
}

/// Whom the digest's mail may reach (internal: the gateway does not forward
/// it; education's background job asks it with no person's token).
pub struct MailRecipientRpc {
    store: Store,
}

impl MailRecipientRpc {
    pub fn new(store: Store) -> MailRecipientRpc {
        MailRecipientRpc { store }
    }
}

#[tonic::async_trait]
impl MailRecipientService for MailRecipientRpc {
    async fn list_mail_recipients(
        &self,
        request: Request<pb::ListMailRecipientsRequest>,
    ) -> RpcResult<pb::ListMailRecipientsResponse> {
        let ids = request.into_inner().user_ids;
        if ids.len() > MAX_RECIPIENT_IDS {
            return Err(ServiceError::invalid(MSG_TOO_MANY_RECIPIENTS).into());
        }
        let recipients = self.store.mail_recipients(&ids).await?;
        reply(pb::ListMailRecipientsResponse {
            recipients: recipients
                .into_iter()
                .map(convert::mail_recipient)
                .collect(),
        })
    }

    async fn list_mail_recipients_page(
        &self,
        request: Request<pb::ListMailRecipientsPageRequest>,
    ) -> RpcResult<pb::ListMailRecipientsPageResponse> {
        let m = request.into_inner();
        let size = match usize::try_from(m.page_size) {
            Ok(0) => MAX_RECIPIENT_IDS,
            Ok(size) if size <= MAX_RECIPIENT_IDS => size,
            _ => return Err(ServiceError::invalid(MSG_TOO_MANY_RECIPIENTS).into()),
        };
        let recipients = self
            .store
            .mail_recipients_after(m.after_user_id, i64::try_from(size).unwrap_or(i64::MAX))
            .await?;
        reply(pb::ListMailRecipientsPageResponse {
            last_user_id: recipients.last().map_or(0, |last| last.id),
            recipients: recipients
                .into_iter()
                .map(convert::mail_recipient)
                .collect(),
        })
    }
}

const MSG_TOO_MANY_RECIPIENTS: &str = "Не более 1000 сотрудников за один запрос";
