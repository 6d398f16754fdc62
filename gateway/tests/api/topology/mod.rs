//! The split topology, as Kubernetes runs it: auth, education (two replicas),
//! wiki, files and two gateways as separate processes of the real binary, each
//! service on a PostgreSQL database of its own, with the settings the manifests
//! give them (`k8s/base/*.env` read as they are, plus what each Deployment sets).
//! Only what a cluster supplies by name differs: listen addresses, the upstream
//! URLs (two education replicas on 127.0.0.2 and 127.0.0.3, where a cluster's
//! headless Service would name them), key files and database URLs (Secrets),
//! and the trusted proxy range (the pod CIDR; here loopback).
//!
//! A smoke flow (auth, education, a wiki read) goes through REST, native gRPC
//! and grpc-web on both gateways and must reach both education replicas (their
//! own /metrics tell). A right taken away is refused by both education
//! replicas, asked directly, once each has learned it from auth (the time is
//! printed). Then, under a steady write load, one education replica is
//! killed with SIGKILL (only calls in flight on it may fail; restarted, it takes
//! calls again), and so is auth, the lone replica, which is started again: the
//! time until writes succeed again is printed, and every write a client saw
//! acknowledged must be there afterwards.
//!
//! Each service process starts as its pod does: `portal migrate` first (the
//! init container), then the service with `PORTAL_MIGRATE=check`. Last, a
//! rollout and a rollback ([`releases::roll_out_and_back`] says what is simulated).
//!
//! Needs PostgreSQL (`PORTAL_TEST_POSTGRES_URL`); without it the test says
//! SKIPPED, and fails instead under `PORTAL_REQUIRE_E2E=1` (CI).

mod releases;

use releases::roll_out_and_back;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use portal_kit::testing::postgres_or_skip;
use portal_proto::auth::v1 as auth_pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::education::v1 as education_pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use serde_json::{Value, json};

use crate::support::cluster::{
    ADMIN_PASSWORD, Gateway, Load, Topology, Writers, free_port, loopback, rpc_calls,
};

const EDUCATION: &str = "portal.education.v1.EducationService";

const WRITERS: usize = 4;

type TitledLoad = Load<String, String>;

/// Four writers, two on each gateway, each writing one new titled row after
/// another (`path` with `body(title)`), recording the titles acknowledged.
fn titled_writers(
    gateways: &[Gateway; 2],
    http: &reqwest::Client,
    token: &str,
    path: &'static str,
    body: fn(&str) -> Value,
) -> Writers<String, String> {
    let (http, token) = (http.clone(), token.to_owned());
    let bases = gateways.each_ref().map(|gateway| gateway.base.clone());
    Writers::start(WRITERS, move |writer, n| {
        let (http, token) = (http.clone(), token.clone());
        let gateway = Gateway {
            base: bases[writer % 2].clone(),
        };
        async move {
            let title = format!("Запись {writer}-{n}");
            gateway
                .post(&http, path, &token, body(&title))
                .await
                .map(|_| title)
        }
    })
}

