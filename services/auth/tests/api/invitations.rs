//! A first sign-in without an administrator typing a password (issue 39.3):
//! invitations through the real SMTP sink (one person, a department, a staff
//! sync), used once, for 72 hours, a newer voiding the older; printed first
//! sign-in codes with their limits; and who may make them.

use std::time::Duration;

use portal_kit::Right;
use portal_kit::error::reason_of;
use portal_kit::smtp_sink::Mail;
use portal_kit::testing::{AuditLog, with_token};
use portal_proto::auth::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;
use crate::staff_sync::{hospital, sync};

const PASSWORD: &str = "ромашка-в-ординаторской";
const WAIT: Duration = Duration::from_secs(10);
const HOURS_72: i64 = 72 * 60 * 60;

/// The hospital of the staff sync's tests, synced: Смирнова (0001) has an
/// e-mail address, the two Ивановы (0002, 0003) none; nobody a password.
/// Their user ids by employee number.
async fn synced(app: &TestApp) -> [i64; 3] {
    let answer = sync(app, hospital()).await;
    ["0001", "0002", "0003"].map(|number| {
        answer
            .people
            .iter()
            .find(|p| p.employee_number == number)
            .expect("synced")
            .user_id
    })
}

async fn invite(app: &TestApp, user_id: i64) -> Result<pb::SendInvitationResponse, Status> {
    app.client
        .clone()
        .send_invitation(authed(
            pb::SendInvitationRequest { user_id },
            &app.admin_token(),
        ))
        .await
        .map(|r| r.into_inner())
}

async fn accept(app: &TestApp, token: &str, password: &str) -> Result<(), Status> {
    app.client
        .clone()
        .reset_password(pb::ResetPasswordRequest {
            token: token.into(),
            password: password.into(),
        })
        .await
        .map(drop)
}

async fn make_code(app: &TestApp, user_id: i64) -> pb::MakeFirstSignInCodeResponse {
    app.client
        .clone()
        .make_first_sign_in_code(authed(
            pb::MakeFirstSignInCodeRequest { user_id },
            &app.admin_token(),
        ))
        .await
        .expect("a code")
        .into_inner()
}

async fn first_sign_in(
    app: &TestApp,
    login: &str,
    code: &str,
    address: &str,
) -> Result<(), Status> {
    let request = pb::FirstSignInRequest {
        login: login.into(),
        code: code.into(),
        password: PASSWORD.into(),
    };
    app.client
        .clone()
        .first_sign_in(from_address(request, address))
        .await
        .map(drop)
}

/// The token and login of the invitation's link in `mail`.
fn link_in(mail: &Mail) -> (String, String) {
    let text = mail.text();
    let link = format!("{PUBLIC_URL}/first-sign-in?token=");
    let start = text.find(&link).expect("the link in the mail") + link.len();
    let rest: String = text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let (token, login) = rest.split_once("&login=").expect("the login in the link");
    (token.to_owned(), login.to_owned())
}

fn assert_refused(result: Result<impl std::fmt::Debug, Status>, code: Code, reason: &str) {
    let status = result.expect_err("refused");
    assert_eq!(status.code(), code, "{status:?}");
    assert_eq!(reason_of(&status), reason, "{status:?}");
}

async fn actions_on(app: &TestApp, user_id: i64) -> Vec<String> {
    AuditLog::all::<Client>(app)
        .await
        .into_iter()
        .filter(|r| r.entity == "user" && r.entity_id == Some(user_id))
        .map(|r| r.action)
        .filter(|a| a.starts_with("invitation") || a.starts_with("first-sign-in"))
        .collect()
}

