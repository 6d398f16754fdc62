//! The spine through the gateway's one port: gRPC health and reflection, REST
//! envelopes and statuses on real routes, the web client's fallback and headers.

use crate::support::{envelope, gateway_to, start};
use portal_kit::Right;
use portal_kit::internal::{InternalKeys, MSG_INTERNAL_ONLY};
use portal_proto::auth::v1::access_revocation_service_client::AccessRevocationServiceClient;
use portal_proto::auth::v1::mail_recipient_service_client::MailRecipientServiceClient;
use portal_proto::auth::v1::{ListAccessChangesRequest, ListMailRecipientsPageRequest};
use portal_proto::wiki::v1::ListRequiredCoursesRequest;
use portal_proto::wiki::v1::digest_item_service_client::DigestItemServiceClient;
use serde_json::Value;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

const SERVICES: [&str; 4] = [
    "portal.auth.v1.AuthService",
    "portal.education.v1.EducationService",
    "portal.wiki.v1.WikiService",
    "portal.files.v1.FilesService",
];

#[tokio::test]
async fn native_grpc_health_reaches_each_service_through_the_gateway() {
    let portal = start(&[]).await;
    let channel = portal.grpc_channel().await;
    let mut health = HealthClient::new(channel);
    for service in SERVICES.into_iter().chain([""]) {
        let reply = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap();
        assert_eq!(
            reply.into_inner().status(),
            ServingStatus::Serving,
            "{service}"
        );
    }
    let unknown = health
        .check(HealthCheckRequest {
            service: "billing.v1.Billing".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn reflection_lists_every_contract_and_health() {
    let portal = start(&[]).await;
    let channel = portal.grpc_channel().await;
    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = reflection
        .server_reflection_info(tokio_stream::once(request))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("{reply:?}")
    };
    let names: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
    for expected in SERVICES.into_iter().chain(["grpc.health.v1.Health"]) {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing from {names:?}"
        );
    }
    // Only what the gateway forwards: the services' internal ones are not.
    for internal in INTERNAL_SERVICES {
        assert!(!names.iter().any(|n| n == internal), "{internal} listed");
    }
    // Nor the contracts four services serve: the gateway asks all four itself.
    for shared in SHARED_SERVICES {
        assert!(!names.iter().any(|n| n == shared), "{shared} listed");
    }
    portal.running.stop().await.unwrap();
}

/// The services that answer for no person: only the portal's own services call them.
const INTERNAL_SERVICES: [&str; 3] = [
    "portal.auth.v1.MailRecipientService",
    "portal.auth.v1.AccessRevocationService",
    "portal.wiki.v1.DigestItemService",
];

/// The contracts every service serves over its own records.
const SHARED_SERVICES: [&str; 2] = [
    "portal.audit.v1.AuditService",
    "portal.search.v1.SearchService",
];

/// The first of four free loopback ports in a row (auth, education, wiki, files).
async fn free_port_block() -> u16 {
    loop {
        let first = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = first.local_addr().unwrap().port();
        let mut held = vec![first];
        for next in 1..4 {
            match port.checked_add(next) {
                Some(next) => match tokio::net::TcpListener::bind(("127.0.0.1", next)).await {
                    Ok(listener) => held.push(listener),
                    Err(_) => break,
                },
                None => break,
            }
        }
        if held.len() == 4 {
            return port;
        }
    }
}

/// `message` as someone on the machine sends it: with `token`, if any, and
/// no credential of the portal's services.
fn as_caller<T>(message: T, token: Option<&str>) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(token) = token {
        let bearer = format!("Bearer {token}").parse().unwrap();
        request.metadata_mut().insert("authorization", bearer);
    }
    request
}

