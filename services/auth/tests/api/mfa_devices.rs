//! The second step and the devices (issue 39 review): a new password, set
//! by an administrator or by a reset link, forgets the devices that skipped
//! the step.

use std::time::Duration;

use portal_kit::smtp_sink::Mail;
use portal_kit::testing::totp_code;
use portal_proto::auth::v1 as pb;

use crate::helpers::*;
use crate::mfa::{Enrolled, PASSWORD, enrolled, second_step};

const NEW_PASSWORD: &str = "ромашка-в-ординаторской";
const RESET_PASSWORD: &str = "одуванчик-на-посту";

/// The device token of a sign-in of `person` with `password` that gave
/// `code`: that new device now skips the step.
async fn trusted_device(app: &TestApp, person: &Enrolled, password: &str, code: &str) -> String {
    let first = app
        .client
        .clone()
        .login(login_request(&person.login, password))
        .await
        .expect("the password")
        .into_inner();
    assert!(first.mfa_required);
    second_step(app, &first.mfa_token, code, "")
        .await
        .expect("the code")
        .into_inner()
        .device_token
}

async fn asks_a_code(app: &TestApp, login: &str, password: &str, device: &str) -> bool {
    app.client
        .clone()
        .login(login_from_device(login, password, device))
        .await
        .expect("the password")
        .into_inner()
        .mfa_required
}

/// The token of the reset link in `mail`.
fn reset_token(mail: &Mail) -> String {
    let text = mail.text();
    let link = format!("{PUBLIC_URL}/reset-password?token=");
    let start = text.find(&link).expect("the link in the mail") + link.len();
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

#[tokio::test]
async fn a_new_password_forgets_the_devices_that_skipped_the_second_step() {
    on_each_backend_mailing(|Mailing { app, sink }| async move {
        let person = enrolled(&app, &[]).await;
        let code = totp_code(&person.secret, 0);
        let device = trusted_device(&app, &person, PASSWORD, &code).await;
        assert!(!asks_a_code(&app, &person.login, PASSWORD, &device).await);

        // An administrator's new password.
        let user = app
            .client
            .clone()
            .get_user(authed(
                pb::GetUserRequest { user_id: person.id },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .user
            .unwrap();
        let draft = pb::UserDraft {
            password: NEW_PASSWORD.into(),
            ..TestApp::unchanged(&user)
        };
        app.update_user(person.id, draft).await.unwrap();
        assert!(asks_a_code(&app, &person.login, NEW_PASSWORD, &device).await);

        // Trusted again, then a reset link of their own.
        let recovery = &person.recovery_codes[0];
        let again = trusted_device(&app, &person, NEW_PASSWORD, recovery).await;
        assert!(!asks_a_code(&app, &person.login, NEW_PASSWORD, &again).await);
        app.client
            .clone()
            .request_password_reset(pb::RequestPasswordResetRequest {
                login: person.login.clone(),
            })
            .await
            .unwrap();
        let mails = sink.wait_for(1, Duration::from_secs(10)).await;
        app.client
            .clone()
            .reset_password(pb::ResetPasswordRequest {
                token: reset_token(&mails[0]),
                password: RESET_PASSWORD.into(),
            })
            .await
            .unwrap();
        assert!(asks_a_code(&app, &person.login, RESET_PASSWORD, &again).await);
    })
    .await;
}
