//! `make bench`: search (issue 25) at a hospital's size, against a baseline
//! measured in the same run on the same machine. Figures are for a closing
//! note; nothing here asserts a time.
//!
//! `PORTAL_BENCH_SEARCH_ITEMS` (100,000 unless set) articles and equipment
//! models with their short instructions, half each, and a tenth as many
//! units, in 50-article courses, are written straight into the education and
//! wiki databases in bulk. Their index entries are made by `kit::search`
//! from the same fields as the services' own writes make them, and the run
//! checks that: it saves a sample of items again through the services'
//! update RPCs and finds each entry unchanged.
//!
//! - search: `GET /api/search?q=` through the gateway, which asks every
//!   service at once, `CONCURRENCY` callers in flight, p50 and p99 of each
//!   kind of query (a word nearly every item has, a word of a few items, a
//!   plural of a word the items have in other forms, the start of an
//!   inventory number), of their mix as an admin (who may open everything)
//!   and as a learner (ten courses, two departments: the allowed scopes are
//!   lists);
//! - the baseline: an article read by its primary key through the same
//!   gateway (`GET /api/course/get-by-id-article`), same callers;
//! - a write's index: an article's text changed in a write transaction
//!   alone vs the same with its index entry written (`search::put`), one
//!   writer, on the same database.
//!
//! On the portal's SQLite (target `all`), and on PostgreSQL when
//! `PORTAL_TEST_POSTGRES_URL` names a server: an education and a wiki
//! service of their own on fresh databases (dropped after) behind a gateway
//! of their own, as the split topology runs them.

#[path = "../support/mod.rs"]
mod support;

mod corpus;
mod fill;

use corpus::*;
use fill::*;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use portal_kit::Right;
use portal_kit::db::Backend;
use portal_kit::search::{self, Entry};
use portal_kit::token::TokenIssuer;

use support::{CONCURRENCY, Load, Portal, PostgresDatabase, Process, load};

/// Articles and instructions unless `PORTAL_BENCH_SEARCH_ITEMS` says.
const ITEMS: usize = 100_000;
/// Calls per measured line, after a tenth as many to warm up.
const CALLS: usize = 400;
/// Writes per line of the index's cost.
const WRITES: usize = 300;
const ARTICLES_PER_COURSE: usize = 50;
const DEPARTMENTS: usize = 20;
/// Rows per bulk `INSERT`.
const BATCH: usize = 500;
const LEARNER: i64 = 10_000;
/// The learner's courses (the first ones) and departments.
const LEARNER_COURSES: i64 = 10;
const LEARNER_DEPARTMENTS: [i64; 2] = [1, 2];
/// A word of one item in `RARE_EVERY`.
const RARE: &str = "гемодиафильтрация";
const RARE_EVERY: usize = 5_000;
/// An item in `DEFIBRILLATOR_EVERY` is about a defibrillator.
const DEFIBRILLATOR_EVERY: usize = 50;
const CREATED_AT: i64 = 1_767_225_600_000;
const DEADLINE: &str = "2099-12-31";

fn id(value: usize) -> i64 {
    i64::try_from(value).expect("an id")
}

