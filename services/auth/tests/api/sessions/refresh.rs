//! Refresh tokens and the end of sessions: rotation, reuse ending a family,
//! sign-out, a blocked person, a changed password, and the statuses that stop sign-in.

use super::*;
use crate::helpers::*;
use portal_kit::token::MSG_SESSION_EXPIRED;
use portal_proto::auth::v1 as pb;
use tonic::Code;

#[tokio::test]
async fn refresh_rotates_the_refresh_token() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        let first = app.session_of("nurse", "nurse-password").await;
        let second = app.refresh(&first).await.expect("refresh");
        assert_ne!(second.refresh_token, first);
        assert_eq!(second.expires_in, 900);
        assert_eq!(
            app.keys
                .verifier
                .verify(&second.access_token)
                .unwrap()
                .user_id,
            nurse.id
        );
        let third = app
            .refresh(&second.refresh_token)
            .await
            .expect("refresh the successor");
        assert_ne!(third.refresh_token, second.refresh_token);
        assert_status(
            app.refresh("").await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        assert_status(
            app.refresh("made-up").await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
    })
    .await;
}

/// The gateway's cookies keep the tokens as long as auth says they last.
#[tokio::test]
async fn sign_in_and_refresh_say_how_long_their_tokens_last() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let signed_in = app.login("nurse", "nurse-password").await.expect("sign in");
        assert_eq!(signed_in.refresh_expires_in, 14 * 24 * 3600);
        assert_eq!(signed_in.device_expires_in, 365 * 24 * 3600);
        let refreshed = app
            .refresh(&signed_in.refresh_token)
            .await
            .expect("refresh");
        assert_eq!(refreshed.refresh_expires_in, 14 * 24 * 3600);
    })
    .await;
}

#[tokio::test]
async fn reusing_a_rotated_token_revokes_its_family_only() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let stolen = app.session_of("nurse", "nurse-password").await;
        let other_session = app.session_of("nurse", "nurse-password").await;
        let successor = app.refresh(&stolen).await.unwrap().refresh_token;

        assert_status(
            app.refresh(&stolen).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        // The whole family is gone, including the successor...
        assert_status(
            app.refresh(&successor).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        // ...but not the user's other session.
        assert!(app.refresh(&other_session).await.is_ok());
    })
    .await;
}

#[tokio::test]
async fn logout_revokes_the_session() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let token = app.session_of("nurse", "nurse-password").await;
        let rotated = app.refresh(&token).await.unwrap().refresh_token;
        let mut client = app.client.clone();
        client
            .logout(pb::LogoutRequest {
                refresh_token: rotated.clone(),
            })
            .await
            .expect("logout");
        assert_status(
            app.refresh(&rotated).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        // Logging out again, or with a token nobody issued, is fine.
        client
            .logout(pb::LogoutRequest {
                refresh_token: rotated,
            })
            .await
            .expect("logout twice");
        client
            .logout(pb::LogoutRequest {
                refresh_token: "made-up".into(),
            })
            .await
            .expect("unknown token");
    })
    .await;
}

#[tokio::test]
async fn a_disabled_user_can_neither_refresh_nor_sign_in() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        let token = app.session_of("nurse", "nurse-password").await;
        let dismissed = app.status_id("Уволен").await;
        app.update_user(
            nurse.id,
            pb::UserDraft {
                status_id: dismissed,
                ..TestApp::unchanged(&nurse)
            },
        )
        .await
        .unwrap();

        assert_status(
            app.refresh(&token).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        assert_status(
            app.login("nurse", "nurse-password").await,
            Code::Unauthenticated,
            BLOCKED,
        );
        // Without the right password the block is not revealed.
        assert_status(
            app.login("nurse", "wrong-password").await,
            Code::Unauthenticated,
            BAD_CREDENTIALS,
        );

        let working = app.status_id("Работает").await;
        app.update_user(
            nurse.id,
            pb::UserDraft {
                status_id: working,
                ..TestApp::unchanged(&nurse)
            },
        )
        .await
        .unwrap();
        assert!(app.login("nurse", "nurse-password").await.is_ok());
    })
    .await;
}

#[tokio::test]
async fn changing_the_password_ends_every_session() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        let first = app.session_of("nurse", "nurse-password").await;
        let second = app.session_of("nurse", "nurse-password").await;
        let change = pb::UserDraft {
            password: "brand-new-password".into(),
            ..TestApp::unchanged(&nurse)
        };
        app.update_user(nurse.id, change).await.unwrap();

        assert_status(
            app.refresh(&first).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        assert_status(
            app.refresh(&second).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        assert_status(
            app.login("nurse", "nurse-password").await,
            Code::Unauthenticated,
            BAD_CREDENTIALS,
        );
        assert!(app.login("nurse", "brand-new-password").await.is_ok());
    })
    .await;
}

#[tokio::test]
async fn an_edit_with_a_blank_password_keeps_password_and_sessions() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        let token = app.session_of("nurse", "nurse-password").await;
        let rename = pb::UserDraft {
            name: "Ольга".into(),
            password: String::new(),
            ..TestApp::unchanged(&nurse)
        };
        app.update_user(nurse.id, rename).await.unwrap();
        assert!(app.refresh(&token).await.is_ok());
        assert!(app.login("nurse", "nurse-password").await.is_ok());
    })
    .await;
}

#[tokio::test]
async fn an_expired_access_token_does_not_stand_in_the_way_of_a_refresh() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let token = app.session_of("nurse", "nurse-password").await;
        let stale = "eyJhbGciOiJFZERTQSJ9.e30.c2lnbmF0dXJl";
        let mut client = app.client.clone();
        let refreshed = client
            .refresh_token(authed(
                pb::RefreshTokenRequest {
                    refresh_token: token,
                },
                stale,
            ))
            .await
            .expect("refresh ignores the access token");
        let again = authed(login_request("nurse", "nurse-password"), stale);
        assert!(client.login(again).await.is_ok());
        let logout = pb::LogoutRequest {
            refresh_token: refreshed.into_inner().refresh_token,
        };
        assert!(client.logout(authed(logout, stale)).await.is_ok());
        // Calls that need a session still refuse it.
        assert_status(
            client.get_me(authed(pb::GetMeRequest {}, stale)).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
    })
    .await;
}

#[tokio::test]
async fn the_status_list_says_which_statuses_stop_sign_in() {
    on_each_backend(false, |app| async move {
        let statuses = app
            .client
            .clone()
            .list_statuses(authed(pb::ListStatusesRequest {}, &app.admin_token()))
            .await
            .expect("list statuses")
            .into_inner()
            .statuses;
        let blocking: Vec<(&str, bool)> = statuses
            .iter()
            .map(|status| (status.name.as_str(), status.blocks_sign_in))
            .collect();
        assert_eq!(
            blocking,
            [
                ("Работает", false),
                ("В отпуске", false),
                ("На больничном", false),
                ("Уволен", true),
            ]
        );
    })
    .await;
}
