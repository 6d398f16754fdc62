//! The audit log on both databases: same transaction, append-only, no secrets.

use super::record::RECORD_CHUNK;
use super::rpc::parse;
use super::*;
use crate::db::{begin_write, now_millis};
use crate::testing::{TestDatabase, backends};
use portal_proto::audit::v1 as pb;
use serde::Serialize;
use serde_json::Value;
use sqlx::AnyPool;
use sqlx::Executor;

async fn database(backend: Backend) -> (TestDatabase, AnyPool) {
    let db = TestDatabase::new(backend).await;
    let pool = AnyPool::connect(&db.url).await.unwrap();
    pool.execute(sqlx::AssertSqlSafe(schema(backend)))
        .await
        .unwrap();
    pool.execute("CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT NOT NULL)")
        .await
        .unwrap();
    (db, pool)
}

fn nurse() -> AuditContext {
    AuditContext {
        actor: AuditActor::Person(7),
        address: Some("192.0.2.10".parse().unwrap()),
        request_id: Some("req-1".into()),
    }
}

async fn write_thing(pool: &AnyPool, backend: Backend, id: i64, commit: bool) {
    let mut tx = begin_write(pool, backend).await.unwrap();
    sqlx::query("INSERT INTO things (id, name) VALUES ($1, 'Монитор')")
        .bind(id)
        .execute(&mut *tx)
        .await
        .unwrap();
    let changes = Changes::new().field("name", Value::Null, "Монитор");
    record(
        &mut tx,
        &nurse(),
        Event::new(entity::ENVIRONMENT_MODEL, id, action::CREATE).changes(changes),
    )
    .await
    .unwrap();
    if commit {
        tx.commit().await.unwrap();
    } else {
        tx.rollback().await.unwrap();
    }
}

async fn all(pool: &AnyPool) -> Vec<AuditRecord> {
    let window = Window {
        limit: MAX_LIMIT,
        before_id: None,
        count: false,
    };
    list(pool, &Filter::default(), window)
        .await
        .unwrap()
        .records
}

#[tokio::test]
async fn a_record_commits_and_rolls_back_with_its_write() {
    for backend in backends() {
        let (_db, pool) = database(backend).await;
        write_thing(&pool, backend, 1, true).await;
        write_thing(&pool, backend, 2, false).await;
        let records = all(&pool).await;
        assert_eq!(
            records.len(),
            1,
            "{backend:?}: the rolled-back write left none"
        );
        let record = &records[0];
        assert_eq!(record.actor, AuditActor::Person(7));
        assert_eq!(record.address.as_deref(), Some("192.0.2.10"));
        assert_eq!(record.request_id.as_deref(), Some("req-1"));
        assert_eq!(
            (
                record.entity.as_str(),
                record.entity_id,
                record.action.as_str()
            ),
            ("environment-model", Some(1), "create")
        );
        assert_eq!(
            record.changes,
            [Change {
                field: "name".into(),
                old: Value::Null,
                new: "Монитор".into()
            }]
        );
    }
}

/// `count` updates of things 1..=count, each its name old → new, as one batch.
async fn write_batch(pool: &AnyPool, backend: Backend, count: i64, commit: bool) {
    let events: Vec<Event> = (1..=count)
        .map(|id| {
            let changes = Changes::new().field("name", format!("old {id}"), format!("new {id}"));
            Event::new(entity::USER, id, action::UPDATE).changes(changes)
        })
        .collect();
    let system = AuditContext {
        actor: AuditActor::ServiceAccount("hr-system".into()),
        ..nurse()
    };
    let mut tx = begin_write(pool, backend).await.unwrap();
    record_all(&mut tx, &system, &events).await.unwrap();
    record_all(&mut tx, &system, &[]).await.unwrap();
    if commit {
        tx.commit().await.unwrap();
    } else {
        tx.rollback().await.unwrap();
    }
}

#[tokio::test]
async fn a_batch_is_recorded_in_order_across_chunks_and_rolls_back_whole() {
    let count = 2 * RECORD_CHUNK as i64 + 3;
    for backend in backends() {
        let (_db, pool) = database(backend).await;
        write_batch(&pool, backend, count, false).await;
        assert!(all(&pool).await.is_empty(), "{backend:?}: rolled back");
        write_batch(&pool, backend, count, true).await;
        let records = all(&pool).await;
        // Newest first: the batch's last event has the highest id.
        let ids: Vec<Option<i64>> = records.iter().map(|r| r.entity_id).collect();
        let expected: Vec<Option<i64>> = (1..=count).rev().map(Some).collect();
        assert_eq!(ids, expected, "{backend:?}");
        for record in &records {
            assert_eq!(record.actor, AuditActor::ServiceAccount("hr-system".into()));
            assert_eq!(record.address.as_deref(), Some("192.0.2.10"));
            assert_eq!(record.at, records[0].at, "{backend:?}: one instant");
            let id = record.entity_id.unwrap_or_default();
            assert_eq!(
                record.changes,
                [Change {
                    field: "name".into(),
                    old: format!("old {id}").into(),
                    new: format!("new {id}").into(),
                }]
            );
        }
    }
}

