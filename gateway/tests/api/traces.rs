//! One REST call is one trace across the gateway and the services it reaches
//! (issue 38): the `portal` binary sends its spans by OTLP to a collector this
//! test runs (the OpenTelemetry `TraceService`, served by tonic), and a
//! department's clearance — the gateway asks the wiki, which asks auth and
//! education, which asks auth too — arrives as one tree under the caller's
//! `traceparent`.
//!
//! A file of its own: the binary runs in a process of its own, and the
//! collector sees only its spans.

use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::support::process::{start_ready, stop};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::{Value, json};
use tonic::transport::server::TcpIncoming;

const PORTAL: &str = env!("CARGO_BIN_EXE_portal");
const SENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const SENT_PARENT: &str = "00f067aa0ba902b7";
const ICU: i64 = 1;
const CLEARANCE_ROUTE: &str = "GET /api/environment-model/get-department-clearance";

/// One span as the collector received it, ids in hex.
#[derive(Clone, Debug)]
struct Received {
    service: String,
    trace_id: String,
    span_id: String,
    parent: String,
    name: String,
    kind: i32,
}

#[derive(Clone, Default)]
struct Collector(Arc<Mutex<Vec<Received>>>);

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut received = self.0.lock().unwrap();
        for resource_spans in request.into_inner().resource_spans {
            let service = resource_spans
                .resource
                .iter()
                .flat_map(|resource| &resource.attributes)
                .find(|attribute| attribute.key == "service.name")
                .and_then(|attribute| attribute.value.as_ref()?.value.as_ref())
                .map(|value| match value {
                    AnyValue::StringValue(name) => name.clone(),
                    other => format!("{other:?}"),
                })
                .unwrap_or_default();
            for span in resource_spans
                .scope_spans
                .into_iter()
                .flat_map(|scope| scope.spans)
            {
                received.push(Received {
                    service: service.clone(),
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent: hex::encode(&span.parent_span_id),
                    name: span.name,
                    kind: span.kind,
                });
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

impl Collector {
    /// Serves OTLP/gRPC on a free loopback port; its `http://` URL.
    async fn start(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let service = TraceServiceServer::new(self.clone());
        tokio::spawn(async move {
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(TcpIncoming::from(listener))
                .await
                .unwrap();
        });
        url
    }

    fn spans(&self) -> Vec<Received> {
        self.0.lock().unwrap().clone()
    }
}

/// `portal` (the `all` target, demo data) exporting to `collector`, logging
/// JSON into `log`, once it is ready.
async fn start_portal(
    data: &std::path::Path,
    collector: &str,
    log: &std::path::Path,
) -> (std::process::Child, String) {
    let mut command = Command::new(PORTAL);
    command
        .env("PORTAL_DATA_DIR", data)
        .env("PORTAL_SEED_DEMO", "true")
        .env("PORTAL_LOG", "info")
        .env("PORTAL_LOG_FORMAT", "json")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector)
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(log).unwrap());
    start_ready(command, data).await
}

