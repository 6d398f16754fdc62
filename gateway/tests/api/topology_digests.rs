//! The daily digest in the split topology (issue 24): two education replicas,
//! processes of the real binary on one PostgreSQL database, both start with
//! the reminder hour come and a relay (a real SMTP server in the test), and a
//! person with a course due gets one digest, not two. Needs PostgreSQL
//! (`PORTAL_TEST_POSTGRES_URL`), like `topology.rs`.

use std::net::SocketAddr;
use std::time::Duration;

use crate::support::cluster::{
    ADMIN_PASSWORD, Process, Topology, free_port, loopback, portal_migrate,
};
use portal_kit::day::Day;
use portal_kit::smtp_sink::SmtpSink;
use serde_json::json;

#[tokio::test]
async fn two_education_replicas_send_each_person_one_digest() {
    let Some(admin_url) =
        portal_kit::testing::postgres_or_skip("two education replicas sending digests")
    else {
        return;
    };
    let sink = SmtpSink::start().await;
    let one = loopback(1);
    let education: Vec<SocketAddr> = (0..2)
        .map(|_| SocketAddr::new(one, free_port(one)))
        .collect();
    let topology = Topology::new(&admin_url, education.clone()).await;
    let http = reqwest::Client::new();
    let mut auth = topology.spawn_service("auth", "auth", topology.auth);
    let mut wiki = topology.spawn_service("wiki", "wiki", topology.wiki);
    let mut files = topology.spawn_service("files", "files", topology.files);
    // First an education replica without mail, to set up the course: a
    // replica's job that finds nothing due is done for the day.
    let mut setup = topology.spawn_service("education-setup", "education", education[0]);
    let (mut gateway_process, gateway) = topology.spawn_gateway();
    gateway
        .wait_ready(
            &http,
            &mut [
                &mut auth,
                &mut wiki,
                &mut files,
                &mut setup,
                &mut gateway_process,
            ],
        )
        .await;
    let admin = crate::support::sign_in_admin(&http, &gateway.base, ADMIN_PASSWORD).await;
    let post = async |path: &str, body: serde_json::Value| {
        // The setup replica may not yet be in the rotation of every call.
        for _ in 0..50 {
            if let Ok(data) = gateway.post(&http, path, &admin, body.clone()).await {
                return data;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("{path} never answered");
    };
    let nurse = post(
        "/api/user/create-user",
        json!({
            "name": "Ирина", "surname": "Соколова", "lastName": "Павловна",
            "login": "sokolova", "password": "sokolova-password",
            "email": "sokolova@hospital.example",
        }),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let test = post(
        "/api/test/create-test-with-question-and-answers",
        json!({
            "title": "Допуск к ИВЛ", "description": "Один вопрос",
            "totalPointsRequired": 1, "numberOfQuestions": 1, "numberOfTries": 2,
            "question": [{ "title": "Проверка контура?", "answer": [
                { "title": "Да", "isCorrect": true }, { "title": "Нет", "isCorrect": false },
            ]}],
        }),
    )
    .await;
    let article = post(
        "/api/course/create-article",
        json!({
            "title": "Подготовка ИВЛ", "description": "Порядок", "content": "<p>Текст</p>",
            "dateDeadline": "2099-01-31", "testId": test["id"],
        }),
    )
    .await;
    post(
        "/api/course/create-course-with-user-and-articles",
        json!({
            "title": "Работа с ИВЛ", "description": "Обязательный курс",
            "dateDeadline": Day::today().plus_days(1).to_string(),
            "userIds": [nurse], "articleIds": [article["id"]],
        }),
    )
    .await;
    setup.kill_9();

    // Now two replicas with the relay, the hour come: both jobs run at start.
    let mailing = |name: &str, addr: SocketAddr| {
        let mut env = topology.service_env("education", addr);
        env.push(("PORTAL_SMTP_URL".to_owned(), sink.url()));
        env.push(("PORTAL_REMINDER_HOUR".to_owned(), "0".to_owned()));
        portal_migrate(&env).expect("education migrated");
        Process::spawn(name, env, &topology.logs)
    };
    let mut first = mailing("education-a", education[0]);
    let mut second = mailing("education-b", education[1]);
    let mails = sink.wait_for(1, Duration::from_secs(60)).await;
    assert!(!mails.is_empty(), "no digest arrived");
    // Both jobs have long had their turn.
    tokio::time::sleep(Duration::from_secs(5)).await;
    first.assert_alive();
    second.assert_alive();
    let mails = sink.mails();
    assert_eq!(mails.len(), 1, "one digest, whichever replica: {mails:?}");
    assert_eq!(mails[0].to, ["sokolova@hospital.example"]);
    assert!(
        mails[0].text().contains("Работа с ИВЛ"),
        "{}",
        mails[0].text()
    );
    topology.databases.drop_all().await;
}