#[tokio::test]
async fn the_database_refuses_to_change_or_delete_a_record() {
    for backend in backends() {
        let (_db, pool) = database(backend).await;
        write_thing(&pool, backend, 1, true).await;
        let attempts = [
            "UPDATE audit_records SET action = 'delete'",
            "UPDATE audit_records SET changes = '[]' WHERE id = 1",
            "DELETE FROM audit_records",
            "DELETE FROM audit_records WHERE id = 1",
        ];
        for attempt in attempts {
            let refused = pool.execute(attempt).await.unwrap_err();
            assert!(
                refused.to_string().contains("append-only"),
                "{backend:?} {attempt}: {refused}"
            );
        }
        if backend == Backend::Postgres {
            assert!(pool.execute("TRUNCATE audit_records").await.is_err());
            // Setting the purge's mark outside a purge lets through only
            // records older than it: none here.
            let mut tx = pool.begin().await.unwrap();
            sqlx::query("SELECT set_config('portal.audit_purge_before', '1000', true)")
                .execute(&mut *tx)
                .await
                .unwrap();
            let refused = sqlx::query("DELETE FROM audit_records")
                .execute(&mut *tx)
                .await;
            assert!(refused.is_err());
        }
        assert_eq!(all(&pool).await.len(), 1, "{backend:?}");
    }
}

