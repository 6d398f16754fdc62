//! Other hospital systems as clients (issue 21): registering them, their
//! secrets (two alive, revocable), tokens by the client-credentials grant with
//! a secret or an RFC 7523 assertion, scopes, failures, last use, access
//! versions (a disabled system's tokens refused elsewhere within a second),
//! and that a system is never a user.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{EncodePrivateKey, EncodePublicKey};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use portal_kit::Caller;
use portal_kit::access::Scope;
use portal_kit::error::{REASON_KEY, RETRY_AFTER_KEY};
use portal_kit::revocation::{AccessVersions, AuthChanges};
use portal_kit::serve::ServiceChannel;
use portal_kit::token::{Principal, TokenVerifier};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::access_revocation_service_client::AccessRevocationServiceClient;
use tonic::service::Interceptor;
use tonic::{Code, Status};
use tower::ServiceExt as _;

use crate::helpers::*;

const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

fn reason(status: &Status) -> Option<&str> {
    status
        .metadata()
        .get(REASON_KEY)
        .and_then(|value| value.to_str().ok())
}

fn creating(name: &str, scopes: &[&str]) -> pb::CreateServiceAccountRequest {
    pb::CreateServiceAccountRequest {
        name: name.into(),
        description: "Кадровая система больницы".into(),
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        owner_id: 0,
    }
}

impl WithAccounts {
    fn admin(&self) -> String {
        self.app.admin_token()
    }

    async fn create(&self, name: &str, scopes: &[&str]) -> pb::CreateServiceAccountResponse {
        self.accounts
            .clone()
            .create_service_account(authed(creating(name, scopes), &self.admin()))
            .await
            .expect("create service account")
            .into_inner()
    }

    async fn list(&self) -> Vec<pb::ServiceAccount> {
        self.accounts
            .clone()
            .list_service_accounts(authed(pb::ListServiceAccountsRequest {}, &self.admin()))
            .await
            .expect("list service accounts")
            .into_inner()
            .service_accounts
    }

    async fn account(&self, id: i64) -> pb::ServiceAccount {
        self.list()
            .await
            .into_iter()
            .find(|a| a.id == id)
            .expect("the account")
    }

    async fn rotate(&self, id: i64) -> pb::RotateServiceAccountSecretResponse {
        self.accounts
            .clone()
            .rotate_service_account_secret(authed(
                pb::RotateServiceAccountSecretRequest { id },
                &self.admin(),
            ))
            .await
            .expect("rotate")
            .into_inner()
    }

    async fn set_active(&self, id: i64, active: bool) -> pb::ServiceAccount {
        let mut accounts = self.accounts.clone();
        let account = if active {
            let request = authed(pb::EnableServiceAccountRequest { id }, &self.admin());
            accounts
                .enable_service_account(request)
                .await
                .map(|r| r.into_inner().service_account)
        } else {
            let request = authed(pb::DisableServiceAccountRequest { id }, &self.admin());
            accounts
                .disable_service_account(request)
                .await
                .map(|r| r.into_inner().service_account)
        };
        account.expect("enable or disable").expect("the account")
    }

    async fn token_by(
        &self,
        request: pb::IssueServiceTokenRequest,
    ) -> Result<pb::IssueServiceTokenResponse, Status> {
        self.accounts
            .clone()
            .issue_service_token(request)
            .await
            .map(|r| r.into_inner())
    }

    async fn token(
        &self,
        client_id: &str,
        secret: &str,
        scope: &str,
    ) -> Result<pb::IssueServiceTokenResponse, Status> {
        self.token_by(by_secret(client_id, secret, scope)).await
    }
}

fn by_secret(client_id: &str, secret: &str, scope: &str) -> pb::IssueServiceTokenRequest {
    pb::IssueServiceTokenRequest {
        client_id: client_id.into(),
        client_secret: secret.into(),
        scope: scope.into(),
        ..Default::default()
    }
}

fn assert_invalid_client<T: std::fmt::Debug>(result: Result<T, Status>) -> String {
    let status = result.expect_err("refused");
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    assert_eq!(reason(&status), Some("invalid-client"), "{status:?}");
    status.message().to_owned()
}

