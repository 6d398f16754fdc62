//! The bell's items and the daily digest (issue 24): due courses listed with
//! read marks; digests through a real SMTP server in the test, once per
//! person and day even with two replicas sending at once, none for the
//! blocked or those who turned them off, a relay's failure retried.

use std::time::Duration;

use portal_education::app::digest::MailSettings;
use portal_education::domain::notification::MSG_MAIL_OFF;
use portal_kit::Right;
use portal_kit::day::Day;
use portal_kit::smtp_sink::{Mail, SmtpSink};
use portal_proto::auth::v1 as auth_pb;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::notification_service_client::NotificationServiceClient;
use tokio_util::sync::DropGuard;
use tonic::Code;
use tonic::transport::Channel;

use crate::helpers::*;

type Notifications = NotificationServiceClient<Channel>;

fn in_days(days: i64) -> String {
    Day::today().plus_days(days).to_string()
}

impl TestApp {
    pub fn notifications(&self) -> Notifications {
        NotificationServiceClient::new(self.channel.clone())
    }

    /// A replica on the same database whose digests go to `sink`.
    async fn mailing_replica(&self, sink: &SmtpSink) -> (Notifications, DropGuard) {
        let mut settings = self.settings();
        settings.digests.mail = Some(MailSettings {
            relay: sink.url().into(),
            from: "Портал <portal@hospital.example>".parse().expect("sender"),
        });
        let routes = portal_education::routes(settings)
            .await
            .expect("a mailing replica starts");
        let (channel, serving) =
            portal_kit::testing::serve(portal_education::SERVICE_NAME, routes).await;
        (NotificationServiceClient::new(channel), serving)
    }

    /// People made in the real auth with these e-mails; `blocked` ones get a
    /// status that blocks sign-in. Their auth ids, in order.
    async fn mail_staff(&self, people: &[(&str, bool)]) -> Vec<i64> {
        let admin = self.admin_token();
        let auth_db = sqlx::AnyPool::connect(&self.auth_database_url())
            .await
            .expect("connect to auth's database");
        let blocking: i64 =
            sqlx::query_scalar("SELECT id FROM statuses WHERE blocks_sign_in = 1 ORDER BY id")
                .fetch_one(&auth_db)
                .await
                .expect("a status that blocks sign-in");
        let mut ids = Vec::new();
        for (i, (email, blocked)) in people.iter().enumerate() {
            let user = self
                .auth
                .clone()
                .create_user(authed(
                    auth_pb::CreateUserRequest {
                        user: Some(auth_pb::UserDraft {
                            name: "Анна".into(),
                            surname: format!("Сотрудник {i}"),
                            last_name: "Петровна".into(),
                            login: format!("mail{i}"),
                            password: "password-123".into(),
                            email: (*email).into(),
                            ..Default::default()
                        }),
                    },
                    &admin,
                ))
                .await
                .expect("create a user")
                .into_inner()
                .user
                .expect("the user")
                .id;
            if *blocked {
                sqlx::query("UPDATE users SET status_id = $1 WHERE id = $2")
                    .bind(blocking)
                    .bind(user)
                    .execute(&auth_db)
                    .await
                    .expect("block the user");
            }
            ids.push(user);
        }
        auth_db.close().await;
        ids
    }

    /// A course with a test (one without is complete for everyone) due in
    /// `days`, assigned to `user_ids`.
    async fn course_due_in(&self, days: i64, user_ids: &[i64]) -> pb::Course {
        let test = self
            .create_test(test_request([1, 1, 1], questions(1)))
            .await
            .expect("a test");
        let article = self.create_article("<p>Текст</p>", test.id).await;
        self.create_course(&in_days(days), user_ids, &[article.id])
            .await
    }

