//! The document's own checks: every operation callable by a tool.

use super::messages::camel_case;
use super::*;
use serde_json::Value;

/// The only POSTs that read no body: the session calls carry a cookie,
/// and "send today's digests now" has nothing to say but the call.
const BODYLESS: [&str; 4] = [
    "/api/auth/refresh-token",
    "/api/auth/logout",
    "/api/notification/send-digests-now",
    "/api/user/mfa/enrol",
];

/// Statuses whose answers every operation must document.
const STANDARD: [&str; 7] = ["400", "401", "403", "404", "409", "429", "503"];

/// The one operation that answers RFC 6749's JSON, not the envelope.
const OAUTH: &str = "/api/oauth/token";
const OAUTH_STATUSES: [&str; 4] = ["400", "401", "429", "503"];

/// What keeps a tool from calling an operation of `document` or from
/// judging its answers, one line each.
fn problems(document: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let schemas = &document["components"]["schemas"];
    let resolve = |schema: &Value| -> Value {
        match schema["$ref"].as_str() {
            Some(target) => schemas[target.trim_start_matches("#/components/schemas/")].clone(),
            None => schema.clone(),
        }
    };
    let empty = serde_json::Map::new();
    let paths = document["paths"].as_object().unwrap_or(&empty);
    for (path, item) in paths {
        let item = item.as_object().unwrap_or(&empty);
        for (method, operation) in item {
            let at = format!("{} {path}", method.to_uppercase());
            let parameters = operation["parameters"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for parameter in &parameters {
                if parameter["schema"].is_null() {
                    found.push(format!(
                        "{at}: parameter {} has no schema",
                        parameter["name"]
                    ));
                }
            }
            for segment in path.split('/') {
                let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                    continue;
                };
                let declared = parameters
                    .iter()
                    .any(|p| p["in"] == "path" && p["name"] == name && p["required"] == true);
                if !declared {
                    found.push(format!("{at}: {{{name}}} is not a required path parameter"));
                }
            }
            let has_body = matches!(method.as_str(), "post" | "put" | "patch")
                && !BODYLESS.contains(&path.as_str());
            if has_body {
                let content = operation["requestBody"]["content"].as_object();
                match content {
                    None => found.push(format!("{at}: no request body")),
                    Some(content) => {
                        for (media_type, media) in content {
                            let schema = resolve(&media["schema"]);
                            let fields = schema["properties"].as_object().map_or(0, |p| p.len());
                            if fields == 0 {
                                found.push(format!("{at}: {media_type} body has no fields"));
                            }
                        }
                    }
                }
            }
            let responses = &operation["responses"];
            // A browser's step of single sign-on: every outcome is a 303 to
            // the next page, a refusal's included.
            if responses["303"]["headers"]["Location"].is_object() {
                if responses.as_object().is_some_and(|r| r.len() != 1) {
                    found.push(format!("{at}: a redirect answers only 303"));
                }
                continue;
            }
            let success = responses["200"]["content"].as_object();
            if success.is_none_or(|c| c.values().any(|m| m["schema"].is_null())) {
                found.push(format!("{at}: 200 without a schema"));
            }
            if path == OAUTH {
                for status in OAUTH_STATUSES {
                    let schema = &responses[status]["content"]["application/json"]["schema"];
                    if resolve(schema)["properties"]["error"].is_null() {
                        found.push(format!("{at}: {status} is not an RFC 6749 error"));
                    }
                }
                continue;
            }
            let mut wanted = STANDARD.to_vec();
            if has_body {
                wanted.push("413");
            }
            for status in wanted {
                let schema = &responses[status]["content"]["application/json"]["schema"];
                if resolve(schema)["properties"]["errorMessage"].is_null() {
                    found.push(format!("{at}: {status} is not the error envelope"));
                }
            }
        }
    }
    found
}

fn document() -> Value {
    let document = openapi(&crate::rest::endpoints());
    serde_json::from_str(&document.to_json().unwrap()).unwrap()
}

#[test]
fn every_operation_says_its_parameters_body_and_answers() {
    let document = document();
    let problems = problems(&document);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let operations: usize = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| item.as_object().unwrap().len())
        .sum();
    assert_eq!(operations, crate::rest::endpoints().len());
}

#[test]
fn the_walk_finds_what_a_tool_cannot_call() {
    let bare = serde_json::json!({
        "paths": {
            "/api/file/download/{id}": {"get": {
                "parameters": [{"name": "link", "in": "query"}],
                "responses": {"200": {"description": "the file"}}
            }},
            "/api/department/create": {"post": {"responses": {}}}
        }
    });
    let problems = problems(&bare);
    for expected in [
        "GET /api/file/download/{id}: parameter \"link\" has no schema",
        "GET /api/file/download/{id}: {id} is not a required path parameter",
        "GET /api/file/download/{id}: 200 without a schema",
        "GET /api/file/download/{id}: 404 is not the error envelope",
        "POST /api/department/create: no request body",
        "POST /api/department/create: 413 is not the error envelope",
    ] {
        assert!(
            problems.iter().any(|p| p == expected),
            "{expected} in {problems:#?}"
        );
    }
}

#[test]
fn contract_bodies_are_the_messages_fields_as_serde_names_them() {
    let document = document();
    let body = &document["paths"]["/api/environment/create"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"];
    let fields = body["properties"].as_object().unwrap();
    let json =
        serde_json::to_value(portal_proto::wiki::v1::CreateEnvironmentRequest::default()).unwrap();
    let names = json.as_object().unwrap().keys().collect::<Vec<_>>();
    assert_eq!(fields.keys().collect::<Vec<_>>(), names);
    assert_eq!(camel_case("environment_model_id"), "environmentModelId");
}

/// `docs/routes.md` (written by `tools/routes.py` from the endpoint tables'
/// source) lists exactly the routes `rest::endpoints()` serves.
#[test]
fn every_route_is_in_the_generated_table() {
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/routes.md"))
        .expect("docs/routes.md is written by tools/routes.py");
    let listed: std::collections::BTreeSet<(String, String)> = table
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let path = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((cells.get(2)?.to_string(), path.to_string()))
        })
        .collect();
    let served: std::collections::BTreeSet<(String, String)> = crate::rest::endpoints()
        .iter()
        .map(|endpoint| (endpoint.method.to_string(), endpoint.path.to_string()))
        .collect();
    assert_eq!(listed, served, "run `python3 tools/routes.py`");
}
