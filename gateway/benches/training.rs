//! `make bench`: training records for other hospital systems (issue 21) from the
//! release `portal` binary, each beside a baseline measured in the same run.
//! Figures are for a closing note; nothing here asserts a time.
//!
//! - the watch stream while `LEARNERS` learners complete a test, `CONCURRENCY`
//!   at once: for each result, from the learner sending CompleteTest to its
//!   record arriving on a WatchTrainingRecords stream, p50 and p99, beside
//!   CompleteTest's own answer time (sent → answered);
//! - records pulled at 1,000,000 results: every record through
//!   ListTrainingRecords in pages of 5,000 (each page asks auth for the HR
//!   keys of its learners), rows per second, beside the statistics page's
//!   largest pages (ListAllTestResults, 1,000 a page) over the same rows.
//!
//! The reader is the bootstrap admin (id 1, EducationManagement) by a token
//! signed with the portal's own key. Results beyond the learners' are written
//! straight into the service's SQLite file, numbered as the service numbers them.

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use portal_kit::Right;
use portal_kit::testing::authed;
use portal_kit::token::TokenIssuer;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use sqlx::Connection;
use tonic::transport::Channel;

use support::{CONCURRENCY, Portal, channel, load};

/// Learners completing the test while the watch stream runs.
const LEARNERS: i64 = 200;
/// Learner ids start here, clear of the demo staff.
const FIRST_LEARNER: i64 = 10_000;
/// Results the records are pulled at.
const SEEDED: i64 = 1_000_000;
const RECORDS_PAGE: i32 = 5_000;
const STATISTICS_PAGE: i32 = 1_000;

/// A test of 10 questions, all drawn, 7 to pass, in a course assigned to the
/// learners.
async fn create_exam(client: &EducationServiceClient<Channel>, admin: &str) -> pb::Test {
    let questions = support::questions(10);
    let test = client
        .clone()
        .create_test(authed(
            pb::CreateTestRequest {
                title: "Гигиена рук: ежегодный зачёт".into(),
                description: "Пять моментов ВОЗ".into(),
                total_points_required: 7,
                number_of_questions: 10,
                number_of_tries: 3,
                article_id: 0,
                questions,
            },
            admin,
        ))
        .await
        .expect("create test")
        .into_inner()
        .test
        .expect("created test");
    let article = client
        .clone()
        .create_article(authed(
            pb::CreateArticleRequest {
                title: "Гигиена рук".into(),
                description: "Перед зачётом".into(),
                content: "<p>Пять моментов гигиены рук.</p>".into(),
                date_deadline: "2099-01-31".into(),
                test_id: test.id,
            },
            admin,
        ))
        .await
        .expect("create article")
        .into_inner()
        .article
        .expect("created article");
    client
        .clone()
        .create_course(authed(
            pb::CreateCourseRequest {
                title: "Профилактика ИСМП".into(),
                description: "Обязательный курс".into(),
                date_deadline: "2099-01-31".into(),
                user_ids: (0..LEARNERS).map(|i| FIRST_LEARNER + i).collect(),
                article_ids: vec![article.id],
                validity_months: 0,
            },
            admin,
        ))
        .await
        .expect("create course");
    test
}

/// A learner's start and hand-in; when the hand-in was sent, and its attempt.
async fn sit_exam(
    client: &EducationServiceClient<Channel>,
    token: &str,
    test_id: i64,
) -> (Instant, Instant, i64) {
    let mut client = client.clone();
    let attempt = client
        .start_attempt(authed(pb::StartAttemptRequest { test_id }, token))
        .await
        .expect("StartAttempt")
        .into_inner();
    let question_with_answers = attempt
        .questions
        .iter()
        .map(|q| pb::QuestionWithAnswer {
            question_id: q.id,
            answer_id: q.answers.first().expect("answers").id,
        })
        .collect();
    let sent = Instant::now();
    client
        .complete_test(authed(
            pb::CompleteTestRequest {
                test_id,
                user_id: 0,
                question_with_answers,
                attempt_id: attempt.attempt_id,
            },
            token,
        ))
        .await
        .expect("CompleteTest");
    (sent, Instant::now(), attempt.attempt_id)
}

fn now_millis() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock");
    i64::try_from(since.as_millis()).expect("millis")
}

/// Adds completed, numbered results of `test_id` until the service holds
/// `total`, over the past year, in one transaction, and moves the record
/// sequence past them as the service would have.
async fn seed_results(portal: &Portal, test_id: i64, total: i64) {
    let url = format!(
        "sqlite://{}",
        portal.data.path().join("education.db").display()
    );
    let mut db = sqlx::SqliteConnection::connect(&url)
        .await
        .expect("education.db");
    let held: i64 = sqlx::query_scalar("SELECT last_seq FROM training_record_sequence")
        .fetch_one(&mut db)
        .await
        .expect("the sequence");
    let mut tx = db.begin().await.expect("transaction");
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $2)
         INSERT INTO attempts (test_id, user_id, try_number, started_at, points_possible, completed_at, total_point, is_passed, record_seq)
         SELECT $3, $4 + 1000000 + i % 5000, 100 + i / 5000, c - 600000, 10, c, (i * 7) % 11, CASE WHEN (i * 7) % 11 >= 7 THEN 1 ELSE 0 END, i + 1
         FROM (SELECT i, $5 - (($2 - i) * 31536000000 / $2) AS c FROM n)",
    )
    .bind(held)
    .bind(total)
    .bind(test_id)
    .bind(FIRST_LEARNER)
    .bind(now_millis())
    .execute(&mut *tx)
    .await
    .expect("seed attempts");
    sqlx::query("UPDATE training_record_sequence SET last_seq = $1")
        .bind(total)
        .execute(&mut *tx)
        .await
        .expect("move the sequence");
    tx.commit().await.expect("commit");
    sqlx::query("ANALYZE")
        .execute(&mut db)
        .await
        .expect("analyze");
}