async fn insert_at(pool: &AnyPool, at: i64) {
    sqlx::query(
        "INSERT INTO audit_records (at, actor_kind, entity, action, changes)
         VALUES ($1, 'system', 'user', 'update', '[]')",
    )
    .bind(at)
    .execute(pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn the_purge_drops_only_records_past_retention() {
    const DAY: i64 = 24 * 60 * 60 * 1000;
    for backend in backends() {
        let (_db, pool) = database(backend).await;
        let now = now_millis();
        let settings = AuditSettings {
            retention_days: 30,
            trusted_proxies: TrustedProxies::none(),
        };
        insert_at(&pool, now - 31 * DAY).await;
        insert_at(&pool, now - 29 * DAY).await;
        insert_at(&pool, now).await;
        let purged = purge(&pool, backend, settings.purge_before(now))
            .await
            .unwrap();
        assert_eq!(purged, 1, "{backend:?}");
        let kept: Vec<i64> = all(&pool).await.iter().map(|r| r.at).collect();
        assert_eq!(kept, [now, now - 29 * DAY], "{backend:?}");
        // The purge leaves the guard as it was: a plain delete is refused again.
        assert!(pool.execute("DELETE FROM audit_records").await.is_err());
    }
}

#[derive(Serialize)]
struct Account {
    name: String,
    password_hash: String,
    rights: Vec<&'static str>,
}

#[tokio::test]
async fn a_secret_is_recorded_as_changed_and_never_stored() {
    let old = Account {
        name: "Иванова".into(),
        password_hash: "$argon2id$old-hash".into(),
        rights: vec![],
    };
    let new = Account {
        name: "Петрова".into(),
        password_hash: "$argon2id$new-hash".into(),
        rights: vec!["UserManagement"],
    };
    let changes = Changes::diff(Some(&old), Some(&new), &["password_hash"]).and(
        Changes::new()
            .secret("password", true)
            .secret("secret", false),
    );
    let created = Changes::diff(None, Some(&new), &["password_hash"]);
    for backend in backends() {
        let (_db, pool) = database(backend).await;
        let mut connection = pool.acquire().await.unwrap();
        for changes in [changes.clone(), created.clone()] {
            record(
                &mut connection,
                &nurse(),
                Event::new(entity::USER, 5, action::UPDATE).changes(changes),
            )
            .await
            .unwrap();
        }
        let stored: Vec<String> = sqlx::query_scalar("SELECT changes FROM audit_records")
            .fetch_all(&mut *connection)
            .await
            .unwrap();
        for text in &stored {
            assert!(!text.contains("argon2"), "{backend:?}: {text}");
        }
        let records = all(&pool).await;
        let updated = &records[1].changes;
        let fields: Vec<(&str, String, String)> = updated
            .iter()
            .map(|c| (c.field.as_str(), c.old.to_string(), c.new.to_string()))
            .collect();
        assert_eq!(
            fields,
            [
                ("name", "\"Иванова\"".into(), "\"Петрова\"".into()),
                ("password_hash", "\"***\"".into(), "\"***\"".into()),
                ("rights", "[]".into(), "[\"UserManagement\"]".into()),
                ("password", "\"***\"".into(), "\"***\"".into()),
            ]
        );
        assert_eq!(records[0].changes[1].old, Value::Null, "created: no old");
        assert_eq!(records[0].changes[1].new, Value::from(HIDDEN));
    }
}

#[tokio::test]
async fn records_are_filtered_and_paged_newest_first() {
    for backend in backends() {
        let (_db, pool) = database(backend).await;
        let mut connection = pool.acquire().await.unwrap();
        let admin = nurse().acting_as(AuditActor::Person(1));
        let system = AuditContext::system();
        for id in 1..=5 {
            let context = if id % 2 == 0 { &admin } else { &system };
            let action = if id == 5 {
                action::DELETE
            } else {
                action::UPDATE
            };
            record(
                &mut connection,
                context,
                Event::new(entity::USER, id, action),
            )
            .await
            .unwrap();
        }
        record(
            &mut connection,
            &nurse().acting_as(AuditActor::Anonymous {
                login: Some("ivanova".into()),
            }),
            Event::new(entity::SESSION, None, action::SIGN_IN_REFUSED).reason("wrong-password"),
        )
        .await
        .unwrap();
        drop(connection);
        let ids = |page: &Page| -> Vec<Option<i64>> {
            page.records.iter().map(|r| r.entity_id).collect()
        };
        let window = |limit, before_id| Window {
            limit,
            before_id,
            count: true,
        };
        let first = list(&pool, &Filter::default(), window(2, None))
            .await
            .unwrap();
        assert_eq!(first.total, Some(6));
        assert_eq!(ids(&first), [None, Some(5)], "{backend:?}");
        assert_eq!(first.records[0].reason.as_deref(), Some("wrong-password"));
        assert_eq!(
            first.records[0].actor,
            AuditActor::Anonymous {
                login: Some("ivanova".into())
            }
        );
        let after = Window {
            count: false,
            ..window(2, Some(first.records[1].id))
        };
        let second = list(&pool, &Filter::default(), after).await.unwrap();
        assert_eq!(ids(&second), [Some(4), Some(3)], "{backend:?}");
        assert_eq!(second.total, None, "not counted when not asked");
        let by_admin = Filter {
            actor_user_id: Some(1),
            ..Filter::default()
        };
        let page = list(&pool, &by_admin, window(10, None)).await.unwrap();
        assert_eq!((ids(&page), page.total), (vec![Some(4), Some(2)], Some(2)));
        let deleted_user = Filter {
            entity: Some("user".into()),
            action: Some("delete".into()),
            entity_id: Some(5),
            from: Some(0),
            to: Some(now_millis() + 1000),
            ..Filter::default()
        };
        let page = list(&pool, &deleted_user, window(10, None)).await.unwrap();
        assert_eq!(ids(&page), [Some(5)], "{backend:?}");
        let none_yet = Filter {
            to: Some(0),
            ..Filter::default()
        };
        let none = list(&pool, &none_yet, window(10, None)).await.unwrap();
        assert_eq!(none.total, Some(0));
    }
}

#[test]
fn a_reversed_period_is_refused() {
    let at = |seconds| Some(prost_types::Timestamp { seconds, nanos: 0 });
    let request = pb::ListAuditRecordsRequest {
        from: at(100),
        to: at(50),
        ..Default::default()
    };
    assert!(parse(request).is_err());
    let request = pb::ListAuditRecordsRequest {
        limit: 5000,
        entity: " user ".into(),
        ..Default::default()
    };
    let (filter, window) = parse(request).unwrap();
    assert_eq!(
        (filter.entity.as_deref(), window.limit, window.count),
        (Some("user"), MAX_LIMIT, true)
    );
    let request = pb::ListAuditRecordsRequest {
        skip_total: true,
        ..Default::default()
    };
    let (_, window) = parse(request).unwrap();
    assert_eq!((window.limit, window.count), (DEFAULT_LIMIT, false));
}