#[tokio::test]
async fn internal_services_answer_only_the_portals_own_credential_even_on_their_ports() {
    let port = free_port_block().await;
    let portal = start(&[&format!("--loopback-port={port}")]).await;
    let channel = |port: u16| {
        tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect_lazy()
    };
    // Auth's loopback port, and the wiki's two above it.
    let (auth, wiki) = (channel(port), channel(port + 2));
    let admin = portal.token(1, &Right::ALL);
    for token in [None, Some(admin.as_str())] {
        let refused = [
            MailRecipientServiceClient::new(auth.clone())
                .list_mail_recipients_page(as_caller(
                    ListMailRecipientsPageRequest::default(),
                    token,
                ))
                .await
                .err(),
            AccessRevocationServiceClient::new(auth.clone())
                .list_access_changes(as_caller(ListAccessChangesRequest::default(), token))
                .await
                .err(),
            DigestItemServiceClient::new(wiki.clone())
                .list_required_courses(as_caller(ListRequiredCoursesRequest::default(), token))
                .await
                .err(),
        ];
        for status in refused {
            let status = status.expect("refused");
            assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
            assert_eq!(status.message(), MSG_INTERNAL_ONLY);
        }
    }
    // The portal's own services, with their credential, are answered.
    let keys = InternalKeys::from_file(&portal.data.path().join("internal.key")).unwrap();
    MailRecipientServiceClient::with_interceptor(auth.clone(), keys.credential())
        .list_mail_recipients_page(ListMailRecipientsPageRequest::default())
        .await
        .expect("answered");
    let changes = AccessRevocationServiceClient::with_interceptor(auth, keys.credential())
        .list_access_changes(ListAccessChangesRequest::default())
        .await
        .expect("answered")
        .into_inner();
    assert!(changes.cursor >= 0);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn rest_answers_in_the_envelope_with_designed_statuses() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::UserManagement]);
    let learner = portal.token(2, &[]);

    let (status, _, body) = portal.get("/api/user/get-all-user", None).await;
    assert_eq!(status, 401);
    assert_eq!(envelope(&body)["success"], false);

    let (status, _, body) = portal.get("/api/user/get-all-user", Some(&learner)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        envelope(&body)["errorMessage"],
        "У вас нет доступа к данному ресурсу"
    );

    let (status, _, body) = portal
        .get(
            "/api/department/get-by-id?departmentId=987654",
            Some(&admin),
        )
        .await;
    assert_eq!(status, 404, "{body}");
    envelope(&body);

    let (status, _, body) = portal
        .get("/api/department/get-by-id?departmentId=abc", Some(&admin))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        envelope(&body)["errorMessage"],
        "Параметр «departmentId»: ожидается целое число"
    );

    let response = portal
        .http
        .post(format!("{}/api/auth/login", portal.base))
        .header("content-type", "application/json")
        .body("{\"login\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    envelope(&response.text().await.unwrap());

    let (status, _, body) = portal.get("/api/user/get-all-user", Some(&admin)).await;
    assert_eq!(status, 200, "{body}");
    let users = envelope(&body)["data"].clone();
    assert!(users.as_array().is_some_and(|u| !u.is_empty()), "{users}");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_resource_segment_matches_case_insensitively() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::UserManagement]);
    let (lower, _, lower_body) = portal.get("/api/user/get-all-user", Some(&admin)).await;
    let (mixed, _, mixed_body) = portal.get("/api/User/get-all-user", Some(&admin)).await;
    assert_eq!((lower, mixed), (200, 200));
    assert_eq!(lower_body, mixed_body);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_upstream_is_a_clean_503() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let portal = gateway_to(&format!("http://{closed}"), &[]).await;
    let (status, _, body) = portal
        .get("/api/department/get-all", Some("stand-in"))
        .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        envelope(&body)["errorMessage"],
        "Сервис временно недоступен. Пожалуйста, попробуйте позже."
    );
    // Ready all the same: it answers, at once, what it can; /readyz says why.
    let (ready, _, why) = portal.get("/readyz", None).await;
    assert_eq!(ready, 200, "{why}");
    assert_eq!(why.lines().next(), Some("ready"));
    assert_eq!(
        why.lines()
            .filter(|line| line.ends_with(": NOT SERVING (0 of 1 replicas)"))
            .count(),
        4,
        "{why}"
    );
    let (live, _, _) = portal.get("/healthz", None).await;
    assert_eq!(live, 200);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_csp_frames_the_portal_and_the_hosts_of_portal_frame_hosts_only() {
    let portal = start(&["--frame-hosts=rutube.ru, www.youtube.com"]).await;
    let (status, headers, _) = portal.get("/courses", None).await;
    assert_eq!(status, 200);
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("; frame-src 'self' https://rutube.ru https://www.youtube.com;"),
        "{csp}"
    );
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_web_client_falls_back_to_index_with_cache_rules_and_security_headers() {
    let portal = start(&[]).await;
    let (status, headers, body) = portal.get("/courses/5/article/7", None).await;
    assert_eq!(status, 200);
    assert!(body.contains("id=\"root\""));
    assert_eq!(headers["cache-control"], "no-cache");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert!(!csp.contains("script-src 'self' 'unsafe-inline'"));
    assert!(
        csp.contains("frame-src 'self';"),
        "frames only from the portal: {csp}"
    );
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(headers.contains_key("referrer-policy"));

    let (status, headers, _) = portal.get("/assets/app-3f2a9c.js", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["cache-control"],
        "public, max-age=31536000, immutable"
    );

    let (status, headers, body) = portal.get("/api/no-such-call", None).await;
    assert_eq!(status, 404);
    assert_eq!(envelope(&body)["success"], false);
    assert_eq!(headers["x-content-type-options"], "nosniff");

    let (ready, _, _) = portal.get("/readyz", None).await;
    assert_eq!(ready, 200);
    let (status, _, body) = portal.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&body).unwrap();
    assert!(document["paths"]["/api/auth/login"]["post"].is_object());
    portal.running.stop().await.unwrap();
}

