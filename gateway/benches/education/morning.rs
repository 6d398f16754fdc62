//! The exam morning: thousands of learners start and hand in one test at once.

use super::*;
use portal_kit::testing::authed;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::{CONCURRENCY, Load, channel, load};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// A test of 20 questions, 10 drawn, 7 to pass, 3 tries.
pub(crate) async fn create_test(client: &EducationServiceClient<Channel>, admin: &str) -> pb::Test {
    let questions = support::questions(20);
    client
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
        .expect("created test")
}

/// A test linked to an article of a course assigned to `assignees`.
pub(crate) async fn create_exam(
    client: &EducationServiceClient<Channel>,
    admin: &str,
    assignees: &[i64],
) -> pb::Test {
    let test = create_test(client, admin).await;
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
                user_ids: assignees.to_vec(),
                article_ids: vec![article.id],
                validity_months: 0,
            },
            admin,
        ))
        .await
        .expect("create course");
    test
}

/// The calls of one sitting, in order.
pub(crate) const SITTING_CALLS: [&str; 4] = [
    "GetTestSummary",
    "ListUserTestResults",
    "StartAttempt",
    "CompleteTest",
];

/// What the learner's browser calls for one sitting: the test page (its summary
/// and earlier results), the start, and the hand-in with an answer to each
/// question. Each call's latency, or the first call that failed.
pub(crate) async fn sit_exam(
    client: &EducationServiceClient<Channel>,
    token: &str,
    test_id: i64,
) -> Result<[Duration; 4], (&'static str, tonic::Status)> {
    let mut client = client.clone();
    let mut took = [Duration::ZERO; 4];
    let mut clock = Instant::now();
    let mut lap = |call: usize| {
        took[call] = clock.elapsed();
        clock = Instant::now();
    };
    let failed = |call: usize| move |status: tonic::Status| (SITTING_CALLS[call], status);
    client
        .get_test_summary(authed(
            pb::GetTestSummaryRequest {
                test_id,
                user_id: 0,
            },
            token,
        ))
        .await
        .map_err(failed(0))?;
    lap(0);
    client
        .list_user_test_results(authed(
            pb::ListUserTestResultsRequest {
                test_id,
                user_id: 0,
            },
            token,
        ))
        .await
        .map_err(failed(1))?;
    lap(1);
    let attempt = client
        .start_attempt(authed(pb::StartAttemptRequest { test_id }, token))
        .await
        .map_err(failed(2))?
        .into_inner();
    lap(2);
    let question_with_answers = attempt
        .questions
        .iter()
        .map(|q| pb::QuestionWithAnswer {
            question_id: q.id,
            answer_id: q.answers.first().expect("answers").id,
        })
        .collect();
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
        .map_err(failed(3))?;
    lap(3);
    Ok(took)
}

/// One backend's exam morning: its health-check floor, the sittings, each
/// call's latencies and the sittings that failed.
pub(crate) struct Morning {
    pub(crate) floor: Load,
    pub(crate) sittings: Load,
    /// Per call of `SITTING_CALLS`, sorted.
    pub(crate) calls: [Vec<Duration>; 4],
    pub(crate) failed: usize,
}

impl Morning {
    /// Four health checks' time per call: what a sitting's four calls cost at least.
    pub(crate) fn floor_micros(&self) -> f64 {
        4.0 * self.floor.per_call_micros()
    }
}

/// Creates the exam on `education` for every learner in `tokens`, measures the
/// floor, then sits the exam once per learner, `CONCURRENCY` at once.
pub(crate) async fn exam_morning(
    education: &str,
    admin: &str,
    learners: &[(String, i64)],
) -> Morning {
    let channel = channel(education).await;
    let client = EducationServiceClient::new(channel.clone());
    let assignees: Vec<i64> = learners.iter().map(|(_, id)| *id).collect();
    let exam = create_exam(&client, admin, &assignees).await;
    let health = || async {
        HealthClient::new(channel.clone())
            .check(HealthCheckRequest::default())
            .await
            .expect("Health/Check");
    };
    load(1_000, health).await;
    let floor = load(4 * learners.len(), health).await;
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let calls: std::sync::Mutex<[Vec<Duration>; 4]> =
        std::sync::Mutex::new(std::array::from_fn(|_| Vec::with_capacity(learners.len())));
    let sittings = load(learners.len(), || async {
        let index = next.fetch_add(1, Ordering::Relaxed);
        match sit_exam(&client, &learners[index].0, exam.id).await {
            Ok(took) => {
                let mut calls = calls.lock().expect("call latencies");
                for (call, took) in calls.iter_mut().zip(took) {
                    call.push(took);
                }
            }
            Err((call, status)) => {
                if failed.fetch_add(1, Ordering::Relaxed) < 10 {
                    eprintln!("{call}: {status}");
                }
            }
        }
    })
    .await;
    let mut calls = calls.into_inner().expect("call latencies");
    for call in &mut calls {
        call.sort_unstable();
    }
    Morning {
        floor,
        sittings,
        calls,
        failed: failed.into_inner(),
    }
}

/// The `percent` percentile of sorted `latencies`, in milliseconds.
pub(crate) fn percentile_millis(latencies: &[Duration], percent: usize) -> f64 {
    latencies
        .get((latencies.len() * percent / 100).min(latencies.len().saturating_sub(1)))
        .map_or(f64::NAN, |took| millis(*took))
}

/// The exam morning's table: a column group per backend.
pub(crate) fn print_morning(learners: usize, sqlite: &Morning, postgres: Option<&Morning>) {
    println!(
        "\n| exam morning: {learners} learners, {CONCURRENCY} callers | SQLite per learner | sittings/s | p50 | p99 | vs 4 health checks | PostgreSQL per learner | sittings/s | p50 | p99 | vs 4 health checks | failed sittings |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let floor = |morning: &Morning| {
        format!(
            "{:.0} µs | {:.0} | {:.2} ms | {:.2} ms | 1.00×",
            morning.floor_micros(),
            morning.floor.per_second() / 4.0,
            morning.floor.percentile_millis(50) * 4.0,
            morning.floor.percentile_millis(99) * 4.0,
        )
    };
    let sittings = |morning: &Morning| {
        format!(
            "{:.0} µs | {:.0} | {:.2} ms | {:.2} ms | {:.2}×",
            morning.sittings.per_call_micros(),
            morning.sittings.per_second(),
            morning.sittings.percentile_millis(50),
            morning.sittings.percentile_millis(99),
            morning.sittings.per_call_micros() / morning.floor_micros(),
        )
    };
    let call = |morning: &Morning, index: usize| {
        format!(
            " | | {:.2} ms | {:.2} ms | ",
            percentile_millis(&morning.calls[index], 50),
            percentile_millis(&morning.calls[index], 99),
        )
    };
    let absent = " | | | | ".to_owned();
    println!(
        "| 4 × grpc.health.v1 Check (the floor) | {} | {} | |",
        floor(sqlite),
        postgres.map_or_else(|| "not measured | | | | ".to_owned(), floor),
    );
    println!(
        "| summary + results + StartAttempt + CompleteTest | {} | {} | {} |",
        sittings(sqlite),
        postgres.map_or_else(|| absent.clone(), sittings),
        sqlite.failed + postgres.map_or(0, |morning| morning.failed),
    );
    for (index, name) in SITTING_CALLS.iter().enumerate() {
        println!(
            "| of which {name} | {} | {} | |",
            call(sqlite, index),
            postgres.map_or_else(|| absent.clone(), |morning| call(morning, index)),
        );
    }
}
