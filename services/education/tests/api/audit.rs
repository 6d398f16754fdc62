//! Education's audit log: every kind of write leaves one record (two where it
//! changes two entities) of who, from where and which fields went from what
//! to what, in the write's own transaction; a write refused half-way leaves
//! none; concurrent saves of one row record a chain, each changing what the
//! one before it wrote; only UserManagement reads the log.

use futures_util::future::join_all;
use portal_kit::access::Scope;
use portal_kit::testing::AuditLog;
use portal_proto::audit::v1 as audit_pb;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::notification_service_client::NotificationServiceClient;
use tonic::Code;

use crate::helpers::*;

#[tokio::test]
async fn only_user_managers_read_the_audit_log() {
    on_each_backend(|app| async move { portal_kit::testing::assert_audit_access(&app).await })
        .await;
}

#[test]
fn the_audit_matrix_covers_every_rpc_of_the_contract() {
    portal_kit::testing::assert_matrix_covers(
        portal_kit::testing::AUDIT_MATRIX,
        "portal.audit.v1",
        "AuditService",
    );
}

/// A field's change as recorded: old and new as JSON text.
fn change<'r>(record: &'r audit_pb::AuditRecord, field: &str) -> (&'r str, &'r str) {
    let found = record
        .changes
        .iter()
        .find(|c| c.field == field)
        .unwrap_or_else(|| panic!("{field} not among {:?}", record.changes));
    (found.old.as_str(), found.new.as_str())
}

fn fields(record: &audit_pb::AuditRecord) -> Vec<&str> {
    record.changes.iter().map(|c| c.field.as_str()).collect()
}

/// Checks what a record is of, and that the admin made it.
fn of(record: &audit_pb::AuditRecord, entity: &str, id: i64, action: &str) {
    assert_eq!(
        (
            record.entity.as_str(),
            record.entity_id,
            record.action.as_str()
        ),
        (entity, Some(id), action),
        "{record:?}"
    );
}

