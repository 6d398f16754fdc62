//! `/api/openapi.json` and a readable `/api/docs` page, both made from the same
//! endpoint table as the router, so they cannot drift from what is served.
//!
//! Every operation says what it reads and every answer it can give, so tools
//! (schemathesis in `make api-check`) can call it: its parameters with their
//! schemas (from the same types the handlers parse), its body (a gateway type,
//! a contract's message read from the descriptor set, or a multipart form), the
//! envelope on success (or the file), and the error envelope for each status
//! `ApiError` can carry.

use std::collections::BTreeMap;

use axum::Router;
use axum::http::{Method, StatusCode};
use axum::response::Html;
use axum::routing::get;
use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type as FieldType};
use prost_types::{DescriptorProto, FileDescriptorSet};
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, Parameter, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{
    ArrayBuilder, ComponentsBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, Ref, RefOr, Required};
use utoipa::{IntoParams, ToSchema};

use super::{AppState, Endpoint};

/// The parameters an operation reads (path and query), as a function so an
/// endpoint's table entry stays a constant expression: [`none`], [`query`],
/// [`path`] or a route's own.
pub type Params = fn() -> Vec<Parameter>;

/// No parameters.
pub fn none() -> Vec<Parameter> {
    Vec::new()
}

/// The query parameters of `T`, the type the handler parses them into.
pub fn query<T: IntoParams>() -> Vec<Parameter> {
    T::into_params(|| Some(ParameterIn::Query))
}

/// The path parameters of `T`.
pub fn path<T: IntoParams>() -> Vec<Parameter> {
    T::into_params(|| Some(ParameterIn::Path))
}

/// Schemas a body refers to by name, for the document's components.
pub type Named = Vec<(String, RefOr<Schema>)>;

