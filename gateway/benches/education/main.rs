//! `make bench`: the education paths of the release `portal` binary, each against a
//! baseline measured in the same run on the same machine. Figures are ratios to
//! read in a closing note; nothing here asserts a time.
//!
//! - the exam morning: `PORTAL_BENCH_LEARNERS` learners (10,000 unless set)
//!   each open the test page, start an attempt and hand it in, `CONCURRENCY` at
//!   once, vs the education service's own health check (the transport floor) at
//!   the same concurrency, with each call's own p50 and p99;
//! - the statistics page at 10,000 and at 1,000,000 results: the first page under
//!   each filter an educator uses, p50 and p99, how the p99 grows, calls that
//!   failed and the pool's time-outs; on the portal's SQLite and on an education
//!   service of its own on PostgreSQL (the split topology's setup), when
//!   `PORTAL_TEST_POSTGRES_URL` names a server (a fresh database is made there
//!   and dropped after). The exam morning runs on both too.
//!
//! `PORTAL_BENCH_EDUCATION=morning` runs the exam morning alone (the statistics
//! at 1M take minutes to seed), for work on the attempt path; `make bench` sets
//! nothing and runs everything.
//!
//! Learners and the educator hold access tokens signed with the portal's own key
//! (its data directory), so the figures are education's alone, not sign-in's.
//! Results beyond the exam morning's are written straight into the service's
//! database, as a year of hospital training would have left them.

#[path = "../support/mod.rs"]
mod support;

mod morning;

use morning::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use portal_kit::Right;
use portal_kit::testing::authed;
use portal_kit::token::TokenIssuer;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use sqlx::Connection;
use tonic::transport::Channel;

use support::{CONCURRENCY, Load, Portal, PostgresDatabase, Process, channel, free_ports, load};

/// Learners sitting the exam on one morning unless `PORTAL_BENCH_LEARNERS` says.
const LEARNERS: usize = 10_000;
/// Learner ids start here, clear of the demo staff.
const FIRST_LEARNER: i64 = 10_000;
/// Departments the learners belong to (the statistics filter).
const DEPARTMENTS: i64 = 4;
/// Tests the seeded results are spread over.
const SEEDED_TESTS: i64 = 10;
/// Statistics calls per filter and size, after a warm-up of a tenth as many.
const PAGE_READS: usize = 400;
const PAGE_SIZE: i32 = 50;
const DAY_MS: i64 = 86_400_000;

/// A learner of the morning and their department: one of `DEPARTMENTS` after
/// the seeded results' own, so the statistics filters by department read only
/// seeded results.
fn learner(index: usize) -> (i64, i64) {
    let user_id = FIRST_LEARNER + i64::try_from(index).expect("a learner index");
    (user_id, 1 + DEPARTMENTS + user_id % DEPARTMENTS)
}

/// `PORTAL_BENCH_LEARNERS`, else `LEARNERS`.
fn learners() -> usize {
    std::env::var("PORTAL_BENCH_LEARNERS").map_or(LEARNERS, |count| {
        count
            .parse()
            .expect("PORTAL_BENCH_LEARNERS: a number of learners")
    })
}

/// Whether `PORTAL_BENCH_EDUCATION=morning` asks for the exam morning alone.
fn morning_only() -> bool {
    match std::env::var("PORTAL_BENCH_EDUCATION") {
        Ok(part) if part == "morning" => true,
        Ok(part) if part.is_empty() || part == "all" => false,
        Ok(part) => panic!("PORTAL_BENCH_EDUCATION: `morning` or `all`, not {part:?}"),
        Err(_) => false,
    }
}

struct Tokens(TokenIssuer);

impl Tokens {
    fn new(portal: &Portal) -> Tokens {
        let key = portal.data.path().join("jwt-private.pem");
        Tokens(TokenIssuer::from_pem_file(&key).expect("the portal's private key"))
    }

    fn issue(&self, user_id: i64, rights: &[Right], departments: &[i64]) -> String {
        portal_kit::testing::sign(&self.0, user_id, rights, departments)
    }
}

