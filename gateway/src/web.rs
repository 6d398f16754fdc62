//! The gateway's HTTP surface in one router: REST, gRPC and grpc-web, health
//! probes, and the web client with its SPA fallback, all behind security headers.

use std::path::Path;

use tower::util::MapRequest;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, Version, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use portal_kit::rich_text::FrameHosts;
use tower::Layer;
use tower::util::MapRequestLayer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{Predicate, SizeAbove};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::config::Config;
use crate::rest::{self, AppState};
use crate::upstream::Upstreams;

/// Scripts only from this origin, no inline script; styles may be inline
/// (the component library injects them); frames only from this origin and the
/// hosts of `PORTAL_FRAME_HOSTS`, as the rich-text cleaners keep them.
fn content_security_policy(frame_hosts: &FrameHosts) -> String {
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data: blob:; media-src 'self' blob:; font-src 'self' data:; connect-src 'self'; \
frame-src {}; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
        frame_hosts.csp_frame_src()
    )
}

/// Browsers that reached the portal over https keep to https for a year.
const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000";

/// The gateway as `crate::server` serves it (which adds each connection's peer).
pub type App = MapRequest<Router, fn(Request) -> Request>;

/// The whole gateway, with the REST resource segment lowered before routing.
pub fn app(config: &Config, upstreams: Upstreams) -> anyhow::Result<App> {
    let public_url = &config.shared.public_url;
    let https = public_url.starts_with("https://");
    let state = AppState {
        upstreams: upstreams.clone(),
        secure_cookies: https,
        public_origin: rest::Origin::of_url(public_url),
    };
    let hsts = https.then_some(HeaderValue::from_static(STRICT_TRANSPORT_SECURITY));
    let router = Router::new()
        .merge(rest::router(state).layer(compress_text()))
        .merge(crate::grpc::router(&upstreams, https)?)
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz).with_state(upstreams))
        .fallback_service(web_client(&config.gateway.web_dir))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_str(&content_security_policy(&config.education.frame_hosts))?,
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        // Downloads set their own (the portal's pages may frame a video).
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::STRICT_TRANSPORT_SECURITY,
            move |_: &Response| hsts.clone(),
        ))
        .layer(middleware::from_fn(rest::within_head_limits))
        .layer(middleware::map_request_with_state(
            config.shared.trusted_proxies.clone(),
            crate::client_address::resolve,
        ))
        .layer(middleware::from_fn(crate::observe::observe));
    let lowered: fn(Request) -> Request = rest::lowercase_resource_segment;
    Ok(MapRequestLayer::new(lowered).layer(router))
}

/// Ready when the gateway can serve: it answers (so it listens and is not
/// draining: the drain closes the listener and ends every connection's
/// keep-alive) and every upstream's names have been looked up once, so no call
/// fails for want of a first lookup. An upstream with no serving replica does
/// not make it unready: that service's routes answer 503 at once and the rest
/// of the portal works, which no other gateway would do better. Read from the
/// health watches, never by calling an upstream, so it answers at once.
/// The body says how each upstream stands, for people.
async fn readyz(State(upstreams): State<Upstreams>) -> Response {
    let mut lines = Vec::new();
    let mut unresolved = false;
    for upstream in upstreams.all() {
        let replicas = upstream.replicas();
        let serving = replicas.iter().filter(|(_, serving)| *serving).count();
        let standing = if !upstream.resolved() {
            unresolved = true;
            "not looked up yet"
        } else if serving == 0 {
            "NOT SERVING"
        } else {
            "serving"
        };
        lines.push(format!(
            "{}: {standing} ({serving} of {} replicas)",
            upstream.service,
            replicas.len()
        ));
    }
    let (status, verdict) = if unresolved {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: looking up upstreams",
        )
    } else {
        (StatusCode::OK, "ready")
    };
    lines.insert(0, verdict.to_owned());
    (status, lines.join("\n") + "\n").into_response()
}

/// Built files from `web_dir`; any other path but a missing asset's gets
/// `index.html` so the client's router can show it. Hashed assets are cached for good, the rest revalidated:
/// `/sw.js` among them, so that a browser's check for a new service worker sees a
/// release at once (tests/web_client.rs checks its and the manifest's headers).
/// The build writes a `.br` and a `.gz` beside each file: the best one the browser
/// accepts is sent as it is, and a file without them is compressed on the way.
fn web_client(web_dir: &Path) -> Router {
    let index = ServeFile::new(web_dir.join("index.html"))
        .precompressed_br()
        .precompressed_gzip();
    let files = ServeDir::new(web_dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(index);
    // A hashed file a new build replaced is a 404, never the page: the
    // client then reloads to the new build, and nothing wrong is cached.
    let assets = ServeDir::new(web_dir.join("assets"))
        .precompressed_br()
        .precompressed_gzip();
    Router::new()
        .nest_service("/assets", assets)
        .fallback_service(files)
        .layer(middleware::from_fn(cache_policy))
        .layer(compress_text())
}

async fn cache_policy(request: Request, next: Next) -> Response {
    let hashed = request.uri().path().starts_with("/assets/");
    let mut response = next.run(request).await;
    let policy = if hashed && response.status().is_success() {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    response
}

/// Compression on the fly, for REST answers and static files without a compressed
/// copy. Only text: images, video, PDFs and archives are compressed already, and
/// gRPC frames its own messages (its routes never pass through here). Below 1 KiB
/// an answer fits in one packet anyway.
fn compress_text() -> CompressionLayer<impl Predicate> {
    let text = |_: StatusCode, _: Version, headers: &HeaderMap, _: &Extensions| {
        headers
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(is_text)
    };
    CompressionLayer::new().compress_when(SizeAbove::new(1024).and(text))
}

fn is_text(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    essence.starts_with("text/")
        || matches!(
            essence,
            "application/json"
                | "application/javascript"
                | "image/svg+xml"
                | "application/manifest+json"
        )
}
