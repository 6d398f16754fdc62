//! `/api/openapi.json` and a readable `/api/docs` page, both made from the same
//! endpoint table as the router, so they cannot drift from what is served.
//!
//! Every operation says what it reads and every answer it can give, so tools
//! (schemathesis in `make api-check`) can call it: its parameters with their
//! schemas (from the same types the handlers parse), its body (a gateway type,
//! a contract's message read from the descriptor set, or a multipart form), the
//! envelope on success (or the file), and the error envelope for each status
//! `ApiError` can carry.

mod answers;
mod constraints;
mod envelopes;
mod messages;
mod operation;
mod page;
#[cfg(test)]
mod tests;

use axum::http::Method;
use utoipa::openapi::path::{HttpMethod, Parameter, ParameterIn, PathItem};
use utoipa::openapi::schema::{ComponentsBuilder, Schema};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, RefOr};
use utoipa::{IntoParams, ToSchema};

use super::Endpoint;

pub(crate) use answers::typed;
pub use answers::{Answer, AnswerFn, Answers, answer_of, maybe_message, schema_answer};
pub use messages::message;
pub use page::router;

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

const ENVELOPE: &str = "Envelope";
const ERROR: &str = "Error";
const BEARER: &str = "bearer";

pub fn openapi(endpoints: &[Endpoint]) -> OpenApi {
    let descriptors = messages::descriptors();
    let messages = messages::messages(&descriptors);
    let mut components = Vec::new();
    let mut paths = PathsBuilder::new();
    for endpoint in endpoints {
        let operation = operation::operation(endpoint, &messages, &mut components);
        let method = if endpoint.method == Method::POST {
            HttpMethod::Post
        } else {
            HttpMethod::Get
        };
        paths = paths.path(endpoint.path, PathItem::new(method, operation));
    }
    let mut schemas = ComponentsBuilder::new()
        .schema(ENVELOPE, envelopes::envelope())
        .schema(ERROR, envelopes::error())
        .security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    messages::add_referred(&mut components);
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
