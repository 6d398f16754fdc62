//! Two-step sign-in (issue 39.4): enrolling an authenticator, the code a
//! sign-in then needs, codes used once, recovery codes, devices that skip
//! the step for 30 days, the per-person guessing limit, an administrator's
//! reset and the policy for admins. Codes are computed as an authenticator
//! app does (RFC 6238, `portal_kit::testing::totp_code`) from the secret the
//! service gave and the clock.

use portal_kit::Right;
use portal_kit::error::REASON_KEY;
use portal_kit::testing::{away_from_a_step_edge, totp_code};
use portal_proto::audit::v1 as audit_pb;
use portal_proto::audit::v1::audit_service_client::AuditServiceClient;
use portal_proto::auth::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;

pub(crate) const PASSWORD: &str = "nurse-password-1";

fn reason(status: &Status) -> &str {
    status
        .metadata()
        .get(REASON_KEY)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[track_caller]
fn refused<T: std::fmt::Debug>(result: Result<tonic::Response<T>, Status>, code: Code, why: &str) {
    let status = result.expect_err("refused");
    assert_eq!((status.code(), reason(&status)), (code, why), "{status:?}");
}

/// A person with an authenticator on: their id, access token, base32
/// secret and recovery codes. The confirming code is the previous step's,
/// so this step's and the next are left for sign-ins.
pub(crate) struct Enrolled {
    pub(crate) id: i64,
    pub(crate) login: String,
    pub(crate) token: String,
    pub(crate) secret: String,
    pub(crate) recovery_codes: Vec<String>,
}

pub(crate) async fn enrolled(app: &TestApp, rights: &[i64]) -> Enrolled {
    let login = unique_login("mfa");
    let user = app.staff(&login, PASSWORD, rights, &[]).await;
    let token = app.token(user.id, &[]);
    let mut client = app.client.clone();
    let enrol = client
        .enrol_mfa(authed(pb::EnrolMfaRequest {}, &token))
        .await
        .expect("enrol")
        .into_inner();
    away_from_a_step_edge().await;
    let confirmed = client
        .confirm_mfa(authed(
            pb::ConfirmMfaRequest {
                code: totp_code(&enrol.secret, -1),
            },
            &token,
        ))
        .await
        .expect("confirm")
        .into_inner();
    Enrolled {
        id: user.id,
        login,
        token,
        secret: enrol.secret,
        recovery_codes: confirmed.recovery_codes,
    }
}

pub(crate) async fn first_step(app: &TestApp, login: &str, device: &str) -> pb::LoginResponse {
    app.client
        .clone()
        .login(login_from_device(login, PASSWORD, device))
        .await
        .expect("the password is right")
        .into_inner()
}

pub(crate) async fn second_step(
    app: &TestApp,
    mfa_token: &str,
    code: &str,
    device: &str,
) -> Result<tonic::Response<pb::LoginMfaResponse>, Status> {
    app.client
        .clone()
        .login_mfa(pb::LoginMfaRequest {
            mfa_token: mfa_token.into(),
            code: code.into(),
            device_token: device.into(),
        })
        .await
}

async fn my_mfa(app: &TestApp, token: &str) -> pb::GetMyMfaResponse {
    app.client
        .clone()
        .get_my_mfa(authed(pb::GetMyMfaRequest {}, token))
        .await
        .expect("mine")
        .into_inner()
}

pub(crate) async fn audit_of(
    app: &TestApp,
    entity: &str,
    user_id: Option<i64>,
) -> Vec<audit_pb::AuditRecord> {
    AuditServiceClient::new(app.channel.clone())
        .list_audit_records(authed(
            audit_pb::ListAuditRecordsRequest {
                entity: entity.into(),
                entity_id: user_id,
                ..Default::default()
            },
            &app.admin_token(),
        ))
        .await
        .expect("audit records")
        .into_inner()
        .records
}

#[tokio::test]
async fn an_enrolled_person_signs_in_with_the_code_of_their_authenticator() {
    on_each_backend(false, |app| async move {
        let login = unique_login("mfa");
        let nurse = app.staff(&login, PASSWORD, &[], &[]).await;
        let token = app.token(nurse.id, &[]);
        let mut client = app.client.clone();
        let before = my_mfa(&app, &token).await;
        assert!(!before.enabled && !before.required);
        let enrol = client
            .enrol_mfa(authed(pb::EnrolMfaRequest {}, &token))
            .await
            .expect("enrol")
            .into_inner();
        assert_eq!(enrol.secret.len(), 32, "160 bits in base32");
        assert!(enrol.qr_png.starts_with(b"\x89PNG"), "the QR code a PNG");
        assert!(
            enrol.otpauth_url.starts_with("otpauth://totp/")
                && enrol
                    .otpauth_url
                    .contains(&format!("{login}?secret={}", enrol.secret))
                && enrol
                    .otpauth_url
                    .contains("issuer=%D0%9F%D0%BE%D1%80%D1%82%D0%B0%D0%BB"),
            "{}",
            enrol.otpauth_url
        );
        // Pending: sign-in does not ask yet.
        assert!(!first_step(&app, &login, "").await.mfa_required);
        // The secret is kept sealed: a dump of the database alone does not hold it.
        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        let sealed: String =
            sqlx::query_scalar("SELECT secret_sealed FROM mfa_factors WHERE user_id = $1")
                .bind(nurse.id)
                .fetch_one(&pool)
                .await
                .unwrap();
        assert!(!sealed.contains(&enrol.secret) && sealed.starts_with("v1."));

        away_from_a_step_edge().await;
        let wrong = client
            .confirm_mfa(authed(
                pb::ConfirmMfaRequest {
                    code: "123456".into(),
                },
                &token,
            ))
            .await;
        refused(wrong, Code::InvalidArgument, "mfa-code-invalid");
        let codes = client
            .confirm_mfa(authed(
                pb::ConfirmMfaRequest {
                    code: totp_code(&enrol.secret, -1),
                },
                &token,
            ))
            .await
            .expect("confirm")
            .into_inner()
            .recovery_codes;
        assert_eq!(codes.len(), 10);
        let mine = my_mfa(&app, &token).await;
        assert!(mine.enabled && mine.recovery_codes_left == 10);

        let first = first_step(&app, &login, "").await;
        assert!(first.mfa_required && !first.mfa_token.is_empty());
        assert!(first.access_token.is_empty() && first.refresh_token.is_empty());
        let wrong = second_step(&app, &first.mfa_token, "000000", "").await;
        refused(wrong, Code::Unauthenticated, "mfa-code-invalid");
        let now = totp_code(&enrol.secret, 0);
        let session = second_step(&app, &first.mfa_token, &now, "")
            .await
            .expect("the right code")
            .into_inner();
        assert!(!session.access_token.is_empty() && !session.device_token.is_empty());
        app.refresh(&session.refresh_token)
            .await
            .expect("a session");
        // The token went with its use, and the code with its step.
        let again = second_step(&app, &first.mfa_token, &now, "").await;
        refused(again, Code::Unauthenticated, "mfa-token-invalid");
        let next = first_step(&app, &login, "").await;
        let replayed = second_step(&app, &next.mfa_token, &now, "").await;
        refused(replayed, Code::Unauthenticated, "mfa-code-invalid");

        let records = audit_of(&app, "user", Some(nurse.id)).await;
        let actions: Vec<&str> = records.iter().map(|r| r.action.as_str()).collect();
        for action in ["mfa-enrol", "mfa-confirm", "sign-in"] {
            assert!(actions.contains(&action), "{actions:?}");
        }
        let with_code = records
            .iter()
            .find(|r| r.action == "sign-in" && !r.changes.is_empty())
            .expect("the sign-in with a code");
        assert_eq!(with_code.changes[0].field, "method");
        assert!(with_code.changes[0].new.contains("password+totp"));
        let refusals = audit_of(&app, "session", None).await;
        let reasons: Vec<&str> = refusals.iter().map(|r| r.reason.as_str()).collect();
        assert!(
            reasons.contains(&"wrong-code") && reasons.contains(&"code-reused"),
            "{reasons:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_recovery_code_signs_in_once() {
    on_each_backend(false, |app| async move {
        let person = enrolled(&app, &[]).await;
        let first = first_step(&app, &person.login, "").await;
        second_step(&app, &first.mfa_token, &person.recovery_codes[0], "")
            .await
            .expect("a recovery code");
        let next = first_step(&app, &person.login, "").await;
        let used = second_step(&app, &next.mfa_token, &person.recovery_codes[0], "").await;
        refused(used, Code::Unauthenticated, "mfa-code-invalid");
        // As people copy it: upper case, spaces for dashes.
        let typed = person.recovery_codes[1].to_uppercase().replace('-', " ");
        let last = first_step(&app, &person.login, "").await;
        second_step(&app, &last.mfa_token, &typed, "")
            .await
            .expect("another recovery code");
        let left = my_mfa(&app, &person.token).await.recovery_codes_left;
        assert_eq!(left, 8);
        let records = audit_of(&app, "user", Some(person.id)).await;
        assert!(records.iter().any(|r| {
            r.action == "sign-in"
                && r.changes
                    .iter()
                    .any(|c| c.new.contains("password+recovery-code"))
        }));
    })
    .await;
}

#[tokio::test]
async fn a_device_that_gave_the_code_skips_it_for_30_days_and_no_other_does() {
    on_each_backend(false, |app| async move {
        let person = enrolled(&app, &[]).await;
        // A browser that has signed in before (another person's), so known.
        let other = unique_login("ward");
        app.staff(&other, PASSWORD, &[], &[]).await;
        let ward_pc = first_step(&app, &other, "").await.device_token;
        let first = first_step(&app, &person.login, &ward_pc).await;
        assert!(first.mfa_required);
        // The token is for the device of the first step only.
        let elsewhere = second_step(&app, &first.mfa_token, &person.recovery_codes[0], "").await;
        refused(elsewhere, Code::Unauthenticated, "mfa-token-invalid");
        let first = first_step(&app, &person.login, &ward_pc).await;
        let session = second_step(
            &app,
            &first.mfa_token,
            &totp_code(&person.secret, 0),
            &ward_pc,
        )
        .await
        .expect("the code")
        .into_inner();
        assert_eq!(
            session.device_token, ward_pc,
            "a known device keeps its token"
        );

        let trusted = first_step(&app, &person.login, &ward_pc).await;
        assert!(!trusted.mfa_required && !trusted.access_token.is_empty());
        assert!(first_step(&app, &person.login, "").await.mfa_required);
        let stranger = first_step(&app, &other, "").await.device_token;
        assert!(
            first_step(&app, &person.login, &stranger)
                .await
                .mfa_required
        );

        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        sqlx::query("UPDATE mfa_trusted_devices SET verified_at = verified_at - $1")
            .bind(31_i64 * 24 * 3600 * 1000)
            .execute(&pool)
            .await
            .unwrap();
        assert!(first_step(&app, &person.login, &ward_pc).await.mfa_required);
    })
    .await;
}

#[tokio::test]
async fn guessing_codes_stops_that_person_and_not_a_colleague_at_the_same_address() {
    on_each_backend(false, |app| async move {
        let guessed = enrolled(&app, &[]).await;
        let colleague = enrolled(&app, &[]).await;
        let address = "10.20.30.40";
        let mut client = app.client.clone();
        let first = || {
            let mut client = client.clone();
            let login = guessed.login.clone();
            async move {
                client
                    .login(from_address(login_request(&login, PASSWORD), address))
                    .await
                    .expect("first step")
                    .into_inner()
                    .mfa_token
            }
        };
        // Five wrong codes end a token; the sixth is not even tried.
        let token = first().await;
        for _ in 0..5 {
            let wrong = second_step(&app, &token, "000000", "").await;
            refused(wrong, Code::Unauthenticated, "mfa-code-invalid");
        }
        let dead = second_step(&app, &token, &totp_code(&guessed.secret, 0), "").await;
        refused(dead, Code::Unauthenticated, "mfa-token-invalid");
        // Ten for the person in 15 minutes, whatever the token: then even
        // the right code waits, with the wait said.
        let token = first().await;
        for _ in 0..5 {
            let wrong = second_step(&app, &token, "000000", "").await;
            refused(wrong, Code::Unauthenticated, "mfa-code-invalid");
        }
        let token = first().await;
        let limited = second_step(&app, &token, &totp_code(&guessed.secret, 0), "")
            .await
            .expect_err("over the limit");
        assert_eq!(limited.code(), Code::ResourceExhausted);
        assert!(
            limited.message().starts_with("Слишком много попыток"),
            "{limited:?}"
        );
        assert!(limited.message().contains("мин."), "{limited:?}");

        let theirs = client
            .login(from_address(
                login_request(&colleague.login, PASSWORD),
                address,
            ))
            .await
            .expect("first step")
            .into_inner();
        second_step(
            &app,
            &theirs.mfa_token,
            &totp_code(&colleague.secret, 0),
            "",
        )
        .await
        .expect("a colleague at the same address is not stopped");
    })
    .await;
}

#[tokio::test]
async fn an_administrator_resets_a_persons_second_factor_and_it_is_recorded() {
    on_each_backend(false, |app| async move {
        let person = enrolled(&app, &[]).await;
        let mut client = app.client.clone();
        let reset = client
            .reset_user_mfa(authed(
                pb::ResetUserMfaRequest { user_id: person.id },
                &app.admin_token(),
            ))
            .await
            .expect("reset")
            .into_inner();
        assert!(reset.removed);
        assert!(!first_step(&app, &person.login, "").await.mfa_required);
        let mine = my_mfa(&app, &person.token).await;
        assert!(!mine.enabled && mine.recovery_codes_left == 0);
        let records = audit_of(&app, "user", Some(person.id)).await;
        let reset_by = records
            .iter()
            .find(|r| r.action == "mfa-reset")
            .expect("the reset recorded");
        assert_eq!(
            reset_by.actor.as_ref().and_then(|a| a.user_id),
            Some(ADMIN_ID)
        );
        let unknown = client
            .reset_user_mfa(authed(
                pb::ResetUserMfaRequest { user_id: 999_999 },
                &app.admin_token(),
            ))
            .await;
        assert_eq!(code(&unknown), Code::NotFound);
    })
    .await;
}

#[tokio::test]
async fn a_person_turns_it_off_with_a_code_and_gets_new_recovery_codes() {
    on_each_backend(false, |app| async move {
        let person = enrolled(&app, &[]).await;
        let mut client = app.client.clone();
        let wrong = client
            .regenerate_recovery_codes(authed(
                pb::RegenerateRecoveryCodesRequest {
                    code: "000000".into(),
                },
                &person.token,
            ))
            .await;
        refused(wrong, Code::InvalidArgument, "mfa-code-invalid");
        let renewed = client
            .regenerate_recovery_codes(authed(
                pb::RegenerateRecoveryCodesRequest {
                    code: totp_code(&person.secret, 0),
                },
                &person.token,
            ))
            .await
            .expect("new codes")
            .into_inner()
            .recovery_codes;
        assert_eq!(renewed.len(), 10);
        let old = client
            .disable_mfa(authed(
                pb::DisableMfaRequest {
                    code: person.recovery_codes[0].clone(),
                },
                &person.token,
            ))
            .await;
        refused(old, Code::InvalidArgument, "mfa-code-invalid");
        client
            .disable_mfa(authed(
                pb::DisableMfaRequest {
                    code: renewed[0].clone(),
                },
                &person.token,
            ))
            .await
            .expect("off");
        assert!(!first_step(&app, &person.login, "").await.mfa_required);
        let actions: Vec<String> = audit_of(&app, "user", Some(person.id))
            .await
            .into_iter()
            .map(|r| r.action)
            .collect();
        assert!(actions.contains(&"mfa-recovery-codes".to_owned()));
        assert!(actions.contains(&"mfa-disable".to_owned()));
    })
    .await;
}

#[tokio::test]
async fn the_policy_requires_it_of_admins_who_are_let_in_to_enrol() {
    portal_kit::testing::on_each_backend(spawn_requiring_mfa_for_admins, |app| async move {
        let mut client = app.client.clone();
        let admin = my_mfa(&app, &app.admin_token()).await;
        assert!(admin.required && !admin.enabled);
        // Without a second factor yet, the admin signs in (and is asked to enrol).
        let signed_in = client
            .login(login_request(ADMIN_LOGIN, ADMIN_PASSWORD))
            .await
            .expect("the admin's password")
            .into_inner();
        assert!(!signed_in.mfa_required && !signed_in.access_token.is_empty());

        let editor = enrolled(&app, &[RIGHT_EQUIPMENT_EDITING]).await;
        let editor_token = app.token(editor.id, &[Right::EquipmentEditing]);
        assert!(first_step(&app, &editor.login, "").await.mfa_required);
        let off = client
            .disable_mfa(authed(
                pb::DisableMfaRequest {
                    code: totp_code(&editor.secret, 0),
                },
                &editor_token,
            ))
            .await;
        refused(off, Code::FailedPrecondition, "mfa-required");

        let learner = enrolled(&app, &[]).await;
        let theirs = my_mfa(&app, &learner.token).await;
        assert!(theirs.enabled && !theirs.required);
        client
            .disable_mfa(authed(
                pb::DisableMfaRequest {
                    code: totp_code(&learner.secret, 0),
                },
                &learner.token,
            ))
            .await
            .expect("a learner may turn it off");
    })
    .await;
}
