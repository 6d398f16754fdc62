//! Refusing cross-site calls on the cookie-authenticated routes (refresh, logout).
//!
//! The refresh cookie is `SameSite=Strict`, but a page on a sibling host of the
//! same site (another intranet application) still gets it sent, and a form can
//! post without reading the answer. So those calls must come from the portal's
//! own pages: an `Origin` that is `PORTAL_PUBLIC_URL`'s origin, or the origin
//! the request itself was sent to (its `Host`), which is what a browser sends
//! when the portal is reached under another name or port (`make run` on
//! another port, a ward PC using the address). The `Host` is the browser's
//! own choice of target, so a page elsewhere cannot make it match its origin
//! while the portal's cookie goes along. Without `Origin` (non-browser clients),
//! `Sec-Fetch-Site` of `cross-site` or `same-site` is refused.
//!
//! The OAuth token endpoint (`super::oauth`) takes no such check: other
//! systems' machines call it from anywhere, and it reads no cookie, only the
//! credentials the request itself carries, so a cross-site post gains nothing.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use http::uri::Authority;

use super::{ApiError, AppState};

pub const MSG_CROSS_SITE: &str = "Запрос отклонён: он отправлен с другого сайта";

/// A web origin as browsers send it: lower-case scheme and host, the port only
/// when it is not the scheme's default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host_and_port: String,
}

impl Origin {
    /// The origin of an absolute URL; `None` when it has no scheme or host.
    pub fn of_url(url: &str) -> Option<Origin> {
        let uri: http::Uri = url.parse().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let host_and_port = host_and_port(&scheme, uri.authority()?);
        Some(Origin {
            scheme,
            host_and_port,
        })
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

fn host_and_port(scheme: &str, authority: &Authority) -> String {
    let host = authority.host().to_ascii_lowercase();
    match authority.port_u16() {
        Some(port) if Some(port) != default_port(scheme) => format!("{host}:{port}"),
        _ => host,
    }
}

/// Whether a request with these headers, sent to `target` (its `Host` or, over
/// HTTP/2, its `:authority`), comes from the portal's own pages.
fn from_own_site(headers: &HeaderMap, target: Option<Authority>, public: Option<&Origin>) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        let site = headers.get("sec-fetch-site").map(|v| v.as_bytes());
        return !matches!(site, Some(b"cross-site" | b"same-site"));
    };
    // `Origin: null` (sandboxed frames, some redirects) and garbage parse as nothing.
    let Some(origin) = origin.to_str().ok().and_then(Origin::of_url) else {
        return false;
    };
    public == Some(&origin)
        || target
            .is_some_and(|target| host_and_port(&origin.scheme, &target) == origin.host_and_port)
}

/// Proof that a cookie-authenticated call comes from the portal's own pages;
/// otherwise a 403 envelope, with no `Set-Cookie`.
pub struct OwnSite;

impl FromRequestParts<AppState> for OwnSite {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let target = parts
            .headers
            .get(header::HOST)
            .and_then(|host| Authority::try_from(host.as_bytes()).ok())
            .or_else(|| parts.uri.authority().cloned());
        if from_own_site(&parts.headers, target, state.public_origin.as_ref()) {
            Ok(OwnSite)
        } else {
            tracing::warn!(
                origin = ?parts.headers.get(header::ORIGIN),
                path = %parts.uri.path(),
                "refused a cross-site call"
            );
            Err(ApiError::new(StatusCode::FORBIDDEN, MSG_CROSS_SITE))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(origin: Option<&str>, fetch_site: Option<&str>, host: &str) -> bool {
        let mut headers = HeaderMap::new();
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, origin.parse().unwrap());
        }
        if let Some(site) = fetch_site {
            headers.insert("sec-fetch-site", site.parse().unwrap());
        }
        let public = Origin::of_url("https://portal.hospital.example");
        from_own_site(&headers, host.parse().ok(), public.as_ref())
    }

    #[test]
    fn the_public_origin_and_the_requests_own_host_are_the_portals_pages() {
        let host = "portal.hospital.example";
        assert!(own(Some("https://portal.hospital.example"), None, host));
        assert!(own(Some("https://PORTAL.hospital.example:443"), None, host));
        assert!(own(Some("http://127.0.0.1:9000"), None, "127.0.0.1:9000"));
        assert!(own(Some("http://localhost"), None, "localhost:80"));
    }

    #[test]
    fn another_site_or_an_opaque_origin_is_refused() {
        let host = "portal.hospital.example";
        assert!(!own(Some("https://evil.example"), None, host));
        assert!(!own(Some("https://wiki.hospital.example"), None, host));
        assert!(!own(Some("http://127.0.0.1:9001"), None, "127.0.0.1:9000"));
        assert!(!own(Some("null"), Some("same-origin"), host));
    }

    #[test]
    fn without_origin_only_fetch_metadata_naming_another_site_is_refused() {
        let host = "portal.hospital.example";
        assert!(own(None, None, host), "curl and other non-browser clients");
        assert!(own(None, Some("same-origin"), host));
        assert!(own(None, Some("none"), host));
        assert!(!own(None, Some("cross-site"), host));
        assert!(!own(None, Some("same-site"), host));
    }
}
