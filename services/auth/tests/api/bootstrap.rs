//! What a database gets at start: schema, bootstrap admin, demo data.

use portal_kit::db::{Backend, Database};
use portal_kit::testing::{TestDatabase, TestKeys, backends, postgres_or_skip};
use portal_proto::auth::v1 as pb;
use tonic::Code;

use crate::helpers::*;

#[tokio::test]
async fn migrations_apply_twice_cleanly() {
    portal_kit::testing::assert_migrations_apply_twice(&portal_auth::migrations()).await;
    for backend in backends() {
        let database = TestDatabase::new(backend).await;
        let first = Database::connect(&database.url, &portal_auth::migrations())
            .await
            .expect("start");
        let rights: Vec<(i64, String)> = sqlx::query_as("SELECT id, name FROM rights ORDER BY id")
            .fetch_all(&first.pool)
            .await
            .unwrap();
        let expected = [
            (1, "UserManagement"),
            (2, "EducationManagement"),
            (3, "EquipmentEditing"),
        ];
        assert_eq!(
            rights,
            expected.map(|(id, name)| (id, name.to_owned())),
            "on {backend:?}"
        );
        first.pool.close().await;
    }
}

#[tokio::test]
async fn departments_stored_before_title_keys_get_them_at_start() {
    for backend in backends() {
        let database = TestDatabase::new(backend).await;
        let migrated = Database::connect(&database.url, &portal_auth::migrations())
            .await
            .expect("migrate");
        // As departments were written before the keys: no title_key, a duplicate.
        for title in [
            "Приёмное отделение",
            "Хирургическое отделение",
            "приемное отделение",
        ] {
            sqlx::query("INSERT INTO departments (title, created_at) VALUES ($1, 0)")
                .bind(title)
                .execute(&migrated.pool)
                .await
                .unwrap();
        }

        let keys = portal_kit::testing::TestKeys::new();
        portal_auth::routes(settings(&database.url, &keys, false))
            .await
            .expect("a start with duplicate old titles still succeeds");

        let stored: Vec<(i64, Option<String>)> =
            sqlx::query_as("SELECT id, title_key FROM departments ORDER BY id")
                .fetch_all(&migrated.pool)
                .await
                .unwrap();
        assert_eq!(
            stored,
            [
                (1, Some("приемное отделение".to_owned())),
                (2, Some("хирургическое отделение".to_owned())),
                (3, None),
            ],
            "on {backend:?}: the later duplicate waits for an admin to rename it"
        );
        migrated.pool.close().await;
    }
}

#[tokio::test]
async fn the_bootstrap_admin_is_created_once_with_every_right() {
    on_each_backend(false, |app| async move {
        // A second start, even configured with another admin, creates nobody.
        let again = AuthSettings {
            admin_login: "another-admin".into(),
            ..settings(&app.database.url, &app.keys, false)
        };
        portal_auth::routes(again).await.expect("second start");

        let mut client = app.client.clone();
        let users = client
            .list_users(authed(pb::ListUsersRequest {}, &app.admin_token()))
            .await
            .unwrap();
        let users = users.into_inner().users;
        assert_eq!(users.len(), 1);
        assert_eq!(
            (users[0].id, users[0].login.as_str()),
            (ADMIN_ID, ADMIN_LOGIN)
        );
        assert_eq!(users[0].right_ids, [1, 2, 3]);

        let tokens = app
            .login(ADMIN_LOGIN, ADMIN_PASSWORD)
            .await
            .expect("the admin signs in");
        let claims = app.keys.verifier.verify(&tokens.access_token).unwrap();
        assert_eq!(
            claims.rights,
            ["UserManagement", "EducationManagement", "EquipmentEditing"]
        );
    })
    .await;
}

#[tokio::test]
async fn a_bootstrap_admin_without_a_configured_password_gets_a_random_one() {
    for backend in backends() {
        let keys = portal_kit::testing::TestKeys::new();
        let database = TestDatabase::new(backend).await;
        let settings = AuthSettings {
            admin_password: None,
            ..settings(&database.url, &keys, false)
        };
        portal_auth::routes(settings).await.expect("start");
        let store = Database::connect(&database.url, &portal_auth::migrations())
            .await
            .unwrap();
        let hash: String = sqlx::query_scalar("SELECT password_hash FROM users WHERE login = $1")
            .bind(ADMIN_LOGIN)
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert!(hash.starts_with("$argon2id$"), "on {backend:?}: {hash}");
        store.pool.close().await;
    }
}

