//! Single sign-on (issue 39.2) against a real OpenID provider
//! ([`crate::oidc_provider`]): a synced person signs in by the provider,
//! matched by their employee number, with their groups' rights; strangers,
//! blocked people, forged and replayed callbacks are refused with a reason;
//! a rotated key is read again; signing out names the provider's end of
//! session, and the provider's back-channel logout ends every session.

use portal_auth::sso::SsoSettings;
use portal_kit::testing::{self, AuditLog};
use portal_proto::auth::v1 as pb;
use serde_json::json;
use tonic::Code;

use crate::directory::{rights_of, user_id};
use crate::helpers::*;
use crate::oidc_provider::{Browser, OidcProvider};
use crate::staff_sync::{department, person, sync, user_by_login};

/// The provider's people: Ольга (employee number 2001, an educator by her
/// group), and everyone else known by login only.
fn accounts() -> serde_json::Value {
    json!({
        "olga": {
            "employee_number": "2001",
            "groups": ["portal-educators"],
            "given_name": "Ольга",
            "family_name": "Смирнова"
        }
    })
}

/// HR sends Ольга, with her portal login unlike the provider's, and no password.
async fn sync_olga(app: &TestApp) {
    sync(
        app,
        pb::SyncStaffRequest {
            departments: vec![department("CARD", "Кардиологическое отделение")],
            people: vec![pb::StaffPerson {
                login: "o.smirnova".into(),
                ..person("2001", "Смирнова", "Ольга", &["CARD"])
            }],
            ..Default::default()
        },
    )
    .await;
}

async fn on_each_backend_with<F: Future<Output = ()>>(
    settings: &SsoSettings,
    scenario: impl Fn(TestApp) -> F,
) {
    let spawn = |backend| spawn_with_sso(backend, settings.clone());
    testing::on_each_backend(spawn, scenario).await;
}

async fn start(app: &TestApp, return_to: &str) -> pb::StartSsoResponse {
    let request = pb::StartSsoRequest {
        return_to: return_to.into(),
    };
    app.client
        .clone()
        .start_sso(request)
        .await
        .expect("a flow starts")
        .into_inner()
}

async fn finish(
    app: &TestApp,
    code: &str,
    state: &str,
) -> Result<pb::FinishSsoResponse, tonic::Status> {
    let request = pb::FinishSsoRequest {
        code: code.into(),
        state: state.into(),
        ..Default::default()
    };
    app.client
        .clone()
        .finish_sso(request)
        .await
        .map(|reply| reply.into_inner())
}

/// A whole sign-in by the provider as `login`, in `browser`.
async fn sign_in(
    app: &TestApp,
    browser: &Browser,
    login: &str,
) -> Result<pb::FinishSsoResponse, tonic::Status> {
    let started = start(app, "/education").await;
    let back = browser.authorize(&started.authorization_url, login).await;
    assert_eq!(back.state, started.state, "the provider returns the state");
    finish(app, &back.code, &back.state).await
}

fn reason(status: &tonic::Status) -> String {
    portal_kit::error::reason_of(status)
}

