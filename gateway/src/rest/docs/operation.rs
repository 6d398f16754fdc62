//! One operation of the document: its parameters, body and every answer.

use std::collections::BTreeMap;

use axum::http::{Method, StatusCode};
use prost_types::DescriptorProto;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{OperationBuilder, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::{Ref, RefOr, Required};

use super::messages::message_schema;
use super::{ENVELOPE, ERROR, Endpoint, FieldKind, FormField, Input, Named};
use super::{constraints, envelopes};

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

pub fn operation(
    endpoint: &Endpoint,
    messages: &BTreeMap<String, &DescriptorProto>,
    components: &mut Named,
) -> utoipa::openapi::path::Operation {
    if let Some(errors) = endpoint.oauth {
        return oauth_operation(endpoint, errors);
    }
    if endpoint.redirect {
        return redirect_operation(endpoint);
    }
    let mut parameters = constraints::parameters(endpoint.path, (endpoint.params)());
    if endpoint.method == Method::POST {
        parameters.push(idempotency_key());
    }
    let mut operation = OperationBuilder::new()
        .operation_id(Some(operation_id(&endpoint.method, endpoint.path)))
        .summary(Some(endpoint.summary))
        .parameters(Some(parameters))
        .response("200", success(endpoint, components).build());
    if endpoint.method == Method::POST
        && let Some((media_type, schema)) = request_body(endpoint, messages, components)
    {
        operation = operation.request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(Required::True))
                .content(media_type, json_content(schema))
                .build(),
        ));
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
        operation = operation.response(status.as_str(), failure(endpoint, *status).build());
    }
    operation.build()
}

/// The 200 answer: the file itself, or the envelope with the endpoint's `data`.
fn success(endpoint: &Endpoint, components: &mut Named) -> ResponseBuilder {
    if let Some(media_type) = endpoint.file {
        return ResponseBuilder::new()
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
            );
    }
    let envelope = match endpoint.answer {
        Some(answer) => {
            let name = answer_name(&operation_id(&endpoint.method, endpoint.path));
            let data = answer(components);
            components.push((name.clone(), envelopes::answer(data).into()));
            Ref::from_schema_name(name)
        }
        None => Ref::from_schema_name(ENVELOPE),
    };
    ResponseBuilder::new()
        .description("The envelope with `data`")
        .content("application/json", json_content(envelope))
}

/// A POST's body: its media type and schema, none for an empty one.
fn request_body(
    endpoint: &Endpoint,
    messages: &BTreeMap<String, &DescriptorProto>,
    components: &mut Named,
) -> Option<(&'static str, RefOr<Schema>)> {
    match &endpoint.input {
        Input::Empty => None,
        Input::Json(schema) => Some((
            "application/json",
            constraints::json_body(endpoint.path, schema(components)),
        )),
        Input::Message(name) => Some((
            "application/json",
            constraints::json_body(endpoint.path, message_schema(messages, name, 0)),
        )),
        Input::Form(fields) => Some((
            "multipart/form-data",
            constraints::form_body(endpoint.path, form_schema(fields)),
        )),
        Input::UrlEncoded(fields) => {
            Some(("application/x-www-form-urlencoded", form_schema(fields)))
        }
    }
}

/// Any other answer: a part of the file (206), else the error envelope.
fn failure(endpoint: &Endpoint, status: StatusCode) -> ResponseBuilder {
    if status == StatusCode::PARTIAL_CONTENT {
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
    }
}

/// A browser's step of single sign-on: every outcome is a 303 whose
/// `Location` is the next page (a refusal's carries its reason code).
fn redirect_operation(endpoint: &Endpoint) -> utoipa::openapi::path::Operation {
    let location = utoipa::openapi::HeaderBuilder::new()
        .schema(ObjectBuilder::new().schema_type(Type::String))
        .description(Some("The next page"))
        .build();
    OperationBuilder::new()
        .operation_id(Some(operation_id(&endpoint.method, endpoint.path)))
        .summary(Some(endpoint.summary))
        .parameters(Some(constraints::parameters(
            endpoint.path,
            (endpoint.params)(),
        )))
        .response(
            "303",
            ResponseBuilder::new()
                .description("See Other: on to the next page")
                .header("Location", location)
                .build(),
        )
        .build()
}

/// The token endpoint: a form in, RFC 6749's token or error JSON out.
fn oauth_operation(endpoint: &Endpoint, errors: &[&str]) -> utoipa::openapi::path::Operation {
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
        .property("error", string().enum_values(Some(errors.iter().copied())))
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
                    json_content(constraints::form_body(endpoint.path, form_schema(fields))),
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
             IDEMPOTENCY_KEY_IN_PROGRESS. An answer holding a secret is never kept: such a \
             write is done again, or its retry is 409 IDEMPOTENT_SECRET_NOT_REPLAYED. Keys are \
             the caller's own, per route.",
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

fn json_content(schema: impl Into<RefOr<Schema>>) -> utoipa::openapi::Content {
    ContentBuilder::new().schema(Some(schema)).build()
}

/// `GetDepartmentGetAllAnswer`, the envelope component of
/// `get_department_get_all`'s successful answer.
fn answer_name(operation_id: &str) -> String {
    let mut name = String::with_capacity(operation_id.len() + 6);
    for word in operation_id.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.push(first.to_ascii_uppercase());
            name.extend(chars);
        }
    }
    name + "Answer"
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
