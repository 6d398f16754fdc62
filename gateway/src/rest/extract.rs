//! What a route reads: a JSON `Body` and `Query` parameters, a malformed one
//! a 400 envelope naming the wrong field in Russian.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::*;

/// A JSON body; a malformed one is a 400 envelope that names the wrong field
/// and says why, and one over the body limit a 413 envelope, not axum's plain
/// text. `null` is read as the field left out: "none", the field's default;
/// a whole number written as a float (`5.0`) as that integer (`body_value`).
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let mut value = match axum::Json::<serde_json::Value>::from_request(request, state).await {
            Ok(axum::Json(value)) => value,
            Err(rejection) => {
                tracing::debug!(%rejection, "rejected JSON body");
                return Err(if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, MSG_TOO_LARGE)
                } else if crate::slow_body::stalled(&rejection) {
                    ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        crate::slow_body::MSG_BODY_STALLED,
                    )
                } else {
                    ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_REQUEST)
                });
            }
        };
        body_value::as_read(&mut value);
        serde_path_to_error::deserialize(value)
            .map(Body)
            .map_err(|error| {
                tracing::debug!(%error, "JSON body of the wrong shape");
                let message = wrong_field(Input::Body, error.path(), &error.inner().to_string());
                ApiError::new(StatusCode::BAD_REQUEST, message)
            })
    }
}

/// Where a wrong value came from: the JSON body or the query string.
#[derive(Clone, Copy)]
enum Input {
    Body,
    Query,
}

/// Which field of the input is wrong and why, in Russian («Поле «title»:
/// ожидается строка»), from serde's `cause` at `path`.
fn wrong_field(input: Input, path: &serde_path_to_error::Path, cause: &str) -> String {
    let (field, whole) = match input {
        Input::Body => ("Поле", "Тело запроса"),
        Input::Query => ("Параметр", "Параметры запроса"),
    };
    let path = path.to_string();
    if let Some(missing) = cause
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        let name = if path == "." {
            missing.to_owned()
        } else {
            format!("{path}.{missing}")
        };
        return format!("{field} «{name}»: обязательное значение");
    }
    let expected = cause
        .rsplit_once(", expected ")
        .map(|(_, expected)| expected_in_russian(expected));
    let why = match expected {
        Some(expected) if cause.starts_with("invalid value") => {
            format!("ожидается {expected} в допустимых пределах")
        }
        Some(expected) => format!("ожидается {expected}"),
        // A query's number that does not parse (`str::parse`'s own words).
        None if cause.contains("invalid digit") || cause.contains("number too") => {
            "ожидается целое число".to_owned()
        }
        None => "недопустимое значение".to_owned(),
    };
    if path == "." {
        format!("{whole}: {why}")
    } else {
        format!("{field} «{path}»: {why}")
    }
}

/// serde's name of what it expected, as a Russian noun phrase.
fn expected_in_russian(expected: &str) -> &'static str {
    let expected = expected.trim();
    match expected {
        "a string" | "a borrowed string" | "a character" => "строка",
        "a boolean" => "true или false",
        "a sequence" => "список",
        "f32" | "f64" => "число",
        _ if expected.starts_with("struct ") || expected == "a map" => "объект",
        _ if matches!(expected.get(..1), Some("i" | "u"))
            && expected[1..].bytes().all(|b| b.is_ascii_digit())
            && expected.len() > 1 =>
        {
            "целое число"
        }
        _ => "значение другого вида",
    }
}

/// Query parameters (repeated keys make lists); malformed ones are a 400 envelope.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer =
            serde_html_form::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(deserializer)
            .map(Query)
            .map_err(|error| {
                tracing::debug!(%error, "rejected query");
                let message = wrong_field(Input::Query, error.path(), &error.inner().to_string());
                ApiError::new(StatusCode::BAD_REQUEST, message)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_error<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
        let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
        body_value::as_read(&mut value);
        let error = serde_path_to_error::deserialize::<_, T>(value).unwrap_err();
        wrong_field(Input::Body, error.path(), &error.inner().to_string())
    }

    #[derive(serde::Deserialize, Debug, Default)]
    #[serde(rename_all = "camelCase", default)]
    #[allow(dead_code)]
    struct Article {
        title: String,
        test_id: i64,
        user_ids: Vec<i64>,
        count: i32,
        nested: Option<Inner>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        id: i64,
    }

    #[test]
    fn a_wrong_body_names_its_field_and_says_why() {
        assert_eq!(
            body_error::<Article>(r#"{"title": 5}"#),
            "Поле «title»: ожидается строка"
        );
        assert_eq!(
            body_error::<Article>(r#"{"testId": "x"}"#),
            "Поле «testId»: ожидается целое число"
        );
        assert_eq!(
            body_error::<Article>(r#"{"userIds": [1, "b"]}"#),
            "Поле «userIds[1]»: ожидается целое число"
        );
        assert_eq!(
            body_error::<Article>(r#"{"count": 99999999999}"#),
            "Поле «count»: ожидается целое число в допустимых пределах"
        );
        assert_eq!(
            body_error::<Article>(r#"{"nested": {}}"#),
            "Поле «nested.id»: обязательное значение"
        );
        assert_eq!(
            body_error::<Article>(r#""текст""#),
            "Тело запроса: ожидается объект"
        );
    }

    #[test]
    fn null_is_a_field_left_out() {
        let mut value: serde_json::Value = serde_json::from_str(
            r#"{"title": null, "testId": null, "nested": null, "userIds": [null]}"#,
        )
        .unwrap();
        body_value::as_read(&mut value);
        assert_eq!(value, serde_json::json!({"userIds": [null]}));
    }
}