#[tokio::test]
async fn every_kind_of_write_leaves_one_record_with_its_fields_old_and_new() {
    on_each_backend(|app| async move {
        let mut log = AuditLog::default();
        let admin = app.admin_token();
        let mut client = app.client.clone();

        // A test: its fields and questions, who made it, from where.
        let mut create = test_request([1, 2, 2], questions(2));
        create.title = "Гигиена рук".into();
        let mut request = authed(create, &admin);
        request
            .metadata_mut()
            .insert("x-forwarded-for", "198.51.100.7".parse().unwrap());
        let test = client
            .create_test(request)
            .await
            .expect("create test")
            .into_inner()
            .test
            .unwrap();
        let [created] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(created, "test", test.id, "create");
        let actor = created.actor.clone().unwrap();
        assert_eq!(
            (actor.kind.as_str(), actor.user_id),
            ("person", Some(ADMIN_ID))
        );
        assert_eq!(
            created.address, "198.51.100.7",
            "the gateway's forwarded address, believed from loopback"
        );
        assert!(
            !created.request_id.is_empty(),
            "every call has a request id"
        );
        assert_eq!(change(created, "title"), ("null", "\"Гигиена рук\""));
        assert_eq!(change(created, "numberOfTries"), ("null", "2"));
        assert!(change(created, "questions").1.contains("Верно 2"));

        // An article: the content by its length and hash, never the HTML.
        let article = app.create_article("<p>Мойте руки</p>", test.id).await;
        let [created] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(created, "article", article.id, "create");
        assert_eq!(change(created, "testId"), ("null", &*test.id.to_string()));
        let (_, content) = change(created, "content");
        assert!(
            content.contains("\"chars\":") && content.contains("\"sha256\":"),
            "{content}"
        );
        assert!(!content.contains("Мойте"), "{content}");

        let updated = client
            .update_article(authed(
                pb::UpdateArticleRequest {
                    id: article.id,
                    title: "Гигиена рук медсестры".into(),
                    description: article.description.clone(),
                    content: "<p>Мойте руки чаще</p>".into(),
                    date_deadline: article.date_deadline.clone(),
                    test_id: test.id,
                },
                &admin,
            ))
            .await;
        assert_eq!(code(&updated), Code::Ok);
        let [changed] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(changed, "article", article.id, "update");
        assert_eq!(fields(changed), ["content", "title"], "only what changed");
        assert_eq!(
            change(changed, "title"),
            ("\"Гигиена рук\"", "\"Гигиена рук медсестры\"")
        );

        // A test made for an article without one becomes its test: two records.
        let bare = app.create_article("<p>Без теста</p>", 0).await;
        log.next(&app, 1).await;
        let mut linked = test_request([1, 1, 1], questions(1));
        linked.article_id = bare.id;
        let second = app.create_test(linked).await.expect("a linked test");
        let [made, link] = &log.next(&app, 2).await[..] else {
            unreachable!()
        };
        of(made, "test", second.id, "create");
        of(link, "article", bare.id, "update");
        assert_eq!(change(link, "testId"), ("null", &*second.id.to_string()));

        // A question renamed: the questions old and new.
        let mut edit = pb::UpdateTestRequest {
            id: test.id,
            title: test.title.clone(),
            description: test.description.clone(),
            total_points_required: test.total_points_required,
            number_of_questions: test.number_of_questions,
            number_of_tries: test.number_of_tries,
            article_id: 0,
            questions: test.questions.clone(),
        };
        edit.questions[0].title = "Вопрос первый".into();
        client
            .update_test(authed(edit, &admin))
            .await
            .expect("update test");
        let [changed] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(changed, "test", test.id, "update");
        assert_eq!(fields(changed), ["questions"]);
        let (old, new) = change(changed, "questions");
        assert!(old.contains("Вопрос 1") && new.contains("Вопрос первый"));

        // A course: its fields, assignees and articles.
        let course = app
            .create_course("2099-01-31", &[LEARNER_ID], &[article.id])
            .await;
        let [created] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(created, "course", course.id, "create");
        assert_eq!(
            change(created, "assignees"),
            ("null", &*format!("[{LEARNER_ID}]"))
        );
        assert_eq!(
            change(created, "articles"),
            ("null", &*format!("[{}]", article.id))
        );
        client
            .update_course(authed(
                pb::UpdateCourseRequest {
                    id: course.id,
                    title: "Профилактика ИСМП 2030".into(),
                    description: course.description.clone(),
                    date_deadline: course.date_deadline.clone(),
                    user_ids: vec![LEARNER_ID, OTHER_LEARNER_ID],
                    article_ids: vec![article.id],
                    validity_months: Some(12),
                },
                &admin,
            ))
            .await
            .expect("update course");
        let [changed] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(changed, "course", course.id, "update");
        assert_eq!(fields(changed), ["assignees", "title", "validityMonths"]);
        assert_eq!(
            change(changed, "assignees"),
            (
                &*format!("[{LEARNER_ID}]"),
                &*format!("[{LEARNER_ID},{OTHER_LEARNER_ID}]")
            )
        );
        assert_eq!(change(changed, "validityMonths"), ("0", "12"));

        // Assigned by another system: its own deadline, the system as actor.
        let staff = app.hr_staff(&[("Т-301", "ХИР")]).await;
        let system = app.keys.service_token(8, &[Scope::TrainingAssign]);
        client
            .assign_course(authed(
                pb::AssignCourseRequest {
                    course_id: course.id,
                    employee_numbers: vec!["Т-301".into()],
                    date_deadline: "2031-01-31".into(),
                    ..Default::default()
                },
                &system,
            ))
            .await
            .expect("assign course");
        let [assigned] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(assigned, "course", course.id, "update");
        assert_eq!(assigned.actor.as_ref().unwrap().kind, "service-account");
        assert_eq!(
            change(assigned, "ownDeadlines"),
            (
                &*format!("{{\"{}\":null}}", staff[0]),
                &*format!("{{\"{}\":\"2031-01-31\"}}", staff[0])
            )
        );

        // A learner's attempt: started, then scored.
        let learner = app.learner_token();
        app.complete(&learner, &test, 2, 0).await.expect("complete");
        let [started, scored] = &log.next(&app, 2).await[..] else {
            unreachable!()
        };
        assert_eq!(
            (started.entity.as_str(), started.action.as_str()),
            ("attempt", "create")
        );
        assert_eq!(
            started.actor.as_ref().unwrap().user_id,
            Some(LEARNER_ID),
            "the learner's own write"
        );
        assert_eq!(change(started, "tryNumber"), ("null", "1"));
        assert_eq!(
            (scored.entity_id, scored.action.as_str()),
            (started.entity_id, "complete")
        );
        assert_eq!(change(scored, "totalPoint"), ("null", "2"));
        assert_eq!(change(scored, "isPassed"), ("null", "true"));

        // The bell and the digest choice.
        let mut notifications = NotificationServiceClient::new(app.channel.clone());
        let key = format!("education:course:{}:2099-01-31", course.id);
        notifications
            .mark_notifications_read(authed(
                pb::MarkNotificationsReadRequest {
                    ids: vec![key.clone()],
                },
                &learner,
            ))
            .await
            .expect("mark read");
        let [marked] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(marked, "notification", LEARNER_ID, "mark-read");
        assert_eq!(change(marked, "read"), ("[]", &*format!("[\"{key}\"]")));
        notifications
            .set_my_digest_settings(authed(
                pb::SetMyDigestSettingsRequest {
                    digest_enabled: false,
                },
                &learner,
            ))
            .await
            .expect("digest off");
        let [chosen] = &log.next(&app, 1).await[..] else {
            unreachable!()
        };
        of(chosen, "digest-settings", LEARNER_ID, "update");
        assert_eq!(change(chosen, "digestEnabled"), ("true", "false"));
    })
    .await;
}

