//! gRPC at the gateway: every Portal RPC is forwarded unchanged (native gRPC over
//! h2c, or grpc-web translated by tonic-web) to the service that owns it; health
//! and reflection are answered here for the whole portal.
//!
//! A forwarded call waits at most the upstream call time-out: the client's own
//! `grpc-timeout` is kept when shorter, otherwise the limit is put in its place
//! (the channel enforces it and the service hears it). Client-streaming calls
//! (uploads, a staff sync in chunks) are answered after their last message,
//! so they keep whatever the client asked for.
//!
//! A grpc-web sign-in or refresh comes from a browser, whose scripts must never
//! see the refresh and device tokens: the gateway moves them from the answer
//! into the same HttpOnly cookies REST sets (native gRPC clients keep them).

use std::collections::HashSet;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::uri::PathAndQuery;
use http::{HeaderMap, Request, Response, Uri, Version};
use http_body_util::BodyExt;
use prost::Message;
use tonic::{Code, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_web::GrpcWebLayer;
use tower::{ServiceBuilder, ServiceExt};

use crate::client_address::ClientAddress;
use crate::rest::{ApiError, MSG_UPSTREAM_DOWN, MSG_UPSTREAM_SLOW, is_for_people};
use crate::upstream::{Balanced, Upstream, Upstreams};

use portal_kit::deadline;
use portal_kit::net::FORWARDED_FOR;
use portal_proto::auth::v1 as pb_auth;

const LOGIN: &str = "/portal.auth.v1.AuthService/Login";
const REFRESH_TOKEN: &str = "/portal.auth.v1.AuthService/RefreshToken";
/// The second step of a sign-in answers its session as Login does.
const LOGIN_MFA: &str = "/portal.auth.v1.AuthService/LoginMfa";

/// Marks a request that came as grpc-web, before tonic-web makes it gRPC.
#[derive(Clone, Copy)]
struct GrpcWeb;

/// Routes `/{service}/{method}` of each Portal service to its upstream, plus the
/// gateway's own health and reflection. `secure_cookies`: cookies set on a
/// grpc-web sign-in get `Secure`.
pub fn router(upstreams: &Upstreams, secure_cookies: bool) -> anyhow::Result<Router> {
    let mut router = Router::new();
    let client_streams = Arc::new(client_streams()?);
    // Reflection lists what a caller here can reach: the services forwarded,
    // health and reflection; the services' internal ones are not among them.
    let reflection = || {
        upstreams.forwarded().into_iter().fold(
            portal_kit::serve::reflection()
                .with_service_name("grpc.health.v1.Health")
                .with_service_name("grpc.reflection.v1.ServerReflection"),
            |builder, (service, _)| builder.with_service_name(service),
        )
    };
    for (service, upstream) in upstreams.forwarded() {
        let forward = Forward {
            channel: upstream.channel.clone(),
            service,
            call_timeout: upstreams.call_timeout,
            client_streams: client_streams.clone(),
            secure_cookies,
        };
        let forwarding = ServiceBuilder::new()
            .map_request(mark_grpc_web::<Body>)
            .layer(GrpcWebLayer::new())
            .service(forward);
        router = router.route_service(&format!("/{service}/{{method}}"), forwarding);
    }
    let health = HealthServer::new(AggregateHealth {
        upstreams: upstreams.clone(),
    });
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

/// The paths (`/package.Service/Method`) of every Portal RPC the client
/// streams to, read from the contracts themselves.
fn client_streams() -> anyhow::Result<HashSet<String>> {
    let set = prost_types::FileDescriptorSet::decode(portal_proto::FILE_DESCRIPTOR_SET)?;
    Ok(set
        .file
        .iter()
        .flat_map(|file| {
            file.service.iter().flat_map(move |service| {
                service
                    .method
                    .iter()
                    .filter(|method| method.client_streaming())
                    .map(move |method| {
                        format!("/{}.{}/{}", file.package(), service.name(), method.name())
                    })
            })
        })
        .collect())
}

fn mark_grpc_web<B>(mut request: Request<B>) -> Request<B> {
    let web = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/grpc-web"));
    if web {
        request.extensions_mut().insert(GrpcWeb);
    }
    request
}

/// Sends a request on to one replica of an upstream as it came (HTTP/2).
#[derive(Clone)]
struct Forward {
    channel: Balanced,
    service: &'static str,
    call_timeout: Duration,
    client_streams: Arc<HashSet<String>>,
    secure_cookies: bool,
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
        let secure_cookies = self.secure_cookies;
        let sign_in = request.extensions().get::<GrpcWeb>().is_some()
            && matches!(request.uri().path(), LOGIN | LOGIN_MFA | REFRESH_TOKEN);
        if !self.client_streams.contains(request.uri().path()) {
            deadline::cap(request.headers_mut(), self.call_timeout);
        }
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
                    let response = Response::from_parts(parts, Body::new(body));
                    if sign_in {
                        Ok(tokens_to_cookies(response, secure_cookies).await)
                    } else {
                        Ok(response)
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, upstream = service, "upstream call failed");
                    let status = match error.downcast_ref::<Status>() {
                        Some(status) if status.code() == Code::DeadlineExceeded => {
                            Status::deadline_exceeded(MSG_UPSTREAM_SLOW)
                        }
                        _ => Status::unavailable(MSG_UPSTREAM_DOWN),
                    };
                    Ok(status.into_http())
                }
            }
        })
    }
}

