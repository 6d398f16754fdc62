//! gRPC at the gateway: every Portal RPC is forwarded unchanged (native gRPC over
//! h2c, or grpc-web translated by tonic-web) to the service that owns it; health
//! and reflection are answered here for the whole portal.

use std::convert::Infallible;
use std::pin::Pin;

use axum::Router;
use axum::body::Body;
use http::uri::PathAndQuery;
use http::{HeaderMap, Request, Response, Uri, Version};
use http_body_util::BodyExt;
use tonic::{Code, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_web::GrpcWebLayer;
use tower::{ServiceBuilder, ServiceExt};

use crate::client_address::ClientAddress;
use crate::rest::{ApiError, is_for_people};
use crate::upstream::{Balanced, Upstream, Upstreams};

use portal_kit::net::FORWARDED_FOR;

pub const MSG_UPSTREAM_DOWN: &str = "Сервис временно недоступен. Пожалуйста, попробуйте позже.";

/// Routes `/{service}/{method}` of each Portal service to its upstream, plus the
/// gateway's own health and reflection.
pub fn router(upstreams: &Upstreams) -> anyhow::Result<Router> {
    let mut router = Router::new();
    for upstream in upstreams.all() {
        let forward = Forward {
            channel: upstream.channel.clone(),
            service: upstream.service,
        };
        let service = ServiceBuilder::new()
            .layer(GrpcWebLayer::new())
            .service(forward);
        router = router.route_service(&format!("/{}/{{method}}", upstream.service), service);
    }
    let health = HealthServer::new(AggregateHealth {
        upstreams: upstreams.clone(),
    });
    let reflection = portal_kit::serve::reflection;
    Ok(router
        .route_service("/grpc.health.v1.Health/{method}", health)
        .route_service(
            "/grpc.reflection.v1.ServerReflection/{method}",
            reflection().build_v1()?,
        )
        .route_service(
            "/grpc.reflection.v1alpha.ServerReflection/{method}",
            reflection().build_v1alpha()?,
        ))
}

/// Sends a request on to one replica of an upstream as it came (HTTP/2).
#[derive(Clone)]
struct Forward {
    channel: Balanced,
    service: &'static str,
}

impl tower::Service<Request<tonic::body::Body>> for Forward {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request<tonic::body::Body>) -> Self::Future {
        let channel = self.channel.clone();
        let service = self.service;
        Box::pin(async move {
            // The replica's channel puts its own scheme and authority in front.
            let path = request.uri().path_and_query().cloned();
            *request.uri_mut() = Uri::from(path.unwrap_or_else(|| PathAndQuery::from_static("/")));
            *request.version_mut() = Version::HTTP_2;
            request.headers_mut().remove(http::header::HOST);
            // Auth limits sign-ins per address: the service hears the address
            // the gateway resolved, never what the client claimed.
            match request.extensions().get::<ClientAddress>().copied() {
                Some(client) => request
                    .headers_mut()
                    .insert(FORWARDED_FOR, client.header_value()),
                None => request.headers_mut().remove(FORWARDED_FOR),
            };
            match channel.oneshot(request).await {
                Ok(response) => {
                    let (mut parts, body) = response.into_parts();
                    in_russian(&mut parts.headers);
                    let body = body.map_frame(|mut frame| {
                        if let Some(trailers) = frame.trailers_mut() {
                            in_russian(trailers);
                        }
                        frame
                    });
                    Ok(Response::from_parts(parts, Body::new(body)))
                }
                Err(error) => {
                    tracing::warn!(%error, upstream = service, "upstream unreachable");
                    Ok(Status::unavailable(MSG_UPSTREAM_DOWN).into_http())
                }
            }
        })
    }
}

/// A status in `headers` (trailers, or the headers of a trailers-only answer)
/// whose message is not for people — tonic's own "failed to decode Protobuf
/// message…" — gets the Russian message REST would show; the original is logged.
fn in_russian(headers: &mut HeaderMap) {
    let Some(status) = Status::from_header_map(headers) else {
        return;
    };
    if status.code() == Code::Ok || is_for_people(status.message()) {
        return;
    }
    let person = ApiError::from(status.clone());
    let russian = Status::new(status.code(), person.message());
    if let Err(error) = russian.add_header(headers) {
        tracing::warn!(%error, "cannot rewrite a gRPC status message");
    }
}

/// `grpc.health.v1` for the portal: the empty name means "every service serving";
/// a service's name asks that service itself.
struct AggregateHealth {
    upstreams: Upstreams,
}

pub async fn upstream_status(upstream: &Upstream) -> ServingStatus {
    let mut client = HealthClient::new(upstream.channel.clone());
    let request = HealthCheckRequest {
        service: upstream.service.to_owned(),
    };
    match client.check(request).await {
        Ok(response) => response.into_inner().status(),
        Err(_) => ServingStatus::NotServing,
    }
}

#[tonic::async_trait]
impl Health for AggregateHealth {
    async fn check(
        &self,
        request: tonic::Request<HealthCheckRequest>,
    ) -> Result<tonic::Response<HealthCheckResponse>, Status> {
        let service = request.into_inner().service;
        let status = if service.is_empty() {
            let mut all = ServingStatus::Serving;
            for upstream in self.upstreams.all() {
                if upstream_status(upstream).await != ServingStatus::Serving {
                    all = ServingStatus::NotServing;
                }
            }
            all
        } else {
            let upstream = self
                .upstreams
                .owning(&service)
                .ok_or_else(|| Status::new(Code::NotFound, format!("unknown service {service}")))?;
            upstream_status(upstream).await
        };
        Ok(tonic::Response::new(HealthCheckResponse {
            status: status.into(),
        }))
    }

    type WatchStream = tokio_stream::Once<Result<HealthCheckResponse, Status>>;

    /// Streaming health is answered by each service itself; through the gateway a
    /// watcher gets the current status once.
    async fn watch(
        &self,
        request: tonic::Request<HealthCheckRequest>,
    ) -> Result<tonic::Response<Self::WatchStream>, Status> {
        let status = self.check(request).await?.into_inner();
        Ok(tonic::Response::new(tokio_stream::once(Ok(status))))
    }
}