#[tokio::test]
async fn an_invitation_arrives_and_its_link_sets_the_first_password_once() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let [smirnova, ..] = synced(&app).await;
        let sent = invite(&app, smirnova).await.expect("invited");
        assert_eq!(sent.email, "smirnova@hospital.example");
        let expires = sent.expires_at.expect("expiry").seconds;
        let now = portal_kit::db::now_millis() / 1000;
        assert!((expires - now - HOURS_72).abs() < 60, "{expires} vs {now}");

        let mails = sink.wait_for(1, WAIT).await;
        assert_eq!(mails[0].to, ["smirnova@hospital.example"]);
        let text = mails[0].text();
        assert!(text.contains("Здравствуйте, Ольга Петровна!"), "{text}");
        let login_line =
            "Для вас создана учётная запись на Портале сотрудников. Ваш логин: smirnova";
        assert!(text.lines().any(|l| l.trim_end() == login_line), "{text}");
        assert!(
            text.contains("Ссылка действует 72 часа и только один раз."),
            "{text}"
        );
        let (token, login) = link_in(&mails[0]);
        assert_eq!((token.len(), login.as_str()), (43, "smirnova"));

        assert_eq!(
            code(&app.login("smirnova", PASSWORD).await),
            Code::Unauthenticated
        );
        accept(&app, &token, PASSWORD).await.expect("accepted");
        app.login("smirnova", PASSWORD).await.expect("signs in");
        assert_refused(
            accept(&app, &token, "another-long-password").await,
            Code::FailedPrecondition,
            "PASSWORD_RESET_INVALID",
        );
        assert_eq!(
            actions_on(&app, smirnova).await,
            ["invitation-sent", "invitation-accepted"]
        );
        // Now that she has a password, she is not invited again.
        assert_refused(
            invite(&app, smirnova).await,
            Code::FailedPrecondition,
            "INVITATION_HAS_PASSWORD",
        );
    })
    .await;
}

#[tokio::test]
async fn an_expired_invitation_is_refused_and_a_newer_voids_the_older() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let [smirnova, ..] = synced(&app).await;
        invite(&app, smirnova).await.expect("invited");
        let (older, _) = link_in(&sink.wait_for(1, WAIT).await[0]);
        invite(&app, smirnova).await.expect("invited again");
        let (newer, _) = link_in(&sink.wait_for(2, WAIT).await[1]);
        assert_refused(
            accept(&app, &older, PASSWORD).await,
            Code::FailedPrecondition,
            "PASSWORD_RESET_INVALID",
        );

        // 72 hours on: the newer one's time is up too.
        let pool = app.database().await;
        sqlx::query("UPDATE password_reset_tokens SET expires_at = created_at + 1")
            .execute(&pool)
            .await
            .unwrap();
        assert_refused(
            accept(&app, &newer, PASSWORD).await,
            Code::FailedPrecondition,
            "PASSWORD_RESET_INVALID",
        );
        assert_eq!(
            code(&app.login("smirnova", PASSWORD).await),
            Code::Unauthenticated
        );
    })
    .await;
}

#[tokio::test]
async fn a_person_who_cannot_be_invited_is_refused_with_why() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let [_, mailless, _] = synced(&app).await;
        let with_password = app.staff("nurse", "nurse-password", &[], &[]).await;
        let blocked = app.staff("dismissed", "dismissed-password", &[], &[]).await;
        app.block(&blocked).await;
        let refusals = [
            (mailless, Code::FailedPrecondition, "INVITATION_NO_EMAIL"),
            (
                with_password.id,
                Code::FailedPrecondition,
                "INVITATION_HAS_PASSWORD",
            ),
            (blocked.id, Code::FailedPrecondition, "INVITATION_BLOCKED"),
            (9_999, Code::NotFound, "NOT_FOUND"),
        ];
        for (user_id, code, reason) in refusals {
            assert_refused(invite(&app, user_id).await, code, reason);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(sink.mails().is_empty());
    })
    .await;
}

#[tokio::test]
async fn without_a_relay_invitations_are_refused_and_codes_still_made() {
    on_each_backend(false, |app| async move {
        let [smirnova, ..] = synced(&app).await;
        assert_refused(
            invite(&app, smirnova).await,
            Code::FailedPrecondition,
            "MAIL_OFF",
        );
        let code = make_code(&app, smirnova).await;
        assert_eq!(code.login, "smirnova");
    })
    .await;
}

