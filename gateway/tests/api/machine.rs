//! What machines rely on through the gateway (issue 21): the same reason code
//! over REST and gRPC, idempotency keys from a REST header, and the request
//! limit of a service account.

use std::time::Duration;

use crate::support::{Portal, envelope, start};
use portal_kit::Right;
use portal_kit::access::Scope;
use portal_kit::error::{ERROR_DOMAIN, reason_of};
use portal_kit::token::{ServiceAccountSubject, TokenIssuer};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use serde_json::{Value, json};
use tonic_types::StatusExt;

/// A token of service account `id` granted `scopes`, signed as auth would.
fn service_token(portal: &Portal, id: i64, scopes: &[Scope]) -> String {
    TokenIssuer::from_pem_file(&portal.data.path().join("jwt-private.pem"))
        .unwrap()
        .issue_service_account(ServiceAccountSubject {
            account_id: id,
            name: format!("Система {id}"),
            client_id: format!("client-{id}"),
            scopes: scopes.to_vec(),
            access_version: i64::MAX,
        })
        .unwrap()
}

fn authed<T>(message: T, token: &str) -> tonic::Request<T> {
    portal_kit::testing::authed(message, token)
}

async fn grpc_refusal(portal: &Portal, token: &str) -> tonic::Status {
    AuthServiceClient::new(portal.grpc_channel().await)
        .get_department(authed(
            pb::GetDepartmentRequest { department_id: 999 },
            token,
        ))
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_refusal_carries_the_same_reason_over_rest_and_grpc() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &Right::ALL);
    let system = service_token(&portal, 5, &[]);
    for (token, http, reason, error_code) in [
        (&admin, 404, "NOT_FOUND", None),
        (&system, 403, "SCOPE_MISSING", Some("scope-missing")),
    ] {
        let (status, _, body) = portal
            .get("/api/department/get-by-id?departmentId=999", Some(token))
            .await;
        assert_eq!(status, http, "{body}");
        let rest = envelope(&body);
        assert_eq!(rest["reason"], reason, "{rest}");
        assert_eq!(rest["errorCode"].as_str(), error_code, "{rest}");

        let grpc = grpc_refusal(&portal, token).await;
        let info = grpc.get_details_error_info().expect("ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            (reason, ERROR_DOMAIN)
        );
        assert_eq!(rest["errorMessage"], grpc.message());
    }
    // The gateway's own refusals have one too.
    let (status, _, body) = portal.get("/api/no-such-route", None).await;
    assert_eq!(status, 404);
    assert_eq!(envelope(&body)["reason"], "NOT_FOUND");
    // Success has none.
    let (_, _, body) = portal.get("/api/department/get-all", Some(&admin)).await;
    assert!(envelope(&body).get("reason").is_none(), "{body}");
    portal.running.stop().await.unwrap();
}

async fn create(portal: &Portal, token: &str, key: &str, title: &str) -> (u16, Value) {
    let response = portal
        .http
        .post(format!("{}/api/department/create", portal.base))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(&json!({ "title": title, "users": [] }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, envelope(&response.text().await.unwrap()))
}

#[tokio::test]
async fn a_rest_write_retried_with_its_idempotency_key_is_done_once() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &Right::ALL);
    let (status, first) = create(&portal, &admin, "import-42", "Гематология").await;
    assert_eq!(status, 200, "{first}");
    let (status, again) = create(&portal, &admin, "import-42", "Гематология").await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["data"], first["data"]);
    let (_, _, all) = portal.get("/api/department/get-all", Some(&admin)).await;
    let titles = envelope(&all)["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["title"] == "Гематология")
        .count();
    assert_eq!(titles, 1);

    let (status, reused) = create(&portal, &admin, "import-42", "Нефрология").await;
    assert_eq!(status, 409, "{reused}");
    assert_eq!(reused["reason"], "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(reused["errorCode"], "idempotency-key-reused");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn a_service_accounts_burst_is_429_with_retry_after_and_no_one_elses() {
    let portal = start(&["--service-account-rate=1", "--service-account-burst=3"]).await;
    let runaway = service_token(&portal, 7, &[]);
    let other = service_token(&portal, 8, &[]);
    let person = portal.token(1, &Right::ALL);
    let path = "/api/department/get-all";
    for _ in 0..3 {
        // Refused for its scopes, but each call spends from its bucket.
        assert_eq!(portal.get(path, Some(&runaway)).await.0, 403);
    }
    let (status, headers, body) = portal.get(path, Some(&runaway)).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(envelope(&body)["reason"], "RATE_LIMITED");
    let grpc = AuthServiceClient::new(portal.grpc_channel().await)
        .list_departments(authed(pb::ListDepartmentsRequest {}, &runaway))
        .await
        .unwrap_err();
    assert_eq!(grpc.code(), tonic::Code::ResourceExhausted);
    assert_eq!(reason_of(&grpc), "RATE_LIMITED");
    assert!(grpc.get_details_retry_info().unwrap().retry_delay.unwrap() <= Duration::from_secs(1));

    assert_eq!(portal.get(path, Some(&other)).await.0, 403);
    for _ in 0..10 {
        assert_eq!(portal.get(path, Some(&person)).await.0, 200);
    }
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(portal.get(path, Some(&runaway)).await.0, 403);
    portal.running.stop().await.unwrap();
}