async fn get(http: &reqwest::Client, url: String, token: &str, traceparent: &str) -> Value {
    let response = http
        .get(url)
        .bearer_auth(token)
        .header("traceparent", traceparent)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

#[tokio::test]
async fn a_rest_call_across_three_services_is_one_trace_under_the_callers_traceparent() {
    let collector = Collector::default();
    let collector_url = collector.start().await;
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("portal.log");
    let (mut child, base) = start_portal(data.path(), &collector_url, &log).await;
    let http = reqwest::Client::new();

    let login = http
        .post(format!("{base}/api/auth/login"))
        .json(&json!({"login": "engineer", "password": "engineer-demo-password"}))
        .send()
        .await
        .unwrap();
    let login: Value = login.json().await.unwrap();
    let token = login["data"]["accessToken"]
        .as_str()
        .unwrap_or_else(|| panic!("{login}"))
        .to_owned();
    let sent = format!("00-{SENT_TRACE}-{SENT_PARENT}-01");
    let models = get(
        &http,
        format!("{base}/api/environment-model/get-all"),
        &token,
        &sent,
    )
    .await;
    let ventilator = models
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("Аппарат ИВЛ"))
        .expect("the demo ventilator")["id"]
        .as_i64()
        .unwrap();
    let clearance = format!(
        "{base}/api/environment-model/get-department-clearance?environmentModelId={ventilator}&departmentId={ICU}"
    );
    let department = get(&http, clearance.clone(), &token, &sent).await;
    assert!(!department["people"].as_array().unwrap().is_empty());
    // A malformed traceparent is no trace to join: the call starts its own.
    get(&http, clearance, &token, "00-not-a-trace-01").await;
    // Stopped as Kubernetes stops it: the spans still queued are sent first.
    assert_eq!(stop(&mut child).await.code(), Some(0));

    let spans = collector.spans();
    assert!(
        spans.iter().all(|span| span.service == "portal"),
        "{spans:#?}"
    );
    let ours: Vec<&Received> = spans
        .iter()
        .filter(|span| span.trace_id == SENT_TRACE)
        .collect();
    // Two requests continue the caller's span: the list of models and the clearance.
    let roots: Vec<&&Received> = ours
        .iter()
        .filter(|span| span.parent == SENT_PARENT)
        .collect();
    assert_eq!(roots.len(), 2, "{ours:#?}");
    let request = roots
        .iter()
        .find(|span| span.name == CLEARANCE_ROUTE)
        .unwrap_or_else(|| panic!("the clearance request's span: {ours:#?}"));
    assert_eq!(request.kind, SpanKind::Server as i32);
    // Every other span of the trace hangs under one of the trace's spans.
    let ids: HashSet<&str> = ours.iter().map(|span| span.span_id.as_str()).collect();
    assert_eq!(ids.len(), ours.len(), "span ids are unique: {ours:#?}");
    for span in &ours {
        assert!(
            span.parent == SENT_PARENT || ids.contains(span.parent.as_str()),
            "{span:?} is no child of the trace: {ours:#?}"
        );
    }
    let rpc = |in_trace: &[&Received], name: &str| -> Received {
        let found: Vec<&&Received> = in_trace.iter().filter(|span| span.name == name).collect();
        assert_eq!(found.len(), 1, "one {name}: {in_trace:#?}");
        assert_eq!(found[0].kind, SpanKind::Server as i32);
        (*found[0]).clone()
    };
    // The gateway asked the wiki; the wiki auth (the department's members)
    // and education (their passes), which asked auth in turn.
    let wiki = rpc(&ours, "portal.wiki.v1.WikiService/GetDepartmentClearance");
    assert_eq!(wiki.parent, request.span_id, "{ours:#?}");
    let education = rpc(
        &ours,
        "portal.education.v1.EducationService/ListCoursePasses",
    );
    assert_eq!(education.parent, wiki.span_id, "{ours:#?}");
    let auth: Vec<&&Received> = ours
        .iter()
        .filter(|span| span.name == "portal.auth.v1.AuthService/GetDepartmentWithUsers")
        .collect();
    assert_eq!(
        auth.iter()
            .filter(|span| span.parent == wiki.span_id)
            .count(),
        1,
        "{ours:#?}"
    );
    assert!(
        auth.iter()
            .all(|span| span.parent == wiki.span_id || span.parent == education.span_id),
        "{ours:#?}"
    );

    // The call with the malformed traceparent: a trace of its own, rooted
    // at the gateway, the services' spans in it.
    let fresh: Vec<&Received> = spans
        .iter()
        .filter(|span| span.name == CLEARANCE_ROUTE && span.trace_id != SENT_TRACE)
        .collect();
    assert_eq!(fresh.len(), 1, "{spans:#?}");
    let fresh_root = fresh[0];
    assert!(fresh_root.parent.is_empty(), "{fresh_root:?}");
    let fresh_trace: Vec<&Received> = spans
        .iter()
        .filter(|span| span.trace_id == fresh_root.trace_id)
        .collect();
    let wiki = rpc(
        &fresh_trace,
        "portal.wiki.v1.WikiService/GetDepartmentClearance",
    );
    assert_eq!(wiki.parent, fresh_root.span_id);
    assert_eq!(
        rpc(
            &fresh_trace,
            "portal.education.v1.EducationService/ListCoursePasses"
        )
        .parent,
        wiki.span_id
    );

    // The log lines of the call name its trace: the gateway's and each service's.
    let logs = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = logs
        .lines()
        .filter(|line| line.contains(SENT_TRACE))
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}")))
        .collect();
    let logged = |message: &str, method: Option<&str>| {
        lines.iter().any(|line| {
            line["message"] == message
                && line["span"]["trace_id"] == SENT_TRACE
                && method.is_none_or(|method| line["method"] == method)
        })
    };
    assert!(logged("request", None), "{logs}");
    for method in [
        "/portal.wiki.v1.WikiService/GetDepartmentClearance",
        "/portal.auth.v1.AuthService/GetDepartmentWithUsers",
        "/portal.education.v1.EducationService/ListCoursePasses",
    ] {
        assert!(logged("rpc", Some(method)), "{method}: {logs}");
    }
    assert!(
        !logs.contains("otel.name") && !logs.contains("otel.kind"),
        "the trace's own fields stay out of the log: {logs}"
    );
}
