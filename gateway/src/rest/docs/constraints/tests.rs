//! The rules land where they say, and read back from the document as written.

use serde_json::{Value, json};

use super::Rule;
use super::table::RULES;

fn document() -> Value {
    serde_json::to_value(super::super::openapi(&crate::rest::endpoints())).unwrap()
}

/// The operation at `route` in `document`.
fn operation<'a>(document: &'a Value, route: &str) -> &'a Value {
    let item = &document["paths"][route];
    assert!(item.is_object(), "{route} is no operation of the document");
    item.as_object().unwrap().values().next().unwrap()
}

/// The body schema of `operation`, whatever its media type.
fn body(operation: &Value) -> &Value {
    operation["requestBody"]["content"]
        .as_object()
        .and_then(|content| content.values().next())
        .map_or(&Value::Null, |media| &media["schema"])
}

/// The schema of `field` (`units[].departmentId`) in `body`, and whether its
/// object requires it.
fn field<'a>(body: &'a Value, field: &str) -> Option<(&'a Value, bool)> {
    let (parent, name) = field.rsplit_once('.').unwrap_or(("", field));
    let mut at = body;
    for step in parent.split('.').filter(|step| !step.is_empty()) {
        let (step, items) = step
            .strip_suffix("[]")
            .map_or((step, false), |step| (step, true));
        at = &at["properties"][step];
        if items {
            at = &at["items"];
        }
    }
    let required = at["required"]
        .as_array()
        .is_some_and(|required| required.iter().any(|known| known == name));
    at["properties"].get(name).map(|schema| (schema, required))
}

#[test]
fn every_rule_names_a_field_its_route_reads_and_reads_back_as_written() {
    let document = document();
    for rule in RULES {
        let operation = operation(&document, rule.route);
        if let Rule::Schema(schema, _) = rule.rule {
            serde_json::from_str::<Value>(schema)
                .unwrap_or_else(|error| panic!("{} {}: {error}", rule.route, rule.field));
        }
        if rule.field.is_empty() {
            continue;
        }
        let parameter = operation["parameters"]
            .as_array()
            .and_then(|all| all.iter().find(|p| p["name"] == rule.field));
        let (schema, required) = match parameter {
            Some(parameter) => (&parameter["schema"], parameter["required"] == true),
            None => field(body(operation), rule.field)
                .unwrap_or_else(|| panic!("{}: no field {}", rule.route, rule.field)),
        };
        let text = schema.to_string();
        let (holds, must_be_required) = match rule.rule {
            Rule::Line(max) | Rule::Lines(max) | Rule::Url(max) => {
                (text.contains(&format!("\"maxLength\":{max}")), true)
            }
            Rule::OptionalLine(max) | Rule::OptionalLines(max) => {
                (text.contains(&format!("\"maxLength\":{max}")), false)
            }
            Rule::Filled => (text.contains("\"minLength\":1"), true),
            Rule::Day => (text.contains("\"format\":\"date\""), true),
            Rule::OptionalDay | Rule::Instant => (text.contains("\"anyOf\""), false),
            Rule::Id => (text.contains("\"minimum\":1"), true),
            Rule::Range(min, max) => (
                text.contains(&format!("\"minimum\":{min}"))
                    && text.contains(&format!("\"maximum\":{max}")),
                false,
            ),
            Rule::Schema(_, required) => (!text.contains("\"default\""), required),
            Rule::EachOneOf(values) => (values.iter().all(|v| text.contains(v)), false),
            Rule::OneOf(values) => (values.iter().all(|v| text.contains(v)), false),
            Rule::Pattern(pattern) => (text.contains("pattern"), pattern.is_empty()),
            Rule::OthersText => (true, false),
        };
        assert!(
            holds,
            "{} {}: the rule is not in {text}",
            rule.route, rule.field
        );
        if must_be_required {
            assert!(required, "{} {}: not required", rule.route, rule.field);
        }
    }
}

#[test]
fn an_optional_member_takes_null_and_a_required_one_does_not() {
    let document = document();
    let body = body(operation(&document, "/api/notification/mark-read"));
    assert_eq!(body["properties"]["ids"]["type"], json!(["array", "null"]));
    let body = self::body(operation(&document, "/api/department/create"));
    assert_eq!(body["properties"]["title"]["type"], "string");
    assert_eq!(
        body["properties"]["users"]["type"],
        json!(["array", "null"])
    );
}

#[test]
fn integers_are_bounded_by_their_type() {
    let document = document();
    let body = body(operation(&document, "/api/test/complete-test"));
    let attempt = &body["properties"]["attemptId"];
    assert_eq!(attempt["minimum"], i64::MIN);
    assert_eq!(attempt["maximum"], i64::MAX);
    let oauth = self::body(operation(&document, "/api/oauth/token"));
    assert_eq!(oauth["additionalProperties"], json!({"type": "string"}));
}

#[test]
fn the_scopes_are_those_a_service_account_may_hold() {
    let known = portal_kit::access::Scope::ALL.map(|scope| scope.as_str());
    assert_eq!(super::table::SCOPES, known);
}
