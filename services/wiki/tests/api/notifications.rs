//! The wiki's part of the bell (issue 24): an equipment editor's units of
//! the departments of their token due within 30 days or overdue, read marks
//! of their own; nothing for anyone else; who may call it.

use portal_kit::Right;
use portal_kit::testing::{AccessRule, caller_tokens, scope_matrix, with_token};
use portal_proto::wiki::v1 as pb;
use portal_proto::wiki::v1::notification_service_client::NotificationServiceClient;
use tonic::Code;

use crate::helpers::*;

const IDS: [i64; 5] = [0, LEARNER_ID, 20, 30, 40];

use Code::{Ok as OK, Unauthenticated as UNAUTH};

const MATRIX: &[AccessRule] = &[
    ("ListMyNotifications", [UNAUTH, OK, OK, OK, OK]),
    ("MarkNotificationsRead", [UNAUTH, OK, OK, OK, OK]),
];

portal_kit::access_matrix_tests!("portal.wiki.v1", "NotificationService");

#[tokio::test]
async fn no_service_account_calls_the_bell() {
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
        tokens: caller_tokens(&app.keys, IDS, &[OWN_DEPARTMENT]),
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
                    ids: vec!["wiki:maintenance:1:2099-01-31".into()],
                },
                token,
            ))
            .await
            .map(|_| ()),
        other => panic!("no call for {other}"),
    };
    answer.err().map_or(Code::Ok, |status| status.code())
}

async fn mine(app: &TestApp, token: &str) -> Vec<pb::Notification> {
    NotificationServiceClient::new(app.channel.clone())
        .list_my_notifications(authed(pb::ListMyNotificationsRequest {}, token))
        .await
        .expect("the bell")
        .into_inner()
        .notifications
}

#[tokio::test]
async fn an_editor_sees_maintenance_due_in_their_departments_and_marks_it_read() {
    on_each_backend(|app| async move {
        let model = app.create_model("Аппарат ИВЛ Hamilton C3", "").await;
        let overdue = app.create_unit(model.id, OWN_DEPARTMENT, "ИН-1").await.unwrap();
        let soon = app.create_unit(model.id, OWN_DEPARTMENT, "ИН-2").await.unwrap();
        let later = app.create_unit(model.id, OWN_DEPARTMENT, "ИН-3").await.unwrap();
        let elsewhere = app.create_unit(model.id, OTHER_DEPARTMENT, "ИН-4").await.unwrap();
        app.log(overdue.id, &day(-200), &day(-1)).await.unwrap();
        app.log(soon.id, &day(-100), &day(10)).await.unwrap();
        app.log(later.id, &day(-10), &day(90)).await.unwrap();
        app.log(elsewhere.id, &day(-200), &day(-3)).await.unwrap();

        let editor = app
            .keys
            .token(EDITOR_ID, &[Right::EquipmentEditing], &[OWN_DEPARTMENT]);
        let items = mine(&app, &editor).await;
        let ids: Vec<&str> = items.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                format!("wiki:maintenance:{}:{}", overdue.id, day(-1)),
                format!("wiki:maintenance:{}:{}", soon.id, day(10)),
            ],
            "overdue first; their departments only; 90 days out is not due"
        );
        assert!(items[0].overdue && !items[1].overdue);
        assert_eq!(items[0].kind, "maintenance");
        assert_eq!(items[0].title, "Аппарат ИВЛ Hamilton C3, инв. № ИН-1");
        assert_eq!(
            items[0].link,
            format!(
                "/departments/environments/{OWN_DEPARTMENT}/environment/{}/maintenance-logbook?unit={}",
                model.id, overdue.id
            )
        );
        assert!(mine(&app, &app.learner_token()).await.is_empty(), "not an editor");

        NotificationServiceClient::new(app.channel.clone())
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec![items[0].id.clone(), "education:course:1:2099-01-01".into()],
                },
                &editor,
            ))
            .await
            .expect("marked");
        let items = mine(&app, &editor).await;
        assert_eq!(items.iter().map(|n| n.read).collect::<Vec<_>>(), [true, false]);

        // A new due date is a new item, unread again.
        app.log(overdue.id, &day(0), &day(5)).await.unwrap();
        let items = mine(&app, &editor).await;
        assert!(items.iter().all(|n| !n.read), "{items:?}");
    })
    .await;
}

#[tokio::test]
async fn read_marks_older_than_90_days_are_forgotten_by_the_housekeeping_a_start_begins() {
    on_each_backend(|app| async move {
        let (old, recent) = (
            "wiki:maintenance:1:2025-01-10",
            "wiki:clearance:2:2099-01-31",
        );
        NotificationServiceClient::new(app.channel.clone())
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec![old.into(), recent.into()],
                },
                &app.editor_token(),
            ))
            .await
            .expect("marked");
        let pool = sqlx::AnyPool::connect(&app.database.url)
            .await
            .expect("connect to the test database");
        let day_ms: i64 = 24 * 60 * 60 * 1000;
        for (key, days) in [(old, 91), (recent, 89)] {
            sqlx::query("UPDATE notification_reads SET read_at = read_at - $1 WHERE item_key = $2")
                .bind(days * day_ms)
                .bind(key)
                .execute(&pool)
                .await
                .expect("backdate a mark");
        }

        pool.close().await;

        app.start_again().await;
        let kept = portal_kit::testing::read_marks_after_housekeeping(&app.database.url).await;
        assert_eq!(kept, [recent]);
    })
    .await;
}
