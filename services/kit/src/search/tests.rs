//! The search's analysis, index and queries, on each backend of the run.

use super::*;
use crate::testing::{TestDatabase, backends};
use sqlx::{Connection, Executor};

fn stems(text: &str) -> Vec<String> {
    Query::parse(text).unwrap().stems
}

#[test]
fn russian_forms_meet_at_one_stem() {
    assert_eq!(stems("дефибрилляторы"), stems("Дефибриллятор"));
    assert_eq!(stems("обработка рук"), stems("обработке рук"));
    assert_eq!(stems("Ёмкость"), stems("емкости"));
}

#[test]
fn latin_lookalikes_in_a_russian_word_are_read_as_cyrillic() {
    // "Монитор" typed with a Latin o, p and M.
    assert_eq!(stems("Mонитоp"), stems("монитор"));
    // A Latin word stays Latin.
    assert_eq!(stems("Philips"), vec!["philip".to_owned()]);
}

#[test]
fn a_rich_text_is_indexed_as_its_words() {
    assert_eq!(
        plain_text("<p>Обработка&nbsp;<b>рук</b></p><p>&lt;до&gt; &amp; после</p>"),
        "Обработка рук <до> & после"
    );
}

#[test]
fn a_request_keeps_the_kinds_the_service_has_and_bounds_the_limit() {
    let offered = ["course", "article"];
    let asked = Asked::parse("курс", &["article".into(), "user".into()], 500, &offered).unwrap();
    assert!(asked.wants("article") && !asked.wants("course") && !asked.wants("user"));
    assert_eq!(asked.limit, MAX_LIMIT);
    let every = Asked::parse("курс", &[], 0, &offered).unwrap();
    assert!(every.wants("course") && every.wants("article"));
    assert_eq!(every.limit, DEFAULT_LIMIT);
    let blank = Asked::parse(" , ", &[], 0, &offered).unwrap_err();
    assert_eq!(blank.reason(), Some(REASON_EMPTY_QUERY));
    let misspelt = Asked::parse("курс", &["courses".into()], 0, &offered).unwrap_err();
    assert_eq!(misspelt.reason(), Some(REASON_UNKNOWN_KIND));
}

#[test]
fn a_query_without_words_is_none() {
    assert_eq!(Query::parse(" — !?"), None);
}

#[test]
fn a_snippet_marks_every_matching_word_and_escapes_the_rest() {
    let query = Query::parse("обработка").unwrap();
    let snippet = snippet(
        &query,
        "Гигиена",
        "Перед <работой>: обработке рук & обработку поверхностей.",
    );
    assert_eq!(
        snippet,
        "Перед &lt;работой&gt;: <mark>обработке</mark> рук &amp; <mark>обработку</mark> поверхностей."
    );
}

#[test]
fn a_snippet_shows_the_window_around_the_first_match_of_a_long_text_or_else_the_title() {
    let query = Query::parse("дефибриллятор").unwrap();
    let filler = "слово ".repeat(20_000);
    let body = format!("{filler}Дефибриллятор заряжен. {filler}дефибриллятор");
    let long = snippet(&query, "Инструкция", &body);
    assert!(long.starts_with('…') && long.ends_with('…'), "{long}");
    assert_eq!(long.matches("<mark>").count(), 1, "{long}");
    assert!(
        long.contains("<mark>Дефибриллятор</mark> заряжен."),
        "{long}"
    );

    let title = snippet(
        &query,
        "Дефибриллятор ZOLL",
        "Заряд батареи проверяют ежедневно.",
    );
    assert_eq!(title, "<mark>Дефибриллятор</mark> ZOLL");
}

async fn index(backend: Backend) -> (TestDatabase, AnyConnection) {
    let db = TestDatabase::new(backend).await;
    let mut connection = AnyConnection::connect(&db.url).await.unwrap();
    let schema = match backend {
        Backend::Sqlite => SQLITE_SCHEMA,
        Backend::Postgres => POSTGRES_SCHEMA,
    };
    connection
        .execute(sqlx::AssertSqlSafe(schema))
        .await
        .unwrap();
    (db, connection)
}