/// `calls` GETs of `path(i)` through the gateway at `base`, after a tenth
/// as many to warm up; every answer must be a 200 with `data`, and the
/// search answers' hits are counted.
async fn gets(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    calls: usize,
    path: impl Fn(u64) -> String,
) -> (Load, u64) {
    let next = AtomicU64::new(0);
    let hits = AtomicU64::new(0);
    let call = || {
        let url = format!("{base}{}", path(next.fetch_add(1, Ordering::Relaxed)));
        let hits = &hits;
        async move {
            let response = http
                .get(&url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap_or_else(|error| panic!("{url}: {error}"));
            let status = response.status();
            let body: serde_json::Value = response.json().await.expect("a JSON envelope");
            assert!(status.is_success(), "{url}: {status} {body}");
            if let Some(found) = body["data"].as_array() {
                hits.fetch_add(found.len() as u64, Ordering::Relaxed);
            }
        }
    };
    load(calls / 10, call).await;
    hits.store(0, Ordering::Relaxed);
    let measured = load(calls, call).await;
    // As it goes, so a run cut short still tells something.
    eprintln!("{base}{}: {}", path(0), cells(&measured));
    (measured, hits.load(Ordering::Relaxed))
}

fn search_path(query: &str) -> String {
    format!(
        "/api/search?q={}",
        form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
    )
}

/// A write transaction changing an article's text, with or without its
/// index entry: the time of each.
async fn writes(url: &str, backend: Backend, size: Size) -> (Load, Load) {
    let pool = pool(url, 1).await;
    let mut alone = Vec::with_capacity(WRITES);
    let mut indexed = Vec::with_capacity(WRITES);
    let mut words = Words::of(4, 0);
    // Interleaved, so both meet the same machine.
    for round in 0..WRITES * 2 {
        let article = Article::new(1 + (words.next() as usize) % size.articles);
        let content = words.rich_text(article.id);
        let started = Instant::now();
        let mut transaction = portal_kit::db::begin_write(&pool, backend)
            .await
            .expect("a write");
        sqlx::query("UPDATE articles SET content = $1 WHERE id = $2")
            .bind(&content)
            .bind(id(article.id))
            .execute(&mut *transaction)
            .await
            .expect("update");
        if round % 2 == 1 {
            let body = format!("{} {}", article.description, search::plain_text(&content));
            search::put(
                &mut transaction,
                &Entry {
                    kind: "article",
                    entity_id: id(article.id),
                    scope: Some(id(article.id)),
                    title: &article.title,
                    body: &body,
                },
            )
            .await
            .expect("index");
        }
        transaction.commit().await.expect("commit");
        let took = started.elapsed();
        if round % 2 == 1 {
            indexed.push(took);
        } else {
            alone.push(took);
        }
    }
    let as_load = |mut latencies: Vec<Duration>| {
        latencies.sort_unstable();
        Load {
            elapsed: latencies.iter().sum(),
            latencies,
        }
    };
    (as_load(alone), as_load(indexed))
}

/// One backend's figures.
struct Figures {
    fill_seconds: f64,
    queries: Vec<(Load, u64)>,
    mix: Load,
    learner_mix: Load,
    primary_key: Load,
    write_alone: Load,
    write_indexed: Load,
}

/// The services (education and wiki on `*_db`) behind the gateway at `base`.
struct Setup<'a> {
    backend: Backend,
    base: &'a str,
    education: &'a str,
    education_db: &'a str,
    wiki: &'a str,
    wiki_db: &'a str,
}

async fn measure(setup: &Setup<'_>, size: Size, admin: &str, learner: &str) -> Figures {
    let filling = Instant::now();
    fill_education(setup.education_db, setup.backend, size).await;
    fill_wiki(setup.wiki_db, setup.backend, size).await;
    let fill_seconds = filling.elapsed().as_secs_f64();
    eprintln!("{:?}: filled in {fill_seconds:.1} s", setup.backend);
    check_entries(
        setup.education,
        setup.education_db,
        setup.wiki,
        setup.wiki_db,
        admin,
        size,
    )
    .await;
    let http = reqwest::Client::new();
    let mut queries = Vec::new();
    for (what, query) in QUERIES {
        let measured = gets(&http, setup.base, admin, CALLS, |_| search_path(query)).await;
        assert!(measured.1 > 0, "{what}: {query} found nothing");
        queries.push(measured);
    }
    let mix = |i: u64| search_path(QUERIES[i as usize % QUERIES.len()].1);
    let (mix_load, _) = gets(&http, setup.base, admin, CALLS, mix).await;
    let (learner_mix, _) = gets(&http, setup.base, learner, CALLS, mix).await;
    let articles = size.articles as u64;
    let (primary_key, _) = gets(&http, setup.base, admin, CALLS, |i| {
        format!(
            "/api/course/get-by-id-article?idArticle={}",
            1 + Words::of(5, i as usize).next() % articles
        )
    })
    .await;
    let (write_alone, write_indexed) = writes(setup.education_db, setup.backend, size).await;
    Figures {
        fill_seconds,
        queries,
        mix: mix_load,
        learner_mix,
        primary_key,
        write_alone,
        write_indexed,
    }
}

fn cells(load: &Load) -> String {
    format!(
        "{:.1} / {:.1} ms",
        load.percentile_millis(50),
        load.percentile_millis(99)
    )
}