/// A sign-in's or refresh's answer (one message) without its refresh and
/// device tokens, which travel as cookies instead. `RefreshTokenResponse`
/// and `LoginMfaResponse` hold fields of `LoginResponse` under the same
/// numbers, so all read as one.
async fn tokens_to_cookies(response: Response<Body>, secure: bool) -> Response<Body> {
    let (mut parts, body) = response.into_parts();
    let collected = match body.collect().await {
        Ok(collected) => collected,
        Err(error) => {
            tracing::warn!(%error, "sign-in answer broke off");
            return Status::unavailable(MSG_UPSTREAM_DOWN).into_http();
        }
    };
    let trailers = collected.trailers().cloned();
    let mut message = collected.to_bytes();
    // One uncompressed gRPC frame: flag 0, four bytes of length, the message.
    let reply = (message.len() >= 5 && message[0] == 0)
        .then(|| pb_auth::LoginResponse::decode(&message[5..]).ok())
        .flatten();
    if let Some(mut reply) = reply {
        for cookie in crate::rest::session_cookies(secure, &mut reply) {
            parts.headers.append(http::header::SET_COOKIE, cookie);
        }
        let encoded = reply.encode_to_vec();
        let mut frame = Vec::with_capacity(5 + encoded.len());
        frame.push(0);
        frame.extend_from_slice(
            &u32::try_from(encoded.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        frame.extend_from_slice(&encoded);
        message = frame.into();
    }
    parts.headers.remove(http::header::CONTENT_LENGTH);
    let mut frames = Vec::new();
    if !message.is_empty() {
        frames.push(Ok::<_, Infallible>(http_body::Frame::data(message)));
    }
    frames.extend(trailers.map(|t| Ok(http_body::Frame::trailers(t))));
    let body = http_body_util::StreamBody::new(futures_util::stream::iter(frames));
    Response::from_parts(parts, Body::new(body))
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

/// SERVING when a replica's health stream says so; otherwise (at start, or
/// with every replica down) the answer of one check through the balancer,
/// within `limit`.
pub async fn upstream_status(upstream: &Upstream, limit: Duration) -> ServingStatus {
    if upstream.replicas().iter().any(|(_, serving)| *serving) {
        return ServingStatus::Serving;
    }
    let mut client = HealthClient::new(upstream.channel.clone());
    let mut request = tonic::Request::new(HealthCheckRequest {
        service: upstream.service.to_owned(),
    });
    deadline::limit(&mut request, limit);
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
                if upstream_status(upstream, self.upstreams.call_timeout).await
                    != ServingStatus::Serving
                {
                    all = ServingStatus::NotServing;
                }
            }
            all
        } else {
            let upstream = self
                .upstreams
                .owning(&service)
                .ok_or_else(|| Status::new(Code::NotFound, format!("unknown service {service}")))?;
            upstream_status(upstream, self.upstreams.call_timeout).await
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_uploads_and_the_staff_sync_are_client_streams() {
        let mut streams: Vec<String> = client_streams().unwrap().into_iter().collect();
        streams.sort();
        assert_eq!(
            streams,
            [
                "/portal.auth.v1.AuthService/SyncStaffStream",
                "/portal.files.v1.FilesService/SaveFile",
                "/portal.files.v1.FilesService/SaveVideo"
            ]
        );
    }
}