async fn put_all(connection: &mut AnyConnection, entries: &[Entry<'_>]) {
    for entry in entries {
        put(connection, entry).await.unwrap();
    }
}

fn found(hits: &[Hit]) -> Vec<(&str, i64)> {
    hits.iter()
        .map(|h| (h.kind.as_str(), h.entity_id))
        .collect()
}

#[tokio::test]
async fn the_same_query_finds_the_same_items_on_both_backends() {
    for backend in backends() {
        let (_db, mut connection) = index(backend).await;
        put_all(
            &mut connection,
            &[
                Entry {
                    kind: "environment-model",
                    entity_id: 1,
                    scope: Some(10),
                    title: "Дефибриллятор ДКИ-Н-10",
                    body: "Инструкция по работе с дефибриллятором",
                },
                Entry {
                    kind: "article",
                    entity_id: 2,
                    scope: Some(7),
                    title: "Гигиена",
                    body: "Правила обработки рук перед процедурой",
                },
                Entry {
                    kind: "environment",
                    entity_id: 3,
                    scope: Some(11),
                    title: "Монитор пациента",
                    body: "Инв. № ИНВ-2024-00421",
                },
            ],
        )
        .await;
        let all = [
            Allowed {
                kind: "environment-model",
                scopes: None,
            },
            Allowed {
                kind: "article",
                scopes: None,
            },
            Allowed {
                kind: "environment",
                scopes: None,
            },
        ];
        let search = |text: &str| Query::parse(text).unwrap();
        let hits = find(
            &mut connection,
            backend,
            &search("дефибрилляторы"),
            &all,
            10,
        )
        .await
        .unwrap();
        assert_eq!(found(&hits), vec![("environment-model", 1)], "{backend:?}");
        assert!(hits[0].snippet.contains("<mark>дефибриллятором</mark>"));
        let hits = find(&mut connection, backend, &search("обработке рук"), &all, 10)
            .await
            .unwrap();
        assert_eq!(found(&hits), vec![("article", 2)], "{backend:?}");
        // As one types: a prefix of the last word, and of an inventory number.
        let hits = find(&mut connection, backend, &search("дефибр"), &all, 10)
            .await
            .unwrap();
        assert_eq!(found(&hits), vec![("environment-model", 1)], "{backend:?}");
        let hits = find(&mut connection, backend, &search("инв-2024-004"), &all, 10)
            .await
            .unwrap();
        assert_eq!(found(&hits), vec![("environment", 3)], "{backend:?}");
        // A Latin c and o in a Russian word.
        let hits = find(&mut connection, backend, &search("мoнитoр"), &all, 10)
            .await
            .unwrap();
        assert_eq!(found(&hits), vec![("environment", 3)], "{backend:?}");
    }
}

#[tokio::test]
async fn a_word_with_one_typo_still_finds_what_was_meant_below_what_matches_as_typed() {
    for backend in backends() {
        let (_db, mut connection) = index(backend).await;
        let item = |entity_id, title| Entry {
            kind: "environment-model",
            entity_id,
            scope: None,
            title,
            body: "",
        };
        put_all(
            &mut connection,
            &[
                item(1, "Дефибриллятор Zoll AED"),
                item(2, "Монитор пациента"),
            ],
        )
        .await;
        let all = [Allowed {
            kind: "environment-model",
            scopes: None,
        }];
        let search = |text: &str| Query::parse(text).unwrap();
        for typed in [
            "дефибрилятор",
            "дефибриляторы",
            "дифибриллятор",
            "монтор пациента",
        ] {
            let hits = find(&mut connection, backend, &search(typed), &all, 10)
                .await
                .unwrap();
            assert_eq!(hits.len(), 1, "{typed} on {backend:?}");
            assert!(hits[0].rank <= 0.5, "below an exact hit: {}", hits[0].rank);
        }
        let exact = find(&mut connection, backend, &search("дефибриллятор"), &all, 10)
            .await
            .unwrap();
        assert_eq!(exact[0].rank, 1.0);
        // Two typos, or a word that names nothing near: nothing.
        for typed in ["дефибрилятр", "дефибриллятор кардиограф", "игла"]
        {
            let hits = find(&mut connection, backend, &search(typed), &all, 10)
                .await
                .unwrap();
            assert!(hits.is_empty(), "{typed} on {backend:?}: {hits:?}");
        }
    }
}

#[tokio::test]
async fn a_whole_word_finds_its_forms_and_a_word_being_typed_every_word_it_begins() {
    for backend in backends() {
        let (_db, mut connection) = index(backend).await;
        let entry = |entity_id, title| Entry {
            kind: "article",
            entity_id,
            scope: None,
            title,
            body: "",
        };
        put_all(
            &mut connection,
            &[
                entry(1, "Карта пациента"),
                entry(2, "Пациентов принимают с 8:00"),
                entry(3, "Пациентка в палате"),
            ],
        )
        .await;
        let all = [Allowed {
            kind: "article",
            scopes: None,
        }];
        let mut ids = async |text: &str| {
            let query = Query::parse(text).unwrap();
            let hits = find(&mut connection, backend, &query, &all, 10)
                .await
                .unwrap();
            let mut ids: Vec<i64> = hits.iter().map(|hit| hit.entity_id).collect();
            ids.sort_unstable();
            ids
        };
        assert_eq!(ids("пациенту").await, [1, 2], "{backend:?}");
        assert_eq!(ids("пациен").await, [1, 2, 3], "{backend:?}");
        assert_eq!(ids("пациентк").await, [3], "{backend:?}");
    }
}

#[tokio::test]
async fn a_reader_finds_only_the_scopes_they_may_open() {
    for backend in backends() {
        let (_db, mut connection) = index(backend).await;
        put_all(
            &mut connection,
            &[
                Entry {
                    kind: "course",
                    entity_id: 1,
                    scope: Some(1),
                    title: "Стерилизация инструментов",
                    body: "",
                },
                Entry {
                    kind: "course",
                    entity_id: 2,
                    scope: Some(2),
                    title: "Стерилизация эндоскопов",
                    body: "",
                },
            ],
        )
        .await;
        let query = Query::parse("стерил").unwrap();
        let only = |scopes: &'static [i64]| {
            [Allowed {
                kind: "course",
                scopes: Some(scopes),
            }]
        };
        let hits = find(&mut connection, backend, &query, &only(&[2]), 10)
            .await
            .unwrap();
        assert_eq!(found(&hits), vec![("course", 2)], "{backend:?}");
        let hits = find(&mut connection, backend, &query, &only(&[]), 10)
            .await
            .unwrap();
        assert!(hits.is_empty(), "{backend:?}");
    }
}