#[tokio::test]
async fn a_bad_admin_password_is_refused_at_start() {
    let keys = portal_kit::testing::TestKeys::new();
    let database = TestDatabase::new(portal_kit::db::Backend::Sqlite).await;
    let settings = AuthSettings {
        admin_password: Some("short".into()),
        ..settings(&database.url, &keys, false)
    };
    let error = portal_auth::routes(settings).await.expect_err("refused");
    assert!(
        error.to_string().contains("PORTAL_ADMIN_PASSWORD"),
        "{error}"
    );
}

#[tokio::test]
async fn demo_data_gives_departments_staff_and_the_admin_memberships() {
    on_each_backend(true, |app| async move {
        // Starting again does not load the demo twice.
        portal_auth::routes(settings(&app.database.url, &app.keys, true))
            .await
            .expect("second start");

        let mut client = app.client.clone();
        let token = app.admin_token();
        let departments = client
            .list_departments_with_users(authed(pb::ListDepartmentsWithUsersRequest {}, &token));
        let departments = departments.await.unwrap().into_inner().departments;
        assert_eq!(departments.len(), 4);
        let mut ids: Vec<i64> = departments.iter().map(|d| d.id).collect();
        ids.sort_unstable();
        assert_eq!(
            ids,
            [1, 2, 3, 4],
            "other services' demo data refers to these ids"
        );
        assert!(
            departments
                .iter()
                .all(|d| d.users.iter().any(|u| u.id == ADMIN_ID)),
            "the admin is in every department"
        );

        let nurse = app
            .login("nurse", "nurse-demo-password")
            .await
            .expect("the demo nurse signs in");
        let claims = app.keys.verifier.verify(&nurse.access_token).unwrap();
        assert_eq!(claims.departments.len(), 2);
        assert!(claims.rights.is_empty());
        let educator = app
            .login("educator", "educator-demo-password")
            .await
            .unwrap();
        assert_eq!(
            app.keys
                .verifier
                .verify(&educator.access_token)
                .unwrap()
                .rights,
            ["EducationManagement"]
        );
        let dismissed = app.login("dismissed", "dismissed-demo-password").await;
        assert_eq!(dismissed.unwrap_err().code(), Code::Unauthenticated);
    })
    .await;
}

/// Replicas of auth that start at once on an empty PostgreSQL database all come
/// up: sqlx's migrator holds an advisory lock while it migrates, so they take
/// turns, and one of them creates the bootstrap admin. SQLite does not apply: its
/// database is a file of one process (`all` runs one auth), never shared by
/// replicas.
#[tokio::test]
async fn replicas_starting_at_once_on_an_empty_database_all_come_up() {
    if postgres_or_skip("starting replicas at once").is_none() {
        return;
    }
    const REPLICAS: usize = 6;
    let database = TestDatabase::new(Backend::Postgres).await;
    let keys = TestKeys::new();
    let mut starts = tokio::task::JoinSet::new();
    for _ in 0..REPLICAS {
        starts.spawn(portal_auth::routes(settings(&database.url, &keys, false)));
    }
    let mut started = 0;
    while let Some(result) = starts.join_next().await {
        if let Err(error) = result.unwrap() {
            panic!("a replica failed to start: {error}");
        }
        started += 1;
    }
    assert_eq!(started, REPLICAS);

    let check = Database::connect(&database.url, &portal_auth::migrations())
        .await
        .unwrap();
    let (applied, succeeded): (i64, i64) =
        sqlx::query_as("SELECT COUNT(*), COUNT(*) FILTER (WHERE success) FROM _sqlx_migrations")
            .fetch_one(&check.pool)
            .await
            .unwrap();
    let migrations = portal_auth::migrations().postgres.iter().count();
    assert_eq!(
        (applied, succeeded),
        (migrations as i64, migrations as i64),
        "each migration applied once"
    );
    let (admins,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users")
        .fetch_one(&check.pool)
        .await
        .unwrap();
    assert_eq!(admins, 1, "one bootstrap admin");
    check.pool.close().await;
}
