//! Whether a caller may read an equipment model's documents: the wiki decides.
//!
//! A document belongs to the model named by its `idRelated`, and who sees a
//! model (an editor every one, anyone else those with an active unit in the
//! departments of their token) is the wiki's rule, kept in one place. So
//! listing, downloading or saving a document asks the wiki whether the caller
//! sees that model (`CheckEnvironmentModelVisible`, which reads nothing of it),
//! with the caller's own token, within what is left of the caller's own
//! call; what the wiki hides is NOT_FOUND here as well.

use portal_kit::deadline::Deadline;
use portal_kit::on_behalf::{OnBehalf, refusal};
use portal_kit::serve::ServiceChannel;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use portal_proto::wiki::v1::{
    CheckEnvironmentModelVisibleRequest, CheckEnvironmentModelVisibleResponse,
};
use tonic::metadata::MetadataMap;

pub const MSG_WIKI_UNAVAILABLE: &str = "Сервис оборудования временно недоступен, попробуйте позже";

#[derive(Clone)]
pub struct Models {
    wiki: WikiServiceClient<ServiceChannel>,
}

impl Models {
    /// `wiki`: every replica of the wiki service.
    pub fn new(wiki: ServiceChannel) -> Models {
        Models {
            wiki: WikiServiceClient::new(wiki),
        }
    }

    /// Ok when the caller behind `metadata` may see model `model_id`;
    /// NOT_FOUND with `not_found` when the wiki does not show it to them (or
    /// it does not exist). The wiki answers by the `deadline` of the call
    /// being answered.
    pub async fn require_visible(
        &self,
        metadata: &MetadataMap,
        deadline: Deadline,
        model_id: i64,
        not_found: &str,
    ) -> ServiceResult<()> {
        if self.check(metadata, deadline, model_id).await?.visible {
            Ok(())
        } else {
            Err(ServiceError::not_found(not_found))
        }
    }

    /// Whether the caller behind `metadata` may see model `model_id` (not
    /// when it does not exist) and from which department's page, by the
    /// `deadline` of the call being answered.
    pub async fn check(
        &self,
        metadata: &MetadataMap,
        deadline: Deadline,
        model_id: i64,
    ) -> ServiceResult<CheckEnvironmentModelVisibleResponse> {
        let request =
            OnBehalf { metadata, deadline }.request(CheckEnvironmentModelVisibleRequest {
                environment_model_id: model_id,
            });
        match self
            .wiki
            .clone()
            .check_environment_model_visible(request)
            .await
        {
            Ok(reply) => Ok(reply.into_inner()),
            Err(status) => Err(refusal(&status, MSG_WIKI_UNAVAILABLE)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use portal_kit::deadline::GRPC_TIMEOUT;
    use tonic::Status;
    use tonic::body::Body;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_wiki_is_asked_within_what_is_left_of_the_incoming_call() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let record = heard.clone();
        let wiki = ServiceChannel::new(tower::service_fn(move |request: http::Request<Body>| {
            let timeout = request
                .headers()
                .get(GRPC_TIMEOUT)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            record.lock().unwrap().push(timeout);
            async { Ok::<_, Status>(Status::not_found("no such model").into_http()) }
        }));
        let models = Models::new(wiki);

        let mut incoming = MetadataMap::new();
        incoming.insert(GRPC_TIMEOUT, "800m".parse().unwrap());
        let deadline = Deadline::of_call(&incoming);
        tokio::time::advance(Duration::from_millis(300)).await;
        let _ = models.require_visible(&incoming, deadline, 7, "").await;

        // An upload comes with no limit of its own: the wiki still gets one.
        let deadline = Deadline::of_call(&MetadataMap::new());
        let _ = models
            .require_visible(&MetadataMap::new(), deadline, 7, "")
            .await;

        assert_eq!(
            *heard.lock().unwrap(),
            [Some("500000u".to_owned()), Some("60000000u".to_owned())]
        );
    }
}