    /// The deliveries once `count` of them are recorded as sent (the relay
    /// takes a message before the run records it), at most 10 s.
    async fn sent_deliveries(&self, count: usize) -> Vec<(i64, i64, Option<i64>)> {
        for _ in 0..200 {
            let deliveries = self.deliveries().await;
            if deliveries.iter().filter(|d| d.2.is_some()).count() >= count {
                return deliveries;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.deliveries().await
    }

    async fn deliveries(&self) -> Vec<(i64, i64, Option<i64>)> {
        let pool = sqlx::AnyPool::connect(&self.database.url)
            .await
            .expect("connect to the test database");
        let rows = sqlx::query_as(
            "SELECT user_id, attempts, sent_at FROM digest_deliveries ORDER BY user_id",
        )
        .fetch_all(&pool)
        .await
        .expect("the deliveries");
        pool.close().await;
        rows
    }
}

fn to(mails: &[Mail], address: &str) -> usize {
    mails
        .iter()
        .filter(|mail| mail.to.iter().any(|to| to == address))
        .count()
}

#[tokio::test]
async fn the_bell_lists_due_courses_with_the_callers_read_marks() {
    on_each_backend(|app| async move {
        let soon = app.course_due_in(3, &[LEARNER_ID, OTHER_LEARNER_ID]).await;
        let overdue = app.course_due_in(-2, &[LEARNER_ID]).await;
        app.course_due_in(30, &[LEARNER_ID]).await;
        // A course without tests asks nothing of anyone.
        app.create_course(&in_days(1), &[LEARNER_ID], &[]).await;

        let learner = app.learner_token();
        let list = |token: String| {
            let mut client = app.notifications();
            async move {
                client
                    .list_my_notifications(authed(pb::ListMyNotificationsRequest {}, &token))
                    .await
                    .expect("the bell")
                    .into_inner()
                    .notifications
            }
        };
        let mine = list(learner.clone()).await;
        let ids: Vec<&str> = mine.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                format!("education:course:{}:{}", overdue.id, in_days(-2)),
                format!("education:course:{}:{}", soon.id, in_days(3)),
            ],
            "overdue first; a course due in 30 days is not due yet"
        );
        assert!(mine[0].overdue && !mine[1].overdue);
        assert_eq!(mine[0].link, format!("/courses/{}", overdue.id));
        assert!(mine.iter().all(|n| !n.read && n.kind == "course"));

        app.notifications()
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec![mine[1].id.clone(), "wiki:maintenance:1:2026-01-01".into()],
                },
                &learner,
            ))
            .await
            .expect("marked");
        let mine = list(learner).await;
        assert_eq!(
            mine.iter().map(|n| n.read).collect::<Vec<_>>(),
            [false, true]
        );
        let theirs = list(app.token(OTHER_LEARNER_ID, &[])).await;
        assert_eq!(theirs.len(), 1);
        assert!(!theirs[0].read, "a mark is the marker's own");

        let too_many = app
            .notifications()
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec!["education:x".into(); 501],
                },
                &app.learner_token(),
            ))
            .await;
        assert_eq!(code(&too_many), Code::InvalidArgument);
    })
    .await;
}

#[tokio::test]
async fn read_marks_older_than_90_days_are_forgotten_by_the_housekeeping_a_start_begins() {
    on_each_backend(|app| async move {
        let learner = app.learner_token();
        let (old, recent) = (
            "education:course:1:2025-01-10",
            "education:course:2:2099-01-31",
        );
        app.notifications()
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec![old.into(), recent.into()],
                },
                &learner,
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

        // Another replica starting (or this one again) begins its housekeeping.
        let _replica = app.replica().await;
        let kept = portal_kit::testing::read_marks_after_housekeeping(&app.database.url).await;
        assert_eq!(kept, [recent]);
    })
    .await;
}

#[tokio::test]
async fn each_person_chooses_digests_and_only_admins_send_them_now() {
    on_each_backend(|app| async move {
        let learner = app.learner_token();
        let mut client = app.notifications();
        let enabled = client
            .get_my_digest_settings(authed(pb::GetMyDigestSettingsRequest {}, &learner))
            .await
            .unwrap()
            .into_inner()
            .digest_enabled;
        assert!(enabled, "on unless turned off");
        client
            .set_my_digest_settings(authed(
                pb::SetMyDigestSettingsRequest {
                    digest_enabled: false,
                },
                &learner,
            ))
            .await
            .unwrap();
        let enabled = client
            .get_my_digest_settings(authed(pb::GetMyDigestSettingsRequest {}, &learner))
            .await
            .unwrap()
            .into_inner()
            .digest_enabled;
        assert!(!enabled);

        let send = |token: String| {
            let mut client = app.notifications();
            async move {
                client
                    .send_digests_now(authed(pb::SendDigestsNowRequest {}, &token))
                    .await
            }
        };
        assert_eq!(code(&send(learner).await), Code::PermissionDenied);
        assert_eq!(
            code(&send(app.token(30, &[Right::EquipmentEditing])).await),
            Code::PermissionDenied
        );
        assert_eq!(code(&send(String::new()).await), Code::Unauthenticated);
        let off = send(app.token(30, &[Right::EducationManagement])).await;
        assert_status(off, Code::FailedPrecondition, MSG_MAIL_OFF);
    })
    .await;
}