fn print(size: Size, sqlite: &Figures, postgres: Option<&Figures>) {
    let column = |pick: &dyn Fn(&Figures) -> String| {
        (
            pick(sqlite),
            postgres.map_or("not measured".to_owned(), pick),
        )
    };
    println!(
        "search over {} articles, {} equipment models with instructions, {} units, {} courses; {CONCURRENCY} callers in flight, {CALLS} calls per line through the gateway",
        size.articles, size.models, size.units, size.courses
    );
    println!(
        "\n| line | SQLite p50 / p99 | × key read p99 | PostgreSQL p50 / p99 | × key read p99 |\n|---|---|---|---|---|"
    );
    let ratio = |load: &Load, figures: &Figures| {
        format!(
            "{:.1}×",
            load.percentile_millis(99) / figures.primary_key.percentile_millis(99)
        )
    };
    let line = |what: String, pick: &dyn Fn(&Figures) -> &Load| {
        let on = |figures: &Figures| {
            format!(
                "{} | {}",
                cells(pick(figures)),
                ratio(pick(figures), figures)
            )
        };
        let (sqlite, postgres) = column(&on);
        let postgres = if postgres == "not measured" {
            "not measured | ".to_owned()
        } else {
            postgres
        };
        println!("| {what} | {sqlite} | {postgres} |");
    };
    for (index, (what, query)) in QUERIES.iter().enumerate() {
        let hits = |figures: &Figures| figures.queries[index].1 / CALLS as u64;
        let (sqlite_hits, postgres_hits) = column(&|f| hits(f).to_string());
        line(
            format!("search, {what} «{query}» (hits: {sqlite_hits} / {postgres_hits})"),
            &|f| &f.queries[index].0,
        );
    }
    line("search, the four mixed, an admin".to_owned(), &|f| &f.mix);
    line(
        "search, the four mixed, a learner (10 courses, 2 departments)".to_owned(),
        &|f| &f.learner_mix,
    );
    line("baseline: an article by its primary key".to_owned(), &|f| {
        &f.primary_key
    });
    println!(
        "\n| a write transaction (one writer, {WRITES} each) | SQLite p50 / p99 | mean | PostgreSQL p50 / p99 | mean |\n|---|---|---|---|---|"
    );
    let write_line = |what: &str, pick: &dyn Fn(&Figures) -> &Load| {
        let on = |figures: &Figures| {
            let load = pick(figures);
            format!("{} | {:.2} ms", cells(load), load.per_call_micros() / 1e3)
        };
        let (sqlite, postgres) = column(&on);
        println!("| {what} | {sqlite} | {postgres} |");
    };
    write_line("an article's text changed, alone", &|f| &f.write_alone);
    write_line("the same with its index entry (search::put)", &|f| {
        &f.write_indexed
    });
    let (sqlite_fill, postgres_fill) = column(&|f| format!("{:.0} s", f.fill_seconds));
    println!(
        "\nbulk fill (not a figure of the portal's): SQLite {sqlite_fill}, PostgreSQL {postgres_fill}"
    );
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

#[tokio::main]
async fn main() {
    sqlx::any::install_default_drivers();
    let size = Size::of(items());
    let portal = Portal::start(&[]).await;
    let tokens = Tokens::new(&portal);
    let admin = tokens.issue(1, &Right::ALL, &[]);
    let learner = tokens.issue(LEARNER, &[], &LEARNER_DEPARTMENTS);
    let sqlite_db = |service: &str| {
        format!(
            "sqlite://{}",
            portal.data.path().join(format!("{service}.db")).display()
        )
    };
    let sqlite = measure(
        &Setup {
            backend: Backend::Sqlite,
            base: &portal.base,
            education: &portal.education,
            education_db: &sqlite_db("education"),
            wiki: &portal.wiki,
            wiki_db: &sqlite_db("wiki"),
        },
        size,
        &admin,
        &learner,
    )
    .await;

    let postgres = match support::postgres_server() {
        Some(server) => {
            let education_db = PostgresDatabase::create(&server, "search_education").await;
            let wiki_db = PostgresDatabase::create(&server, "search_wiki").await;
            let education = Process::service(
                "education",
                &portal,
                &education_db.url,
                &[
                    ("PORTAL_AUTH_URL", &portal.auth),
                    ("PORTAL_WIKI_URL", &portal.wiki),
                ],
            )
            .await;
            let wiki = Process::service(
                "wiki",
                &portal,
                &wiki_db.url,
                &[
                    ("PORTAL_AUTH_URL", &portal.auth),
                    ("PORTAL_EDUCATION_URL", &portal.education),
                ],
            )
            .await;
            let gateway = Process::gateway(
                &portal,
                &portal.auth,
                &[
                    ("PORTAL_EDUCATION_URL", &education.url),
                    ("PORTAL_WIKI_URL", &wiki.url),
                ],
            )
            .await;
            let figures = measure(
                &Setup {
                    backend: Backend::Postgres,
                    base: &gateway.url,
                    education: &education.url,
                    education_db: &education_db.url,
                    wiki: &wiki.url,
                    wiki_db: &wiki_db.url,
                },
                size,
                &admin,
                &learner,
            )
            .await;
            drop((gateway, education, wiki));
            education_db.drop().await;
            wiki_db.drop().await;
            Some(figures)
        }
        None => None,
    };
    print(size, &sqlite, postgres.as_ref());
}