/// What a POST reads as its body.
pub enum Input {
    /// Nothing: the call reads a cookie, not a body.
    Empty,
    /// JSON parsed into a gateway type.
    Json(fn(&mut Named) -> RefOr<Schema>),
    /// JSON that is a contract's message as it is, by its full name
    /// (`portal.wiki.v1.CreateEnvironmentRequest`): its schema is read from
    /// the descriptor set, with every field optional as serde reads it.
    Message(&'static str),
    /// `multipart/form-data`: text fields, then the file part.
    Form(&'static [FormField]),
    /// `application/x-www-form-urlencoded` text fields (the OAuth token request).
    UrlEncoded(&'static [FormField]),
}

/// The body is JSON read into `T`.
pub fn json<T: ToSchema>() -> Input {
    Input::Json(schema_of::<T>)
}

fn schema_of<T: ToSchema>(components: &mut Named) -> RefOr<Schema> {
    T::schemas(components);
    T::schema()
}

/// One field of a form: text fields may be left out unless required, the
/// file may not.
pub struct FormField {
    name: &'static str,
    kind: FieldKind,
    required: bool,
}

enum FieldKind {
    Integer,
    Text,
    File,
}

impl FormField {
    pub const fn integer(name: &'static str) -> Self {
        FormField {
            name,
            kind: FieldKind::Integer,
            required: false,
        }
    }

    pub const fn text(name: &'static str) -> Self {
        FormField {
            name,
            kind: FieldKind::Text,
            required: false,
        }
    }

    /// A text field the request must carry.
    pub const fn required(name: &'static str) -> Self {
        FormField {
            name,
            kind: FieldKind::Text,
            required: true,
        }
    }

    pub const fn file(name: &'static str) -> Self {
        FormField {
            name,
            kind: FieldKind::File,
            required: true,
        }
    }
}

/// Statuses every call can answer with: its input judged (400), the caller
/// (401, 403), the thing asked for (404), a conflict with the stored state
/// (409), the per-address limit (429), and the services behind (500, 503, 504).
const ALWAYS: [StatusCode; 9] = [
    StatusCode::BAD_REQUEST,
    StatusCode::UNAUTHORIZED,
    StatusCode::FORBIDDEN,
    StatusCode::NOT_FOUND,
    StatusCode::CONFLICT,
    StatusCode::TOO_MANY_REQUESTS,
    StatusCode::INTERNAL_SERVER_ERROR,
    StatusCode::SERVICE_UNAVAILABLE,
    StatusCode::GATEWAY_TIMEOUT,
];

/// A body can also be over its limit.
const WITH_BODY: [StatusCode; 1] = [StatusCode::PAYLOAD_TOO_LARGE];

/// How deep a contract's messages are spelled out inside one another.
const MAX_NESTING: usize = 8;

const ENVELOPE: &str = "Envelope";
const ERROR: &str = "Error";
const BEARER: &str = "bearer";

pub fn openapi(endpoints: &[Endpoint]) -> OpenApi {
    let descriptors = descriptors();
    let messages = messages(&descriptors);
    let mut components = Vec::new();
    let mut paths = PathsBuilder::new();
    for endpoint in endpoints {
        let operation = operation(endpoint, &messages, &mut components);
        let method = if endpoint.method == Method::POST {
            HttpMethod::Post
        } else {
            HttpMethod::Get
        };
        paths = paths.path(endpoint.path, PathItem::new(method, operation));
    }
    let mut schemas = ComponentsBuilder::new()
        .schema(ENVELOPE, envelope())
        .schema(ERROR, error())
        .security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    for (name, schema) in components {
        schemas = schemas.schema(name, schema);
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Portal REST API")
                .version(env!("CARGO_PKG_VERSION"))
                .build(),
        )
        .paths(paths.build())
        .components(Some(schemas.build()))
        .security(Some([
            SecurityRequirement::new(BEARER, Vec::<String>::new()),
            // Sign-in, the public instruction and video downloads need no token.
            SecurityRequirement::default(),
        ]))
        .build()
}

/// What the OAuth token endpoint answers besides a token: RFC 6749's error
/// JSON, for a malformed request (400), failed client authentication (401),
/// too many failures (429), and the portal failing (500, 503, 504).
const OAUTH_ERRORS: [StatusCode; 6] = [
    StatusCode::BAD_REQUEST,
    StatusCode::UNAUTHORIZED,
    StatusCode::TOO_MANY_REQUESTS,
    StatusCode::INTERNAL_SERVER_ERROR,
    StatusCode::SERVICE_UNAVAILABLE,
    StatusCode::GATEWAY_TIMEOUT,
];

fn operation(
    endpoint: &Endpoint,
    messages: &BTreeMap<String, &DescriptorProto>,
    components: &mut Named,
) -> utoipa::openapi::path::Operation {
    if endpoint.oauth {
        return oauth_operation(endpoint);
    }
    let success = match endpoint.file {
        Some(media_type) => ResponseBuilder::new()
            .description(format!("The file, {media_type}"))
            .content(
                media_type,
                ContentBuilder::new()
                    .schema(Some(
                        ObjectBuilder::new()
                            .schema_type(Type::String)
                            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary))),
                    ))
                    .build(),
            ),
        None => ResponseBuilder::new()
            .description("The envelope with `data`")
            .content(
                "application/json",
                json_content(Ref::from_schema_name(ENVELOPE)),
            ),
    };
    let mut parameters = (endpoint.params)();
    if endpoint.method == Method::POST {
        parameters.push(idempotency_key());
    }
    let mut operation = OperationBuilder::new()
        .operation_id(Some(operation_id(&endpoint.method, endpoint.path)))
        .summary(Some(endpoint.summary))
        .parameters(Some(parameters))
        .response("200", success.build());
    if endpoint.method == Method::POST {
        let body = match &endpoint.input {
            Input::Empty => None,
            Input::Json(schema) => Some(("application/json", schema(components))),
            Input::Message(name) => Some(("application/json", message_schema(messages, name, 0))),
            Input::Form(fields) => Some(("multipart/form-data", form_schema(fields))),
            Input::UrlEncoded(fields) => {
                Some(("application/x-www-form-urlencoded", form_schema(fields)))
            }
        };
        if let Some((media_type, schema)) = body {
            operation = operation.request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content(media_type, json_content(schema))
                    .build(),
            ));
        }
    }
    let body_statuses: &[StatusCode] = match endpoint.input {
        Input::Empty => &[],
        _ => &WITH_BODY,
    };
    let mut statuses = ALWAYS
        .iter()
        .chain(body_statuses)
        .chain(endpoint.also)
        .collect::<Vec<_>>();
    statuses.sort();
    for status in statuses {
        let response = if *status == StatusCode::PARTIAL_CONTENT {
            ResponseBuilder::new()
                .description("The asked range of the file")
                .content(
                    endpoint.file.unwrap_or("application/octet-stream"),
                    ContentBuilder::new().build(),
                )
        } else {
            ResponseBuilder::new()
                .description(status.canonical_reason().unwrap_or("Error"))
                .content(
                    "application/json",
                    json_content(Ref::from_schema_name(ERROR)),
                )
        };
        operation = operation.response(status.as_str(), response.build());
    }
    operation.build()
}