#[tokio::test]
async fn a_synced_person_signs_in_by_the_provider_with_the_rights_of_her_groups() {
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    let settings = provider.settings(|args| portal_auth::sso::SsoArgs {
        oidc_group_rights: Some("portal-educators=EducationManagement".into()),
        ..args
    });
    on_each_backend_with(&settings, |app| {
        let browser = provider.browser();
        async move {
            sync_olga(&app).await;
            let olga = user_id(&app, "o.smirnova").await;
            let options = app
                .client
                .clone()
                .get_sign_in_options(pb::GetSignInOptionsRequest {})
                .await
                .expect("options")
                .into_inner();
            assert_eq!(options.sso_name, "Keycloak больницы");
            let mut log = AuditLog::start(&app).await;

            let started = start(&app, "/education").await;
            assert!(
                started
                    .authorization_url
                    .contains("code_challenge_method=S256")
            );
            assert!(started.authorization_url.contains("nonce="));
            let back = browser.authorize(&started.authorization_url, "olga").await;
            let finished = finish(&app, &back.code, &back.state)
                .await
                .expect("signed in");
            let session = finished.sign_in.expect("a sign-in");
            assert!(!session.access_token.is_empty());
            assert!(!session.refresh_token.is_empty());
            assert_eq!(finished.return_to, "/education");
            assert_eq!(rights_of(&app, olga).await, ["EducationManagement"]);
            let records = log.next(&app, 2).await;
            let shown: Vec<_> = records
                .iter()
                .map(|r| (r.action.as_str(), r.entity_id, r.reason.as_str()))
                .collect();
            assert_eq!(
                shown,
                [("grant", Some(olga), ""), ("sign-in", Some(olga), "sso")]
            );

            // The same callback again (a reload, a replay) signs nobody in.
            let again = finish(&app, &back.code, &back.state).await;
            assert_eq!(reason(&again.expect_err("refused")), "SSO_FLOW_INVALID");
        }
    })
    .await;
}

#[tokio::test]
async fn a_stranger_is_refused_and_recorded_unless_people_are_created() {
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    on_each_backend_with(&provider.settings(|args| args), |app| {
        let browser = provider.browser();
        async move {
            let refused = sign_in(&app, &browser, "stranger").await;
            let status = refused.expect_err("refused");
            assert_eq!(status.code(), Code::Unauthenticated);
            assert_eq!(reason(&status), "NOT_IN_PORTAL");
            let last = AuditLog::all::<Client>(&app).await.pop().expect("a record");
            assert_eq!(
                (last.action.as_str(), last.reason.as_str()),
                ("sign-in-refused", "not-in-portal")
            );
        }
    })
    .await;
    let creating = provider.settings(|args| portal_auth::sso::SsoArgs {
        oidc_create_people: true,
        ..args
    });
    on_each_backend_with(&creating, |app| {
        let browser = provider.browser();
        async move {
            let finished = sign_in(&app, &browser, "olga").await.expect("created");
            assert!(finished.sign_in.is_some());
            let olga = user_by_login(&app, "olga").await;
            assert_eq!(
                (olga.surname.as_str(), olga.name.as_str()),
                ("Смирнова", "Ольга")
            );
            assert_eq!(rights_of(&app, olga.id).await, Vec::<String>::new());
            // Her second sign-in finds her by her subject, not a new person.
            sign_in(&app, &browser, "olga").await.expect("again");
            let people = crate::staff_sync::users(&app).await;
            assert_eq!(people.iter().filter(|p| p.login == "olga").count(), 1);
        }
    })
    .await;
}

#[tokio::test]
async fn a_blocked_person_cannot_sign_in_by_the_provider() {
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    on_each_backend_with(&provider.settings(|args| args), |app| {
        let browser = provider.browser();
        async move {
            sync_olga(&app).await;
            let olga = user_by_login(&app, "o.smirnova").await;
            app.block(&olga).await;
            let status = sign_in(&app, &browser, "olga").await.expect_err("refused");
            assert_eq!(reason(&status), "BLOCKED");
            let last = AuditLog::all::<Client>(&app).await.pop().expect("a record");
            assert_eq!(
                (last.reason.as_str(), last.entity_id),
                ("blocked", Some(olga.id))
            );
        }
    })
    .await;
}

