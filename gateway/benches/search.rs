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

mod support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use portal_kit::Right;
use portal_kit::db::Backend;
use portal_kit::search::{self, Entry};
use portal_kit::testing::authed;
use portal_kit::token::TokenIssuer;
use portal_proto::education::v1 as education_pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use portal_proto::wiki::v1 as wiki_pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;

use support::{CONCURRENCY, Load, Portal, PostgresDatabase, Process, channel, load};

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

/// Each kind of query: what it stands for, and what is typed.
const QUERIES: [(&str, &str); 4] = [
    ("a common word", "пациента"),
    ("a rare word (another form)", "гемодиафильтрации"),
    ("a plural of singular forms", "дефибрилляторы"),
    ("an inventory number's start", "ИН-0001"),
];

/// Everyday words of a ward's texts, in the forms the texts use them.
const VOCABULARY: &[&str] = &[
    "пациента",
    "перед",
    "после",
    "проверьте",
    "аппарат",
    "датчик",
    "обработка",
    "рук",
    "медицинской",
    "сестры",
    "отделения",
    "врача",
    "включите",
    "питания",
    "сети",
    "кабель",
    "экран",
    "тревоги",
    "сигнал",
    "давления",
    "манжету",
    "плечо",
    "электроды",
    "кожи",
    "салфеткой",
    "дезинфекции",
    "раствором",
    "антисептика",
    "перчатки",
    "маску",
    "халат",
    "инфекции",
    "профилактика",
    "журнал",
    "запись",
    "смены",
    "дежурной",
    "палаты",
    "реанимации",
    "кислорода",
    "подачи",
    "маски",
    "трубки",
    "фильтр",
    "замените",
    "ежедневно",
    "еженедельно",
    "калибровка",
    "инженер",
    "заявку",
    "неисправности",
    "отключите",
    "батарею",
    "зарядите",
    "индикатор",
    "зелёный",
    "красный",
    "жёлтый",
    "кнопку",
    "нажмите",
    "удерживайте",
    "секунды",
    "минуты",
    "часа",
    "дозу",
    "препарата",
    "введения",
    "инфузии",
    "скорость",
    "шприц",
    "насоса",
    "линию",
    "воздуха",
    "пузырьков",
    "температуры",
    "тела",
    "измерения",
    "пульса",
    "сатурации",
    "дыхания",
    "частоты",
    "ритма",
    "сердца",
    "электрокардиограммы",
    "отведения",
    "бумаги",
    "печати",
    "результатов",
    "истории",
    "болезни",
    "выписки",
    "поступления",
    "осмотра",
    "обхода",
    "назначения",
    "лечащего",
    "согласно",
    "инструкции",
    "производителя",
    "правилам",
];
const MODEL_NAMES: &[&str] = &[
    "Монитор пациента",
    "Аппарат ИВЛ",
    "Инфузомат",
    "Шприцевой насос",
    "Электрокардиограф",
    "Аспиратор",
    "Пульсоксиметр",
    "Концентратор кислорода",
];
const BRANDS: &[&str] = &["Mindray", "Dräger", "Philips", "Schiller", "B. Braun"];

/// `PORTAL_BENCH_SEARCH_ITEMS`, else `ITEMS`.
fn items() -> usize {
    std::env::var("PORTAL_BENCH_SEARCH_ITEMS").map_or(ITEMS, |count| {
        count
            .parse()
            .expect("PORTAL_BENCH_SEARCH_ITEMS: a number of items")
    })
}

/// What is indexed.
#[derive(Clone, Copy)]
struct Size {
    articles: usize,
    models: usize,
    units: usize,
    courses: usize,
}

impl Size {
    fn of(items: usize) -> Size {
        let articles = items / 2;
        Size {
            articles,
            models: items - articles,
            units: (items / 10).max(1),
            courses: articles.div_ceil(ARTICLES_PER_COURSE),
        }
    }
}

/// Words drawn the same way on every run (splitmix64), the first words of
/// [`VOCABULARY`] far more often than the last.
struct Words(u64);

impl Words {
    fn of(kind: u64, id: usize) -> Words {
        Words(kind << 40 ^ id as u64)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn word(&mut self) -> &'static str {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        VOCABULARY[((u * u * u) * VOCABULARY.len() as f64) as usize]
    }