/// The token endpoint: a form in, RFC 6749's token or error JSON out.
fn oauth_operation(endpoint: &Endpoint) -> utoipa::openapi::path::Operation {
    let string = || ObjectBuilder::new().schema_type(Type::String);
    let token = ObjectBuilder::new()
        .property("access_token", string())
        .required("access_token")
        .property("token_type", string().enum_values(Some(["Bearer"])))
        .required("token_type")
        .property(
            "expires_in",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int32))),
        )
        .required("expires_in")
        .property("scope", string())
        .required("scope");
    let error: Schema = ObjectBuilder::new()
        .property(
            "error",
            string().enum_values(Some(
                super::oauth::OAuthError::ALL.map(super::oauth::OAuthError::as_str),
            )),
        )
        .required("error")
        .property("error_description", string())
        .required("error_description")
        .build()
        .into();
    let mut operation = OperationBuilder::new()
        .operation_id(Some(operation_id(&endpoint.method, endpoint.path)))
        .summary(Some(endpoint.summary))
        .parameters(Some((endpoint.params)()))
        .response(
            "200",
            ResponseBuilder::new()
                .description("An access token (RFC 6749 §5.1)")
                .content("application/json", json_content(token))
                .build(),
        );
    if let Input::UrlEncoded(fields) = endpoint.input {
        operation = operation.request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(Required::True))
                .content(
                    "application/x-www-form-urlencoded",
                    json_content(form_schema(fields)),
                )
                .build(),
        ));
    }
    for status in OAUTH_ERRORS {
        operation = operation.response(
            status.as_str(),
            ResponseBuilder::new()
                .description("An error (RFC 6749 §5.2)")
                .content("application/json", json_content(error.clone()))
                .build(),
        );
    }
    operation.build()
}

/// The optional `Idempotency-Key` of every write (`portal_kit::idempotency`).
fn idempotency_key() -> Parameter {
    ParameterBuilder::new()
        .name("Idempotency-Key")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "Retrying this write with the same key (1–255 visible ASCII characters) within 24 h \
             answers the first result instead of doing it again; the same key with another body \
             is 409 IDEMPOTENCY_KEY_REUSED, and while the first call runs 409 \
             IDEMPOTENCY_KEY_IN_PROGRESS. Keys are the caller's own, per route.",
        ))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(255))
                .pattern(Some("^[!-~]+$")),
        ))
        .build()
}

/// A contract's message by its full name, as [`Input::Message`] documents it.
pub fn message(name: &str) -> RefOr<Schema> {
    let descriptors = descriptors();
    message_schema(&messages(&descriptors), name, 0)
}

fn descriptors() -> FileDescriptorSet {
    FileDescriptorSet::decode(portal_proto::FILE_DESCRIPTOR_SET).unwrap_or_else(|error| {
        tracing::error!(%error, "the contracts' descriptor set does not decode");
        FileDescriptorSet::default()
    })
}

fn json_content(schema: impl Into<RefOr<Schema>>) -> utoipa::openapi::Content {
    ContentBuilder::new().schema(Some(schema)).build()
}

/// `get_department_get_all` for `GET /api/department/get-all`.
fn operation_id(method: &Method, path: &str) -> String {
    let words = path
        .trim_start_matches("/api/")
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    format!("{}_{words}", method.as_str().to_ascii_lowercase())
}

/// Every successful answer but a file: `{"success": true, "data": …, "errorMessage": null}`.
fn envelope() -> Schema {
    ObjectBuilder::new()
        .property("success", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("success")
        .property(
            "data",
            ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::SchemaType::AnyValue)
                .description(Some("What the call answers; null when there is nothing")),
        )
        .property("errorMessage", ObjectBuilder::new().schema_type(Type::Null))
        .build()
        .into()
}