#[tokio::test]
async fn forged_crossed_and_cancelled_callbacks_sign_nobody_in() {
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    on_each_backend_with(&provider.settings(|args| args), |app| {
        let browser = provider.browser();
        async move {
            sync_olga(&app).await;
            // A state nobody was given.
            let forged = finish(&app, "any-code", "a-guessed-state").await;
            assert_eq!(reason(&forged.expect_err("refused")), "SSO_FLOW_INVALID");
            // One flow's code with another flow's state: its PKCE verifier
            // does not match, and the provider refuses the code.
            let first = start(&app, "/").await;
            let second = start(&app, "/").await;
            let back = browser.authorize(&first.authorization_url, "olga").await;
            let crossed = finish(&app, &back.code, &second.state).await;
            assert_eq!(reason(&crossed.expect_err("refused")), "SSO_TOKEN_INVALID");
            // The provider's refusal (the person pressed «Cancel»).
            let third = start(&app, "/").await;
            let cancelled = app
                .client
                .clone()
                .finish_sso(pb::FinishSsoRequest {
                    state: third.state,
                    error: "access_denied".into(),
                    ..Default::default()
                })
                .await;
            assert_eq!(reason(&cancelled.expect_err("refused")), "SSO_CANCELLED");
            // A page outside the portal is never returned to.
            let outside = start(&app, "https://evil.example/").await;
            let back = browser.authorize(&outside.authorization_url, "olga").await;
            let finished = finish(&app, &back.code, &back.state)
                .await
                .expect("signed in");
            assert_eq!(finished.return_to, "/");
        }
    })
    .await;
}

#[tokio::test]
async fn a_rotated_signing_key_is_read_again() {
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    on_each_backend_with(&provider.settings(|args| args), |app| {
        let browser = provider.browser();
        let provider = &provider;
        async move {
            sync_olga(&app).await;
            sign_in(&app, &browser, "olga").await.expect("before");
            provider.rotate_keys().await;
            sign_in(&app, &browser, "olga")
                .await
                .expect("after the rotation");
        }
    })
    .await;
}

#[tokio::test]
async fn signing_out_ends_the_providers_session_and_its_logout_ends_every_session() {
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    on_each_backend_with(&provider.settings(|args| args), |app| {
        let (laptop, ward_pc) = (provider.browser(), provider.browser());
        let provider = &provider;
        async move {
            sync_olga(&app).await;
            let on_laptop = sign_in(&app, &laptop, "olga").await.expect("laptop");
            let on_ward_pc = sign_in(&app, &ward_pc, "olga").await.expect("ward PC");
            let refresh = |finished: &pb::FinishSsoResponse| {
                finished
                    .sign_in
                    .as_ref()
                    .expect("a session")
                    .refresh_token
                    .clone()
            };

            // Signing out on the ward PC names where the provider's ends too.
            let signed_out = app
                .client
                .clone()
                .logout(pb::LogoutRequest {
                    refresh_token: refresh(&on_ward_pc),
                })
                .await
                .expect("signed out")
                .into_inner();
            let end = signed_out.end_session_url;
            assert!(
                end.starts_with(&format!("{}/session/end", provider.issuer)),
                "{end}"
            );
            assert!(end.contains("client_id=portal"), "{end}");
            assert!(end.contains("post_logout_redirect_uri="), "{end}");
            // A session of a password names none.
            let local = app.login(ADMIN_LOGIN, ADMIN_PASSWORD).await.expect("admin");
            let plain = app
                .client
                .clone()
                .logout(pb::LogoutRequest {
                    refresh_token: local.refresh_token,
                })
                .await
                .expect("signed out")
                .into_inner();
            assert_eq!(plain.end_session_url, "");

            // The provider's session ends: it tells the portal, which ends
            // Ольга's session on the laptop too.
            ward_pc.end_session(&end).await;
            let tokens = provider.portal.logout_tokens().await;
            assert!(!tokens.is_empty(), "the provider posted a logout token");
            let mut ended = 0;
            for token in &tokens {
                ended += app
                    .client
                    .clone()
                    .backchannel_logout(pb::BackchannelLogoutRequest {
                        logout_token: token.clone(),
                    })
                    .await
                    .expect("a logout token taken")
                    .into_inner()
                    .ended;
            }
            assert_eq!(ended, 1, "the laptop's session");
            let refused = app.refresh(&refresh(&on_laptop)).await;
            assert_eq!(refused.expect_err("ended").code(), Code::Unauthenticated);
            // Each token ends sessions once; anything else is refused.
            let replay = app
                .client
                .clone()
                .backchannel_logout(pb::BackchannelLogoutRequest {
                    logout_token: tokens[0].clone(),
                })
                .await
                .expect("answered");
            assert_eq!(replay.into_inner().ended, 0);
            let forged = app
                .client
                .clone()
                .backchannel_logout(pb::BackchannelLogoutRequest {
                    logout_token: "eyJhbGciOiJub25lIn0.e30.".into(),
                })
                .await;
            let status = forged.expect_err("refused");
            assert_eq!(status.code(), Code::InvalidArgument);
            assert_eq!(reason(&status), "SSO_LOGOUT_TOKEN_INVALID");
        }
    })
    .await;
}

