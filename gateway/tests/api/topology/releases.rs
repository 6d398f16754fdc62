//! A rolling release across the split topology: release N+1's schema (a fixture
//! migration), reads and writes served throughout, rolled out and back.

use crate::support::cluster::{Databases, Gateway, Process, free_port, portal_migrate};
use portal_kit::db::Migrations;
use serde_json::{Value, json};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{Connection, SqlSafeStr};
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::{Duration, Instant};

pub(super) const SERVICES: [&str; 4] = ["auth", "education", "wiki", "files"];
/// The version the simulated release N+1 records in its mark.
pub(super) const NEXT_RELEASE: &str = "next-release-fixture";

/// Release N+1 of `service`'s schema: this release's PostgreSQL migrations and
/// one more, `tests/fixtures/next-release/<service>.sql` (an expand step),
/// numbered after this release's newest. Compatible, it keeps this release's
/// oldest compatible reader, as an expand-only release does; otherwise it
/// names its own migration, as a release that contracts would.
pub(super) fn next_release(service: &str, compatible: bool) -> (Migrations, i64) {
    let this_release = match service {
        "auth" => portal_auth::migrations(),
        "education" => portal_education::migrations(),
        "wiki" => portal_wiki::migrations(),
        "files" => portal_files::migrations(),
        _ => unreachable!("{service}"),
    };
    let mut steps: Vec<Migration> = this_release.postgres.iter().cloned().collect();
    let version = steps.iter().map(|m| m.version).max().unwrap() + 1;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/next-release")
        .join(format!("{service}.sql"));
    let sql = std::fs::read_to_string(&fixture).unwrap();
    steps.push(Migration::new(
        version,
        "next release: expand".into(),
        MigrationType::Simple,
        sqlx::AssertSqlSafe(sql).into_sql_str(),
        false,
    ));
    let migrations = Migrations {
        // The topology runs on PostgreSQL only.
        sqlite: Migrator::with_migrations(Vec::new()),
        postgres: Migrator::with_migrations(steps),
        release: NEXT_RELEASE,
        oldest_reader: if compatible {
            this_release.oldest_reader
        } else {
            version
        },
    };
    (migrations, version)
}

/// Reads and writes of every service through both gateways: a department
/// (auth), a course (education), an equipment model (wiki) and a document of it
/// (files), each listed back.
pub(super) async fn serve_reads_and_writes(
    gateways: &[Gateway; 2],
    http: &reqwest::Client,
    token: &str,
    when: &str,
) {
    for (i, gateway) in gateways.iter().enumerate() {
        let title = format!("{when} {i}");
        let post = |path: &'static str, body: Value| async move {
            gateway
                .post(http, path, token, body)
                .await
                .unwrap_or_else(|e| panic!("{when}: {path}: {e}"))
        };
        post(
            "/api/department/create",
            json!({"title": title, "users": []}),
        )
        .await;
        let course = post(
            "/api/course/create-course-with-user-and-articles",
            json!({"title": title, "description": when, "dateDeadline": "2099-01-31", "userIds": [1], "articleIds": []}),
        )
        .await;
        let model = post(
            "/api/environment-model/create",
            json!({"name": title, "brandName": "Dräger", "description": when}),
        )
        .await;
        let model_id = model["id"].as_i64().unwrap();
        let document = reqwest::multipart::Form::new()
            .text("idRelated", model_id.to_string())
            .text("title", title.clone())
            .part(
                "file",
                reqwest::multipart::Part::bytes(b"%PDF-1.7\n%%EOF\n".to_vec())
                    .file_name("passport.pdf"),
            );
        let saved = http
            .post(format!("{}/api/file/save", gateway.base))
            .bearer_auth(token)
            .multipart(document)
            .send()
            .await
            .unwrap();
        assert_eq!(
            saved.status(),
            200,
            "{when}: {}",
            saved.text().await.unwrap()
        );

        let titles = |listed: Value, field: &str| -> Vec<String> {
            listed
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row[field].as_str().unwrap().to_owned())
                .collect()
        };
        let departments = gateway.get(http, "/api/department/get-all", token).await;
        assert!(titles(departments, "title").contains(&title), "{when}");
        let courses = gateway
            .get(http, "/api/course/get-all-courses", token)
            .await;
        assert!(
            courses
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == course["id"]),
            "{when}"
        );
        let models = gateway
            .get(http, "/api/environment-model/get-all", token)
            .await;
        assert!(titles(models, "name").contains(&title), "{when}");
        let documents = gateway
            .get(
                http,
                &format!("/api/file/get-files?idRelated={model_id}"),
                token,
            )
            .await;
        assert_eq!(titles(documents, "title"), [title], "{when}");
    }
}