/// The acknowledged titles missing from `stored`.
fn lost<'a>(load: &'a TitledLoad, stored: &Value) -> Vec<&'a String> {
    let stored: HashSet<&str> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["title"].as_str().unwrap())
        .collect();
    load.acknowledged
        .iter()
        .map(|(_, title)| title)
        .filter(|title| !stored.contains(title.as_str()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_split_topology_serves_balances_and_recovers_from_a_killed_service() {
    let Some(admin_url) = postgres_or_skip("the split topology test") else {
        return;
    };
    // Services on 127.0.0.1, education's replicas on .2 and .3.
    let education_port = free_port(loopback(2));
    let education_addrs = [2, 3].map(|i| SocketAddr::new(loopback(i), education_port));
    let topology = Topology::new(&admin_url, education_addrs.to_vec()).await;

    let started = Instant::now();
    let mut auth = topology.spawn_service("auth", "auth", topology.auth);
    let mut education_a = topology.spawn_service("education-a", "education", education_addrs[0]);
    let mut education_b = topology.spawn_service("education-b", "education", education_addrs[1]);
    let mut wiki = topology.spawn_service("wiki", "wiki", topology.wiki);
    let mut files = topology.spawn_service("files", "files", topology.files);
    let (gateway_a, gateway_a_client) = topology.spawn_gateway();
    let (gateway_b, gateway_b_client) = topology.spawn_gateway();
    let mut gateway_processes = [gateway_a, gateway_b];
    let gateways = [gateway_a_client, gateway_b_client];
    let http = reqwest::Client::new();
    for gateway in &gateways {
        let [g1, g2] = &mut gateway_processes;
        gateway
            .wait_serving(
                &http,
                &mut [
                    &mut auth,
                    &mut education_a,
                    &mut education_b,
                    &mut wiki,
                    &mut files,
                    g1,
                    g2,
                ],
            )
            .await;
    }
    println!(
        "topology: 7 processes ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Each gateway's health streams have seen every replica SERVING (/readyz).

    // --- Smoke: sign in, read and write through REST, gRPC and grpc-web, on both gateways.
    let token = crate::support::sign_in_admin(&http, &gateways[0].base, ADMIN_PASSWORD).await;
    let mut course_ids = HashSet::new();
    for (i, gateway) in gateways.iter().enumerate() {
        let department = gateway
            .post(
                &http,
                "/api/department/create",
                &token,
                json!({"title": format!("Отделение {i}"), "users": []}),
            )
            .await
            .unwrap();
        assert!(department["id"].as_i64().is_some());
        for j in 0..4 {
            let course = gateway
                .post(
                    &http,
                    "/api/course/create-course-with-user-and-articles",
                    &token,
                    json!({
                        "title": format!("Курс {i}-{j}"),
                        "description": "Обязательный курс",
                        "dateDeadline": "2099-01-31",
                        "userIds": [1],
                        "articleIds": [],
                    }),
                )
                .await
                .unwrap();
            course_ids.insert(course["id"].as_i64().unwrap());
        }
        let departments = gateway.get(&http, "/api/department/get-all", &token).await;
        assert_eq!(departments.as_array().unwrap().len(), i + 1);
        let courses = gateway
            .get(&http, "/api/course/get-all-courses", &token)
            .await;
        assert_eq!(courses.as_array().unwrap().len(), 4 * (i + 1));
        // The wiki answers from its own database (no equipment yet).
        let models = gateway
            .get(&http, "/api/environment-model/get-all", &token)
            .await;
        assert_eq!(models, json!([]));

        let channel = gateway.grpc().await;
        let mut request = tonic::Request::new(auth_pb::ListDepartmentsRequest {});
        request
            .metadata_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        let listed = AuthServiceClient::new(channel.clone())
            .list_departments(request)
            .await
            .unwrap()
            .into_inner();
        assert_eq!(listed.departments.len(), i + 1);
        for _ in 0..4 {
            let mut request = tonic::Request::new(education_pb::ListCoursesRequest {});
            request
                .metadata_mut()
                .insert("authorization", format!("Bearer {token}").parse().unwrap());
            let courses = EducationServiceClient::new(channel.clone())
                .list_courses(request)
                .await
                .unwrap()
                .into_inner();
            assert_eq!(courses.courses.len(), 4 * (i + 1));
        }

        let listed: auth_pb::ListDepartmentsResponse = gateway
            .grpc_web(
                &http,
                "portal.auth.v1.AuthService/ListDepartments",
                auth_pb::ListDepartmentsRequest {},
                &token,
            )
            .await;
        assert_eq!(listed.departments.len(), i + 1);
        for _ in 0..4 {
            let courses: education_pb::ListCoursesResponse = gateway
                .grpc_web(
                    &http,
                    &format!("{EDUCATION}/ListCourses"),
                    education_pb::ListCoursesRequest {},
                    &token,
                )
                .await;
            assert_eq!(courses.courses.len(), 4 * (i + 1));
        }
    }
    assert_eq!(course_ids.len(), 8);

    // Both education replicas took calls: each one's own /metrics says so.
    let counts = [
        rpc_calls(&education_a.metrics(&http).await, EDUCATION),
        rpc_calls(&education_b.metrics(&http).await, EDUCATION),
    ];
    println!(
        "topology: education calls per replica: {} at {}, {} at {}",
        counts[0], education_addrs[0], counts[1], education_addrs[1]
    );
    assert_eq!(counts[0] + counts[1], 2.0 * (4.0 + 1.0 + 4.0 + 4.0));
    assert!(
        counts.iter().all(|&c| c >= 4.0),
        "calls did not spread: {counts:?}"
    );
    // The request id the caller sent is in a service's JSON log line.
    let logged = [&education_a, &education_b].iter().any(|p| {
        std::fs::read_to_string(&p.log)
            .unwrap()
            .lines()
            .any(|l| l.starts_with('{') && l.contains("\"request_id\":\"topology-read-1\""))
    });
    assert!(logged, "no education log line carries the request id");

    // --- A right taken away: both education replicas refuse the old token,
    // each once it has asked auth (every second); the time is printed.
    let statuses = gateways[0]
        .get(&http, "/api/user/get-all-statuses", &token)
        .await;
    let working = statuses
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Работает")
        .unwrap()["id"]
        .clone();
    let editor = |rights: Value| {
        json!({
            "name": "Ольга", "surname": "Петрова", "lastName": "Ивановна",
            "login": "petrova", "password": "petrova-password",
            "email": "petrova@hospital.example", "status": { "id": working },
            "departments": [], "positions": [], "rights": rights,
        })
    };
    let created = gateways[0]
        .post(&http, "/api/user/create-user", &token, editor(json!([2])))
        .await
        .unwrap();
    let login = http
        .post(format!("{}/api/auth/login", gateways[1].base))
        .json(&json!({"login": "petrova", "password": "petrova-password"}))
        .send()
        .await
        .unwrap();
    let editor_token = login.json::<Value>().await.unwrap()["data"]["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut replicas = Vec::new();
    for addr in education_addrs {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        replicas.push(EducationServiceClient::new(channel));
    }
    let list_courses = |mut client: EducationServiceClient<tonic::transport::Channel>| {
        let mut request = tonic::Request::new(education_pb::ListCoursesRequest {});
        request.metadata_mut().insert(
            "authorization",
            format!("Bearer {editor_token}").parse().unwrap(),
        );
        async move { client.list_courses(request).await }
    };
    for replica in &replicas {
        list_courses(replica.clone()).await.unwrap();
    }
    let mut without_right = editor(json!([]));
    without_right["id"] = created["id"].clone();
    without_right["password"] = json!("");
    gateways[0]
        .post(&http, "/api/user/update-user", &token, without_right)
        .await
        .unwrap();
    let changed = Instant::now();
    let mut refused_after = [None, None];
    while refused_after.iter().any(Option::is_none) {
        for (replica, refused) in replicas.iter().zip(&mut refused_after) {
            if refused.is_some() {
                continue;
            }
            if let Err(status) = list_courses(replica.clone()).await {
                assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
                assert_eq!(
                    status
                        .metadata()
                        .get(portal_kit::error::REASON_KEY)
                        .unwrap(),
                    portal_kit::error::REASON_ACCESS_REVOKED
                );
                *refused = Some(changed.elapsed());
            }
        }
        assert!(
            changed.elapsed() < Duration::from_secs(30),
            "a removed right still accepted after 30 s: {refused_after:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let [a, b] = refused_after.map(|d| d.unwrap().as_millis());
    println!(
        "topology: a removed right refused by education at {} after {a} ms, at {} after {b} ms (both by {} ms)",
        education_addrs[0],
        education_addrs[1],
        a.max(b)
    );
    drop(replicas);

    // --- Kill -9 one education replica under a steady write load: the other
    // takes the calls; at most those in flight on the killed one fail.
    let writers = titled_writers(
        &gateways,
        &http,
        &token,
        "/api/course/create-course-with-user-and-articles",
        |title| json!({"title": title, "description": "Под нагрузкой", "dateDeadline": "2099-01-31", "userIds": [1], "articleIds": []}),
    );
    writers.wait_writing().await;
    education_b.kill_9();
    tokio::time::sleep(Duration::from_secs(1)).await;
    education_b.restart();
    // Back in the rotation: its new process takes calls again.
    let deadline = Instant::now() + Duration::from_secs(15);
    let rejoined = loop {
        education_b.assert_alive();
        let url = format!(
            "http://{}/metrics",
            education_b.setting("PORTAL_METRICS_ADDR")
        );
        if let Ok(response) = http.get(url).send().await {
            let calls = rpc_calls(&response.text().await.unwrap(), EDUCATION);
            if calls > 0.0 {
                break calls;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the restarted replica got no calls"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let load = writers.stop().await;
    println!(
        "topology: education-b killed (SIGKILL) under load: {} course writes acknowledged, {} failed (at most the {WRITERS} in flight may); restarted, it took calls again ({rejoined} by then)",
        load.acknowledged.len(),
        load.refused.len(),
    );
    assert!(
        load.refused.len() <= WRITERS,
        "{} calls failed when one replica of two died",
        load.refused.len()
    );
    let courses = gateways[0]
        .get(&http, "/api/course/get-all-courses", &token)
        .await;
    let missing = lost(&load, &courses);
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");

    // --- Kill -9 auth (one replica) under a steady write load, start it again.
    let writers = titled_writers(
        &gateways,
        &http,
        &token,
        "/api/department/create",
        |title| json!({"title": title, "users": []}),
    );
    writers.wait_writing().await;
    auth.kill_9();
    let kill_time = Instant::now();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let failed_while_down = writers.refused();
    let restart_time = writers.mark();
    auth.restart();
    let deadline = restart_time + Duration::from_secs(30);
    while !writers.all_back() {
        auth.assert_alive();
        assert!(Instant::now() < deadline, "writes did not recover in 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A little more steady load after recovery, then stop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let load = writers.stop().await;

    let first_back = *load.first_success_after.values().min().unwrap();
    let all_back = *load.first_success_after.values().max().unwrap();
    let recovery = first_back - restart_time;
    println!(
        "topology: auth killed (SIGKILL), started again {:.0} ms later; writes succeeded again {:.2} s after the restart ({:.2} s after the kill; every writer back after {:.2} s); {} refused while auth was down",
        (restart_time - kill_time).as_secs_f64() * 1000.0,
        recovery.as_secs_f64(),
        (first_back - kill_time).as_secs_f64(),
        (all_back - restart_time).as_secs_f64(),
        failed_while_down,
    );
    assert!(
        recovery < Duration::from_secs(5),
        "recovery took {recovery:?}"
    );
    // Every acknowledged write is there.
    let departments = gateways[1]
        .get(&http, "/api/department/get-all", &token)
        .await;
    let missing = lost(&load, &departments);
    println!(
        "topology: {} department writes acknowledged, {} lost",
        load.acknowledged.len(),
        missing.len()
    );
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");

    roll_out_and_back(
        &topology.databases,
        &mut [
            &mut auth,
            &mut education_a,
            &mut education_b,
            &mut wiki,
            &mut files,
        ],
        &gateways,
        &http,
        &token,
    )
    .await;
    println!(
        "topology: finished in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    drop((
        auth,
        education_a,
        education_b,
        wiki,
        files,
        gateway_processes,
    ));
    topology.databases.drop_all().await;
}
