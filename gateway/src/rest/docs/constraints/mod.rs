//! What the services require of a request, said in its operation's schemas so
//! generated clients and schemathesis send what is accepted and nothing else:
//! the per-route rules of [`table`] (text fields `kit::text::Field` parses,
//! ids, days, ranges), and what the gateway itself does to
//! every JSON body (`body_value::as_read`: an optional member may be `null`)
//! and every integer (serde refuses one outside its type).

mod table;

use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::path::Parameter;
use utoipa::openapi::schema::Schema;

/// Hidden characters as a regex class body: controls and the format
/// characters `kit::text::is_hidden_char` names.
const HIDDEN: &str = "\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb";
/// The same, but a tab and a line break are allowed (`Shape::Lines`).
const HIDDEN_IN_LINES: &str = "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb";

/// What one field must be.
#[derive(Clone, Copy)]
pub enum Rule {
    /// Required one-line text (`Shape::Line`) of at most so many characters
    /// with something that shows and nothing hidden.
    Line(usize),
    /// Required text of lines (`Shape::Lines`), bounded the same way.
    Lines(usize),
    /// A one-line text that may be left out or blank.
    OptionalLine(usize),
    /// A text of lines that may be left out or blank.
    OptionalLines(usize),
    /// Required text with something that shows (a login, a password, a key),
    /// no bound the services name.
    Filled,
    /// A required calendar day, `YYYY-MM-DD` (`kit::day::Day`).
    Day,
    /// An optional calendar day: left out or blank is none.
    OptionalDay,
    /// An optional instant: an RFC 3339 one, or a day `YYYY-MM-DD`; blank is none.
    Instant,
    /// A required `http://` or `https://` link of at most so many characters.
    Url(usize),
    /// A required id: an integer from 1.
    Id,
    /// An optional integer in this range.
    Range(i64, i64),
    /// A text that is one of these.
    OneOf(&'static [&'static str]),
    /// This schema (JSON text), and whether the field is required.
    Schema(&'static str, bool),
    /// The object's other members are texts, each given once.
    OthersText,
    /// A list each of whose items is one of these texts.
    EachOneOf(&'static [&'static str]),
    /// An optional text that matches this regex.
    Pattern(&'static str),
}

/// One rule: the route, the field (`units[].departmentId`; `[]` steps into a
/// list's items; empty: the body itself), what it must be.
pub struct Constraint {
    pub route: &'static str,
    pub field: &'static str,
    pub rule: Rule,
}

/// The JSON `body` of the route at `path` with its rules, its optional
/// members nullable and its integers bounded.
pub fn json_body(path: &str, body: RefOr<Schema>) -> RefOr<Schema> {
    let mut value = to_value(&body);
    apply_rules(path, &mut value);
    nullable_optionals(&mut value);
    bounded_integers(&mut value);
    from_value(value).unwrap_or(body)
}

/// A form `body` of the route at `path` with its rules.
pub fn form_body(path: &str, body: RefOr<Schema>) -> RefOr<Schema> {
    let mut value = to_value(&body);
    apply_rules(path, &mut value);
    from_value(value).unwrap_or(body)
}

/// The path and query `parameters` of the route at `path` with its rules
/// (`field` is the parameter's name) and their integers bounded.
pub fn parameters(path: &str, parameters: Vec<Parameter>) -> Vec<Parameter> {
    parameters
        .into_iter()
        .map(|parameter| {
            let mut value = to_value(&parameter);
            let name = value["name"].as_str().unwrap_or_default().to_owned();
            let mut required = value["required"].as_bool().unwrap_or(false);
            if let Some(schema) = value.get_mut("schema") {
                for constraint in rules(path).filter(|c| c.field == name) {
                    required |= constrain(schema, constraint.rule);
                }
                bounded_integers(schema);
            }
            value["required"] = Value::Bool(required);
            from_value(value).unwrap_or(parameter)
        })
        .collect()
}

fn rules(path: &str) -> impl Iterator<Item = &'static Constraint> + '_ {
    table::RULES.iter().filter(move |c| c.route == path)
}

fn to_value<T: serde::Serialize>(item: &T) -> Value {
    serde_json::to_value(item).unwrap_or_default()
}

fn from_value<T: serde::de::DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value)
        .map_err(|error| tracing::error!(%error, "a constrained schema does not read back"))
        .ok()
}

fn apply_rules(path: &str, body: &mut Value) {
    for constraint in rules(path) {
        if constraint.field.is_empty() {
            constrain(body, constraint.rule);
            continue;
        }
        let (parent, name) = match constraint.field.rsplit_once('.') {
            Some((parent, name)) => (parent, name),
            None => ("", constraint.field),
        };
        let Some(object) = walk(body, parent) else {
            tracing::error!(path, field = constraint.field, "no such object in the body");
            continue;
        };
        let Some(field) = object["properties"].get_mut(name) else {
            tracing::error!(path, field = constraint.field, "no such field in the body");
            continue;
        };
        if constrain(field, constraint.rule) {
            let required = object
                .as_object_mut()
                .map(|o| o.entry("required").or_insert_with(|| json!([])));
            if let Some(Value::Array(required)) = required
                && !required.iter().any(|known| known == name)
            {
                required.push(name.into());
            }
        }
    }
}

/// The object schema at `path` (`units[]`, `a.b`) inside `body`.
fn walk<'a>(body: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut at = body;
    for step in path.split('.').filter(|step| !step.is_empty()) {
        let (name, items) = match step.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (step, false),
        };
        at = at.get_mut("properties")?.get_mut(name)?;
        if items {
            at = at.get_mut("items")?;
        }
    }
    Some(at)
}