#[tokio::test]
async fn an_admin_registers_a_system_with_its_owner_scopes_and_one_secret_shown_once() {
    on_each_backend_with_accounts(|t| async move {
        let owner = t.app.staff("it-lead", "it-lead-password", &[], &[]).await;
        let created = t
            .create(
                "МИС  больницы",
                &["training.read", "staff.read", "staff.read"],
            )
            .await;
        assert!(created.client_id.starts_with("svc-") && created.client_id.len() == 20);
        assert_eq!(created.client_secret.len(), 43);

        let account = t.account(created.id).await;
        assert_eq!(account.name, "МИС больницы");
        assert_eq!(account.client_id, created.client_id);
        assert_eq!(account.owner_id, ADMIN_ID, "0 is the caller");
        assert_eq!(account.scopes, ["staff.read", "training.read"]);
        assert!(account.active && !account.has_public_key);
        assert_eq!(account.secrets.len(), 1);
        assert_eq!(account.secrets[0].id, created.secret_id);
        assert!(account.last_used_at.is_none() && account.last_used_from.is_empty());
        assert!(account.created_at.is_some());

        // Another owner, by id: named in the list.
        let mut accounts = t.accounts.clone();
        let request = pb::UpdateServiceAccountRequest {
            id: created.id,
            name: "МИС".into(),
            description: String::new(),
            scopes: vec!["equipment.read".into()],
            owner_id: owner.id,
        };
        let updated = accounts
            .update_service_account(authed(request, &t.admin()))
            .await
            .unwrap()
            .into_inner()
            .service_account
            .unwrap();
        assert_eq!(updated.owner_name, "Смирнова Ольга Викторовна");
        assert_eq!(updated.scopes, ["equipment.read"]);

        // A name taken (case and ё aside), an unknown scope, an unknown owner.
        let taken = accounts
            .create_service_account(authed(creating("мис", &[]), &t.admin()))
            .await;
        assert_eq!(code(&taken), Code::FailedPrecondition, "{taken:?}");
        let unknown_scope = accounts
            .create_service_account(authed(creating("ЛИС", &["staff.delete"]), &t.admin()))
            .await;
        assert_eq!(code(&unknown_scope), Code::InvalidArgument);
        let nobody = pb::CreateServiceAccountRequest {
            owner_id: 9999,
            ..creating("ЛИС", &[])
        };
        let nobody = accounts
            .create_service_account(authed(nobody, &t.admin()))
            .await;
        assert_eq!(code(&nobody), Code::InvalidArgument);
        let missing = accounts
            .disable_service_account(authed(
                pb::DisableServiceAccountRequest { id: 9999 },
                &t.admin(),
            ))
            .await;
        assert_eq!(code(&missing), Code::NotFound);
    })
    .await;
}

#[tokio::test]
async fn two_secrets_stay_alive_for_rotation_and_a_revoked_one_gets_no_token() {
    on_each_backend_with_accounts(|t| async move {
        let created = t.create("Кадры", &["staff.read"]).await;
        let first = created.client_secret.clone();
        let second = t.rotate(created.id).await;
        let ids: Vec<i64> = t
            .account(created.id)
            .await
            .secrets
            .iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(ids, [created.secret_id, second.secret_id]);
        t.token(&created.client_id, &first, "").await.unwrap();
        t.token(&created.client_id, &second.client_secret, "")
            .await
            .unwrap();

        // A third secret drops the oldest.
        let third = t.rotate(created.id).await;
        let ids: Vec<i64> = t
            .account(created.id)
            .await
            .secrets
            .iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(ids, [second.secret_id, third.secret_id]);
        assert_invalid_client(t.token(&created.client_id, &first, "").await);

        // Revoked: no new token by it, while the token it got lives on.
        let before = t
            .token(&created.client_id, &second.client_secret, "")
            .await
            .unwrap();
        let mut accounts = t.accounts.clone();
        let revoke = pb::RevokeServiceAccountSecretRequest {
            id: created.id,
            secret_id: second.secret_id,
        };
        let left = accounts
            .revoke_service_account_secret(authed(revoke, &t.admin()))
            .await
            .unwrap()
            .into_inner()
            .service_account
            .unwrap();
        assert_eq!(left.secrets.len(), 1);
        assert_invalid_client(t.token(&created.client_id, &second.client_secret, "").await);
        t.token(&created.client_id, &third.client_secret, "")
            .await
            .unwrap();
        let mut verifier = t.app.keys.verifier.clone();
        assert!(matches!(
            caller_of(&mut verifier, &before.access_token),
            Caller::ServiceAccount(_)
        ));
        let again = accounts
            .revoke_service_account_secret(authed(revoke, &t.admin()))
            .await;
        assert_eq!(code(&again), Code::NotFound);
    })
    .await;
}