#[tokio::test]
async fn a_department_is_invited_and_those_skipped_are_named_with_why() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let [smirnova, anna, _] = synced(&app).await;
        let cardiology = app
            .client
            .clone()
            .get_user(authed(
                pb::GetUserRequest { user_id: smirnova },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .user
            .unwrap()
            .department_ids[0];
        let nurse = app
            .staff("nurse", "nurse-password", &[], &[cardiology])
            .await;
        let answer = app
            .client
            .clone()
            .invite_department(authed(
                pb::InviteDepartmentRequest {
                    department_id: cardiology,
                },
                &app.admin_token(),
            ))
            .await
            .expect("invited")
            .into_inner();
        assert_eq!(answer.sent, 1);
        let invited: Vec<i64> = answer.invited.iter().map(|i| i.user_id).collect();
        assert_eq!(invited, [smirnova]);
        let skipped: Vec<(i64, &str, &str)> = answer
            .skipped
            .iter()
            .map(|i| (i.user_id, i.reason.as_str(), i.message.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (anna, "no-email", "не указана электронная почта"),
                (nurse.id, "has-password", "уже есть пароль"),
            ]
        );
        assert_eq!(answer.skipped[0].full_name, "Иванова Анна Петровна");
        assert_eq!(
            sink.wait_for(1, WAIT).await[0].to,
            ["smirnova@hospital.example"]
        );

        let unknown = app
            .client
            .clone()
            .invite_department(authed(
                pb::InviteDepartmentRequest {
                    department_id: 9_999,
                },
                &app.admin_token(),
            ))
            .await;
        assert_eq!(code(&unknown), Code::NotFound);
    })
    .await;
}