/// Makes `schema` what `rule` says; whether the field is then required.
fn constrain(schema: &mut Value, rule: Rule) -> bool {
    let description = schema.get("description").cloned();
    let (new, required) = match rule {
        Rule::Line(max) => (text(max, HIDDEN, true), true),
        Rule::Lines(max) => (text(max, HIDDEN_IN_LINES, true), true),
        Rule::OptionalLine(max) => (text(max, HIDDEN, false), false),
        Rule::OptionalLines(max) => (text(max, HIDDEN_IN_LINES, false), false),
        Rule::Filled => (
            json!({"type": "string", "minLength": 1, "pattern": "\\S"}),
            true,
        ),
        Rule::Day => (json!({"type": "string", "format": "date"}), true),
        Rule::OptionalDay => (
            json!({"anyOf": [
                {"type": "string", "format": "date"},
                {"type": "string", "pattern": "^\\s*$"},
            ]}),
            false,
        ),
        Rule::Instant => (
            json!({"anyOf": [
                {"type": "string", "format": "date"},
                {"type": "string", "format": "date-time"},
                {"type": "string", "pattern": "^\\s*$"},
            ]}),
            false,
        ),
        Rule::Url(max) => (
            json!({
                "type": "string",
                "maxLength": max,
                "pattern": format!("^[Hh][Tt][Tt][Pp][Ss]?://[^\\s{HIDDEN}]+$"),
            }),
            true,
        ),
        Rule::Id => (
            json!({"type": "integer", "format": "int64", "minimum": 1, "maximum": i64::MAX}),
            true,
        ),
        Rule::Range(min, max) => {
            let format = if i32::try_from(min).is_ok() && i32::try_from(max).is_ok() {
                "int32"
            } else {
                "int64"
            };
            (
                json!({"type": "integer", "format": format, "minimum": min, "maximum": max}),
                false,
            )
        }
        Rule::Schema(schema, required) => match serde_json::from_str(schema) {
            Ok(schema) => (schema, required),
            Err(error) => {
                tracing::error!(%error, schema, "a rule's schema is not JSON");
                return false;
            }
        },
        Rule::OthersText => {
            if let Some(object) = schema.as_object_mut() {
                object.insert("additionalProperties".into(), json!({"type": "string"}));
            }
            return false;
        }
        Rule::EachOneOf(values) => (
            json!({"type": "array", "items": {"type": "string", "enum": values}}),
            false,
        ),
        Rule::OneOf(values) => (json!({"type": "string", "enum": values}), false),
        Rule::Pattern(pattern) => (json!({"type": "string", "pattern": pattern}), false),
    };
    *schema = new;
    if let (Some(description), Some(object)) = (description, schema.as_object_mut()) {
        object.insert("description".into(), description);
    }
    required
}

/// A text of at most `max` characters with nothing `hidden` (a regex class
/// body); `filled`: something that shows, too.
fn text(max: usize, hidden: &str, filled: bool) -> Value {
    let pattern = if filled {
        format!("^[^{hidden}]*[^\\s{hidden}][^{hidden}]*$")
    } else {
        format!("^[^{hidden}]*$")
    };
    let mut schema = json!({"type": "string", "maxLength": max, "pattern": pattern});
    if filled {
        schema["minLength"] = 1.into();
    }
    schema
}

/// Every member of the objects in `schema` that is not required also takes
/// `null`, which the gateway reads as the member left out.
fn nullable_optionals(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let required = object
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            nullable_optionals(property);
            if !required.iter().any(|known| known == name.as_str()) {
                or_null(property);
            }
        }
    }
    if let Some(items) = object.get_mut("items") {
        nullable_optionals(items);
    }
}

/// `schema` that also takes `null`.
fn or_null(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let takes_null = |object: &Map<String, Value>| {
        object.get("type") == Some(&json!("null"))
            || object
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|types| types.contains(&json!("null")))
            || object
                .get("oneOf")
                .and_then(Value::as_array)
                .is_some_and(|all| all.iter().any(|s| s.get("type") == Some(&json!("null"))))
    };
    if takes_null(object) {
        return;
    }
    match object.get("type").cloned() {
        Some(Value::String(single)) => {
            object.insert("type".into(), json!([single, "null"]));
            if let Some(Value::Array(values)) = object.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(mut types)) => {
            types.push("null".into());
            object.insert("type".into(), types.into());
        }
        _ => {
            let mut inner = std::mem::take(object);
            let description = inner.remove("description");
            let default = inner.remove("default");
            object.insert(
                "oneOf".into(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
            if let Some(description) = description {
                object.insert("description".into(), description);
            }
            if let Some(default) = default {
                object.insert("default".into(), default);
            }
        }
    }
}

/// Every integer in `schema` bounded by its format's range (serde refuses a
/// number outside it), unless a rule bounded it already.
fn bounded_integers(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let integer = match object.get("type") {
                Some(Value::String(single)) => single == "integer",
                Some(Value::Array(types)) => types.contains(&json!("integer")),
                _ => false,
            };
            if integer {
                let (min, max) = match object.get("format").and_then(Value::as_str) {
                    Some("int32") => (i64::from(i32::MIN), i64::from(i32::MAX)),
                    _ => (i64::MIN, i64::MAX),
                };
                object.entry("minimum").or_insert(min.into());
                object.entry("maximum").or_insert(max.into());
            }
            object.values_mut().for_each(bounded_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(bounded_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