    fn sentence(&mut self, words: usize) -> String {
        (0..words)
            .map(|_| self.word())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Three paragraphs of rich text, as the editor saves them; the rare
    /// word in one item of [`RARE_EVERY`].
    fn rich_text(&mut self, id: usize) -> String {
        let rare = if id % RARE_EVERY == 7 { RARE } else { "" };
        format!(
            "<p>{}</p><p>{} {rare}</p><p>{}</p>",
            self.sentence(40),
            self.sentence(40),
            self.sentence(40)
        )
    }
}

struct Article {
    id: usize,
    title: String,
    description: String,
    content: String,
}

impl Article {
    fn new(id: usize) -> Article {
        let mut words = Words::of(1, id);
        let title = if id.is_multiple_of(DEFIBRILLATOR_EVERY) {
            format!("Работа с дефибриллятором, памятка {id}")
        } else {
            format!("{} {}, памятка {id}", words.word(), words.word())
        };
        Article {
            id,
            title,
            description: words.sentence(8),
            content: words.rich_text(id),
        }
    }

    /// Its entry, as education's `store::search::index` makes it.
    fn body(&self) -> String {
        format!("{} {}", self.description, search::plain_text(&self.content))
    }
}

struct Course {
    id: usize,
    title: String,
    description: String,
}

impl Course {
    fn new(id: usize) -> Course {
        let mut words = Words::of(2, id);
        Course {
            id,
            title: format!("Курс {id}: {}", words.sentence(3)),
            description: words.sentence(8),
        }
    }

    fn body(&self) -> String {
        format!("{} {}", self.description, search::plain_text(""))
    }
}

struct Model {
    id: usize,
    name: String,
    brand: &'static str,
    description: String,
    instruction: String,
}

impl Model {
    fn new(id: usize) -> Model {
        let mut words = Words::of(3, id);
        let name = if id.is_multiple_of(DEFIBRILLATOR_EVERY) {
            format!("Дефибриллятор Д-{id}")
        } else {
            format!("{} М-{id}", MODEL_NAMES[id % MODEL_NAMES.len()])
        };
        Model {
            id,
            name,
            brand: BRANDS[id % BRANDS.len()],
            description: words.sentence(10),
            instruction: words.rich_text(id),
        }
    }

    /// Its entry, as the wiki's `store::search::index_model` makes it.
    fn body(&self) -> String {
        format!(
            "{} {} {}",
            self.brand,
            self.description,
            search::plain_text(&self.instruction)
        )
    }
}

struct Unit {
    id: usize,
    model: Model,
    department: i64,
    serial: String,
    inventory: String,
}

impl Unit {
    fn new(id: usize, size: Size) -> Unit {
        Unit {
            id,
            model: Model::new(1 + (id - 1) % size.models),
            department: 1 + (id % DEPARTMENTS) as i64,
            serial: format!("SN{id:07}"),
            inventory: format!("ИН-{id:06}"),
        }
    }