#[tokio::test]
async fn a_staff_sync_invites_those_without_a_password_after_it_is_written() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let inviting = pb::SyncStaffRequest {
            invite: true,
            ..hospital()
        };
        let dry = sync(
            &app,
            pb::SyncStaffRequest {
                dry_run: true,
                ..inviting.clone()
            },
        )
        .await;
        assert!(dry.invited.is_empty() && dry.not_invited.is_empty());

        let answer = sync(&app, inviting.clone()).await;
        assert_eq!(answer.created, 3);
        let invited: Vec<&str> = answer
            .invited
            .iter()
            .map(|i| i.employee_number.as_str())
            .collect();
        assert_eq!(invited, ["0001"]);
        let not_invited: Vec<(&str, &str)> = answer
            .not_invited
            .iter()
            .map(|i| (i.employee_number.as_str(), i.reason.as_str()))
            .collect();
        assert_eq!(not_invited, [("0003", "no-email"), ("0002", "no-email")]);
        let (token, _) = link_in(&sink.wait_for(1, WAIT).await[0]);
        accept(&app, &token, PASSWORD).await.expect("accepted");

        // Smirnova has a password now: the next sync invites nobody.
        let again = sync(&app, inviting).await;
        assert!(again.invited.is_empty(), "{again:?}");
        assert_eq!(again.not_invited.len(), 2);
        // Without `invite` the answer names nobody.
        let quiet = sync(&app, hospital()).await;
        assert!(quiet.invited.is_empty() && quiet.not_invited.is_empty());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(sink.mails().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_printed_code_sets_the_first_password_once() {
    on_each_backend(false, |app| async move {
        let [_, anna, _] = synced(&app).await;
        let older = make_code(&app, anna).await;
        let made = make_code(&app, anna).await;
        assert_eq!(made.full_name, "Иванова Анна Петровна");
        assert_eq!(made.sign_in_url, format!("{PUBLIC_URL}/first-sign-in"));
        assert_eq!(made.code.len(), 14, "{}", made.code);
        let expires = made.expires_at.expect("expiry").seconds;
        let now = portal_kit::db::now_millis() / 1000;
        assert!((expires - now - HOURS_72).abs() < 60);
        let login = made.login.clone();

        // A newer code voids the older.
        assert_refused(
            first_sign_in(&app, &login, &older.code, "10.0.0.1").await,
            Code::FailedPrecondition,
            "FIRST_SIGN_IN_CODE_INVALID",
        );
        // Typed loosely: small letters, spaces for dashes.
        let typed = made.code.to_lowercase().replace('-', " ");
        first_sign_in(&app, &login, &typed, "10.0.0.1")
            .await
            .expect("first sign-in");
        app.login(&login, PASSWORD).await.expect("signs in");
        assert_refused(
            first_sign_in(&app, &login, &made.code, "10.0.0.1").await,
            Code::FailedPrecondition,
            "FIRST_SIGN_IN_CODE_INVALID",
        );
        assert_eq!(
            actions_on(&app, anna).await,
            [
                "first-sign-in-code-made",
                "first-sign-in-code-made",
                "first-sign-in-code-refused",
                "first-sign-in-code-used",
                "first-sign-in-code-refused",
            ]
        );
        // With a password, no more codes.
        let refused = app
            .client
            .clone()
            .make_first_sign_in_code(authed(
                pb::MakeFirstSignInCodeRequest { user_id: anna },
                &app.admin_token(),
            ))
            .await;
        assert_refused(refused, Code::FailedPrecondition, "INVITATION_HAS_PASSWORD");
    })
    .await;
}

#[tokio::test]
async fn wrong_codes_are_limited_per_login_without_stopping_another() {
    on_each_backend(false, |app| async move {
        let [_, anna, alla] = synced(&app).await;
        let anna_code = make_code(&app, anna).await;
        let alla_code = make_code(&app, alla).await;
        let stranger = "203.0.113.7";
        for _ in 0..3 {
            assert_refused(
                first_sign_in(&app, &anna_code.login, "AAAA-BBBB-CCCC", stranger).await,
                Code::FailedPrecondition,
                "FIRST_SIGN_IN_CODE_INVALID",
            );
        }
        // Over the limit from there, even with the right code...
        let limited = first_sign_in(&app, &anna_code.login, &anna_code.code, stranger).await;
        assert_eq!(code(&limited), Code::ResourceExhausted, "{limited:?}");
        // ...while a colleague at the same PC signs in, and Anna at her own.
        first_sign_in(&app, &alla_code.login, &alla_code.code, stranger)
            .await
            .expect("another login is not stopped");
        first_sign_in(&app, &anna_code.login, &anna_code.code, "10.0.0.1")
            .await
            .expect("her own address is not stopped");
        // A wrong code for an unknown login is refused alike.
        assert_refused(
            first_sign_in(&app, "nobody", "AAAA-BBBB-CCCC", "10.0.0.2").await,
            Code::FailedPrecondition,
            "FIRST_SIGN_IN_CODE_INVALID",
        );
        let blank = first_sign_in(&app, "", "", "10.0.0.2").await;
        assert_eq!(code(&blank), Code::InvalidArgument);
    })
    .await;
}

/// The rows of the access matrix (access.rs) these calls add.
pub const MATRIX_CALLS: [&str; 4] = [
    "SendInvitation",
    "InviteDepartment",
    "MakeFirstSignInCode",
    "FirstSignIn",
];

/// Makes the matrix's call `rpc` about `person` (who has a password) in
/// `department_id`. The refusal a call gets for what it is about (a person
/// with a password, no relay, a wrong code) is its answer, never the
/// caller's: it counts as allowed.
pub async fn call_as(
    app: &TestApp,
    rpc: &str,
    token: Option<&str>,
    person: i64,
    department_id: i64,
) -> Code {
    let mut client = app.client.clone();
    let answered = match rpc {
        "SendInvitation" => {
            let message = pb::SendInvitationRequest { user_id: person };
            code(&client.send_invitation(with_token(message, token)).await)
        }
        "InviteDepartment" => {
            let message = pb::InviteDepartmentRequest { department_id };
            code(&client.invite_department(with_token(message, token)).await)
        }
        "MakeFirstSignInCode" => {
            let message = pb::MakeFirstSignInCodeRequest { user_id: person };
            code(
                &client
                    .make_first_sign_in_code(with_token(message, token))
                    .await,
            )
        }
        "FirstSignIn" => {
            // A login of its own each time: the callers share one address,
            // and their wrong codes must not add up to its limit.
            let message = pb::FirstSignInRequest {
                login: unique_login("nobody"),
                code: "AAAA-BBBB-CCCC".into(),
                password: "a-new-long-password".into(),
            };
            code(&client.first_sign_in(with_token(message, token)).await)
        }
        other => panic!("not a call of invitations: {other}"),
    };
    match answered {
        Code::FailedPrecondition => Code::Ok,
        other => other,
    }
}

#[tokio::test]
async fn only_user_managers_invite_or_make_codes() {
    on_each_backend(false, |app| async move {
        let [smirnova, ..] = synced(&app).await;
        let learner = app.staff("learner", "learner-password", &[], &[]).await;
        for rights in [
            vec![],
            vec![Right::EducationManagement],
            vec![Right::EquipmentEditing],
        ] {
            let token = app.token(learner.id, &rights);
            for rpc in &MATRIX_CALLS[..3] {
                let answered = call_as(&app, rpc, Some(&token), smirnova, 1).await;
                assert_eq!(answered, Code::PermissionDenied, "{rpc} with {rights:?}");
            }
        }
        // Nothing was made for her on the way.
        assert!(actions_on(&app, smirnova).await.is_empty());
    })
    .await;
}
