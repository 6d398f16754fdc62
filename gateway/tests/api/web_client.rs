//! The built web client as a browser on a ward PC or a phone receives it: the best
//! compressed copy it accepts, hashed files cached for good, `index.html` revalidated.

use std::io::{Read, Write};

use crate::support::start;

/// A hashed script as the build writes it, with its `.br` and `.gz` copies beside it:
/// the script, then the two copies.
fn write_hashed_asset(web: &std::path::Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let script: Vec<u8> = (0..400)
        .map(|line| format!("export const label{line} = 'Раздел {line}';\n"))
        .collect::<String>()
        .into_bytes();
    let mut br = Vec::new();
    brotli::CompressorWriter::new(&mut br, 4096, 11, 22)
        .write_all(&script)
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&script).unwrap();
    let gz = gz.finish().unwrap();
    let assets = web.join("assets");
    std::fs::write(assets.join("login-Bx3f9a.js"), &script).unwrap();
    std::fs::write(assets.join("login-Bx3f9a.js.br"), &br).unwrap();
    std::fs::write(assets.join("login-Bx3f9a.js.gz"), &gz).unwrap();
    (script, br, gz)
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut plain)
        .unwrap();
    plain
}

fn ungzip(bytes: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut plain)
        .unwrap();
    plain
}

/// GET with the given `Accept-Encoding` (none when empty): status, headers, raw body.
async fn get_encoded(
    portal: &crate::support::Portal,
    path: &str,
    accept: &str,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let mut request = portal.http.get(format!("{}{path}", portal.base));
    if !accept.is_empty() {
        request = request.header("accept-encoding", accept);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn a_hashed_asset_comes_br_then_gzip_then_plain_and_is_cached_for_good() {
    let portal = start(&[]).await;
    let (script, br, gz) = write_hashed_asset(&portal.data.path().join("web"));
    let path = "/assets/login-Bx3f9a.js";
    let immutable = "public, max-age=31536000, immutable";

    let (status, headers, body) = get_encoded(&portal, path, "gzip, deflate, br, zstd").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "br");
    assert_eq!(headers["cache-control"], immutable);
    assert_eq!(headers["vary"], "accept-encoding");
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    // The build's copy itself, not one compressed again on the way.
    assert_eq!(body, br);
    assert_eq!(unbrotli(&body), script);

    let (status, headers, body) = get_encoded(&portal, path, "gzip").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "gzip");
    assert_eq!(headers["cache-control"], immutable);
    assert_eq!(body, gz);
    assert_eq!(ungzip(&body), script);

    let (status, headers, body) = get_encoded(&portal, path, "").await;
    assert_eq!(status, 200);
    assert!(!headers.contains_key("content-encoding"));
    assert_eq!(headers["cache-control"], immutable);
    assert_eq!(body, script);

    let (status, headers, body) = get_encoded(&portal, path, "identity").await;
    assert_eq!(status, 200);
    assert!(!headers.contains_key("content-encoding"));
    assert_eq!(body, script);

    // One a new build replaced is a 404 kept nowhere, not the page for good.
    let (status, headers, _) = get_encoded(&portal, "/assets/login-Old123.js", "br").await;
    assert_eq!(status, 404);
    assert_eq!(headers["cache-control"], "no-cache");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn pages_revalidate_and_text_without_a_compressed_copy_is_compressed_on_the_way() {
    let portal = start(&[]).await;
    let web = portal.data.path().join("web");
    // index.html of the test build has no .br beside it, and is too small to compress.
    let (status, headers, body) = get_encoded(&portal, "/admin/users", "br").await;
    assert_eq!(status, 200);
    assert_eq!(headers["cache-control"], "no-cache");
    assert!(!headers.contains_key("content-encoding"));
    assert!(String::from_utf8(body).unwrap().contains("id=\"root\""));

    let styles = ".portal-card { margin: 0 auto; padding: 16px; }\n".repeat(100);
    std::fs::write(web.join("assets/index-9c1d2e.css"), &styles).unwrap();
    let (status, headers, body) = get_encoded(&portal, "/assets/index-9c1d2e.css", "br").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "br");
    assert_eq!(
        headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(unbrotli(&body), styles.as_bytes());

    // Already compressed formats go as they are.
    let picture = vec![7_u8; 4096];
    std::fs::write(web.join("assets/logo-5e6f7a.png"), &picture).unwrap();
    let (_, headers, body) = get_encoded(&portal, "/assets/logo-5e6f7a.png", "br, gzip").await;
    assert!(!headers.contains_key("content-encoding"));
    assert_eq!(body, picture);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn a_large_rest_answer_is_compressed_for_a_browser_that_accepts_it() {
    let portal = start(&[]).await;
    let (status, headers, body) = get_encoded(&portal, "/api/openapi.json", "gzip").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "gzip");
    let document: serde_json::Value = serde_json::from_slice(&ungzip(&body)).unwrap();
    assert!(document["paths"]["/api/auth/login"]["post"].is_object());

    let (_, headers, body) = get_encoded(&portal, "/api/openapi.json", "").await;
    assert!(!headers.contains_key("content-encoding"));
    assert!(serde_json::from_slice::<serde_json::Value>(&body).is_ok());

    // A small envelope fits in one packet: sent as it is.
    let (status, headers, _) = get_encoded(&portal, "/api/no-such-call", "br").await;
    assert_eq!(status, 404);
    assert!(!headers.contains_key("content-encoding"));
    portal.running.stop().await.unwrap();
}

/// What a browser checks before it installs the portal and runs its service worker: the
/// worker's script at the root (its scope is the folder it is served from) with a script
/// type, revalidated on every check so that a release reaches phones at once (an update
/// check never waits for a max-age), and the manifest as `application/manifest+json`.
#[tokio::test]
async fn the_service_worker_and_the_manifest_come_with_their_types_and_are_revalidated() {
    let portal = start(&[]).await;
    let web = portal.data.path().join("web");
    let worker = "self.addEventListener('fetch', () => {});\n".repeat(40);
    std::fs::write(web.join("sw.js"), &worker).unwrap();
    let manifest = r#"{"name":"Портал сотрудников","short_name":"Портал","display":"standalone"}"#;
    std::fs::write(web.join("manifest.webmanifest"), manifest).unwrap();

    let (status, headers, body) = get_encoded(&portal, "/sw.js", "br").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/javascript");
    assert_eq!(headers["cache-control"], "no-cache");
    // The build writes no compressed copy of it: compressed on the way.
    assert_eq!(headers["content-encoding"], "br");
    assert_eq!(unbrotli(&body), worker.as_bytes());
    // The CSP lets the worker run: no worker-src, so script-src's 'self' decides.
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("script-src 'self';"), "{policy}");
    assert!(!policy.contains("worker-src"), "{policy}");

    let (status, headers, body) = get_encoded(&portal, "/manifest.webmanifest", "").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/manifest+json");
    assert_eq!(headers["cache-control"], "no-cache");
    assert_eq!(body, manifest.as_bytes());
    // Fetched by the browser under the page's CSP: default-src 'self' lets it (no manifest-src).
    let (_, headers, _) = get_encoded(&portal, "/short-instruction/1", "").await;
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(policy.starts_with("default-src 'self';"), "{policy}");
    assert!(!policy.contains("manifest-src"), "{policy}");
    portal.running.stop().await.unwrap();
}
