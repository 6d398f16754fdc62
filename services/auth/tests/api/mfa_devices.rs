//! The second step and the devices (issue 39 review): a known device's
//! sign-in asks whether a code is needed on its own connections, never the
//! shared pool; a new password, set by an administrator or by a reset link,
//! forgets the devices that skipped the step.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use portal_auth::app::mfa::SecondFactor;
use portal_auth::app::password_check::PasswordCheck;
use portal_auth::app::sessions::{Sessions, SignInForm, SignInOutcome};
use portal_auth::domain::password::Passwords;
use portal_auth::domain::seal::{PURPOSE, Seal};
use portal_auth::store::Store;
use portal_auth::store::session::UsedFrom;
use portal_kit::audit::AuditContext;
use portal_kit::testing::totp_code;
use portal_proto::auth::v1 as pb;
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;

use crate::helpers::*;
use crate::mfa::{Enrolled, PASSWORD, enrolled, second_step};
use crate::password_reset::token_in;

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

/// A pool on `url` that calls `acquired` whenever it hands out a connection
/// (a new one or an idle one): in the order of the queries that ask for them.
async fn watched_pool(url: &str, acquired: impl Fn() + Clone + Send + Sync + 'static) -> AnyPool {
    let on_new = acquired.clone();
    AnyPoolOptions::new()
        .after_connect(move |_, _| {
            on_new();
            Box::pin(std::future::ready(Ok(())))
        })
        .before_acquire(move |_, _| {
            acquired();
            Box::pin(std::future::ready(Ok(true)))
        })
        .connect(url)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_known_devices_second_step_is_settled_on_its_own_connections() {
    on_each_backend(false, |app| async move {
        let person = enrolled(&app, &[]).await;
        let code = totp_code(&person.secret, 0);
        let device = trusted_device(&app, &person, PASSWORD, &code).await;
        // Known to this person, no longer trusted: the step is asked again.
        sqlx::query("DELETE FROM mfa_trusted_devices")
            .execute(&app.database().await)
            .await
            .unwrap();

        let lane_used = Arc::new(AtomicBool::new(false));
        let shared_after_lane = Arc::new(AtomicUsize::new(0));
        let url = app.database.url.as_str();
        let shared = watched_pool(url, {
            let (lane_used, counted) = (lane_used.clone(), shared_after_lane.clone());
            move || {
                if lane_used.load(Ordering::SeqCst) {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
            }
        })
        .await;
        // The lane is first used for the attempt, once the device is known.
        let lane = watched_pool(url, {
            let lane_used = lane_used.clone();
            move || lane_used.store(true, Ordering::SeqCst)
        })
        .await;
        lane_used.store(false, Ordering::SeqCst);
        let store = Store::new(shared, lane, app.backend);
        let seal = Seal::new(&app.keys.internal.derive(PURPOSE)).unwrap();
        let sessions = Sessions::new(
            store.clone(),
            PasswordCheck::new(Passwords::new().await.unwrap(), None),
            app.keys.issuer.clone(),
            SecondFactor::new(store, seal, false),
            None,
        );
        let form = SignInForm {
            login: &person.login,
            password: PASSWORD,
            device_token: &device,
        };
        let (context, used_from) = (AuditContext::system(), UsedFrom::default());
        let signing_in = sessions.sign_in(form, "10.1.2.3", &context, &used_from);
        let outcome = tokio::time::timeout(Duration::from_secs(30), signing_in)
            .await
            .unwrap()
            .unwrap();
        assert!(matches!(outcome, SignInOutcome::SecondStep { .. }));
        assert!(lane_used.load(Ordering::SeqCst), "the device is known");
        assert_eq!(
            shared_after_lane.load(Ordering::SeqCst),
            0,
            "once the device is known, the shared pool is not asked"
        );
    })
    .await;
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
                token: token_in(&mails[0]),
                password: RESET_PASSWORD.into(),
            })
            .await
            .unwrap();
        assert!(asks_a_code(&app, &person.login, RESET_PASSWORD, &again).await);
    })
    .await;
}