#[tokio::test]
async fn a_token_names_the_system_and_the_scopes_asked_for_within_those_granted() {
    on_each_backend_with_accounts(|t| async move {
        let created = t.create("Отчёты", &["training.read", "staff.read"]).await;
        let all = t
            .token(&created.client_id, &created.client_secret, "")
            .await
            .unwrap();
        assert_eq!(all.token_type, "Bearer");
        assert_eq!(all.expires_in, 600);
        assert_eq!(all.scope, "staff.read training.read");
        let Some(Principal::ServiceAccount(claims)) =
            t.app.keys.verifier.verify_principal(&all.access_token)
        else {
            panic!("a service account's token");
        };
        assert_eq!(claims.account_id, created.id);
        assert_eq!(claims.client_id, created.client_id);
        assert!(claims.has(Scope::StaffRead) && claims.has(Scope::TrainingRead));
        assert!(!claims.has(Scope::StaffWrite));

        let narrow = t
            .token(
                &created.client_id,
                &created.client_secret,
                " training.read ",
            )
            .await
            .unwrap();
        assert_eq!(narrow.scope, "training.read");
        for refused in ["staff.write", "training.read equipment.read", "root"] {
            let status = t
                .token(&created.client_id, &created.client_secret, refused)
                .await
                .unwrap_err();
            assert_eq!(status.code(), Code::InvalidArgument, "{refused}");
            assert_eq!(reason(&status), Some("invalid-scope"), "{refused}");
        }
        // Credentials of both kinds, or none.
        let both = pb::IssueServiceTokenRequest {
            client_assertion_type: ASSERTION_TYPE.into(),
            client_assertion: "a.b.c".into(),
            ..by_secret(&created.client_id, &created.client_secret, "")
        };
        let both = t.token_by(both).await.unwrap_err();
        assert_eq!(reason(&both), Some("invalid-request"));
        let none = t
            .token_by(pb::IssueServiceTokenRequest::default())
            .await
            .unwrap_err();
        assert_eq!(reason(&none), Some("invalid-request"));
    })
    .await;
}

#[tokio::test]
async fn every_failed_proof_reads_the_same_and_strangers_cannot_lock_the_system_out() {
    on_each_backend_with_accounts(|t| async move {
        let created = t.create("Склад", &["equipment.read"]).await;
        let disabled = t.create("Старая система", &["equipment.read"]).await;
        t.set_active(disabled.id, false).await;
        let messages = [
            assert_invalid_client(t.token("svc-0000000000000000", "x", "").await),
            assert_invalid_client(t.token(&created.client_id, "wrong", "").await),
            assert_invalid_client(
                t.token(&disabled.client_id, &disabled.client_secret, "")
                    .await,
            ),
        ];
        assert!(messages.iter().all(|m| *m == messages[0]), "{messages:?}");

        // A stranger's guesses up to the limit, then turned away with a wait…
        for _ in 0..19 {
            assert_invalid_client(t.token(&created.client_id, "guess", "").await);
        }
        let limited = t.token(&created.client_id, "guess", "").await.unwrap_err();
        assert_eq!(limited.code(), Code::ResourceExhausted, "{limited:?}");
        assert_eq!(reason(&limited), Some("too-many-failures"));
        assert!(limited.metadata().get(RETRY_AFTER_KEY).is_some());
        // …while the system's right secret still gets its token.
        t.token(&created.client_id, &created.client_secret, "")
            .await
            .unwrap();
    })
    .await;
}

#[tokio::test]
async fn each_token_records_the_accounts_and_the_secrets_last_use_and_address() {
    on_each_backend_with_accounts(|t| async move {
        let created = t.create("ЛИС", &["training.read"]).await;
        let mut accounts = t.accounts.clone();
        let request = from_address(
            by_secret(&created.client_id, &created.client_secret, ""),
            "203.0.113.7",
        );
        accounts.issue_service_token(request).await.unwrap();
        let account = t.account(created.id).await;
        assert_eq!(account.last_used_from, "203.0.113.7");
        let used = account.last_used_at.expect("last used");
        assert_eq!(account.secrets[0].last_used_at, Some(used));
    })
    .await;
}

/// An Ed25519 key pair: the signer of assertions and its public PEM.
fn key_pair() -> (EncodingKey, String) {
    let signing = ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng);
    let private = signing.to_pkcs8_pem(LineEnding::LF).unwrap();
    let public = signing
        .verifying_key()
        .to_public_key_pem(LineEnding::LF)
        .unwrap();
    (
        EncodingKey::from_ed_pem(private.as_bytes()).unwrap(),
        public,
    )
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An RFC 7523 client assertion of `client_id` for audience `aud`.
fn assertion(key: &EncodingKey, client_id: &str, aud: &str, lifetime: u64, jti: &str) -> String {
    let claims = serde_json::json!({
        "iss": client_id, "sub": client_id, "aud": aud,
        "iat": unix_now(), "exp": unix_now() + lifetime, "jti": jti,
    });
    jsonwebtoken::encode(&Header::new(Algorithm::EdDSA), &claims, key).unwrap()
}

