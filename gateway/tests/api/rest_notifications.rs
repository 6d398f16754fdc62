//! The bell and the digests over REST (issue 24): `/api/notification/get-mine`
//! merges education's and the wiki's items, `mark-read` sends each id to
//! its owner, `send-digests-now` is for admins and mails through the relay
//! (a real SMTP server in the test).

use std::time::Duration;

use crate::support::{Portal, error, get_data, post_data, post_json, start};
use portal_kit::Right;
use portal_kit::day::Day;
use portal_kit::smtp_sink::SmtpSink;
use serde_json::{Value, json};

/// A course due in `days` (with a test, so it asks something) for `users`.
async fn course_due_in(portal: &Portal, admin: &str, days: i64, users: &[i64]) -> Value {
    let test = post_data(
        portal,
        "/api/test/create-test-with-question-and-answers",
        admin,
        json!({
            "title": "Допуск к ИВЛ",
            "description": "Один вопрос",
            "totalPointsRequired": 1,
            "numberOfQuestions": 1,
            "numberOfTries": 2,
            "question": [{
                "title": "Проверка перед подключением?",
                "answer": [
                    { "title": "Тест дыхательного контура", "isCorrect": true },
                    { "title": "Не нужна", "isCorrect": false },
                ],
            }],
        }),
    )
    .await;
    let article = post_data(
        portal,
        "/api/course/create-article",
        admin,
        json!({
            "title": "Работа с ИВЛ",
            "description": "Допуск",
            "content": "<p>Текст</p>",
            "dateDeadline": "2099-01-31",
            "testId": test["id"],
        }),
    )
    .await;
    post_data(
        portal,
        "/api/course/create-course-with-user-and-articles",
        admin,
        json!({
            "title": "ИВЛ: допуск",
            "description": "Обязательный курс",
            "dateDeadline": Day::today().plus_days(days).to_string(),
            "userIds": users,
            "articleIds": [article["id"]],
        }),
    )
    .await
}