#[tokio::test]
async fn a_write_refused_half_way_leaves_no_record_and_no_change() {
    on_each_backend(|app| async move {
        let article = app.create_article("<p>Текст</p>", 0).await;
        let course = app
            .create_course("2099-01-31", &[LEARNER_ID], &[article.id])
            .await;
        let before = AuditLog::all(&app).await.len();
        // The course's row is rewritten before the unknown article refuses
        // the whole write.
        let refused = app
            .client
            .clone()
            .update_course(authed(
                pb::UpdateCourseRequest {
                    id: course.id,
                    title: "Другое название".into(),
                    description: course.description.clone(),
                    date_deadline: course.date_deadline.clone(),
                    user_ids: vec![],
                    article_ids: vec![article.id, 4242],
                    validity_months: None,
                },
                &app.admin_token(),
            ))
            .await;
        assert_eq!(code(&refused), Code::InvalidArgument);
        assert_eq!(AuditLog::all(&app).await.len(), before, "{:?}", app.backend);
        let kept = app
            .client
            .clone()
            .get_course(authed(
                pb::GetCourseRequest {
                    course_id: course.id,
                },
                &app.admin_token(),
            ))
            .await
            .expect("the course")
            .into_inner()
            .course
            .unwrap();
        assert_eq!(kept.title, course.title);
    })
    .await;
}

#[tokio::test]
async fn concurrent_saves_of_one_article_record_a_chain_and_keep_one_version_of_before() {
    const SAVES: usize = 8;
    on_each_backend(|app| async move {
        let article = app.create_article("<p>Версия 0</p>", 0).await;
        // As if written before revisions were kept: each save would keep
        // its version of then, were it not the first.
        let pool = sqlx::AnyPool::connect(&app.database.url)
            .await
            .expect("the test database");
        sqlx::query("DELETE FROM article_revisions")
            .execute(&pool)
            .await
            .expect("revisions forgotten");
        pool.close().await;
        let mut log = AuditLog::default();
        log.next(&app, 1).await;

        let admin = app.admin_token();
        let saves = (1..=SAVES).map(|n| {
            let mut client = app.client.clone();
            let request = pb::UpdateArticleRequest {
                id: article.id,
                title: format!("Версия {n}"),
                description: article.description.clone(),
                content: format!("<p>Версия {n}</p>"),
                date_deadline: article.date_deadline.clone(),
                test_id: 0,
            };
            let request = authed(request, &admin);
            async move { client.update_article(request).await }
        });
        for saved in join_all(saves).await {
            saved.expect("a concurrent save");
        }

        // Each save changed what the one before it wrote (records in the
        // order their writes committed), none the same "old" again: the
        // content's fingerprint as saved, read back by the next save.
        let records = log.next(&app, SAVES).await;
        for record in &records {
            of(record, "article", article.id, "update");
        }
        for field in ["title", "content"] {
            let chain: Vec<(&str, &str)> = records.iter().map(|r| change(r, field)).collect();
            for pair in chain.windows(2) {
                assert_eq!(pair[1].0, pair[0].1, "{:?} {field}", app.backend);
            }
        }
        let first_old = serde_json::to_string(&article.title).unwrap();
        assert_eq!(change(&records[0], "title").0, first_old);
        let revisions = app.article_revisions(article.id).await;
        let of_before = revisions.iter().filter(|r| r.author_id == 0).count();
        assert_eq!(
            (revisions.len(), of_before),
            (SAVES + 1, 1),
            "{:?}: each save's version and the one of before",
            app.backend
        );
    })
    .await;
}
