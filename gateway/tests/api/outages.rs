//! Outages kept small, on the split topology as processes of the real binary
//! (`support/cluster.rs`):
//!
//! - a gateway started while the wiki is down starts, becomes ready and serves
//!   sign-in and education, while the wiki's routes (REST, gRPC, grpc-web)
//!   answer 503 / UNAVAILABLE at once; the wiki started, they work, with no
//!   restart of the gateway;
//! - every service's database goes away under a steady write load (what a
//!   PostgreSQL restart does, done to the test's own databases alone: sessions
//!   ended and new ones refused, then let in again): clients get clean 503
//!   envelopes in Russian meanwhile, readiness says NOT_SERVING and liveness
//!   stays SERVING, writes succeed again on every service within 5 s of the
//!   reopening with no process restarted, and every write acknowledged is there.
//!
//! Needs PostgreSQL (`PORTAL_TEST_POSTGRES_URL`); without it each test says
//! SKIPPED, and fails instead under `PORTAL_REQUIRE_E2E=1` (CI).

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portal_proto::wiki::v1 as wiki_pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::Connection;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::support::cluster::{
    ADMIN_PASSWORD, Gateway, Process, Topology, Writers, free_port, loopback,
};

use portal_auth::SERVICE_NAME as AUTH;
use portal_education::SERVICE_NAME as EDUCATION;
use portal_files::SERVICE_NAME as FILES;
use portal_kit::error::MSG_UNAVAILABLE;
use portal_kit::testing::postgres_or_skip;
use portal_wiki::SERVICE_NAME as WIKI;

/// How soon a service's routes must answer while it is down: at once, not
/// after a connect or call time-out.
const PROMPTLY: Duration = Duration::from_millis(500);

/// The topology with one replica of each service; none without PostgreSQL.
async fn one_replica_each() -> Option<Topology> {
    let admin_url = postgres_or_skip("the outage tests")?;
    let education = SocketAddr::new(loopback(1), free_port(loopback(1)));
    Some(Topology::new(&admin_url, vec![education]).await)
}

/// A 503 envelope for people: reason UNAVAILABLE and a Russian message.
fn assert_unavailable_envelope(status: StatusCode, envelope: &Value) {
    assert_eq!(status, 503, "{envelope}");
    assert_eq!(envelope["success"], false, "{envelope}");
    assert_eq!(envelope["reason"], "UNAVAILABLE", "{envelope}");
    assert_eq!(envelope["errorMessage"], MSG_UNAVAILABLE, "{envelope}");
}