#[tokio::test]
async fn an_item_put_again_is_found_by_its_new_words_only_and_gone_once_removed() {
    for backend in backends() {
        let (_db, mut connection) = index(backend).await;
        let entry = |title| Entry {
            kind: "article",
            entity_id: 5,
            scope: None,
            title,
            body: "",
        };
        put(&mut connection, &entry("Аспирация")).await.unwrap();
        put(&mut connection, &entry("Ингаляция")).await.unwrap();
        let all = [Allowed {
            kind: "article",
            scopes: None,
        }];
        let search = |text: &str| Query::parse(text).unwrap();
        assert!(
            find(&mut connection, backend, &search("аспирация"), &all, 10)
                .await
                .unwrap()
                .is_empty()
        );
        let hits = find(&mut connection, backend, &search("ингаляции"), &all, 10)
            .await
            .unwrap();
        assert_eq!(found(&hits), vec![("article", 5)], "{backend:?}");
        remove(&mut connection, "article", 5).await.unwrap();
        assert!(
            find(&mut connection, backend, &search("ингаляции"), &all, 10)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[tokio::test]
async fn a_title_match_ranks_above_a_text_match() {
    for backend in backends() {
        let (_db, mut connection) = index(backend).await;
        put_all(
            &mut connection,
            &[
                Entry {
                    kind: "article",
                    entity_id: 1,
                    scope: None,
                    title: "Общие правила",
                    body: "Раздел про пульсоксиметр",
                },
                Entry {
                    kind: "article",
                    entity_id: 2,
                    scope: None,
                    title: "Пульсоксиметр",
                    body: "",
                },
            ],
        )
        .await;
        let all = [Allowed {
            kind: "article",
            scopes: None,
        }];
        let query = Query::parse("пульсоксиметры").unwrap();
        let hits = find(&mut connection, backend, &query, &all, 10)
            .await
            .unwrap();
        assert_eq!(
            found(&hits),
            vec![("article", 2), ("article", 1)],
            "{backend:?}"
        );
    }
}

#[test]
fn a_word_counts_its_first_64_letters_in_the_index_and_the_query_alike() {
    let long = "а".repeat(5_000);
    let cut = "а".repeat(64);
    assert_eq!(Query::parse(&long), Query::parse(&cut));
    assert_eq!(terms(&long), terms(&cut));
}
