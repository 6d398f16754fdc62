//! «Забыли пароль?» (issue 39.3): a one-time link by e-mail through the real
//! SMTP sink, valid 30 minutes and once; the same answer for any login; the
//! limits that never stop the person's own request; a common password refused.

use std::time::Duration;

use portal_auth::domain::common_passwords::MSG_PASSWORD_TOO_COMMON;
use portal_auth::store::password_reset::MSG_RESET_LINK_INVALID;
use portal_kit::error::reason_of;
use portal_kit::smtp_sink::Mail;
use portal_kit::testing::AuditLog;
use portal_kit::token::MSG_SESSION_EXPIRED;
use portal_proto::auth::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;

const PASSWORD: &str = "nurse-password-1";
const NEW_PASSWORD: &str = "ромашка-в-ординаторской";
const WAIT: Duration = Duration::from_secs(10);

async fn ask(app: &TestApp, login: &str, address: &str) {
    app.client
        .clone()
        .request_password_reset(from_address(
            pb::RequestPasswordResetRequest {
                login: login.into(),
            },
            address,
        ))
        .await
        .expect("the same answer for any login");
}

async fn reset(app: &TestApp, token: &str, password: &str) -> Result<(), Status> {
    app.client
        .clone()
        .reset_password(pb::ResetPasswordRequest {
            token: token.into(),
            password: password.into(),
        })
        .await
        .map(drop)
}

/// The token of the link in `mail`.
pub(crate) fn token_in(mail: &Mail) -> String {
    let text = mail.text();
    let link = format!("{PUBLIC_URL}/reset-password?token=");
    let start = text.find(&link).expect("the link in the mail") + link.len();
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

fn recipients(mails: &[Mail]) -> Vec<String> {
    mails.iter().flat_map(|mail| mail.to.clone()).collect()
}

fn assert_link_refused(result: Result<(), Status>) {
    let status = result.expect_err("the link is refused");
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert_eq!(status.message(), MSG_RESET_LINK_INVALID);
    assert_eq!(reason_of(&status), "PASSWORD_RESET_INVALID");
}

#[tokio::test]
async fn a_link_arrives_by_mail_and_sets_the_password_once() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let nurse = app.staff("nurse", PASSWORD, &[], &[]).await;
        let old_session = app.session_of("nurse", PASSWORD).await;

        ask(&app, "  NURSE ", "10.0.0.1").await;
        let mails = sink.wait_for(1, WAIT).await;
        assert_eq!(recipients(&mails), ["nurse@hospital.example"]);
        let text = mails[0].text();
        assert!(
            text.contains("Ссылка действует 30 минут. Если вы не запрашивали восстановление, ничего делать не нужно."),
            "{text}"
        );
        let token = token_in(&mails[0]);
        assert_eq!(token.len(), 43, "{text}");

        reset(&app, &token, NEW_PASSWORD).await.expect("reset");

        assert_status(
            app.refresh(&old_session).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        assert_eq!(
            code(&app.login("nurse", PASSWORD).await),
            Code::Unauthenticated
        );
        app.login("nurse", NEW_PASSWORD)
            .await
            .expect("the new password signs in");
        assert_link_refused(reset(&app, &token, "another-long-password").await);
        assert_link_refused(reset(&app, "made-up", "another-long-password").await);
        assert_link_refused(reset(&app, "", "another-long-password").await);

        let actions: Vec<String> = AuditLog::all::<Client>(&app)
            .await
            .into_iter()
            .filter(|r| r.entity == "user" && r.entity_id == Some(nurse.id))
            .map(|r| r.action)
            .filter(|a| a.starts_with("password-reset"))
            .collect();
        assert_eq!(actions, ["password-reset-requested", "password-reset"]);
    })
    .await;
}

#[tokio::test]
async fn an_expired_link_is_refused() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        app.staff("nurse", PASSWORD, &[], &[]).await;
        ask(&app, "nurse", "10.0.0.1").await;
        let token = token_in(&sink.wait_for(1, WAIT).await[0]);
        // Thirty minutes on: the link's time is up.
        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        sqlx::query("UPDATE password_reset_tokens SET expires_at = created_at + 1")
            .execute(&pool)
            .await
            .unwrap();

        assert_link_refused(reset(&app, &token, NEW_PASSWORD).await);
        app.login("nurse", PASSWORD)
            .await
            .expect("the old password still works");
    })
    .await;
}