    /// Its entry, as the wiki's `store::search::index_unit` makes it.
    fn body(&self) -> String {
        format!("{} {}", self.model.name, self.serial)
    }
}

fn id(value: usize) -> i64 {
    i64::try_from(value).expect("an id")
}

/// A pool on a service's database beside the service; on SQLite it waits
/// for the service's own writes.
async fn pool(url: &str, connections: u32) -> AnyPool {
    AnyPoolOptions::new()
        .max_connections(connections)
        .after_connect(|connection, _| {
            Box::pin(async move {
                if connection.backend_name() == "SQLite" {
                    sqlx::query("PRAGMA busy_timeout = 30000")
                        .execute(connection)
                        .await?;
                }
                Ok(())
            })
        })
        .connect(url)
        .await
        .expect("the service's database")
}

/// Rows inserted `BATCH` at a time: `columns` of `table`, one `Vec` of
/// values per row.
async fn insert_rows(
    pool: &AnyPool,
    backend: Backend,
    table: &str,
    columns: &[&str],
    rows: impl Iterator<Item = Vec<Value>>,
) {
    // Ids are given, as a fresh database would have numbered the rows.
    let overriding = match (backend, columns.first()) {
        (Backend::Postgres, Some(&"id")) => " OVERRIDING SYSTEM VALUE",
        _ => "",
    };
    let mut rows = rows.peekable();
    let mut transaction = pool.begin().await.expect("a transaction");
    while rows.peek().is_some() {
        let batch: Vec<Vec<Value>> = rows.by_ref().take(BATCH).collect();
        let mut n = 0;
        let tuples: Vec<String> = batch
            .iter()
            .map(|row| {
                let marks: Vec<String> = row
                    .iter()
                    .map(|_| {
                        n += 1;
                        format!("${n}")
                    })
                    .collect();
                format!("({})", marks.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO {table} ({}){overriding} VALUES {}",
            columns.join(", "),
            tuples.join(", ")
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for value in batch.into_iter().flatten() {
            query = match value {
                Value::Int(v) => query.bind(v),
                Value::Text(v) => query.bind(v),
                Value::Null => query.bind(None::<i64>),
            };
        }
        query
            .execute(&mut *transaction)
            .await
            .unwrap_or_else(|error| panic!("insert into {table}: {error}"));
    }
    transaction.commit().await.expect("commit");
}

enum Value {
    Int(i64),
    Text(String),
    Null,
}

/// An index entry's row, as `search::put` writes it.
fn entry_row(entry: &Entry) -> Vec<Value> {
    vec![
        Value::Text(entry.kind.to_owned()),
        Value::Int(entry.entity_id),
        entry.scope.map_or(Value::Null, Value::Int),
        Value::Text(entry.title.to_owned()),
        Value::Text(entry.body.to_owned()),
        Value::Text(entry.terms()),
    ]
}

const ENTRY_COLUMNS: [&str; 6] = ["kind", "entity_id", "scope", "title", "body", "terms"];

/// Courses, articles, the learner's assignments and their index entries.
async fn fill_education(url: &str, backend: Backend, size: Size) {
    let pool = pool(url, 1).await;
    let articles = || (1..=size.articles).map(Article::new);
    let courses = || (1..=size.courses).map(Course::new);
    insert_rows(
        &pool,
        backend,
        "courses",
        &[
            "id",
            "title",
            "description",
            "date_creation",
            "date_deadline",
        ],
        courses().map(|c| {
            vec![
                Value::Int(id(c.id)),
                Value::Text(c.title),
                Value::Text(c.description),
                Value::Int(CREATED_AT),
                Value::Text(DEADLINE.into()),
            ]
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "articles",
        &[
            "id",
            "title",
            "description",
            "content",
            "date_deadline",
            "created_at",
        ],
        articles().map(|a| {
            vec![
                Value::Int(id(a.id)),
                Value::Text(a.title),
                Value::Text(a.description),
                Value::Text(a.content),
                Value::Text(DEADLINE.into()),
                Value::Int(CREATED_AT),
            ]
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "course_articles",
        &["course_id", "article_id", "position"],
        (1..=size.articles).map(|a| {
            vec![
                Value::Int(id(1 + (a - 1) / ARTICLES_PER_COURSE)),
                Value::Int(id(a)),
                Value::Int(id((a - 1) % ARTICLES_PER_COURSE)),
            ]
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "course_users",
        &["course_id", "user_id"],
        (1..=LEARNER_COURSES.min(id(size.courses)))
            .map(|c| vec![Value::Int(c), Value::Int(LEARNER)]),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "search_entries",
        &ENTRY_COLUMNS,
        courses().map(|c| {
            entry_row(&Entry {
                kind: "course",
                entity_id: id(c.id),
                scope: Some(id(c.id)),
                title: &c.title,
                body: &c.body(),
            })
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "search_entries",
        &ENTRY_COLUMNS,
        articles().map(|a| {
            entry_row(&Entry {
                kind: "article",
                entity_id: id(a.id),
                scope: Some(id(a.id)),
                title: &a.title,
                body: &a.body(),
            })
        }),
    )
    .await;
    settle(&pool, backend, &["courses", "articles"]).await;
}

/// Models with their instructions, units, and their index entries.
async fn fill_wiki(url: &str, backend: Backend, size: Size) {
    let pool = pool(url, 1).await;
    let models = || (1..=size.models).map(Model::new);
    let units = || (1..=size.units).map(|u| Unit::new(u, size));
    insert_rows(
        &pool,
        backend,
        "environment_models",
        &[
            "id",
            "name",
            "brand_name",
            "description",
            "short_instruction",
            "created_at",
            "updated_at",
        ],
        models().map(|m| {
            vec![
                Value::Int(id(m.id)),
                Value::Text(m.name),
                Value::Text(m.brand.to_owned()),
                Value::Text(m.description),
                Value::Text(m.instruction),
                Value::Int(CREATED_AT),
                Value::Int(CREATED_AT),
            ]
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "environments",
        &[
            "id",
            "environment_model_id",
            "department_id",
            "serial_number",
            "inventory_number",
            "created_at",
        ],
        units().map(|u| {
            vec![
                Value::Int(id(u.id)),
                Value::Int(id(u.model.id)),
                Value::Int(u.department),
                Value::Text(u.serial),
                Value::Text(u.inventory),
                Value::Int(CREATED_AT),
            ]
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "search_entries",
        &ENTRY_COLUMNS,
        models().map(|m| {
            entry_row(&Entry {
                kind: "environment-model",
                entity_id: id(m.id),
                scope: Some(id(m.id)),
                title: &m.name,
                body: &m.body(),
            })
        }),
    )
    .await;
    insert_rows(
        &pool,
        backend,
        "search_entries",
        &ENTRY_COLUMNS,
        units().map(|u| {
            entry_row(&Entry {
                kind: "environment",
                entity_id: id(u.id),
                scope: Some(u.department),
                title: &u.inventory,
                body: &u.body(),
            })
        }),
    )
    .await;
    settle(&pool, backend, &["environment_models", "environments"]).await;
}

/// What a database that grew by the services' writes would have: on
/// PostgreSQL its identities past the given ids and fresh statistics.
async fn settle(pool: &AnyPool, backend: Backend, tables: &[&str]) {
    if backend != Backend::Postgres {
        return;
    }
    for table in tables {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
        )))
        .execute(pool)
        .await
        .expect("identity past the given ids");
    }
    sqlx::query("ANALYZE").execute(pool).await.expect("ANALYZE");
}

/// An item's entry as the index holds it.
async fn entry(pool: &AnyPool, kind: &str, entity_id: i64) -> (String, String, String) {
    sqlx::query_as(
        "SELECT title, body, terms FROM search_entries WHERE kind = $1 AND entity_id = $2",
    )
    .bind(kind)
    .bind(entity_id)
    .fetch_one(pool)
    .await
    .unwrap_or_else(|error| panic!("the entry of {kind} {entity_id}: {error}"))
}

/// Saves a sample of the bulk-written items again through the services'
/// own update RPCs, and checks that their entries stay as written.
async fn check_entries(
    education: &str,
    education_db: &str,
    wiki: &str,
    wiki_db: &str,
    admin: &str,
    size: Size,
) {
    let education_pool = pool(education_db, 1).await;
    let mut client = EducationServiceClient::new(channel(education).await);
    for article in [1, DEFIBRILLATOR_EVERY, 7].map(Article::new) {
        if article.id > size.articles {
            continue;
        }
        let before = entry(&education_pool, "article", id(article.id)).await;
        client
            .update_article(authed(
                education_pb::UpdateArticleRequest {
                    id: id(article.id),
                    title: article.title,
                    description: article.description,
                    content: article.content,
                    date_deadline: DEADLINE.into(),
                    test_id: 0,
                },
                admin,
            ))
            .await
            .expect("update an article");
        let after = entry(&education_pool, "article", id(article.id)).await;
        assert_eq!(
            before, after,
            "article {}: the bench's entry is the service's",
            article.id
        );
    }
    let wiki_pool = pool(wiki_db, 1).await;
    let mut client = WikiServiceClient::new(channel(wiki).await);
    for model in [1, DEFIBRILLATOR_EVERY].map(Model::new) {
        if model.id > size.models {
            continue;
        }
        let unit = Unit::new(model.id, size);
        let before = (
            entry(&wiki_pool, "environment-model", id(model.id)).await,
            entry(&wiki_pool, "environment", id(unit.id)).await,
        );
        client
            .update_environment_model(authed(
                wiki_pb::UpdateEnvironmentModelRequest {
                    id: id(model.id),
                    name: model.name,
                    brand_name: model.brand.to_owned(),
                    description: model.description,
                    short_instruction: model.instruction,
                    ..Default::default()
                },
                admin,
            ))
            .await
            .expect("update a model");
        let after = (
            entry(&wiki_pool, "environment-model", id(model.id)).await,
            entry(&wiki_pool, "environment", id(unit.id)).await,
        );
        assert_eq!(
            before, after,
            "model {}: the bench's entries are the service's",
            model.id
        );
    }
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