fn now_millis() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock");
    i64::try_from(since.as_millis()).expect("millis")
}

/// Adds completed results until the database at `url` holds `total`, spread
/// over the `SEEDED_TESTS` tests from `first_test` and the past year, in one
/// transaction, each with its learner's department as the service records it.
/// Each (test, learner, try) is unique as the schema demands.
async fn seed_results(url: &str, first_test: i64, total: i64) {
    let mut db = sqlx::AnyConnection::connect(url)
        .await
        .expect("the education database");
    // Only the seeded tests' results count: the exam morning's sit on a test of
    // their own.
    let held: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM attempts WHERE completed_at IS NOT NULL AND test_id >= $1",
    )
    .bind(first_test)
    .fetch_one(&mut db)
    .await
    .expect("count");
    let mut tx = db.begin().await.expect("transaction");
    let (from, until) = (held, total.max(held));
    let per_try = SEEDED_TESTS * 5_000;
    // One statement on both backends: a recursive series, written in one pass.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT CAST($1 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $2)
         INSERT INTO attempts (test_id, user_id, try_number, started_at, points_possible, completed_at, total_point, is_passed)
         SELECT $3 + i % $4, $5 + 1000000 + (i / $4) % 5000, 1 + i / $6, c - 600000, 10, c, (i * 7) % 11, CASE WHEN (i * 7) % 11 >= 7 THEN 1 ELSE 0 END
         FROM (SELECT i, $7 - (i * 31536000000 / $2) AS c FROM n) series",
    )
    .bind(from)
    .bind(until)
    .bind(first_test)
    .bind(SEEDED_TESTS)
    .bind(FIRST_LEARNER)
    .bind(per_try)
    .bind(now_millis())
    .execute(&mut *tx)
    .await
    .expect("seed attempts");
    sqlx::query(
        "INSERT INTO attempt_departments (attempt_id, department_id, completed_at, test_id)
         SELECT id, 1 + user_id % $1, completed_at, test_id FROM attempts a
         WHERE a.completed_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM attempt_departments d WHERE d.attempt_id = a.id)",
    )
    .bind(DEPARTMENTS)
    .execute(&mut *tx)
    .await
    .expect("seed departments");
    tx.commit().await.expect("commit");
    // What autovacuum does after a bulk write on PostgreSQL: fresh statistics
    // and the visibility map its index-only scans need.
    let analyze = if url.starts_with("postgres") {
        "VACUUM ANALYZE"
    } else {
        "ANALYZE"
    };
    sqlx::raw_sql(analyze)
        .execute(&mut db)
        .await
        .expect("analyze");
}

/// The statistics page's first page under each filter an educator uses.
fn filters(first_test: i64) -> Vec<(&'static str, pb::ListAllTestResultsRequest)> {
    let day = |days_ago: i64| {
        let date =
            time::OffsetDateTime::from_unix_timestamp((now_millis() - days_ago * DAY_MS) / 1000)
                .expect("a date")
                .date();
        format!(
            "{:04}-{:02}-{:02}",
            date.year(),
            u8::from(date.month()),
            date.day()
        )
    };
    let base = pb::ListAllTestResultsRequest {
        page_size: PAGE_SIZE,
        ..Default::default()
    };
    vec![
        ("everything, newest first", base.clone()),
        (
            "one test",
            pb::ListAllTestResultsRequest {
                test_id: first_test + 3,
                ..base.clone()
            },
        ),
        (
            "one department",
            pb::ListAllTestResultsRequest {
                department_id: 2,
                ..base.clone()
            },
        ),
        (
            "one learner",
            pb::ListAllTestResultsRequest {
                user_id: FIRST_LEARNER + 1_000_000 + 42,
                ..base.clone()
            },
        ),
        (
            "a week, 100 days ago",
            pb::ListAllTestResultsRequest {
                date_from: day(107),
                date_to: day(100),
                ..base.clone()
            },
        ),
        (
            "one test and one department",
            pb::ListAllTestResultsRequest {
                test_id: first_test + 3,
                department_id: 2,
                ..base
            },
        ),
    ]
}