/// Whether `/readyz`'s body says `service` serves.
fn serves(readyz: &str, service: &str) -> bool {
    readyz
        .lines()
        .any(|line| line.starts_with(service) && line.contains(": serving"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_gateway_started_with_the_wiki_down_is_ready_and_serves_all_but_the_wiki() {
    let Some(topology) = one_replica_each().await else {
        return;
    };
    let education = topology.education[0];
    let mut auth = topology.spawn_service("auth", "auth", topology.auth);
    let mut education = topology.spawn_service("education", "education", education);
    let mut files = topology.spawn_service("files", "files", topology.files);
    // The wiki is not running: its address refuses connections.
    let started = Instant::now();
    let (mut gateway_process, gateway) = topology.spawn_gateway();
    let http = reqwest::Client::new();
    gateway
        .wait_ready(
            &http,
            &mut [&mut gateway_process, &mut auth, &mut education, &mut files],
        )
        .await;
    let ready_after = started.elapsed();
    // Ready says how each upstream stands; the services just started may
    // still be migrating, so wait for all but the wiki to serve.
    let deadline = Instant::now() + Duration::from_secs(60);
    let body = loop {
        let (status, body) = gateway.readyz(&http).await.unwrap();
        assert_eq!(status, 200, "{body}");
        if [AUTH, EDUCATION, FILES]
            .iter()
            .all(|service| serves(&body, service))
        {
            break body;
        }
        assert!(Instant::now() < deadline, "services not serving: {body}");
        for process in [&mut auth, &mut education, &mut files, &mut gateway_process] {
            process.assert_alive();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        body.lines()
            .any(|line| line.starts_with(WIKI) && line.contains("NOT SERVING")),
        "{body}"
    );
    println!(
        "outages: a gateway started with the wiki down was ready after {} ms; /readyz:\n{body}",
        ready_after.as_millis()
    );

    // Sign-in and education work.
    let token = crate::support::sign_in_admin(&http, &gateway.base, ADMIN_PASSWORD).await;
    let course = gateway
        .post(
            &http,
            "/api/course/create-course-with-user-and-articles",
            &token,
            json!({"title": "Курс при недоступной вики", "description": "Обязательный курс",
                   "dateDeadline": "2099-01-31", "userIds": [1], "articleIds": []}),
        )
        .await
        .unwrap();
    assert!(course["id"].as_i64().is_some(), "{course}");
    let courses = gateway
        .get(&http, "/api/course/get-all-courses", &token)
        .await;
    assert_eq!(courses.as_array().unwrap().len(), 1);

    // The wiki's routes answer 503 with the envelope at once: REST …
    let asked = Instant::now();
    let response = http
        .get(format!("{}/api/environment-model/get-all", gateway.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert_unavailable_envelope(status, &response.json().await.unwrap());
    let rest_took = asked.elapsed();
    // … grpc-web …
    let asked = Instant::now();
    let (reply, trailers) = gateway
        .grpc_web_call::<wiki_pb::ListEnvironmentModelsResponse>(
            &http,
            &format!("{WIKI}/ListEnvironmentModels"),
            wiki_pb::ListEnvironmentModelsRequest::default(),
            &token,
        )
        .await;
    assert!(reply.is_none());
    assert!(trailers.contains("grpc-status:14"), "{trailers}");
    let grpc_web_took = asked.elapsed();
    // … and native gRPC.
    let mut wiki = WikiServiceClient::new(gateway.grpc().await);
    let mut request = tonic::Request::new(wiki_pb::ListEnvironmentModelsRequest::default());
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    let asked = Instant::now();
    let refused = wiki.list_environment_models(request).await.unwrap_err();
    let grpc_took = asked.elapsed();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert_eq!(refused.message(), MSG_UNAVAILABLE);
    println!(
        "outages: the wiki's routes refused in {} ms (REST), {} ms (grpc-web), {} ms (gRPC)",
        rest_took.as_millis(),
        grpc_web_took.as_millis(),
        grpc_took.as_millis()
    );
    for took in [rest_took, grpc_web_took, grpc_took] {
        assert!(took < PROMPTLY, "a refusal took {took:?}");
    }

    // The wiki started, the same gateway serves its routes.
    let mut wiki_process = topology.spawn_service("wiki", "wiki", topology.wiki);
    let mut processes = [
        &mut gateway_process,
        &mut auth,
        &mut education,
        &mut files,
        &mut wiki_process,
    ];
    gateway.wait_serving(&http, &mut processes).await;
    let models = gateway
        .get(&http, "/api/environment-model/get-all", &token)
        .await;
    assert_eq!(models, json!([]));

    drop((gateway_process, auth, education, files, wiki_process));
    topology.databases.drop_all().await;
}

/// One kind of write a client makes through the gateway, each to the database
/// of one service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Write {
    Department,
    Course,
    EquipmentModel,
    Video,
}

impl Write {
    const ALL: [Write; 4] = [
        Write::Department,
        Write::Course,
        Write::EquipmentModel,
        Write::Video,
    ];

    fn service(self) -> &'static str {
        match self {
            Write::Department => "auth",
            Write::Course => "education",
            Write::EquipmentModel => "wiki",
            Write::Video => "files",
        }
    }

    /// Where the service keeps what the write creates.
    fn table(self) -> &'static str {
        match self {
            Write::Department => "departments",
            Write::Course => "courses",
            Write::EquipmentModel => "environment_models",
            Write::Video => "files",
        }
    }

    /// Sends write number `n`: the id of what it created, or the refusal.
    async fn send(
        self,
        http: &reqwest::Client,
        gateway: &Gateway,
        token: &str,
        n: usize,
    ) -> Result<i64, Refusal> {
        match self.answer(http, gateway, token, n).await {
            Ok((status, envelope)) if status.is_success() => Ok(self.created_id(&envelope["data"])),
            other => Err(other),
        }
    }

    /// Sends write number `n`: the answer's status and envelope.
    async fn answer(
        self,
        http: &reqwest::Client,
        gateway: &Gateway,
        token: &str,
        n: usize,
    ) -> Result<(StatusCode, Value), String> {
        let title = format!("Запись {n}");
        let (path, body) = match self {
            Write::Department => (
                "/api/department/create",
                json!({"title": title, "users": []}),
            ),
            Write::Course => (
                "/api/course/create-course-with-user-and-articles",
                json!({"title": title, "description": "Под нагрузкой", "dateDeadline": "2099-01-31",
                       "userIds": [1], "articleIds": []}),
            ),
            Write::EquipmentModel => (
                "/api/environment-model/create",
                json!({"name": title, "brandName": "Mindray", "description": "Под нагрузкой"}),
            ),
            Write::Video => {
                let mut video = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
                video.extend(title.bytes().cycle().take(2000));
                let form = reqwest::multipart::Form::new().part(
                    "video",
                    reqwest::multipart::Part::bytes(video).file_name(format!("{n}.mp4")),
                );
                let response = http
                    .post(format!("{}/api/video/save", gateway.base))
                    .bearer_auth(token)
                    .multipart(form)
                    .timeout(Duration::from_secs(10))
                    .send()
                    .await
                    .map_err(|e| e.to_string())?;
                let status = response.status();
                return Ok((status, response.json().await.map_err(|e| e.to_string())?));
            }
        };
        gateway.post_answer(http, path, token, body).await
    }

    /// The id of what an acknowledged write created.
    fn created_id(self, data: &Value) -> i64 {
        match self {
            // `/api/file/download/{id}?key=…`
            Write::Video => data["savedVideoUrl"]
                .as_str()
                .and_then(|url| url.rsplit('/').next())
                .and_then(|last| last.split('?').next())
                .and_then(|id| id.parse().ok())
                .unwrap_or_else(|| panic!("no video id in {data}")),
            _ => data["id"]
                .as_i64()
                .unwrap_or_else(|| panic!("no id in {data}")),
        }
    }
}

/// An answer other than success: the status and envelope, or how the call
/// itself failed.
type Refusal = Result<(StatusCode, Value), String>;

/// One writer per kind of write ([`Write::ALL`]'s order), each sending one
/// write after another through `gateway`.
fn writers(http: &reqwest::Client, gateway: &Gateway, token: &str) -> Writers<i64, Refusal> {
    let (http, token, base) = (http.clone(), token.to_owned(), gateway.base.clone());
    Writers::start(Write::ALL.len(), move |writer, n| {
        let (http, token) = (http.clone(), token.clone());
        let gateway = Gateway { base: base.clone() };
        async move { Write::ALL[writer].send(&http, &gateway, &token, n).await }
    })
}

/// How many writes of each kind a burst sends at once: enough for each
/// service's pool to hold several connections.
const BURST: usize = 6;

/// Sends [`BURST`] writes of each kind at once, numbered from `from`.
async fn burst(
    http: &reqwest::Client,
    gateway: &Gateway,
    token: &str,
    from: usize,
) -> Vec<(Write, Result<i64, Refusal>)> {
    let sends = Write::ALL.into_iter().flat_map(|write| {
        (from..from + BURST)
            .map(move |n| async move { (write, write.send(http, gateway, token, n).await) })
    });
    futures_util::future::join_all(sends).await
}

/// Waits until every service's readiness has said SERVING since `since`, at
/// most 5 s after it.
async fn wait_ready_again(health: &[(&str, Said, Said)], since: Instant) {
    let serving_since = |said: &Said| {
        said.lock()
            .unwrap()
            .last()
            .is_some_and(|(at, status)| *status == ServingStatus::Serving && *at > since)
    };
    while !health
        .iter()
        .all(|(_, readiness, _)| serving_since(readiness))
    {
        assert!(
            since.elapsed() < Duration::from_secs(5),
            "readiness not SERVING again within 5 s: {health:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every status one health name of a service said, with when.
type Said = Arc<Mutex<Vec<(Instant, ServingStatus)>>>;

/// Follows `service`'s health under `name` on the replica at `addr`.
fn follow_health(addr: SocketAddr, name: &str) -> Said {
    let said: Said = Arc::default();
    let (record, name) = (said.clone(), name.to_owned());
    tokio::spawn(async move {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut stream = HealthClient::new(channel)
            .watch(HealthCheckRequest { service: name })
            .await
            .unwrap()
            .into_inner();
        while let Ok(Some(update)) = stream.message().await {
            record
                .lock()
                .unwrap()
                .push((Instant::now(), update.status()));
        }
    });
    said
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_service_recovers_by_itself_when_its_database_comes_back() {
    let Some(topology) = one_replica_each().await else {
        return;
    };
    let education = topology.education[0];
    let addrs = [
        ("auth", AUTH, topology.auth),
        ("education", EDUCATION, education),
        ("wiki", WIKI, topology.wiki),
        ("files", FILES, topology.files),
    ];
    let mut services: Vec<Process> = addrs
        .iter()
        .map(|(target, _, addr)| topology.spawn_service(target, target, *addr))
        .collect();
    let (mut gateway_process, gateway) = topology.spawn_gateway();
    let http = reqwest::Client::new();
    {
        let mut processes: Vec<&mut Process> = services.iter_mut().collect();
        processes.push(&mut gateway_process);
        gateway.wait_serving(&http, &mut processes).await;
    }
    let pids: Vec<u32> = services.iter().map(Process::id).collect();
    let token = crate::support::sign_in_admin(&http, &gateway.base, ADMIN_PASSWORD).await;
    // Readiness (the service's name) and liveness (the empty name) of each.
    let health: Vec<(&str, Said, Said)> = addrs
        .iter()
        .map(|(target, service, addr)| {
            (
                *target,
                follow_health(*addr, service),
                follow_health(*addr, ""),
            )
        })
        .collect();

    let writers = writers(&http, &gateway, &token);
    writers.wait_writing().await;
    let away = Instant::now();
    topology.databases.set_away(true).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let back = writers.mark();
    topology.databases.set_away(false).await;
    let deadline = back + Duration::from_secs(5);
    while !writers.all_back() {
        assert!(
            Instant::now() < deadline,
            "writes did not succeed again on every service within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    wait_ready_again(&health, back).await;
    // Steady load after, then stop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let load = writers.stop().await;
    assert_eq!(
        load.refused_after_recovery,
        0,
        "writes refused after their service had recovered: {:?}",
        load.refused.last()
    );
    let mut acknowledged: Vec<(Write, i64)> = load
        .acknowledged
        .iter()
        .map(|(writer, id)| (Write::ALL[*writer], *id))
        .collect();

    // A quiet outage: the databases go away while nobody writes and come back.
    // Each pool still holds the connections a burst opened before, all broken:
    // none may be handed out, so the first writes after it all succeed.
    let warm = burst(&http, &gateway, &token, 10_000).await;
    let quiet = Instant::now();
    topology.databases.set_away(true).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    topology.databases.set_away(false).await;
    let reopened = Instant::now();
    wait_ready_again(&health, reopened).await;
    let after = burst(&http, &gateway, &token, 20_000).await;
    let refused: Vec<&(Write, Result<i64, Refusal>)> =
        after.iter().filter(|(_, answer)| answer.is_err()).collect();
    println!(
        "outages: a quiet outage of {:.1} s, then {BURST} concurrent writes to each service: {} refused",
        (reopened - quiet).as_secs_f64(),
        refused.len()
    );
    assert!(
        refused.is_empty(),
        "refused after a quiet outage: {refused:?}"
    );
    for (write, answer) in warm.iter().chain(&after) {
        let id = answer
            .as_ref()
            .unwrap_or_else(|refusal| panic!("{write:?}: {refusal:?}"));
        acknowledged.push((*write, *id));
    }

    for (writer, write) in Write::ALL.into_iter().enumerate() {
        let refused: Vec<&Refusal> = load
            .refused
            .iter()
            .filter(|(w, _)| *w == writer)
            .map(|(_, refusal)| refusal)
            .collect();
        println!(
            "outages: {} ({write:?}): {} writes acknowledged, {} refused while its database was away; writes again {} ms after it came back",
            write.service(),
            acknowledged.iter().filter(|(w, _)| *w == write).count(),
            refused.len(),
            (load.first_success_after[&writer] - back).as_millis()
        );
        // What clients saw meanwhile: a 503 envelope for people, never a 500.
        for refusal in refused {
            match refusal {
                Ok((status, envelope)) => assert_unavailable_envelope(*status, envelope),
                Err(failure) => panic!("{write:?}: the call itself failed: {failure}"),
            }
        }
        // Every acknowledged write is there.
        let mut database = sqlx::AnyConnection::connect(&topology.databases.url(write.service()))
            .await
            .unwrap();
        let stored: HashSet<i64> = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
            "SELECT id FROM {}",
            write.table()
        )))
        .fetch_all(&mut database)
        .await
        .unwrap()
        .into_iter()
        .collect();
        let lost: Vec<i64> = acknowledged
            .iter()
            .filter(|(w, id)| *w == write && !stored.contains(id))
            .map(|(_, id)| *id)
            .collect();
        assert!(
            lost.is_empty(),
            "{write:?}: acknowledged but lost: {lost:?}"
        );
    }
    for (service, readiness, liveness) in &health {
        let readiness = readiness.lock().unwrap();
        let went_down = readiness
            .iter()
            .find(|(at, status)| *at > away && *status == ServingStatus::NotServing)
            .map(|(at, _)| *at - away);
        let up_again = readiness
            .iter()
            .find(|(at, status)| *at > back && *status == ServingStatus::Serving)
            .map(|(at, _)| *at - back);
        println!(
            "outages: {service} readiness NOT_SERVING {went_down:?} after its database went away, SERVING {up_again:?} after it came back"
        );
        assert!(
            went_down.is_some_and(|d| d < back - away),
            "{service}: {readiness:?}"
        );
        let liveness = liveness.lock().unwrap();
        assert!(
            liveness
                .iter()
                .all(|(_, status)| *status == ServingStatus::Serving),
            "{service}: liveness changed: {liveness:?}"
        );
    }
    // Nothing was restarted.
    for (process, pid) in services.iter_mut().zip(pids) {
        process.assert_alive();
        assert_eq!(process.id(), pid);
    }
    gateway_process.assert_alive();

    drop((services, gateway_process));
    topology.databases.drop_all().await;
}