#[tokio::test]
async fn the_bell_lists_marks_read_and_only_admins_send_digests() {
    let sink = SmtpSink::start().await;
    let relay = format!("--smtp-url={}", sink.url());
    let portal = start(&[&relay, "--smtp-from=portal@hospital.example"]).await;
    let admin = portal.token(1, &Right::ALL);
    let nurse = post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        json!({
            "name": "Елена", "surname": "Морозова", "lastName": "Андреевна",
            "login": "morozova", "password": "morozova-password",
            "email": "morozova@hospital.example",
        }),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let course = course_due_in(&portal, &admin, -1, &[nurse]).await;
    let token = portal.token(nurse, &[]);

    let mine = get_data(&portal, "/api/notification/get-mine", &token).await;
    assert_eq!(mine["unread"], 1, "{mine}");
    assert_eq!(mine["complete"], true);
    let item = &mine["notifications"][0];
    let id = format!(
        "education:course:{}:{}",
        course["id"],
        Day::today().plus_days(-1)
    );
    assert_eq!(item["id"], id.as_str());
    assert_eq!(item["kind"], "course");
    assert_eq!(item["title"], "ИВЛ: допуск");
    assert_eq!(item["link"], format!("/courses/{}", course["id"]));
    assert_eq!(item["overdue"], true);
    assert_eq!(item["read"], false);
    assert!(item["dueDate"].is_string());

    let (status, body) = post_json(
        &portal,
        "/api/notification/mark-read",
        &token,
        json!({ "ids": [id, "wiki:maintenance:1:2099-01-01", "elsewhere:1"] }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let mine = get_data(&portal, "/api/notification/get-mine", &token).await;
    assert_eq!(mine["unread"], 0, "{mine}");
    assert_eq!(mine["notifications"][0]["read"], true);

    let editor = portal.token_in(77, &[Right::EquipmentEditing], &[1]);
    let theirs = get_data(&portal, "/api/notification/get-mine", &editor).await;
    assert_eq!(theirs["notifications"], json!([]), "{theirs}");

    let too_many: Vec<String> = (0..501).map(|i| format!("education:x:{i}")).collect();
    let (status, body) = post_json(
        &portal,
        "/api/notification/mark-read",
        &token,
        json!({ "ids": too_many }),
    )
    .await;
    assert!(error(400, status, &body).contains("500"), "{body}");

    let (status, body) = post_json(
        &portal,
        "/api/notification/send-digests-now",
        &token,
        json!({}),
    )
    .await;
    error(403, status, &body);
    assert!(sink.mails().is_empty());
    let (status, _, _) = portal.get("/api/notification/get-mine", None).await;
    assert_eq!(status, 401);

    let sent = post_data(
        &portal,
        "/api/notification/send-digests-now",
        &admin,
        json!({}),
    )
    .await;
    // The run goes on in the background; the counts stay for older clients.
    assert_eq!(
        (&sent["sent"], &sent["failed"], &sent["alreadySent"]),
        (&json!(0), &json!(0), &json!(0)),
        "{sent}"
    );
    assert!(sent["alreadyRunning"].is_boolean(), "{sent}");
    let mails = sink.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, ["morozova@hospital.example"]);
    assert!(mails[0].text().contains("/courses/"), "{}", mails[0].text());
    let again = post_data(
        &portal,
        "/api/notification/send-digests-now",
        &admin,
        json!({}),
    )
    .await;
    assert!(again["alreadyRunning"].is_boolean(), "{again}");
    // Whatever a run still does lands well within this: nothing more.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(sink.mails().len(), 1, "once a day");
    portal.running.stop().await.unwrap();
}

/// The digest carries the wiki's items too (issue 24), on the demo data of
/// every service: the demo nurse's clearance for the ventilator lapses next
/// week, the engineer (EquipmentEditing, every department) has the
/// ventilator's maintenance overdue and a defibrillator's due this month, and
/// the реанимация nurse who passed nothing has nothing due, so no mail.
#[tokio::test]
async fn the_digest_carries_lapsing_clearances_and_maintenance_due() {
    let sink = SmtpSink::start().await;
    let relay = format!("--smtp-url={}", sink.url());
    let portal = start(&[
        &relay,
        "--smtp-from=portal@hospital.example",
        "--seed-demo=true",
        "--public-url=https://portal.hospital.example",
    ])
    .await;
    let admin = portal.token(1, &Right::ALL);
    let send_now = || {
        post_data(
            &portal,
            "/api/notification/send-digests-now",
            &admin,
            json!({}),
        )
    };
    // A run goes on in the background, and the daily job's may be going
    // already: press until a press starts a run, then until the next press may
    // start another (which finds every digest of the day sent).
    for _ in 0..2 {
        let mut presses = 0;
        while send_now().await["alreadyRunning"] == true {
            presses += 1;
            assert!(presses < 300, "a run ends");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let mails = sink.mails();
    let to = |address: &str| {
        let theirs: Vec<_> = mails
            .iter()
            .filter(|mail| mail.to == [address])
            .map(|mail| mail.text())
            .collect();
        assert!(theirs.len() <= 1, "once a day: {theirs:?}");
        theirs.into_iter().next()
    };
    let models = get_data(&portal, "/api/environment-model/get-all", &admin).await;
    let ventilator = models
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("Аппарат ИВЛ"))
        .cloned()
        .expect("the demo ventilator");

    let nurse = to("nurse@hospital.example").expect("the nurse's digest");
    assert!(
        nurse.contains("Допуски к работе с оборудованием, которые скоро истекут:"),
        "{nurse}"
    );
    assert!(
        nurse.contains(&format!(
            "Допуск к работе: {} — действует до",
            ventilator["name"].as_str().unwrap()
        )),
        "{nurse}"
    );
    assert!(
        nurse.contains(&format!(
            "https://portal.hospital.example/short-instruction/{}",
            ventilator["id"]
        )),
        "{nurse}"
    );
    assert!(!nurse.contains("Техническое обслуживание"), "{nurse}");

    let engineer = to("engineer@hospital.example").expect("the engineer's digest");
    assert!(
        engineer.contains("Техническое обслуживание оборудования:"),
        "{engineer}"
    );
    assert!(
        engineer.contains("инв. № ИН-000201 — обслуживание просрочено, срок был"),
        "{engineer}"
    );
    assert!(
        engineer.contains("инв. № ИН-000301 — обслуживание до"),
        "{engineer}"
    );
    assert!(
        engineer.contains(&format!(
            "https://portal.hospital.example/departments/environments/1/environment/{}/maintenance-logbook?unit=",
            ventilator["id"]
        )),
        "{engineer}"
    );
    assert!(
        engineer.contains("text/html") && engineer.contains("<strong>обслуживание просрочено"),
        "{engineer}"
    );
    assert!(
        !engineer.contains("Курсы, которые нужно пройти"),
        "{engineer}"
    );

    assert_eq!(to("icu-nurse@hospital.example"), None);
    assert_eq!(to("dismissed@hospital.example"), None);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_gateway_does_not_forward_the_internal_mail_and_digest_services() {
    use portal_proto::auth::v1::ListMailRecipientsPageRequest;
    use portal_proto::auth::v1::mail_recipient_service_client::MailRecipientServiceClient;
    use portal_proto::wiki::v1::ListRequiredCoursesRequest;
    use portal_proto::wiki::v1::digest_item_service_client::DigestItemServiceClient;
    let portal = start(&[]).await;
    let channel = portal.grpc_channel().await;
    let recipients = MailRecipientServiceClient::new(channel.clone())
        .list_mail_recipients_page(ListMailRecipientsPageRequest::default())
        .await;
    assert!(recipients.is_err(), "{recipients:?}");
    let courses = DigestItemServiceClient::new(channel)
        .list_required_courses(ListRequiredCoursesRequest {})
        .await;
    assert!(courses.is_err(), "{courses:?}");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn mark_read_checks_the_caller_even_with_nothing_to_mark() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &Right::ALL);
    let nurse = post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        json!({"login": "nurse.blocked", "password": "nurse-password", "name": "Анна", "surname": "Иванова"}),
    )
    .await;
    let nurse_id = nurse["id"].as_i64().unwrap();
    // A token auth signed at her sign-in, of her access version then.
    let signed_in = portal
        .http
        .post(format!("{}/api/auth/login", portal.base))
        .json(&json!({"login": "nurse.blocked", "password": "nurse-password"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let token = signed_in["data"]["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let nothing = json!({ "ids": [] });
    let (status, body) = post_json(
        &portal,
        "/api/notification/mark-read",
        &token,
        nothing.clone(),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // Blocked: the token she holds no longer marks anything, even nothing.
    let statuses = get_data(&portal, "/api/user/get-all-statuses", &admin).await;
    let dismissed = statuses
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["blocksSignIn"] == true)
        .expect("a status that blocks sign-in")["id"]
        .clone();
    post_data(
        &portal,
        "/api/user/update-user",
        &admin,
        json!({"id": nurse_id, "login": "nurse.blocked", "name": "Анна", "surname": "Иванова", "status": {"id": dismissed}}),
    )
    .await;
    let refused = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let (status, _) = post_json(
                &portal,
                "/api/notification/mark-read",
                &token,
                nothing.clone(),
            )
            .await;
            if status == 401 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(
        refused.is_ok(),
        "a blocked person's token still marks the bell"
    );

    // A system's token never calls the bell.
    let system = portal_kit::testing::sign_service(
        &portal_kit::token::TokenIssuer::from_pem_file(&portal.data.path().join("jwt-private.pem"))
            .unwrap(),
        5,
        &[portal_kit::access::Scope::TrainingRead],
    );
    let (status, body) = post_json(&portal, "/api/notification/mark-read", &system, nothing).await;
    assert_eq!(status, 403, "{body}");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn a_malformed_idempotency_key_is_refused_even_where_no_service_is_asked() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &Right::ALL);
    for (path, body) in [
        ("/api/notification/mark-read", json!({ "ids": [] })),
        ("/api/auth/logout", json!({})),
    ] {
        for key in ["", "ключ", "with space", &"k".repeat(256)] {
            let answer = portal
                .http
                .post(format!("{}{path}", portal.base))
                .bearer_auth(&admin)
                .header("Origin", &portal.base)
                .header("Idempotency-Key", key)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = answer.status().as_u16();
            let text = answer.text().await.unwrap();
            assert_eq!(
                error(400, status, &text),
                "Ключ идемпотентности — от 1 до 255 видимых символов ASCII",
                "{path} {key:?}"
            );
            assert_eq!(
                crate::support::envelope(&text)["errorCode"],
                "idempotency-key-invalid"
            );
        }
    }
    portal.running.stop().await.unwrap();
}