/// `PAGE_READS` first pages, after a warm-up: their latencies and how many failed
/// (a pool time-out answers UNAVAILABLE after 10 s).
async fn page_reads(
    client: &EducationServiceClient<Channel>,
    admin: &str,
    request: &pb::ListAllTestResultsRequest,
) -> (Load, usize) {
    let failed = AtomicUsize::new(0);
    let call = || async {
        let answer = client
            .clone()
            .list_all_test_results(authed(request.clone(), admin))
            .await;
        if let Err(status) = answer {
            eprintln!("ListAllTestResults: {status}");
            failed.fetch_add(1, Ordering::Relaxed);
        }
    };
    load(PAGE_READS / 10, call).await;
    failed.store(0, Ordering::Relaxed);
    let reads = load(PAGE_READS, call).await;
    (reads, failed.into_inner())
}

/// One backend's statistics: each filter's first pages at 10k and at 1M results.
struct Statistics {
    /// Per size, per filter: the reads and how many failed.
    by_size: Vec<Vec<(&'static str, Load, usize)>>,
    /// `portal_db_pool_timeouts_total` after the reads.
    pool_timeouts: String,
}

/// Creates the seeded tests on `education`, then at each size writes the
/// results into `database_url` and reads every filter's first page.
async fn statistics(education: &str, database_url: &str, metrics: &str, admin: &str) -> Statistics {
    let client = EducationServiceClient::new(channel(education).await);
    let mut first_test = 0;
    for i in 0..SEEDED_TESTS {
        let test = create_test(&client, admin).await;
        if i == 0 {
            first_test = test.id;
        }
        assert_eq!(test.id, first_test + i, "seeded tests need consecutive ids");
    }
    let mut by_size = Vec::new();
    for total in [10_000, 1_000_000] {
        let seeding = Instant::now();
        seed_results(database_url, first_test, total).await;
        eprintln!(
            "seeded {total} results in {:.1} s",
            seeding.elapsed().as_secs_f64()
        );
        let mut rows = Vec::new();
        for (what, request) in filters(first_test) {
            let (reads, failed) = page_reads(&client, admin, &request).await;
            rows.push((what, reads, failed));
        }
        by_size.push(rows);
    }
    Statistics {
        by_size,
        pool_timeouts: pool_timeouts(metrics).await,
    }
}

/// The pool time-outs a process counted, from its Prometheus page.
async fn pool_timeouts(metrics: &str) -> String {
    let page = reqwest::get(metrics)
        .await
        .expect("/metrics")
        .text()
        .await
        .expect("/metrics text");
    page.lines()
        .find_map(|line| line.strip_prefix("portal_db_pool_timeouts_total "))
        .unwrap_or("not reported")
        .to_owned()
}

/// A statistics line's cells for one backend: p50 / p99 at both sizes and the
/// p99's growth.
fn statistics_cells(small: &Load, large: &Load) -> String {
    format!(
        "{:.2} / {:.2} ms | {:.2} / {:.2} ms | {:.2}×",
        small.percentile_millis(50),
        small.percentile_millis(99),
        large.percentile_millis(50),
        large.percentile_millis(99),
        large.percentile_millis(99) / small.percentile_millis(99),
    )
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() {
    sqlx::any::install_default_drivers();
    let metrics_port = free_ports(1);
    let metrics_addr = format!("127.0.0.1:{metrics_port}");
    let portal = Portal::start(&[("PORTAL_METRICS_ADDR", &metrics_addr)]).await;
    let tokens = Tokens::new(&portal);
    let admin = tokens.issue(1, &Right::ALL, &[]);
    // An education service of its own on a fresh PostgreSQL database, as the
    // split topology runs it, trusting the portal's tokens and asking its auth.
    let postgres = match support::postgres_server() {
        Some(server) => {
            let database = PostgresDatabase::create(&server, "education").await;
            let education = Process::service(
                "education",
                &portal,
                &database.url,
                &[
                    ("PORTAL_AUTH_URL", &portal.auth),
                    ("PORTAL_WIKI_URL", &portal.wiki),
                ],
            )
            .await;
            Some((education, database))
        }
        None => None,
    };

    // The exam morning, on each backend.
    let learner_count = learners();
    let learners: Vec<(String, i64)> = (0..learner_count)
        .map(|index| {
            let (user_id, department) = learner(index);
            (tokens.issue(user_id, &[], &[department]), user_id)
        })
        .collect();
    let sqlite_morning = exam_morning(&portal.education, &admin, &learners).await;
    let postgres_morning = match &postgres {
        Some((education, _)) => Some(exam_morning(&education.url, &admin, &learners).await),
        None => None,
    };
    println!(
        "portal (target all, SQLite) and an education service on PostgreSQL, {CONCURRENCY} callers in flight, straight to the education service"
    );
    print_morning(learner_count, &sqlite_morning, postgres_morning.as_ref());
    let slowest = |morning: &Morning| {
        morning
            .sittings
            .latencies
            .last()
            .copied()
            .map_or(f64::NAN, millis)
    };
    println!(
        "\nhealth check p99 (the floor): SQLite {:.2} ms, PostgreSQL {}; slowest sitting: SQLite {:.1} ms, PostgreSQL {}; portal RSS {:.1} MiB",
        sqlite_morning.floor.percentile_millis(99),
        postgres_morning
            .as_ref()
            .map_or("not measured".to_owned(), |morning| format!(
                "{:.2} ms",
                morning.floor.percentile_millis(99)
            )),
        slowest(&sqlite_morning),
        postgres_morning
            .as_ref()
            .map_or("not measured".to_owned(), |morning| format!(
                "{:.1} ms",
                slowest(morning)
            )),
        portal.rss_mib(),
    );
    if morning_only() {
        if let Some((education, database)) = postgres {
            drop(education);
            database.drop().await;
        }
        return;
    }

    // The statistics page at two sizes, on each backend.
    let sqlite_url = format!(
        "sqlite://{}",
        portal.data.path().join("education.db").display()
    );
    let sqlite = statistics(
        &portal.education,
        &sqlite_url,
        &format!("http://{metrics_addr}/metrics"),
        &admin,
    )
    .await;
    let postgres = match postgres {
        Some((education, database)) => {
            let measured =
                statistics(&education.url, &database.url, &education.metrics, &admin).await;
            drop(education);
            database.drop().await;
            Some(measured)
        }
        None => None,
    };
    println!(
        "\n| statistics, first page of {PAGE_SIZE} ({PAGE_READS} calls) | SQLite p50 / p99 at 10k | at 1M | p99 1M / 10k | PostgreSQL p50 / p99 at 10k | at 1M | p99 1M / 10k | failed calls |\n|---|---|---|---|---|---|---|---|"
    );
    for (index, ((what, small, small_failed), (_, large, large_failed))) in
        sqlite.by_size[0].iter().zip(&sqlite.by_size[1]).enumerate()
    {
        let (on_postgres, postgres_failed) = match &postgres {
            Some(measured) => {
                let (_, small, small_failed) = &measured.by_size[0][index];
                let (_, large, large_failed) = &measured.by_size[1][index];
                (statistics_cells(small, large), small_failed + large_failed)
            }
            None => ("not measured | | ".to_owned(), 0),
        };
        println!(
            "| {what} | {} | {on_postgres} | {} |",
            statistics_cells(small, large),
            small_failed + large_failed + postgres_failed,
        );
    }
    println!(
        "\npool time-outs (portal_db_pool_timeouts_total): SQLite {}, PostgreSQL {}",
        sqlite.pool_timeouts,
        postgres
            .as_ref()
            .map_or("not measured (set PORTAL_TEST_POSTGRES_URL)", |measured| {
                measured.pool_timeouts.as_str()
            }),
    );
}
