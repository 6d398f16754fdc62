//! What operators see: `/metrics` on its own port, and the request id that
//! the gateway sets or keeps, sends back, and passes on to the services.

mod support;

use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use serde_json::json;
use support::{ADMIN_PASSWORD, gateway_to, recording_upstream, start};

/// The lines of a Prometheus text page naming `metric` with every `labels` pair.
fn samples<'a>(page: &'a str, metric: &str, labels: &[&str]) -> Vec<&'a str> {
    page.lines()
        .filter(|line| line.starts_with(&format!("{metric}{{")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .collect()
}

fn value(line: &str) -> f64 {
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn metrics_count_routes_rpcs_and_pools_on_their_own_port() {
    let portal = start(&["--metrics-addr=127.0.0.1:0"]).await;
    let metrics_url = format!("http://{}/metrics", portal.running.metrics_addr.unwrap());
    let login = json!({"login": "admin", "password": ADMIN_PASSWORD});
    for _ in 0..2 {
        let response = portal
            .http
            .post(format!("{}/api/auth/login", portal.base))
            .json(&login)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    let response = portal.http.get(&metrics_url).send().await.unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let page = response.text().await.unwrap();

    let route = samples(
        &page,
        "portal_http_requests_total",
        &[
            r#"route="/api/auth/login""#,
            r#"method="POST""#,
            r#"status="200""#,
        ],
    );
    assert_eq!(route.iter().map(|l| value(l)).sum::<f64>(), 2.0, "{page}");
    let rpc = samples(
        &page,
        "portal_rpc_requests_total",
        &[
            r#"server="portal.auth.v1.AuthService""#,
            r#"method="/portal.auth.v1.AuthService/Login""#,
            r#"code="Ok""#,
        ],
    );
    assert_eq!(rpc.iter().map(|l| value(l)).sum::<f64>(), 2.0, "{page}");
    let timed = samples(
        &page,
        "portal_rpc_duration_seconds_count",
        &[r#"method="/portal.auth.v1.AuthService/Login""#],
    );
    assert_eq!(timed.iter().map(|l| value(l)).sum::<f64>(), 2.0, "{page}");
    for database in ["auth", "education", "wiki", "files"] {
        let pool = samples(
            &page,
            "portal_db_pool_connections",
            &[&format!(r#"database="{database}""#)],
        );
        assert!(
            pool.iter().any(|l| value(l) >= 1.0),
            "{database}'s pool: {page}"
        );
    }
    assert!(page.contains("portal_http_requests_in_flight"), "{page}");
    assert!(page.contains("portal_rpc_in_flight"), "{page}");

    // The public port does not serve it (the web client's fallback answers).
    let (_, _, body) = portal.get("/metrics", None).await;
    assert!(!body.contains("portal_http"), "{body}");
}

#[tokio::test]
async fn the_request_id_is_kept_or_made_sent_back_and_passed_to_the_service() {
    let (url, seen) = recording_upstream("x-request-id").await;
    let portal = gateway_to(&url, &[]).await;
    let rest = |id: &'static str| {
        portal
            .http
            .get(format!("{}/api/department/get-all", portal.base))
            .bearer_auth("stand-in")
            .header("x-request-id", id)
            .send()
    };
    // A caller's sane id is kept, over REST and native gRPC alike.
    let response = rest("lb-7f3a.01").await.unwrap();
    assert_eq!(response.headers()["x-request-id"], "lb-7f3a.01");
    let mut auth = AuthServiceClient::new(portal.grpc_channel().await);
    let mut request = tonic::Request::new(pb::ListDepartmentsRequest {});
    request
        .metadata_mut()
        .insert("x-request-id", "grpc-caller-9".parse().unwrap());
    let status = auth.list_departments(request).await.unwrap_err();
    assert_eq!(
        status.metadata().get("x-request-id").unwrap(),
        "grpc-caller-9"
    );
    // One that could forge a log line is replaced, and so is a missing one.
    let response = rest("x\"}{\"level\":\"ERROR").await.unwrap();
    let made = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(made.len(), 32, "{made}");
    let status = auth
        .list_departments(pb::ListDepartmentsRequest {})
        .await
        .unwrap_err();
    let made_for_grpc = status
        .metadata()
        .get("x-request-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(made_for_grpc.len(), 32);
    portal.running.stop().await.unwrap();

    assert_eq!(
        *seen.lock().unwrap(),
        ["lb-7f3a.01", "grpc-caller-9", &made, &made_for_grpc]
    );
}
