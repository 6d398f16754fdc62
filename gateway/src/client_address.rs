//! The client's address, resolved once per request for REST and gRPC alike.
//!
//! The peer is the client unless it is one of `PORTAL_TRUSTED_PROXIES` (the
//! ingress), whose `X-Forwarded-For` is then believed. Whatever the client sent
//! in that header never travels further: the gateway tells each service the one
//! address it resolved (auth limits sign-ins per address).

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use http::HeaderValue;
use portal_kit::net::{FORWARDED_FOR, TrustedProxies};

/// Who connected, as far as the gateway believes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

impl ClientAddress {
    /// The header value a service receives as `x-forwarded-for`.
    pub fn header_value(self) -> HeaderValue {
        // An IP address's text is always a valid header value.
        HeaderValue::from_str(&self.0.to_string()).unwrap_or(HeaderValue::from_static(""))
    }
}

/// The client of a request from `peer` with `headers`: the peer, or what a
/// trusted proxy's `X-Forwarded-For` says.
pub fn client_of(trusted: &TrustedProxies, peer: IpAddr, headers: &http::HeaderMap) -> IpAddr {
    let forwarded: Vec<&str> = headers
        .get_all(FORWARDED_FOR)
        .iter()
        .map(|value| value.to_str().unwrap_or("malformed"))
        .collect();
    // Several header lines are one list (RFC 9110 §5.3).
    let forwarded = (!forwarded.is_empty()).then(|| forwarded.join(","));
    trusted.client(peer, forwarded.as_deref())
}

/// Puts the resolved [`ClientAddress`] on the request and drops the client's
/// own `X-Forwarded-For`.
pub async fn resolve(State(trusted): State<TrustedProxies>, mut request: Request) -> Request {
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| ClientAddress(client_of(&trusted, peer.ip(), request.headers())));
    request.headers_mut().remove(FORWARDED_FOR);
    if let Some(client) = client {
        request.extensions_mut().insert(client);
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::routing::get;
    use tower::ServiceExt;

    /// What a handler behind the layer sees: the resolved address and any
    /// `X-Forwarded-For` left on the request.
    async fn seen(trusted: &str, peer: &str, forwarded: &[&str]) -> String {
        let app = Router::new()
            .route(
                "/",
                get(|request: Request| async move {
                    let client = request.extensions().get::<ClientAddress>().map(|c| c.0);
                    let header = request.headers().get(FORWARDED_FOR).cloned();
                    format!("{client:?} {header:?}")
                }),
            )
            .layer(axum::middleware::map_request_with_state(
                trusted.parse::<TrustedProxies>().unwrap(),
                resolve,
            ));
        let mut request = Request::builder().uri("/");
        for value in forwarded {
            request = request.header(FORWARDED_FOR, *value);
        }
        let mut request = request.body(axum::body::Body::empty()).unwrap();
        request
            .extensions_mut()
            .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
        let response = app.oneshot(request).await.unwrap();
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        String::from_utf8(body.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn an_untrusted_peer_is_the_client_and_its_header_is_dropped() {
        assert_eq!(
            seen("", "203.0.113.9:5000", &["198.51.100.1"]).await,
            "Some(203.0.113.9) None"
        );
        assert_eq!(
            seen("10.0.0.0/8", "203.0.113.9:5000", &["10.0.0.1"]).await,
            "Some(203.0.113.9) None"
        );
    }

    #[tokio::test]
    async fn a_trusted_proxy_names_the_client_over_one_or_several_header_lines() {
        assert_eq!(
            seen("10.0.0.0/8", "10.0.0.2:5000", &["198.51.100.1"]).await,
            "Some(198.51.100.1) None"
        );
        assert_eq!(
            seen(
                "10.0.0.0/8",
                "10.0.0.2:5000",
                &["1.2.3.4", "198.51.100.7, 10.0.0.3"]
            )
            .await,
            "Some(198.51.100.7) None"
        );
    }
}