#[tokio::test]
async fn two_replicas_send_each_person_one_digest_and_none_to_the_blocked_or_unsubscribed() {
    on_each_backend(|app| async move {
        let people = app
            .mail_staff(&[
                ("anna@hospital.example", false),
                ("blocked@hospital.example", true),
                ("quiet@hospital.example", false),
                ("", false),
            ])
            .await;
        let (anna, quiet) = (people[0], people[2]);
        let course = app.course_due_in(2, &people).await;
        app.notifications()
            .set_my_digest_settings(authed(
                pb::SetMyDigestSettingsRequest {
                    digest_enabled: false,
                },
                &app.token(quiet, &[]),
            ))
            .await
            .unwrap();

        let sink = SmtpSink::start().await;
        // Both replicas' daily jobs start at once (the hour has come), and an
        // admin presses "send now" on each at the same time.
        let (mut first, _one) = app.mailing_replica(&sink).await;
        let (mut second, _two) = app.mailing_replica(&sink).await;
        let admin = app.admin_token();
        let (a, b) = tokio::join!(
            first.send_digests_now(authed(pb::SendDigestsNowRequest {}, &admin)),
            second.send_digests_now(authed(pb::SendDigestsNowRequest {}, &admin)),
        );
        // Each answers at once; the runs go on in the background.
        for answer in [a, b] {
            let answer = answer.unwrap().into_inner();
            assert_eq!((answer.sent, answer.failed, answer.already_sent), (0, 0, 0));
        }

        let mails = sink.wait_for(1, Duration::from_secs(10)).await;
        // Whatever is still in flight lands well within this.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mails_now = sink.mails();
        assert_eq!(mails_now.len(), 1, "one digest: {mails_now:?}");
        assert_eq!(mails.len(), 1);
        assert_eq!(to(&mails_now, "anna@hospital.example"), 1);
        let mail = &mails_now[0];
        assert_eq!(mail.from, "portal@hospital.example");
        let text = mail.text();
        assert!(text.contains("multipart/alternative"), "{text}");
        assert!(
            text.contains("text/plain") && text.contains("text/html"),
            "{text}"
        );
        assert!(text.contains("Здравствуйте, Анна Петровна!"), "{text}");
        assert!(text.contains("Профилактика ИСМП"), "{text}");
        assert!(
            text.contains(&format!("{PORTAL}/courses/{}", course.id)),
            "{text}"
        );
        let deliveries = app.sent_deliveries(1).await;
        assert_eq!(deliveries.len(), 1, "{deliveries:?}");
        assert_eq!(deliveries[0].0, anna);

        first
            .send_digests_now(authed(pb::SendDigestsNowRequest {}, &admin))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(sink.mails().len(), 1, "once a day");
    })
    .await;
}

#[tokio::test]
async fn a_relay_failure_is_retried_and_delivered_once() {
    on_each_backend(|app| async move {
        let people = app.mail_staff(&[("boris@hospital.example", false)]).await;
        app.course_due_in(-1, &people).await;
        let sink = SmtpSink::start().await;
        sink.refuse_next(1);
        let (mut replica, _serving) = app.mailing_replica(&sink).await;
        let admin = app.admin_token();
        // The first try (a press's run or the daily job's) meets the 451; a
        // press's run tries a failed send again at once.
        for _ in 0..50 {
            replica
                .send_digests_now(authed(pb::SendDigestsNowRequest {}, &admin))
                .await
                .unwrap();
            if !sink.mails().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mails = sink.wait_for(1, Duration::from_secs(5)).await;
        assert_eq!(to(&mails, "boris@hospital.example"), 1, "{mails:?}");
        let deliveries = app.sent_deliveries(1).await;
        assert_eq!(deliveries.len(), 1);
        let (_, attempts, _) = deliveries[0];
        assert_eq!(attempts, 2, "refused once, then taken");
    })
    .await;
}

#[tokio::test]
async fn a_press_while_a_run_is_going_starts_no_second_one_and_answers_at_once() {
    on_each_backend(|app| async move {
        let people = app.mail_staff(&[("vera@hospital.example", false)]).await;
        app.course_due_in(1, &people).await;
        // A relay that does not answer: a run stays on its one message.
        let sink = SmtpSink::start().await;
        sink.hold();
        let (mut replica, _serving) = app.mailing_replica(&sink).await;
        let admin = app.admin_token();
        let mut press = async || {
            tokio::time::timeout(
                Duration::from_secs(5),
                replica.send_digests_now(authed(pb::SendDigestsNowRequest {}, &admin)),
            )
            .await
            .expect("answered at once, the relay still silent")
            .expect("accepted")
            .into_inner()
        };
        // The first press starts a run unless the daily job's is going on.
        press().await;
        sink.wait_for(1, Duration::from_secs(10)).await;
        let second = press().await;
        assert!(second.already_running, "{second:?}");

        sink.release();
        let deliveries = app.sent_deliveries(1).await;
        assert_eq!(deliveries.len(), 1, "{deliveries:?}");
        // Once the run is over, a press starts one again (nothing left to send).
        let mut started = false;
        for _ in 0..100 {
            if !press().await.already_running {
                started = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(started, "the replica's run never ended");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(to(&sink.mails(), "vera@hospital.example"), 1);
    })
    .await;
}