fn percentile_millis(sorted: &[f64], percent: usize) -> f64 {
    sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let portal = Portal::start(&[]).await;
    let key = portal.data.path().join("jwt-private.pem");
    let issuer = TokenIssuer::from_pem_file(&key).expect("the portal's private key");
    let education = channel(&portal.education).await;
    let client = EducationServiceClient::new(education);
    let admin = portal_kit::testing::sign(&issuer, 1, &Right::ALL, &[]);
    let exam = create_exam(&client, &admin).await;

    // The watch stream while the learners complete the test.
    let arrived: Arc<Mutex<HashMap<i64, Instant>>> = Arc::default();
    let mut stream = client
        .clone()
        .watch_training_records(authed(pb::WatchTrainingRecordsRequest { after: 0 }, &admin))
        .await
        .expect("WatchTrainingRecords")
        .into_inner();
    let watcher = {
        let arrived = arrived.clone();
        tokio::spawn(async move {
            while let Ok(Some(message)) = stream.message().await {
                let now = Instant::now();
                let mut arrived = arrived.lock().expect("arrivals");
                for record in message.records {
                    arrived.insert(record.attempt_id, now);
                }
                if arrived.len() >= LEARNERS as usize {
                    break;
                }
            }
        })
    };
    let learners: Vec<String> = (0..LEARNERS)
        .map(|i| portal_kit::testing::sign(&issuer, FIRST_LEARNER + i, &[], &[1]))
        .collect();
    let sittings: Arc<Mutex<Vec<(Instant, Instant, i64)>>> = Arc::default();
    let next = std::sync::atomic::AtomicUsize::new(0);
    load(LEARNERS as usize, || async {
        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let sitting = sit_exam(&client, &learners[index], exam.id).await;
        sittings.lock().expect("sittings").push(sitting);
    })
    .await;
    tokio::time::timeout(std::time::Duration::from_secs(30), watcher)
        .await
        .expect("every record on the stream within 30 s")
        .expect("the watcher");
    let arrived = std::mem::take(&mut *arrived.lock().expect("arrivals"));
    let mut answered = Vec::new();
    let mut delivered = Vec::new();
    for (sent, replied, attempt) in std::mem::take(&mut *sittings.lock().expect("sittings")) {
        answered.push(replied.duration_since(sent).as_secs_f64() * 1e3);
        let on_stream = arrived.get(&attempt).expect("every attempt on the stream");
        delivered.push(on_stream.duration_since(sent).as_secs_f64() * 1e3);
    }
    answered.sort_by(f64::total_cmp);
    delivered.sort_by(f64::total_cmp);
    println!(
        "portal (target all, SQLite), {LEARNERS} learners completing a test, {CONCURRENCY} at once, one WatchTrainingRecords stream"
    );
    println!("\n| from CompleteTest sent | p50 | p99 |\n|---|---|---|");
    println!(
        "| to its answer (the baseline) | {:.2} ms | {:.2} ms |",
        percentile_millis(&answered, 50),
        percentile_millis(&answered, 99)
    );
    println!(
        "| to its record on the watch stream | {:.2} ms | {:.2} ms |",
        percentile_millis(&delivered, 50),
        percentile_millis(&delivered, 99)
    );

    // Records pulled at a million results.
    let seeding = Instant::now();
    seed_results(&portal, exam.id, SEEDED).await;
    eprintln!(
        "seeded {SEEDED} results in {:.1} s",
        seeding.elapsed().as_secs_f64()
    );
    let pulling = Instant::now();
    let (mut after, mut pulled) = (0, 0);
    loop {
        let page = client
            .clone()
            .list_training_records(authed(
                pb::ListTrainingRecordsRequest {
                    after,
                    limit: RECORDS_PAGE,
                },
                &admin,
            ))
            .await
            .expect("ListTrainingRecords")
            .into_inner();
        if page.records.is_empty() {
            break;
        }
        pulled += page.records.len();
        after = page.next;
    }
    let records = pulled as f64 / pulling.elapsed().as_secs_f64();
    let reading = Instant::now();
    let (mut page_token, mut read) = (String::new(), 0);
    loop {
        let page = client
            .clone()
            .list_all_test_results(authed(
                pb::ListAllTestResultsRequest {
                    page_size: STATISTICS_PAGE,
                    page_token: page_token.clone(),
                    ..Default::default()
                },
                &admin,
            ))
            .await
            .expect("ListAllTestResults")
            .into_inner();
        read += page.results.len();
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    let statistics = read as f64 / reading.elapsed().as_secs_f64();
    println!("\n| every result, {pulled} rows | rows/s | vs the statistics pages |\n|---|---|---|");
    println!(
        "| ListAllTestResults, pages of {STATISTICS_PAGE} (the baseline, {read} rows) | {statistics:.0} | 1.00× |"
    );
    println!(
        "| ListTrainingRecords, pages of {RECORDS_PAGE}, HR keys from auth | {records:.0} | {:.2}× |",
        records / statistics
    );
}
