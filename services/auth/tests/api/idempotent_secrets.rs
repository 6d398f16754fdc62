//! Writes whose answers carry a secret, retried with an `Idempotency-Key`
//! (`portal_kit::idempotency::SecretAnswer`): the keys' table never holds the
//! secret; a new pending authenticator is made again, and a confirmation,
//! new recovery codes, a printed code, a new service account or a rotated
//! secret are refused on retry rather than replayed or done twice.

use portal_kit::error::reason_of;
use portal_kit::idempotency::{IDEMPOTENCY_KEY, MSG_SECRET_NOT_REPLAYED};
use portal_kit::testing::{away_from_a_step_edge, totp_code};
use portal_proto::auth::v1 as pb;
use sqlx::Row;
use tonic::{Code, Request, Status};

use crate::helpers::*;
use crate::staff_sync::{hospital, sync};

fn keyed<T>(message: T, token: &str, key: &str) -> Request<T> {
    let mut request = authed(message, token);
    request
        .metadata_mut()
        .insert(IDEMPOTENCY_KEY, key.parse().expect("a key"));
    request
}

#[track_caller]
fn not_replayed<T: std::fmt::Debug>(result: Result<tonic::Response<T>, Status>) {
    let status = result.expect_err("a retry of a secret is refused");
    assert_eq!(
        (status.code(), status.message(), reason_of(&status).as_str()),
        (
            Code::FailedPrecondition,
            MSG_SECRET_NOT_REPLAYED,
            "IDEMPOTENT_SECRET_NOT_REPLAYED"
        ),
        "{status:?}"
    );
}

/// Every answer the keys' table holds, as text: (method, status, headers,
/// body, trailers).
async fn stored_answers(app: &TestApp) -> Vec<(String, Option<i64>, String)> {
    let rows = sqlx::query(
        "SELECT method, grpc_status, response_headers, response_body, response_trailers \
         FROM idempotency_keys",
    )
    .fetch_all(&app.database().await)
    .await
    .expect("the keys");
    rows.iter()
        .map(|row| {
            let text = |column: &str| row.try_get::<Option<String>, _>(column).unwrap();
            let body: Option<Vec<u8>> = row.try_get("response_body").unwrap();
            let body = String::from_utf8_lossy(&body.unwrap_or_default()).into_owned();
            let all = [
                text("response_headers"),
                Some(body),
                text("response_trailers"),
            ];
            (
                row.try_get("method").unwrap(),
                row.try_get("grpc_status").unwrap(),
                all.into_iter().flatten().collect::<Vec<_>>().join("\n"),
            )
        })
        .collect()
}

#[tokio::test]
async fn secrets_of_keyed_writes_are_never_stored_and_their_retries_are_not_replayed() {
    on_each_backend_with_accounts(|with| async move {
        let WithAccounts { app, accounts, .. } = with;
        let mut client = app.client.clone();
        let admin = app.admin_token();
        let mut secrets: Vec<String> = Vec::new();

        let login = unique_login("keyed");
        let person = app.staff(&login, "keyed-password-1", &[], &[]).await;
        let token = app.token(person.id, &[]);
        let enrol = |key: &'static str| {
            let mut client = client.clone();
            let token = token.clone();
            async move {
                client
                    .enrol_mfa(keyed(pb::EnrolMfaRequest {}, &token, key))
                    .await
                    .expect("enrol")
                    .into_inner()
            }
        };
        // Done again on retry: a new pending secret replaces the first.
        let first = enrol("enrol-1").await;
        let again = enrol("enrol-1").await;
        assert_ne!(first.secret, again.secret);
        secrets.extend([first.secret, first.otpauth_url]);
        secrets.extend([again.secret.clone(), again.otpauth_url]);

        away_from_a_step_edge().await;
        let confirm = pb::ConfirmMfaRequest {
            code: totp_code(&again.secret, -1),
        };
        let codes = client
            .confirm_mfa(keyed(confirm.clone(), &token, "confirm-1"))
            .await
            .expect("confirm")
            .into_inner()
            .recovery_codes;
        not_replayed(
            client
                .confirm_mfa(keyed(confirm, &token, "confirm-1"))
                .await,
        );
        secrets.extend(codes);
        let renew = pb::RegenerateRecoveryCodesRequest {
            code: totp_code(&again.secret, 0),
        };
        let renewed = client
            .regenerate_recovery_codes(keyed(renew.clone(), &token, "renew-1"))
            .await
            .expect("new codes")
            .into_inner()
            .recovery_codes;
        not_replayed(
            client
                .regenerate_recovery_codes(keyed(renew, &token, "renew-1"))
                .await,
        );
        secrets.extend(renewed);

        let answer = sync(&app, hospital()).await;
        let anna = answer
            .people
            .iter()
            .find(|p| p.employee_number == "0002")
            .expect("synced")
            .user_id;
        let make = || pb::MakeFirstSignInCodeRequest { user_id: anna };
        let made = client
            .make_first_sign_in_code(keyed(make(), &admin, "print-1"))
            .await
            .expect("a printed code")
            .into_inner();
        // A second code would void the first, which may be on paper already.
        not_replayed(
            client
                .make_first_sign_in_code(keyed(make(), &admin, "print-1"))
                .await,
        );
        secrets.push(made.code);

        let mut accounts = accounts.clone();
        let create = pb::CreateServiceAccountRequest {
            name: "ЛИС".into(),
            description: "Лабораторная система".into(),
            scopes: vec![],
            owner_id: 0,
        };
        let created = accounts
            .create_service_account(keyed(create.clone(), &admin, "account-1"))
            .await
            .expect("an account")
            .into_inner();
        not_replayed(
            accounts
                .create_service_account(keyed(create, &admin, "account-1"))
                .await,
        );
        secrets.push(created.client_secret);
        let id = created.id;
        let rotate = || pb::RotateServiceAccountSecretRequest { id };
        let rotated = accounts
            .rotate_service_account_secret(keyed(rotate(), &admin, "rotate-1"))
            .await
            .expect("rotated")
            .into_inner();
        not_replayed(
            accounts
                .rotate_service_account_secret(keyed(rotate(), &admin, "rotate-1"))
                .await,
        );
        secrets.push(rotated.client_secret);

        let stored = stored_answers(&app).await;
        for (method, _, text) in &stored {
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{method} stored a secret with its key"
                );
            }
        }
        // The refused ones keep their key and status (that is what refuses a
        // retry), and nothing else.
        let kept: Vec<(&str, Option<i64>, &str)> = stored
            .iter()
            .map(|(method, status, text)| {
                (method.rsplit('/').next().unwrap(), *status, text.as_str())
            })
            .collect();
        let mut kept_methods: Vec<&str> = kept.iter().map(|(m, ..)| *m).collect();
        kept_methods.sort_unstable();
        assert_eq!(
            kept_methods,
            [
                "ConfirmMfa",
                "CreateServiceAccount",
                "MakeFirstSignInCode",
                "RegenerateRecoveryCodes",
                "RotateServiceAccountSecret"
            ]
        );
        assert!(
            kept.iter()
                .all(|(_, status, text)| *status == Some(0) && text.is_empty())
        );
    })
    .await;
}