#[tokio::test]
async fn a_common_password_is_refused_and_the_link_still_works() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        app.staff("nurse", PASSWORD, &[], &[]).await;
        ask(&app, "nurse", "10.0.0.1").await;
        let token = token_in(&sink.wait_for(1, WAIT).await[0]);

        let refused = reset(&app, &token, "Password123").await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert_eq!(refused.message(), MSG_PASSWORD_TOO_COMMON);
        assert_eq!(reason_of(&refused), "PASSWORD_TOO_COMMON");
        assert_eq!(
            code(&reset(&app, &token, "short").await),
            Code::InvalidArgument
        );
        reset(&app, &token, NEW_PASSWORD).await.expect("reset");

        // An administrator may not set a common one either.
        let created = app
            .client
            .clone()
            .create_user(authed(
                creating(pb::UserDraft {
                    login: "surgeon".into(),
                    password: "qwertyuiop".into(),
                    name: "Иван".into(),
                    surname: "Петров".into(),
                    ..Default::default()
                }),
                &app.admin_token(),
            ))
            .await;
        assert_status(created, Code::InvalidArgument, MSG_PASSWORD_TOO_COMMON);
    })
    .await;
}

#[tokio::test]
async fn nobody_unknown_blocked_or_without_mail_is_sent_anything() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let blocked = app.staff("dismissed", PASSWORD, &[], &[]).await;
        app.block(&blocked).await;
        let mailless = app.staff("mailless", PASSWORD, &[], &[]).await;
        app.update_user(
            mailless.id,
            pb::UserDraft {
                email: String::new(),
                ..TestApp::unchanged(&mailless)
            },
        )
        .await
        .unwrap();
        app.staff("nurse", PASSWORD, &[], &[]).await;

        for login in ["nobody", "", "dismissed", "mailless"] {
            ask(&app, login, "10.0.0.1").await;
        }
        // The last request's mail arrives after any the ones before sent.
        ask(&app, "nurse", "10.0.0.1").await;
        sink.wait_for(1, WAIT).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(recipients(&sink.mails()), ["nurse@hospital.example"]);

        let reasons: Vec<(Option<i64>, String)> = AuditLog::all::<Client>(&app)
            .await
            .into_iter()
            .filter(|r| r.action == "password-reset-requested")
            .map(|r| (r.entity_id, r.reason))
            .collect();
        assert_eq!(
            reasons[..2],
            [
                (Some(blocked.id), "blocked".to_owned()),
                (Some(mailless.id), "no-email".to_owned()),
            ]
        );
    })
    .await;
}

#[tokio::test]
async fn the_limits_stop_a_flood_but_never_the_persons_own_request() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        app.staff("nurse", PASSWORD, &[], &[]).await;
        app.staff("surgeon", PASSWORD, &[], &[]).await;
        let stranger = "203.0.113.7";
        for _ in 0..5 {
            ask(&app, "nurse", stranger).await;
        }
        // Three links per login from one address, then nothing.
        sink.wait_for(3, WAIT).await;
        // The nurse's own request from the ward still sends one.
        ask(&app, "nurse", "10.0.0.1").await;
        assert_eq!(sink.wait_for(4, WAIT).await.len(), 4);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            sink.mails().len(),
            4,
            "the stranger's 4th and 5th sent nothing"
        );

        // Twenty requests per address, whatever the logins.
        let flood = "203.0.113.8";
        for n in 0..20 {
            ask(&app, &format!("nobody{n}"), flood).await;
        }
        ask(&app, "surgeon", flood).await;
        ask(&app, "surgeon", "10.0.0.2").await;
        sink.wait_for(5, WAIT).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mails = sink.mails();
        assert_eq!(
            recipients(&mails[4..]),
            ["surgeon@hospital.example"],
            "one link, from the surgeon's own address"
        );
        // Every link sent works; the first one used ends the others.
        let tokens: Vec<String> = mails[..4].iter().map(token_in).collect();
        reset(&app, &tokens[3], NEW_PASSWORD).await.expect("reset");
        assert_link_refused(reset(&app, &tokens[0], NEW_PASSWORD).await);
    })
    .await;
}

#[tokio::test]
async fn without_a_relay_the_answer_is_the_same() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", PASSWORD, &[], &[]).await;
        ask(&app, "nurse", "10.0.0.1").await;
        ask(&app, "nobody", "10.0.0.1").await;
    })
    .await;
}