/// Every failure: `{"success": false, "data": null, "errorMessage": "…"}`, the
/// message in Russian for the person, `reason` for programs, and `errorCode`
/// where the refusal has one.
fn error() -> Schema {
    ObjectBuilder::new()
        .property(
            "success",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .enum_values(Some([false])),
        )
        .required("success")
        .property("data", ObjectBuilder::new().schema_type(Type::Null))
        .property(
            "errorMessage",
            ObjectBuilder::new().schema_type(Type::String),
        )
        .required("errorMessage")
        .property(
            "errorCode",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(
                    "A stable reason code for programs (`no-open-attempt`, `access-revoked`, …); \
                 absent when the refusal has none",
                )),
        )
        .property(
            "reason",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some("^[A-Z0-9_]+$"))
                .description(Some(
                    "The machine reason, the same as the gRPC status's google.rpc.ErrorInfo \
                 (domain portal.hospital): the refusal's own in UPPER_SNAKE (`NO_OPEN_ATTEMPT`, \
                 `ACCESS_REVOKED`, `SCOPE_MISSING`, `IDEMPOTENCY_KEY_REUSED`, …), else its kind's: \
                 INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, CONFLICT, \
                 TOO_LARGE, RATE_LIMITED, UNAVAILABLE, UNIMPLEMENTED, INTERNAL",
                )),
        )
        .required("reason")
        .build()
        .into()
}

fn form_schema(fields: &[FormField]) -> RefOr<Schema> {
    let mut form = ObjectBuilder::new();
    for field in fields {
        let schema = match field.kind {
            FieldKind::Integer => ObjectBuilder::new()
                .schema_type(Type::Integer)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64))),
            FieldKind::Text => ObjectBuilder::new().schema_type(Type::String),
            FieldKind::File => ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary))),
        };
        form = form.property(field.name, schema);
        if field.required {
            form = form.required(field.name);
        }
    }
    Schema::from(form.build()).into()
}

/// Every message of the contracts by full name without the leading dot.
fn messages(set: &FileDescriptorSet) -> BTreeMap<String, &DescriptorProto> {
    fn add<'a>(
        scope: &str,
        message: &'a DescriptorProto,
        out: &mut BTreeMap<String, &'a DescriptorProto>,
    ) {
        let name = format!("{scope}.{}", message.name());
        for nested in &message.nested_type {
            add(&name, nested, out);
        }
        out.insert(name, message);
    }
    let mut out = BTreeMap::new();
    for file in &set.file {
        for message in &file.message_type {
            add(file.package(), message, &mut out);
        }
    }
    out
}

/// A message as the gateway's serde reads it (build.rs of portal-proto):
/// camelCase names, every field optional, `Timestamp` an RFC 3339 string,
/// bytes base64, enums their numbers. An unknown name is an empty object and
/// the document test fails on it.
fn message_schema(
    messages: &BTreeMap<String, &DescriptorProto>,
    name: &str,
    depth: usize,
) -> RefOr<Schema> {
    let mut object = ObjectBuilder::new().schema_type(Type::Object);
    // A message that holds itself stays an object with no more said.
    if depth > MAX_NESTING {
        return Schema::from(object.build()).into();
    }
    let Some(message) = messages.get(name) else {
        tracing::error!(name, "no such message in the contracts");
        return Schema::from(object.build()).into();
    };
    for field in &message.field {
        let single = field_schema(messages, field, depth);
        let schema: RefOr<Schema> = if field.label() == Label::Repeated {
            Schema::from(ArrayBuilder::new().items(single).build()).into()
        } else {
            single
        };
        object = object.property(camel_case(field.name()), schema);
    }
    Schema::from(object.build()).into()
}