fn by_assertion(assertion: String) -> pb::IssueServiceTokenRequest {
    pb::IssueServiceTokenRequest {
        client_assertion_type: ASSERTION_TYPE.into(),
        client_assertion: assertion,
        ..Default::default()
    }
}

#[tokio::test]
async fn a_registered_key_signs_client_assertions_each_good_for_one_token() {
    on_each_backend_with_accounts(|t| async move {
        let created = t
            .create(
                "Реестр оборудования",
                &["equipment.read", "equipment.write"],
            )
            .await;
        let (signer, public_pem) = key_pair();
        let mut accounts = t.accounts.clone();
        let set = |public_key: &str| pb::SetServiceAccountPublicKeyRequest {
            id: created.id,
            public_key: public_key.into(),
        };
        let bad = accounts
            .set_service_account_public_key(authed(set("-----BEGIN PUBLIC KEY-----"), &t.admin()))
            .await;
        assert_eq!(code(&bad), Code::InvalidArgument);
        let keyed = accounts
            .set_service_account_public_key(authed(set(&public_pem), &t.admin()))
            .await
            .unwrap()
            .into_inner()
            .service_account
            .unwrap();
        assert!(keyed.has_public_key);

        let endpoint = format!("{PUBLIC_URL}/api/oauth/token");
        let first = assertion(&signer, &created.client_id, &endpoint, 60, "a-1");
        let issued = t.token_by(by_assertion(first.clone())).await.unwrap();
        assert_eq!(issued.scope, "equipment.read equipment.write");
        // The client id may come along; "portal" is an audience too.
        let named = pb::IssueServiceTokenRequest {
            client_id: created.client_id.clone(),
            scope: "equipment.read".into(),
            ..by_assertion(assertion(&signer, &created.client_id, "portal", 60, "a-2"))
        };
        assert_eq!(t.token_by(named).await.unwrap().scope, "equipment.read");
        // Used once; for another server; too long-lived; another's key;
        // another client's id.
        assert_invalid_client(t.token_by(by_assertion(first)).await);
        let elsewhere = assertion(
            &signer,
            &created.client_id,
            "https://x.example/token",
            60,
            "a-3",
        );
        assert_invalid_client(t.token_by(by_assertion(elsewhere)).await);
        let lasting = assertion(&signer, &created.client_id, &endpoint, 3600, "a-4");
        assert_invalid_client(t.token_by(by_assertion(lasting)).await);
        let (stranger, _) = key_pair();
        let forged = assertion(&stranger, &created.client_id, &endpoint, 60, "a-5");
        assert_invalid_client(t.token_by(by_assertion(forged)).await);
        let other = t.create("Другая система", &["equipment.read"]).await;
        let mismatch = pb::IssueServiceTokenRequest {
            client_id: other.client_id.clone(),
            ..by_assertion(assertion(&signer, &created.client_id, &endpoint, 60, "a-6"))
        };
        assert_invalid_client(t.token_by(mismatch).await);

        // The key removed, its assertions are refused.
        accounts
            .set_service_account_public_key(authed(set(""), &t.admin()))
            .await
            .unwrap();
        let after = assertion(&signer, &created.client_id, &endpoint, 60, "a-7");
        assert_invalid_client(t.token_by(by_assertion(after)).await);
    })
    .await;
}

#[tokio::test]
async fn a_system_is_never_a_user_holds_no_rights_and_cannot_sign_in() {
    on_each_backend_with_accounts(|t| async move {
        let users_before = t.app.database().await;
        let count = |pool: sqlx::AnyPool| async move {
            let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
                .fetch_one(&pool)
                .await
                .unwrap();
            n
        };
        let before = count(users_before.clone()).await;
        let created = t
            .create("Кадровая система", &["staff.read", "staff.write"])
            .await;
        assert_eq!(count(users_before).await, before);

        let signed_in = t
            .app
            .login(&created.client_id, &created.client_secret)
            .await;
        assert_status(
            signed_in,
            Code::Unauthenticated,
            "Неверный логин или пароль",
        );
        let users = t
            .app
            .client
            .clone()
            .list_users(authed(pb::ListUsersRequest {}, &t.admin()))
            .await
            .unwrap()
            .into_inner()
            .users;
        assert!(
            users
                .iter()
                .all(|u| u.login != created.client_id && u.surname != "Кадровая система")
        );

        // Its token opens no person's call: not even its own profile.
        let token = t
            .token(&created.client_id, &created.client_secret, "")
            .await
            .unwrap();
        let refused = t
            .app
            .client
            .clone()
            .get_me(authed(pb::GetMeRequest {}, &token.access_token))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied);
        assert_eq!(reason(&refused), Some("scope-missing"));
        let refused = t
            .accounts
            .clone()
            .list_service_accounts(authed(
                pb::ListServiceAccountsRequest {},
                &token.access_token,
            ))
            .await
            .unwrap_err();
        assert_eq!(reason(&refused), Some("scope-missing"));
    })
    .await;
}