#[tokio::test]
async fn a_person_with_a_second_factor_gives_it_after_the_provider_and_keeps_the_providers_session()
{
    let Some(provider) = OidcProvider::start(accounts()).await else {
        return;
    };
    on_each_backend_with(&provider.settings(|args| args), |app| {
        let browser = provider.browser();
        let provider = &provider;
        async move {
            let person = crate::mfa::enrolled(&app, &[]).await;
            let first = sign_in(&app, &browser, &person.login)
                .await
                .expect("first step");
            let first = first.sign_in.expect("an answer");
            assert!(first.mfa_required, "the provider checked no second factor");
            assert!(first.refresh_token.is_empty());
            let mut log = AuditLog::start(&app).await;
            let session = app
                .client
                .clone()
                .login_mfa(pb::LoginMfaRequest {
                    mfa_token: first.mfa_token,
                    code: person.recovery_codes[0].clone(),
                    device_token: String::new(),
                })
                .await
                .expect("second step")
                .into_inner();
            let record = log.next(&app, 1).await.remove(0);
            assert_eq!(record.reason, "sso", "{record:?}");
            // Its sign-out still ends the provider's session.
            let signed_out = app
                .client
                .clone()
                .logout(pb::LogoutRequest {
                    refresh_token: session.refresh_token,
                })
                .await
                .expect("signed out")
                .into_inner();
            let end = signed_out.end_session_url;
            assert!(end.starts_with(&provider.issuer), "{end}");
        }
    })
    .await;
}

#[tokio::test]
async fn without_a_provider_single_sign_on_is_off() {
    on_each_backend(false, |app| async move {
        let options = app
            .client
            .clone()
            .get_sign_in_options(pb::GetSignInOptionsRequest {})
            .await
            .expect("options")
            .into_inner();
        assert_eq!(options.sso_name, "");
        let status = app
            .client
            .clone()
            .start_sso(pb::StartSsoRequest::default())
            .await
            .expect_err("off");
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert_eq!(reason(&status), "SSO_OFF");
    })
    .await;
}

/// The rows of the access matrix for single sign-on's calls: all public.
pub const ROWS: [(&str, [Code; 5]); 4] = [
    ("GetSignInOptions", [Code::Ok; 5]),
    ("StartSso", [Code::Ok; 5]),
    ("FinishSso", [Code::Ok; 5]),
    ("BackchannelLogout", [Code::Ok; 5]),
];

/// Makes call `rpc` with `token` on an auth without a provider, where each
/// answers its own refusal (single sign-on is off), which is this call's OK;
/// `None` if `rpc` is not one of these.
pub async fn call(client: &mut Client, rpc: &str, token: Option<&str>) -> Option<Code> {
    use portal_kit::testing::with_token;
    let off = ["sso-off"];
    Some(match rpc {
        "GetSignInOptions" => code(
            &client
                .get_sign_in_options(with_token(pb::GetSignInOptionsRequest {}, token))
                .await,
        ),
        "StartSso" => crate::mfa_access::answered(
            client
                .start_sso(with_token(pb::StartSsoRequest::default(), token))
                .await,
            &off,
        ),
        "FinishSso" => crate::mfa_access::answered(
            client
                .finish_sso(with_token(pb::FinishSsoRequest::default(), token))
                .await,
            &off,
        ),
        "BackchannelLogout" => crate::mfa_access::answered(
            client
                .backchannel_logout(with_token(pb::BackchannelLogoutRequest::default(), token))
                .await,
            &off,
        ),
        _ => return None,
    })
}
