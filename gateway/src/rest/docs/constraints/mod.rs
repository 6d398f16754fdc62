//! What the services require of the text fields people fill in, said in the
//! request bodies' schemas so generated clients and schemathesis send what is
//! accepted: `kit::text::Field::required` trims, refuses a blank value, one
//! over its bound and one with a hidden character (`kit::text::is_hidden_char`).

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// Hidden characters as a regex class body: controls and the format
/// characters `is_hidden_char` names.
const HIDDEN: &str = "\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb";

/// Per route, its required one-line text fields and their bounds in
/// characters (the services' `MAX_TITLE_CHARS`, `MAX_NAME_CHARS`).
const REQUIRED_TEXT: &[(&str, &str, usize)] = &[
    ("/api/department/create", "title", 200),
    ("/api/department/update", "title", 200),
    ("/api/service-account/create", "name", 200),
    ("/api/country/create", "name", 300),
    ("/api/manufacturer/create", "name", 300),
    ("/api/environment-type/create", "name", 300),
    ("/api/common-document/create", "title", 300),
    ("/api/environment-model/create", "name", 300),
    (
        "/api/course/create-course-with-user-and-articles",
        "title",
        300,
    ),
    ("/api/course/update-course", "title", 300),
    ("/api/course/create-article", "title", 300),
    ("/api/course/update-article", "title", 300),
    (
        "/api/test/create-test-with-question-and-answers",
        "title",
        300,
    ),
    ("/api/test/update-test", "title", 300),
];

/// `body` of the route at `path` with its required text fields marked so.
pub fn apply(path: &str, body: RefOr<Schema>) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = body else {
        return body;
    };
    for (_, field, max) in REQUIRED_TEXT.iter().filter(|(at, _, _)| *at == path) {
        if !object.properties.contains_key(*field) {
            continue;
        }
        object
            .properties
            .insert((*field).to_owned(), required_line(*max).into());
        if !object.required.iter().any(|name| name == field) {
            object.required.push((*field).to_owned());
        }
    }
    RefOr::T(Schema::Object(object))
}

/// A line of at most `max` characters with something that shows and nothing hidden.
fn required_line(max: usize) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(max))
        .pattern(Some(format!("^[^{HIDDEN}]*[^\\s{HIDDEN}][^{HIDDEN}]*$")))
        .build()
        .into()
}