/// A rollout and a rollback, simulated on the running topology (release N is
/// this build). Release N+1 is simulated by what its `portal migrate` would do:
/// kit's `db::migrate` (the very step `portal migrate` runs) with N's
/// migrations plus one expand migration per service from
/// `tests/fixtures/next-release/` (a nullable column, backfilled where there
/// are rows, and a new table), recording N+1's mark, which names N's oldest
/// compatible reader. N+1's binaries themselves are not run: nothing of N+1
/// but its schema and mark exists. Then:
///
/// - N's running processes keep serving reads and writes on N+1's schema (the
///   old pods of a rolling update);
/// - a rollback: every N process stops and starts again as a pod does, N's
///   `portal migrate` first (applies nothing and succeeds; N+1's migration
///   stays), then N in `check` mode, which starts and serves reads and writes;
/// - N+1's mark rewritten as a release that contracts would leave it (its own
///   migration as the oldest reader): N's `portal migrate` and a new N process
///   of each service refuse, naming both releases and their newest migrations.
pub(super) async fn roll_out_and_back(
    databases: &Databases,
    services: &mut [&mut Process],
    gateways: &[Gateway; 2],
    http: &reqwest::Client,
    token: &str,
) {
    let mut next_versions = BTreeMap::new();
    for service in SERVICES {
        let (next, version) = next_release(service, true);
        let migrated = portal_kit::db::migrate(&databases.url(service), &next)
            .await
            .unwrap();
        assert_eq!(migrated.applied, [version], "{service}");
        next_versions.insert(service, version);
    }
    serve_reads_and_writes(gateways, http, token, "N на схеме N+1").await;

    let rolled_back = Instant::now();
    for process in services.iter_mut() {
        process.kill_9();
        let target = process.setting("PORTAL_TARGET").to_owned();
        let printed = portal_migrate(&process.env).unwrap_or_else(|e| panic!("{target}: {e}"));
        let up_to_date = format!(
            "{target} database is up to date: newest migration {}, applied now: none",
            next_versions[target.as_str()]
        );
        assert!(printed.contains(&up_to_date), "{target}: {printed}");
        process.restart();
    }
    for gateway in gateways {
        gateway.wait_serving(http, services).await;
    }
    println!(
        "topology: rolled back onto N+1's schema: every service's `portal migrate` a no-op, all ready in {:.1} s",
        rolled_back.elapsed().as_secs_f64()
    );
    serve_reads_and_writes(gateways, http, token, "N после отката").await;
    for service in SERVICES {
        let mut connection = sqlx::AnyConnection::connect(&databases.url(service))
            .await
            .unwrap();
        let (kept,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM _sqlx_migrations WHERE version = $1")
                .bind(next_versions[service])
                .fetch_one(&mut connection)
                .await
                .unwrap();
        assert_eq!(kept, 1, "{service}: N+1's migration stays");
    }

    for service in SERVICES {
        let (contracting, _) = next_release(service, false);
        portal_kit::db::migrate(&databases.url(service), &contracting)
            .await
            .unwrap();
    }
    let version = env!("CARGO_PKG_VERSION");
    for target in SERVICES {
        // One process of each service (education has two).
        let process = services
            .iter()
            .find(|p| p.setting("PORTAL_TARGET") == target)
            .unwrap();
        let next = next_versions[target];
        let refusal = format!(
            "this binary is release {version} (newest migration {}); the database holds migration {next} of release {NEXT_RELEASE}, which runs binaries whose newest migration is {next} or later",
            next - 1
        );
        let printed = portal_migrate(&process.env).expect_err(target);
        assert!(printed.contains(&refusal), "{target}: {printed}");

        // A new process of N on other ports, as a new pod would be.
        let ip: IpAddr = process
            .setting("PORTAL_GRPC_ADDR")
            .parse::<SocketAddr>()
            .unwrap()
            .ip();
        let mut env = process.env.clone();
        env.push((
            "PORTAL_GRPC_ADDR".to_owned(),
            SocketAddr::new(ip, free_port(ip)).to_string(),
        ));
        env.push((
            "PORTAL_METRICS_ADDR".to_owned(),
            SocketAddr::new(ip, free_port(ip)).to_string(),
        ));
        let log = process.log.with_file_name(format!("{target}-refused.log"));
        let mut child = Process::start(&env, &log);
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "{target} started on an incompatible schema"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let printed = std::fs::read_to_string(&log).unwrap();
        assert!(
            !status.success() && printed.contains(&refusal),
            "{target}: {printed}"
        );
    }
    println!(
        "topology: N refused N+1's schema once N+1 marked itself incompatible (migrate and start)"
    );
}
