//! Idempotency keys (issue 21, `portal_kit::idempotency`) on a write of auth:
//! a retried CreateDepartment with the same key is done once.

use portal_kit::Right;
use portal_kit::error::{REASON_KEY, reason_of};
use portal_kit::idempotency::{IDEMPOTENCY_KEY, REPLAYED_KEY};
use portal_kit::net::TrustedProxies;
use portal_proto::auth::v1 as pb;
use tonic::{Code, Request};

use crate::helpers::*;

fn keyed(title: &str, token: &str, key: &str) -> Request<pb::CreateDepartmentRequest> {
    let mut request = authed(
        pb::CreateDepartmentRequest {
            title: title.into(),
            user_ids: vec![],
        },
        token,
    );
    request
        .metadata_mut()
        .insert(IDEMPOTENCY_KEY, key.parse().unwrap());
    request
}

async fn departments(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM departments")
        .fetch_one(&app.database().await)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_create_retried_with_its_key_is_done_once_and_answers_the_same() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let before = departments(&app).await;
        let token = app.admin_token();
        let first = client
            .create_department(keyed("Кардиология", &token, "hr-sync-1"))
            .await
            .unwrap();
        assert!(first.metadata().get(REPLAYED_KEY).is_none());
        let first = first.into_inner().department.unwrap();
        // The retry comes with a renewed token of the same person, to another replica.
        let renewed = app.token(ADMIN_ID, &[Right::UserManagement]);
        assert_ne!(renewed, token);
        let replica = app.replica(TrustedProxies::loopback()).await;
        let again = replica
            .client
            .clone()
            .create_department(keyed("Кардиология", &renewed, "hr-sync-1"))
            .await
            .unwrap();
        assert_eq!(again.metadata().get(REPLAYED_KEY).unwrap(), "true");
        assert_eq!(again.into_inner().department.unwrap(), first);
        assert_eq!(departments(&app).await, before + 1);

        // Without a key the same write is a new call, refused as a duplicate title.
        let unkeyed = client
            .create_department(authed(
                pb::CreateDepartmentRequest {
                    title: "Кардиология".into(),
                    user_ids: vec![],
                },
                &token,
            ))
            .await;
        assert_eq!(code(&unkeyed), Code::FailedPrecondition);
    })
    .await;
}

#[tokio::test]
async fn a_key_reused_for_another_request_is_refused_and_keys_are_each_callers_own() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        client
            .create_department(keyed("Неврология", &token, "k-1"))
            .await
            .unwrap();
        let reused = client
            .create_department(keyed("Урология", &token, "k-1"))
            .await
            .unwrap_err();
        assert_eq!(reused.code(), Code::FailedPrecondition);
        assert_eq!(reason_of(&reused), "IDEMPOTENCY_KEY_REUSED");
        assert_eq!(
            reused.metadata().get(REASON_KEY).unwrap(),
            "idempotency-key-reused"
        );
        // The same key is another person's own.
        let other = app.token(77, &[Right::UserManagement]);
        let theirs = client
            .create_department(keyed("Урология", &other, "k-1"))
            .await
            .unwrap()
            .into_inner()
            .department
            .unwrap();
        assert_eq!(theirs.title, "Урология");
        // The same key on another method is another key.
        let mut update = authed(
            pb::UpdateDepartmentRequest {
                id: theirs.id,
                title: "Урология и андрология".into(),
                user_ids: vec![],
            },
            &token,
        );
        update
            .metadata_mut()
            .insert(IDEMPOTENCY_KEY, "k-1".parse().unwrap());
        client.update_department(update).await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_refusal_that_may_change_is_not_kept_and_a_bad_key_is_refused() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        // Without the right: refused, and not remembered, so once granted the
        // same key does the write.
        let refused = client
            .create_department(keyed("Онкология", &app.token(9, &[]), "grant"))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied);
        let granted = app.token(9, &[Right::UserManagement]);
        client
            .create_department(keyed("Онкология", &granted, "grant"))
            .await
            .unwrap();
        // A deterministic refusal is kept: the same answer again, replayed.
        let token = app.admin_token();
        let blank = client
            .create_department(keyed("", &token, "blank"))
            .await
            .unwrap_err();
        assert_eq!(blank.code(), Code::InvalidArgument);
        let again = client
            .create_department(keyed("", &token, "blank"))
            .await
            .unwrap_err();
        assert_eq!(
            (again.code(), again.message()),
            (blank.code(), blank.message())
        );
        assert_eq!(again.metadata().get(REPLAYED_KEY).unwrap(), "true");
        assert_eq!(reason_of(&again), "INVALID_ARGUMENT");

        let bad = client
            .create_department(keyed("Онкология 2", &token, "two words"))
            .await;
        let bad = match bad {
            Err(status) => status,
            Ok(_) => panic!("a key that is not visible ASCII"),
        };
        assert_eq!(bad.code(), Code::InvalidArgument);
        assert_eq!(reason_of(&bad), "IDEMPOTENCY_KEY_INVALID");
    })
    .await;
}