fn caller_of(verifier: &mut TokenVerifier, token: &str) -> Caller {
    let request = authed((), token);
    Caller::of(
        &verifier
            .call(request)
            .expect("the interceptor never refuses"),
    )
}

/// Another service's token check: auth's public key, and the access
/// versions it learns from auth every second.
fn another_services_check(t: &WithAccounts) -> TokenVerifier {
    let channel = ServiceChannel::new(
        t.channel
            .clone()
            .map_err(|error| Status::from_error(Box::new(error))),
    );
    let versions = AccessVersions::default();
    versions.follow(AuthChanges::new(t.app.keys.internal.channel(channel)));
    t.app.keys.verifier.clone().with_access_versions(versions)
}

/// Waits until `verifier` refuses `token` as revoked; how long it took.
async fn until_refused(verifier: &mut TokenVerifier, token: &str) -> Duration {
    let since = Instant::now();
    while !matches!(caller_of(verifier, token), Caller::Revoked) {
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "still accepted after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    since.elapsed()
}

#[tokio::test]
async fn disabling_a_system_or_changing_its_scopes_stops_its_tokens_elsewhere_within_a_second() {
    on_each_backend_with_accounts(|t| async move {
        let created = t.create("МИС", &["training.read", "staff.read"]).await;
        let mut elsewhere = another_services_check(&t);
        let token = t
            .token(&created.client_id, &created.client_secret, "")
            .await
            .unwrap();
        assert!(matches!(
            caller_of(&mut elsewhere, &token.access_token),
            Caller::ServiceAccount(_)
        ));

        // A change of name only leaves its tokens good.
        let mut accounts = t.accounts.clone();
        let rename = pb::UpdateServiceAccountRequest {
            id: created.id,
            name: "МИС больницы".into(),
            description: String::new(),
            scopes: vec!["staff.read".into(), "training.read".into()],
            owner_id: ADMIN_ID,
        };
        accounts
            .update_service_account(authed(rename.clone(), &t.admin()))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(matches!(
            caller_of(&mut elsewhere, &token.access_token),
            Caller::ServiceAccount(_)
        ));

        // Fewer scopes: tokens saying more are refused; a new one is good.
        let narrower = pb::UpdateServiceAccountRequest {
            scopes: vec!["training.read".into()],
            ..rename
        };
        accounts
            .update_service_account(authed(narrower, &t.admin()))
            .await
            .unwrap();
        let took = until_refused(&mut elsewhere, &token.access_token).await;
        assert!(took < Duration::from_secs(3), "{took:?}");
        let renewed = t
            .token(&created.client_id, &created.client_secret, "")
            .await
            .unwrap();
        assert_eq!(renewed.scope, "training.read");
        assert!(matches!(
            caller_of(&mut elsewhere, &renewed.access_token),
            Caller::ServiceAccount(_)
        ));

        // Disabled: refused elsewhere within about a second, and reported by
        // ListAccessChanges as the account's.
        t.set_active(created.id, false).await;
        let took = until_refused(&mut elsewhere, &renewed.access_token).await;
        assert!(took < Duration::from_secs(3), "{took:?}");
        println!(
            "a disabled system's token refused elsewhere within {} ms",
            took.as_millis()
        );
        let changes = AccessRevocationServiceClient::with_interceptor(
            t.channel.clone(),
            t.app.keys.internal.credential(),
        )
        .list_access_changes(pb::ListAccessChangesRequest { since: 0 })
        .await
        .unwrap()
        .into_inner()
        .changes;
        let change = changes
            .iter()
            .find(|c| c.service_account_id == created.id)
            .expect("the account's change");
        assert_eq!((change.user_id, change.access_version), (0, 2));

        // Enabled again: new tokens work, those from before stay refused.
        t.set_active(created.id, true).await;
        let after = t
            .token(&created.client_id, &created.client_secret, "")
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(matches!(
            caller_of(&mut elsewhere, &after.access_token),
            Caller::ServiceAccount(_)
        ));
        assert!(matches!(
            caller_of(&mut elsewhere, &renewed.access_token),
            Caller::Revoked
        ));
    })
    .await;
}
