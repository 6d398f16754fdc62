//! Who may call what of education's NotificationService: every signed-in
//! person their own bell and digest choice; only UserManagement and
//! EducationManagement send today's digests (here with mail off, so an allowed
//! call meets FAILED_PRECONDITION after its rights were checked); no service
//! account any of it.

use portal_kit::testing::{AccessRule, caller_tokens, scope_matrix, with_token};
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::notification_service_client::NotificationServiceClient;
use tonic::Code;

use crate::helpers::*;

const IDS: [i64; 5] = [0, LEARNER_ID, 20, 30, 40];

use Code::{
    FailedPrecondition as MAIL_OFF, Ok as OK, PermissionDenied as DENIED, Unauthenticated as UNAUTH,
};

const SIGNED_IN: [Code; 5] = [UNAUTH, OK, OK, OK, OK];

const MATRIX: &[AccessRule] = &[
    ("ListMyNotifications", SIGNED_IN),
    ("MarkNotificationsRead", SIGNED_IN),
    ("GetMyDigestSettings", SIGNED_IN),
    ("SetMyDigestSettings", SIGNED_IN),
    (
        "SendDigestsNow",
        [UNAUTH, DENIED, MAIL_OFF, MAIL_OFF, DENIED],
    ),
];

portal_kit::access_matrix_tests!("portal.education.v1", "NotificationService");

#[tokio::test]
async fn no_service_account_calls_the_bell_or_the_digests() {
    on_each_backend(|app| async move {
        scope_matrix(app.backend, &app.keys, MATRIX, &[], async |rpc, token| {
            call_as(&app, rpc, Some(token)).await
        })
        .await;
    })
    .await;
}

struct Fixture {
    tokens: [Option<String>; 5],
}

async fn fixture(app: &TestApp) -> Fixture {
    Fixture {
        tokens: caller_tokens(&app.keys, IDS, &[]),
    }
}

async fn call(app: &TestApp, fixture: &Fixture, rpc: &str, who: usize) -> Code {
    call_as(app, rpc, fixture.tokens[who].as_deref()).await
}

async fn call_as(app: &TestApp, rpc: &str, token: Option<&str>) -> Code {
    let mut client = NotificationServiceClient::new(app.channel.clone());
    let answer = match rpc {
        "ListMyNotifications" => client
            .list_my_notifications(with_token(pb::ListMyNotificationsRequest {}, token))
            .await
            .map(|_| ()),
        "MarkNotificationsRead" => client
            .mark_notifications_read(with_token(
                pb::MarkNotificationsReadRequest {
                    ids: vec!["education:course:1:2099-01-31".into()],
                },
                token,
            ))
            .await
            .map(|_| ()),
        "GetMyDigestSettings" => client
            .get_my_digest_settings(with_token(pb::GetMyDigestSettingsRequest {}, token))
            .await
            .map(|_| ()),
        "SetMyDigestSettings" => client
            .set_my_digest_settings(with_token(
                pb::SetMyDigestSettingsRequest {
                    digest_enabled: true,
                },
                token,
            ))
            .await
            .map(|_| ()),
        "SendDigestsNow" => client
            .send_digests_now(with_token(pb::SendDigestsNowRequest {}, token))
            .await
            .map(|_| ()),
        other => panic!("no call for {other}"),
    };
    answer.err().map_or(Code::Ok, |status| status.code())
}
