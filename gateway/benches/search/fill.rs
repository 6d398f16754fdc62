//! Filling both services databases with the corpus in multi-row inserts, and
//! checking the index agrees with what was written.

use super::*;
use portal_kit::db::Backend;
use portal_kit::search::Entry;
use portal_kit::testing::authed;
use portal_proto::education::v1 as education_pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use portal_proto::wiki::v1 as wiki_pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;
use support::channel;

/// A pool on a service's database beside the service; on SQLite it waits
/// for the service's own writes.
pub(crate) async fn pool(url: &str, connections: u32) -> AnyPool {
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
pub(crate) async fn insert_rows(
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

pub(crate) enum Value {
    Int(i64),
    Text(String),
    Null,
}

/// An index entry's row, as `search::put` writes it.
pub(crate) fn entry_row(entry: &Entry) -> Vec<Value> {
    vec![
        Value::Text(entry.kind.to_owned()),
        Value::Int(entry.entity_id),
        entry.scope.map_or(Value::Null, Value::Int),
        Value::Text(entry.title.to_owned()),
        Value::Text(entry.body.to_owned()),
        Value::Text(entry.terms()),
    ]
}

pub(crate) const ENTRY_COLUMNS: [&str; 6] =
    ["kind", "entity_id", "scope", "title", "body", "terms"];

/// Courses, articles, the learner's assignments and their index entries.
pub(crate) async fn fill_education(url: &str, backend: Backend, size: Size) {
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
pub(crate) async fn fill_wiki(url: &str, backend: Backend, size: Size) {
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
pub(crate) async fn settle(pool: &AnyPool, backend: Backend, tables: &[&str]) {
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
pub(crate) async fn entry(pool: &AnyPool, kind: &str, entity_id: i64) -> (String, String, String) {
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
pub(crate) async fn check_entries(
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
