//! The envelopes answers travel in.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// Every successful answer but a file: `{"success": true, "data": …, "errorMessage": null}`.
pub fn envelope() -> Schema {
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

/// One operation's successful answer: `{"success": true, "data": <data>,
/// "errorMessage": null}`, `data` typed.
pub fn answer(data: RefOr<Schema>) -> Schema {
    ObjectBuilder::new()
        .property(
            "success",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .enum_values(Some([true])),
        )
        .required("success")
        .property("data", data)
        .required("data")
        .property("errorMessage", ObjectBuilder::new().schema_type(Type::Null))
        .build()
        .into()
}

/// Every failure: `{"success": false, "data": null, "errorMessage": "…"}`, the
/// message in Russian for the person, `reason` for programs, and `errorCode`
/// where the refusal has one.
pub fn error() -> Schema {
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
