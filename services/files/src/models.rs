//! Whether a caller may read an equipment model's documents: the wiki decides.
//!
//! A document belongs to the model named by its `idRelated`, and who sees a
//! model (an editor every one, anyone else those with an active unit in the
//! departments of their token) is the wiki's rule, kept in one place. So
//! listing, downloading or saving a document asks the wiki whether the caller
//! sees that model (`CheckEnvironmentModelVisible`, which reads nothing of it),
//! with the caller's own token; what the wiki hides is NOT_FOUND here as well.

use portal_kit::error::{REASON_ACCESS_REVOKED, REASON_KEY};
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::wiki::v1::CheckEnvironmentModelVisibleRequest;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use tonic::Request;
use tonic::metadata::MetadataMap;

/// A channel to the wiki service (every replica).
pub type WikiChannel = portal_kit::serve::ServiceChannel;

pub const MSG_WIKI_UNAVAILABLE: &str = "Сервис оборудования временно недоступен, попробуйте позже";

/// The metadata forwarded to the wiki: only the caller's credentials.
const AUTHORIZATION: &str = "authorization";

#[derive(Clone)]
pub struct Models {
    wiki: WikiServiceClient<WikiChannel>,
}

impl Models {
    pub fn new(channel: WikiChannel) -> Models {
        Models {
            wiki: WikiServiceClient::new(channel),
        }
    }

    /// Ok when the caller behind `metadata` may see model `model_id`;
    /// NOT_FOUND with `not_found` when the wiki does not show it to them (or
    /// it does not exist).
    pub async fn require_visible(
        &self,
        metadata: &MetadataMap,
        model_id: i64,
        not_found: &str,
    ) -> ServiceResult<()> {
        let mut request = Request::new(CheckEnvironmentModelVisibleRequest {
            environment_model_id: model_id,
        });
        if let Some(token) = metadata.get(AUTHORIZATION) {
            request.metadata_mut().insert(AUTHORIZATION, token.clone());
        }
        match self
            .wiki
            .clone()
            .check_environment_model_visible(request)
            .await
        {
            Ok(reply) if reply.get_ref().visible => Ok(()),
            Ok(_) => Err(ServiceError::not_found(not_found)),
            // The wiki learned of a block or a change of rights before files
            // did: the caller's token is as stale here.
            Err(status)
                if status.code() == tonic::Code::Unauthenticated
                    && status.metadata().get(REASON_KEY).is_some_and(|reason| {
                        reason.as_bytes() == REASON_ACCESS_REVOKED.as_bytes()
                    }) =>
            {
                Err(ServiceError::AccessRevoked)
            }
            Err(status) => {
                tracing::warn!(%status, model_id, "the wiki did not say whether a model is visible");
                Err(ServiceError::Unavailable(MSG_WIKI_UNAVAILABLE.into()))
            }
        }
    }
}
