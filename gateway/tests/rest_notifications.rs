//! The bell and the digests over REST (issue 24): `/api/notification/get-mine`
//! merges education's and the wiki's items, `mark-read` sends each id to
//! its owner, `send-digests-now` is for admins and mails through the relay
//! (a real SMTP server in the test).

mod support;

use std::time::Duration;

use portal_kit::Right;
use portal_kit::day::Day;
use portal_kit::smtp_sink::SmtpSink;
use serde_json::{Value, json};
use support::{Portal, error, get_data, post_data, post_json, start};

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
            "dateDeadline": "2030-01-31",
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
        json!({ "ids": [id, "wiki:maintenance:1:2030-01-01", "elsewhere:1"] }),
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
