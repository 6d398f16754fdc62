//! What operators see: `/metrics` on its own port, and the request id that
//! the gateway sets or keeps, sends back, and passes on to the services.

use crate::support::{ADMIN_PASSWORD, gateway_to, recording_upstream, start};
use portal_kit::Right;
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use reqwest::multipart::{Form, Part};
use serde_json::json;

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

/// The sum of `metric`'s samples with every `labels` pair.
fn total(page: &str, metric: &str, labels: &[&str]) -> f64 {
    samples(page, metric, labels).iter().map(|l| value(l)).sum()
}

#[tokio::test]
async fn metrics_count_routes_rpcs_pools_sign_ins_and_uploads_on_their_own_port() {
    let portal = start(&["--metrics-addr=127.0.0.1:0"]).await;
    let metrics_url = format!("http://{}/metrics", portal.running.metrics_addr.unwrap());
    // Two sign-ins, then a wrong password and an empty one.
    for (password, status) in [
        (ADMIN_PASSWORD, 200),
        (ADMIN_PASSWORD, 200),
        ("не тот", 401),
        ("", 400),
    ] {
        let response = portal
            .http
            .post(format!("{}/api/auth/login", portal.base))
            .json(&json!({"login": "admin", "password": password}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status);
    }
    // A video stored, and a PDF offered as one refused.
    let editor = portal.token(5, &[Right::EquipmentEditing, Right::EducationManagement]);
    let mut mp4 = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
    mp4.resize(5000, 7);
    for (content, status) in [(mp4, 200), (b"%PDF-1.7\n".to_vec(), 400)] {
        let response = portal
            .http
            .post(format!("{}/api/video/save", portal.base))
            .bearer_auth(&editor)
            .multipart(Form::new().part("video", Part::bytes(content).file_name("v.mp4")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status);
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
    let login_calls = total(
        &page,
        "portal_rpc_requests_total",
        &[r#"method="/portal.auth.v1.AuthService/Login""#],
    );
    assert_eq!(
        timed.iter().map(|l| value(l)).sum::<f64>(),
        login_calls,
        "{page}"
    );
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
        let max = samples(
            &page,
            "portal_db_pool_max_connections",
            &[&format!(r#"database="{database}""#)],
        );
        assert_eq!(max.iter().map(|l| value(l)).collect::<Vec<_>>(), [8.0]);
    }
    // Shown before the first time-out, so that one is an increase.
    assert!(
        page.lines().any(|l| l == "portal_db_pool_timeouts_total 0"),
        "{page}"
    );
    for (outcome, count) in [
        ("success", 2.0),
        ("bad_credentials", 1.0),
        ("incomplete", 1.0),
    ] {
        let outcome = format!(r#"outcome="{outcome}""#);
        assert_eq!(
            total(&page, "portal_sign_ins_total", &[&outcome]),
            count,
            "{page}"
        );
    }
    for outcome in ["stored", "refused"] {
        let labels = [r#"kind="video""#, &format!(r#"outcome="{outcome}""#)];
        assert_eq!(total(&page, "portal_uploads_total", &labels), 1.0, "{page}");
    }
    assert_eq!(
        total(&page, "portal_upload_bytes_total", &[r#"kind="video""#]),
        5000.0
    );
    assert!(page.contains("portal_http_requests_in_flight"), "{page}");
    assert!(page.contains("portal_rpc_in_flight"), "{page}");
    // Every metric the alert rules and the dashboard name is one the binary shows.
    let monitoring = concat!(env!("CARGO_MANIFEST_DIR"), "/../k8s/components/monitoring");
    for file in ["rules.yaml", "dashboards/portal.json"] {
        let text = std::fs::read_to_string(format!("{monitoring}/{file}")).unwrap();
        let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        for name in words.filter(|word| word.starts_with("portal_")) {
            assert!(
                page.lines().any(|l| l
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['{', ' ']))),
                "{file} names {name}, which /metrics does not show: {page}"
            );
        }
    }

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
