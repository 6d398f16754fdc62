//! Schemas of the contracts' messages, read from their descriptor set.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type as FieldType};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};
use utoipa::openapi::schema::{
    ArrayBuilder, KnownFormat, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::{Ref, RefOr};

use super::Named;

/// How deep a contract's messages are spelled out inside one another.
const MAX_NESTING: usize = 8;

/// A contract's message by its full name, as [`Input::Message`] documents it.
pub fn message(name: &str) -> RefOr<Schema> {
    message_schema(&MESSAGES, name, 0)
}

pub fn descriptors() -> FileDescriptorSet {
    FileDescriptorSet::decode(portal_proto::FILE_DESCRIPTOR_SET).unwrap_or_else(|error| {
        tracing::error!(%error, "the contracts' descriptor set does not decode");
        FileDescriptorSet::default()
    })
}

/// Every message of the contracts by full name without the leading dot.
pub fn messages(set: &FileDescriptorSet) -> BTreeMap<String, &DescriptorProto> {
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
pub fn message_schema(
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
pub fn camel_case(snake: &str) -> String {
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
    field: &FieldDescriptorProto,
    depth: usize,
) -> RefOr<Schema> {
    match scalar(field) {
        Some(scalar) => Schema::from(scalar.build()).into(),
        None => message_schema(
            messages,
            field.type_name().trim_start_matches('.'),
            depth + 1,
        ),
    }
}

/// A field's schema unless it is a message (other than `Timestamp`, which is
/// an RFC 3339 string).
fn scalar(field: &FieldDescriptorProto) -> Option<ObjectBuilder> {
    let integer = |format: KnownFormat, min: i64, max: i64| {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(format)))
            .minimum(Some(min))
            .maximum(Some(max))
    };
    Some(match field.r#type() {
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
            if field.type_name() != ".google.protobuf.Timestamp" {
                return None;
            }
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
        }
    })
}

/// Adds the component of every message that `named` refers to but does not
/// hold (a gateway type's field refers to one by [`super::message_ref`]).
pub fn add_referred(named: &mut Named) {
    loop {
        let mut referred = Vec::new();
        for (_, schema) in named.iter() {
            let json = serde_json::to_value(schema).unwrap_or_default();
            refs(&json, &mut referred);
        }
        let missing = referred
            .into_iter()
            .filter(|name| !named.iter().any(|(known, _)| known == name))
            .filter(|name| MESSAGES.contains_key(&format!("portal.{name}")))
            .collect::<Vec<_>>();
        if missing.is_empty() {
            return;
        }
        for name in missing {
            message_component(&format!("portal.{name}"), named);
        }
    }
}

/// The component names `json` refers to.
fn refs(json: &serde_json::Value, out: &mut Vec<String>) {
    match json {
        serde_json::Value::Object(members) => {
            if let Some(target) = members.get("$ref").and_then(|r| r.as_str()) {
                out.push(
                    target
                        .trim_start_matches("#/components/schemas/")
                        .to_owned(),
                );
            }
            members.values().for_each(|member| refs(member, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

/// The contracts' messages, read once.
static SET: LazyLock<FileDescriptorSet> = LazyLock::new(descriptors);
static MESSAGES: LazyLock<BTreeMap<String, &'static DescriptorProto>> =
    LazyLock::new(|| messages(&SET));

/// A message as an answer carries it, as the component named after it
/// (`auth.v1.Department` for `portal.auth.v1.Department`), added to `named`
/// with the messages it holds: serde writes every field, a message or a
/// `Timestamp` not set and a proto3 `optional` not set as `null`.
pub fn message_component(full_name: &str, named: &mut Named) -> RefOr<Schema> {
    let name = full_name.strip_prefix("portal.").unwrap_or(full_name);
    let reference = Ref::from_schema_name(name).into();
    if named.iter().any(|(known, _)| known == name) {
        return reference;
    }
    let at = named.len();
    named.push((name.to_owned(), Schema::default().into()));
    let mut object = ObjectBuilder::new().schema_type(Type::Object);
    let Some(message) = MESSAGES.get(full_name) else {
        tracing::error!(full_name, "no such message in the contracts");
        named[at].1 = Schema::from(object.build()).into();
        return reference;
    };
    for field in &message.field {
        // A oneof's members travel as its own enum, which no REST answer holds.
        if field.oneof_index.is_some() && !field.proto3_optional() {
            continue;
        }
        let single = match scalar(field) {
            Some(scalar) => Schema::from(scalar.build()).into(),
            None => message_component(field.type_name().trim_start_matches('.'), named),
        };
        let schema = if field.label() == Label::Repeated {
            Schema::from(ArrayBuilder::new().items(single).build()).into()
        } else if field.proto3_optional() || field.r#type() == FieldType::Message {
            nullable(single)
        } else {
            single
        };
        let json_name = camel_case(field.name());
        object = object.property(&json_name, schema).required(json_name);
    }
    named[at].1 = Schema::from(object.build()).into();
    reference
}

/// `schema` or `null`.
pub fn nullable(schema: RefOr<Schema>) -> RefOr<Schema> {
    Schema::from(
        OneOfBuilder::new()
            .item(schema)
            .item(ObjectBuilder::new().schema_type(Type::Null))
            .build(),
    )
    .into()
}