/// A field's name as serde's `rename_all = "camelCase"` spells the Rust one.
fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn field_schema(
    messages: &BTreeMap<String, &DescriptorProto>,
    field: &prost_types::FieldDescriptorProto,
    depth: usize,
) -> RefOr<Schema> {
    let integer = |format: KnownFormat, min: i64, max: i64| {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(format)))
            .minimum(Some(min))
            .maximum(Some(max))
    };
    let scalar = match field.r#type() {
        FieldType::Double | FieldType::Float => ObjectBuilder::new().schema_type(Type::Number),
        FieldType::Int32 | FieldType::Sint32 | FieldType::Sfixed32 | FieldType::Enum => {
            integer(KnownFormat::Int32, i32::MIN.into(), i32::MAX.into())
        }
        FieldType::Uint32 | FieldType::Fixed32 => integer(KnownFormat::Int64, 0, u32::MAX.into()),
        FieldType::Int64 | FieldType::Sint64 | FieldType::Sfixed64 => {
            integer(KnownFormat::Int64, i64::MIN, i64::MAX)
        }
        FieldType::Uint64 | FieldType::Fixed64 => integer(KnownFormat::Int64, 0, i64::MAX),
        FieldType::Bool => ObjectBuilder::new().schema_type(Type::Boolean),
        FieldType::String => ObjectBuilder::new().schema_type(Type::String),
        FieldType::Bytes => ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Byte))),
        FieldType::Message | FieldType::Group => {
            let name = field.type_name().trim_start_matches('.');
            if name == "google.protobuf.Timestamp" {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            } else {
                return message_schema(messages, name, depth + 1);
            }
        }
    };
    Schema::from(scalar.build()).into()
}

pub fn router(document: OpenApi) -> Router<AppState> {
    let page = Html(render_page(&document));
    let json = document.to_json().unwrap_or_default();
    Router::new()
        .route(
            "/api/openapi.json",
            get(move || {
                let json = json.clone();
                async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        json,
                    )
                }
            }),
        )
        .route("/api/docs", get(move || std::future::ready(page.clone())))
}

fn render_page(document: &OpenApi) -> String {
    let mut rows = String::new();
    for (path, item) in &document.paths.paths {
        let operations = [("GET", &item.get), ("POST", &item.post)];
        for (method, operation) in operations {
            let Some(operation) = operation else { continue };
            let parameters = operation
                .parameters
                .iter()
                .flatten()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            rows.push_str(&format!(
                "<tr><td>{method}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                escape(path),
                escape(operation.summary.as_deref().unwrap_or_default()),
                escape(&parameters)
            ));
        }
    }
    format!(
        "<!doctype html><html lang=\"ru\"><head><meta charset=\"utf-8\"><title>Portal REST API</title>\
<style>body{{font-family:sans-serif;margin:2rem}}td,th{{padding:.3rem .8rem;border-bottom:1px solid #ddd;text-align:left}}</style>\
</head><body><h1>Portal REST API</h1><p>Каждый ответ: <code>{{\"success\", \"data\", \"errorMessage\"}}</code>. \
Машиночитаемое описание: <a href=\"/api/openapi.json\">/api/openapi.json</a>. gRPC: рефлексия на том же порту.</p>\
<table><tr><th>Метод</th><th>Путь</th><th>Назначение</th><th>Параметры</th></tr>{rows}</table></body></html>"
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The only POSTs that read no body: the session calls carry a cookie,
    /// and "send today's digests now" has nothing to say but the call.
    const BODYLESS: [&str; 3] = [
        "/api/auth/refresh-token",
        "/api/auth/logout",
        "/api/notification/send-digests-now",
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
                    let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}'))
                    else {
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
                                let fields =
                                    schema["properties"].as_object().map_or(0, |p| p.len());
                                if fields == 0 {
                                    found.push(format!("{at}: {media_type} body has no fields"));
                                }
                            }
                        }
                    }
                }
                let responses = &operation["responses"];
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
        let document = openapi(&super::super::endpoints());
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
        assert_eq!(operations, super::super::endpoints().len());
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
        let body = &document["paths"]["/api/environment/create"]["post"]["requestBody"]["content"]
            ["application/json"]["schema"];
        let fields = body["properties"].as_object().unwrap();
        let json =
            serde_json::to_value(portal_proto::wiki::v1::CreateEnvironmentRequest::default())
                .unwrap();
        let names = json.as_object().unwrap().keys().collect::<Vec<_>>();
        assert_eq!(fields.keys().collect::<Vec<_>>(), names);
        assert_eq!(camel_case("environment_model_id"), "environmentModelId");
    }
}
