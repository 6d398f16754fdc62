//! The access matrix of ServiceAccountService: people by their rights, and no
//! service account manages service accounts whatever its scopes.

use super::*;
use crate::helpers::*;
use portal_kit::testing::{
    AccessRule, ScopeRule, access_matrix, assert_matrix_covers, scope_matrix, with_token,
};
use portal_proto::auth::v1 as pb;
use tonic::Code;

/// Every RPC of ServiceAccountService and who may call it: UserManagement,
/// but the token request, which is public.
const SERVICE_ACCOUNT_MATRIX: &[AccessRule] = &[
    ("ListServiceAccounts", USER_MANAGEMENT),
    ("CreateServiceAccount", USER_MANAGEMENT),
    ("UpdateServiceAccount", USER_MANAGEMENT),
    ("RotateServiceAccountSecret", USER_MANAGEMENT),
    ("RevokeServiceAccountSecret", USER_MANAGEMENT),
    ("SetServiceAccountPublicKey", USER_MANAGEMENT),
    ("DisableServiceAccount", USER_MANAGEMENT),
    ("EnableServiceAccount", USER_MANAGEMENT),
    ("IssueServiceToken", PUBLIC),
];

/// None of ServiceAccountService serves a system with its token.
const SERVICE_ACCOUNT_SCOPES: &[ScopeRule] = &[];

#[test]
fn the_service_account_matrix_covers_every_rpc_of_the_contract() {
    assert_matrix_covers(
        SERVICE_ACCOUNT_MATRIX,
        "portal.auth.v1",
        "ServiceAccountService",
    );
}

/// The accounts the calls act on: one to edit (its secrets rotate), one to
/// disable and enable, one to get tokens (its first secret kept).
struct Systems {
    tokens: [Option<String>; 5],
    account: pb::CreateServiceAccountResponse,
    switched: i64,
    issuing: pb::CreateServiceAccountResponse,
}

async fn systems(t: &WithAccounts) -> Systems {
    let fixture = fixture(&t.app).await;
    let mut accounts = t.accounts.clone();
    let mut create = async |name: &str| {
        let request = pb::CreateServiceAccountRequest {
            name: name.into(),
            description: String::new(),
            scopes: vec!["staff.read".into()],
            owner_id: ADMIN_ID,
        };
        accounts
            .create_service_account(authed(request, &t.app.admin_token()))
            .await
            .unwrap()
            .into_inner()
    };
    let account = create("МИС").await;
    let switched = create("ЛИС").await.id;
    let issuing = create("Кадровая система").await;
    Systems {
        tokens: fixture.tokens,
        account,
        switched,
        issuing,
    }
}

/// Makes the call `rpc` of ServiceAccountService with `token`, with a request
/// valid for a caller allowed to make it, and answers its code.
async fn call_accounts(
    t: &WithAccounts,
    systems: &Systems,
    rpc: &str,
    token: Option<&str>,
) -> Code {
    let mut accounts = t.accounts.clone();
    let id = systems.account.id;
    match rpc {
        "ListServiceAccounts" => code(
            &accounts
                .list_service_accounts(with_token(pb::ListServiceAccountsRequest {}, token))
                .await,
        ),
        "CreateServiceAccount" => {
            let message = pb::CreateServiceAccountRequest {
                name: unique_login("Система "),
                description: String::new(),
                scopes: vec![],
                owner_id: ADMIN_ID,
            };
            code(
                &accounts
                    .create_service_account(with_token(message, token))
                    .await,
            )
        }
        "UpdateServiceAccount" => {
            let message = pb::UpdateServiceAccountRequest {
                id,
                name: "МИС".into(),
                description: "Медицинская информационная система".into(),
                scopes: vec!["staff.read".into()],
                owner_id: ADMIN_ID,
            };
            code(
                &accounts
                    .update_service_account(with_token(message, token))
                    .await,
            )
        }
        "RotateServiceAccountSecret" => {
            let message = pb::RotateServiceAccountSecretRequest { id };
            code(
                &accounts
                    .rotate_service_account_secret(with_token(message, token))
                    .await,
            )
        }
        "RevokeServiceAccountSecret" => {
            // A secret of its own to revoke, whoever calls.
            let rotated = accounts
                .rotate_service_account_secret(authed(
                    pb::RotateServiceAccountSecretRequest { id },
                    &t.app.admin_token(),
                ))
                .await
                .unwrap()
                .into_inner();
            let message = pb::RevokeServiceAccountSecretRequest {
                id,
                secret_id: rotated.secret_id,
            };
            code(
                &accounts
                    .revoke_service_account_secret(with_token(message, token))
                    .await,
            )
        }
        "SetServiceAccountPublicKey" => {
            let message = pb::SetServiceAccountPublicKeyRequest {
                id,
                public_key: String::new(),
            };
            code(
                &accounts
                    .set_service_account_public_key(with_token(message, token))
                    .await,
            )
        }
        "DisableServiceAccount" => {
            let message = pb::DisableServiceAccountRequest {
                id: systems.switched,
            };
            code(
                &accounts
                    .disable_service_account(with_token(message, token))
                    .await,
            )
        }
        "EnableServiceAccount" => {
            let message = pb::EnableServiceAccountRequest {
                id: systems.switched,
            };
            code(
                &accounts
                    .enable_service_account(with_token(message, token))
                    .await,
            )
        }
        "IssueServiceToken" => {
            let message = pb::IssueServiceTokenRequest {
                client_id: systems.issuing.client_id.clone(),
                client_secret: systems.issuing.client_secret.clone(),
                ..Default::default()
            };
            code(
                &accounts
                    .issue_service_token(with_token(message, token))
                    .await,
            )
        }
        other => panic!("the matrix names an unknown call {other}"),
    }
}

#[tokio::test]
async fn every_service_account_call_enforces_its_access_rule() {
    on_each_backend_with_accounts(|t| async move {
        let systems = systems(&t).await;
        access_matrix(t.app.backend, SERVICE_ACCOUNT_MATRIX, async |rpc, who| {
            call_accounts(&t, &systems, rpc, systems.tokens[who].as_deref()).await
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn a_service_account_manages_no_service_accounts_whatever_its_scopes() {
    on_each_backend_with_accounts(|t| async move {
        let systems = systems(&t).await;
        let rows = needing_a_caller(SERVICE_ACCOUNT_MATRIX);
        scope_matrix(
            t.app.backend,
            &t.app.keys,
            &rows,
            SERVICE_ACCOUNT_SCOPES,
            async |rpc, token| call_accounts(&t, &systems, rpc, Some(token)).await,
        )
        .await;
    })
    .await;
}
