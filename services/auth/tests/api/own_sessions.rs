//! A person's list of their signed-in devices (issue 39.5): which browser and
//! address each session was last used from, ending one or all others, and an
//! administrator ending all of someone's; what ends stops working at once.

use portal_kit::token::MSG_SESSION_EXPIRED;
use portal_proto::audit::v1 as audit_pb;
use portal_proto::audit::v1::audit_service_client::AuditServiceClient;
use portal_proto::auth::v1 as pb;
use tonic::{Code, Request};

use crate::helpers::*;

const PASSWORD: &str = "nurse-password-1";
const WARD_PC: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const PHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

/// `message` as the gateway forwards a browser's REST call: its user agent
/// and client address beside it.
fn from_browser<T>(message: T, user_agent: &str, address: &str) -> Request<T> {
    let mut request = from_address(message, address);
    request.metadata_mut().insert(
        portal_kit::net::CLIENT_USER_AGENT,
        user_agent.parse().expect("header value"),
    );
    request
}

async fn sign_in_on(app: &TestApp, login: &str, user_agent: &str) -> pb::LoginResponse {
    app.client
        .clone()
        .login(from_browser(
            login_request(login, PASSWORD),
            user_agent,
            "127.0.0.1",
        ))
        .await
        .expect("sign in")
        .into_inner()
}

async fn my_sessions(app: &TestApp, access_token: &str) -> Vec<pb::Session> {
    app.client
        .clone()
        .list_my_sessions(authed(pb::ListMySessionsRequest {}, access_token))
        .await
        .expect("list my sessions")
        .into_inner()
        .sessions
}

async fn end_mine(app: &TestApp, access_token: &str, request: pb::EndMySessionsRequest) -> i32 {
    app.client
        .clone()
        .end_my_sessions(authed(request, access_token))
        .await
        .expect("end my sessions")
        .into_inner()
        .ended
}

#[tokio::test]
async fn a_person_sees_their_devices_and_ends_the_others() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", PASSWORD, &[], &[]).await;
        let pc = sign_in_on(&app, "nurse", WARD_PC).await;
        let phone = sign_in_on(&app, "nurse", PHONE).await;

        let seen_from_pc = my_sessions(&app, &pc.access_token).await;
        let shown: Vec<(&str, bool)> = seen_from_pc
            .iter()
            .map(|s| (s.device.as_str(), s.current))
            .collect();
        assert_eq!(
            shown,
            [("Safari, iPhone", false), ("Chrome, Windows", true)],
            "the most recently used first, the caller's own marked"
        );
        assert!(seen_from_pc.iter().all(|s| s.address == "127.0.0.1"));
        let from_phone = my_sessions(&app, &phone.access_token).await;
        assert!(from_phone[0].current && !from_phone[1].current);

        let ended = end_mine(
            &app,
            &pc.access_token,
            pb::EndMySessionsRequest {
                all_others: true,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(ended, 1);
        assert_status(
            app.refresh(&phone.refresh_token).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
        // Every access token of before is stale, here at once; the session
        // kept renews its own and lists itself alone.
        let stale = app
            .client
            .clone()
            .get_me(authed(pb::GetMeRequest {}, &phone.access_token))
            .await;
        assert_eq!(code(&stale), Code::Unauthenticated);
        let renewed = app.refresh(&pc.refresh_token).await.expect("renew");
        let left = my_sessions(&app, &renewed.access_token).await;
        assert_eq!(left.len(), 1);
        assert!(left[0].current);

        let sign_outs = AuditServiceClient::new(app.channel.clone())
            .list_audit_records(authed(
                audit_pb::ListAuditRecordsRequest {
                    entity: "user".into(),
                    entity_id: Some(nurse.id),
                    action: "sign-out".into(),
                    ..Default::default()
                },
                &app.admin_token(),
            ))
            .await
            .expect("audit records")
            .into_inner()
            .records;
        assert_eq!(sign_outs.len(), 1);
        assert_eq!(sign_outs[0].reason, "session-ended");
        let actor = sign_outs[0].actor.as_ref().expect("actor");
        assert_eq!(actor.user_id, Some(nurse.id), "ended by the nurse");
    })
    .await;
}

#[tokio::test]
async fn a_renewal_is_when_and_where_a_session_was_last_seen() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", PASSWORD, &[], &[]).await;
        let signed_in = sign_in_on(&app, "nurse", WARD_PC).await;
        let before = my_sessions(&app, &signed_in.access_token).await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let renewed = app
            .client
            .clone()
            .refresh_token(from_browser(
                pb::RefreshTokenRequest {
                    refresh_token: signed_in.refresh_token,
                },
                PHONE,
                "127.0.0.1",
            ))
            .await
            .expect("renew")
            .into_inner();
        let after = my_sessions(&app, &renewed.access_token).await;
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].id, before[0].id, "the same session");
        assert_eq!(after[0].device, "Safari, iPhone");
        assert_eq!(after[0].created_at, before[0].created_at);
        let millis = |session: &pb::Session| {
            let at = session.last_seen_at.expect("last seen");
            at.seconds * 1000 + i64::from(at.nanos) / 1_000_000
        };
        assert!(millis(&after[0]) > millis(&before[0]));
    })
    .await;
}

#[tokio::test]
async fn a_person_ends_only_their_own_sessions() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", PASSWORD, &[], &[]).await;
        app.staff("colleague", PASSWORD, &[], &[]).await;
        let nurse = sign_in_on(&app, "nurse", WARD_PC).await;
        let colleague = sign_in_on(&app, "colleague", WARD_PC).await;
        let theirs = my_sessions(&app, &colleague.access_token).await[0].id;
        let mine = my_sessions(&app, &nurse.access_token).await[0].id;

        let ended = end_mine(
            &app,
            &nurse.access_token,
            pb::EndMySessionsRequest {
                session_ids: vec![theirs],
                all_others: false,
            },
        )
        .await;
        assert_eq!(ended, 0, "a colleague's session is not the nurse's to end");
        assert!(app.refresh(&colleague.refresh_token).await.is_ok());

        // Ending one's current session by name is a sign-out of it.
        let ended = end_mine(
            &app,
            &nurse.access_token,
            pb::EndMySessionsRequest {
                session_ids: vec![mine],
                all_others: false,
            },
        )
        .await;
        assert_eq!(ended, 1);
        assert_status(
            app.refresh(&nurse.refresh_token).await,
            Code::Unauthenticated,
            MSG_SESSION_EXPIRED,
        );
    })
    .await;
}

#[tokio::test]
async fn an_administrator_ends_every_session_of_a_person() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", PASSWORD, &[], &[]).await;
        let pc = sign_in_on(&app, "nurse", WARD_PC).await;
        let phone = sign_in_on(&app, "nurse", PHONE).await;
        let mut client = app.client.clone();
        let ended = client
            .end_user_sessions(authed(
                pb::EndUserSessionsRequest { user_id: nurse.id },
                &app.admin_token(),
            ))
            .await
            .expect("end the nurse's sessions")
            .into_inner()
            .ended;
        assert_eq!(ended, 2);
        for token in [&pc.refresh_token, &phone.refresh_token] {
            assert_status(
                app.refresh(token).await,
                Code::Unauthenticated,
                MSG_SESSION_EXPIRED,
            );
        }
        let unknown = client
            .end_user_sessions(authed(
                pb::EndUserSessionsRequest { user_id: 987_654 },
                &app.admin_token(),
            ))
            .await;
        assert_status(unknown, Code::NotFound, "Пользователь не найден");
    })
    .await;
}