/// What a generated client needs of the document, one line per gap: every
/// operation that answers the envelope has its own envelope component whose
/// `data` is typed (not the shared `Envelope`'s any-value), and every field a
/// body schema requires is one of its properties.
fn untyped_or_unsound(document: &Value) -> Vec<String> {
    let schemas = &document["components"]["schemas"];
    let resolve = |schema: &Value| -> Value {
        match schema["$ref"].as_str() {
            Some(target) => schemas[target.trim_start_matches("#/components/schemas/")].clone(),
            None => schema.clone(),
        }
    };
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let at = format!("{} {path}", method.to_uppercase());
            let Some(json) = operation["responses"]["200"]["content"].get("application/json")
            else {
                continue; // a file
            };
            let reference = json["schema"]["$ref"].as_str().unwrap_or_default();
            if path != "/api/oauth/token" {
                if reference.is_empty() || reference.ends_with("/Envelope") {
                    found.push(format!("{at}: 200 is not its own envelope"));
                } else {
                    let data = &resolve(&json["schema"])["properties"]["data"];
                    let typed = data.get("$ref").is_some()
                        || data.get("type").is_some()
                        || data.get("oneOf").is_some()
                        || data.get("allOf").is_some();
                    if !typed {
                        found.push(format!("{at}: data is untyped: {data}"));
                    }
                }
            }
            let bodies = operation["requestBody"]["content"].as_object();
            for (media_type, media) in bodies.into_iter().flatten() {
                let body = resolve(&media["schema"]);
                for required in body["required"].as_array().into_iter().flatten() {
                    let name = required.as_str().unwrap_or_default();
                    if body["properties"].get(name).is_none() {
                        found.push(format!("{at}: {media_type} requires {name}, no such field"));
                    }
                }
            }
        }
    }
    for (name, schema) in schemas.as_object().unwrap() {
        for reference in schema.to_string().split("\"$ref\":\"").skip(1) {
            let target = reference.split('"').next().unwrap_or_default();
            let target = target.trim_start_matches("#/components/schemas/");
            if schemas.get(target).is_none() {
                found.push(format!("{name}: refers to {target}, which is not there"));
            }
        }
    }
    found
}

#[tokio::test]
async fn every_operation_answers_its_own_typed_data_and_requires_only_its_fields() {
    let portal = start(&[]).await;
    let (status, _, body) = portal.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&body).unwrap();
    let gaps = untyped_or_unsound(&document);
    assert!(gaps.is_empty(), "{}", gaps.join("\n"));
    let login = &document["paths"]["/api/auth/login"]["post"]["responses"]["200"]["content"]["application/json"]
        ["schema"]["$ref"];
    let answer = &document["components"]["schemas"]["PostAuthLoginAnswer"];
    assert_eq!(login, "#/components/schemas/PostAuthLoginAnswer");
    // A sign-in answers its access token, or that a second step is needed
    // (issue 39.4): both in one type, so a client reads either.
    assert_eq!(
        answer["properties"]["data"]["$ref"],
        "#/components/schemas/SignInAnswer"
    );
    let sign_in = &document["components"]["schemas"]["SignInAnswer"]["properties"];
    for field in ["accessToken", "expiresIn", "mfaRequired", "mfaToken"] {
        assert!(sign_in.get(field).is_some(), "SignInAnswer lacks {field}");
    }
    let departments = &document["components"]["schemas"]["GetDepartmentGetAllAnswer"];
    assert_eq!(
        departments["properties"]["data"]["items"]["$ref"],
        "#/components/schemas/auth.v1.Department"
    );
    portal.running.stop().await.unwrap();

    let mut bare = document.clone();
    bare["paths"]["/api/department/get-all"]["get"]["responses"]["200"]["content"]["application/json"]
        ["schema"]["$ref"] = "#/components/schemas/Envelope".into();
    bare["paths"]["/api/auth/login"]["post"]["requestBody"]["content"]["application/json"]["schema"] =
        serde_json::json!({"type": "object", "properties": {}, "required": ["nosuch"]});
    let gaps = untyped_or_unsound(&bare);
    assert!(
        gaps.iter()
            .any(|gap| gap == "GET /api/department/get-all: 200 is not its own envelope"),
        "{gaps:#?}"
    );
    assert!(
        gaps.iter()
            .any(|gap| gap.ends_with("requires nosuch, no such field")),
        "{gaps:#?}"
    );
}
