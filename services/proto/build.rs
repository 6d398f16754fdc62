//! Compiles `proto/` with protox (no system protoc), generates tonic code, and keeps
//! the descriptor set for gRPC reflection. Every message also derives serde in
//! camelCase: the gateway's REST JSON is the messages themselves, with every field
//! present (spec §3 names, DESIGN §5).

use std::error::Error;
use std::path::{Path, PathBuf};

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};

const PACKAGE_PREFIX: &str = ".portal";

fn main() -> Result<(), Box<dyn Error>> {
    // Read when the script runs, not when it is compiled: a target dir copied from another
    // checkout must not keep compiling that checkout's protos.
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect_protos(&root, &root, &mut files)?;
    files.sort();

    let descriptors = protox::compile(&files, [&root])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("portal_descriptor.bin"),
        descriptors.encode_to_vec(),
    )?;

    let mut config = tonic_prost_build::configure()
        .message_attribute(
            PACKAGE_PREFIX,
            "#[derive(serde::Serialize, serde::Deserialize)] #[serde(rename_all = \"camelCase\", default)]",
        )
        .enum_attribute(
            PACKAGE_PREFIX,
            "#[derive(serde::Serialize, serde::Deserialize)] #[serde(rename_all = \"camelCase\")]",
        );
    for (path, attribute) in serde_field_adapters(&descriptors) {
        config = config.field_attribute(path, attribute);
    }
    std::fs::write(
        out_dir.join("portal_messages.rs"),
        every_message(&descriptors),
    )?;
    config.compile_fds(descriptors)?;
    Ok(())
}

/// Paths of `.proto` files relative to `root`, as protox wants them.
fn collect_protos(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), Box<dyn Error>> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_protos(root, &path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "proto") {
            println!("cargo:rerun-if-changed={}", path.display());
            files.push(path.strip_prefix(root)?.to_path_buf());
        }
    }
    Ok(())
}

/// Timestamps travel as RFC 3339 strings and bytes as base64 in JSON; prost's types
/// know neither, so each such field gets a `serde(with)` adapter.
fn serde_field_adapters(descriptors: &FileDescriptorSet) -> Vec<(String, &'static str)> {
    fn visit(scope: &str, message: &DescriptorProto, out: &mut Vec<(String, &'static str)>) {
        let scope = format!("{scope}.{}", message.name());
        for field in &message.field {
            let repeated = field.label() == Label::Repeated;
            let adapter = match (field.r#type(), field.type_name(), repeated) {
                (Type::Message, ".google.protobuf.Timestamp", false) => {
                    "#[serde(with = \"crate::json::timestamp\")]"
                }
                (Type::Bytes, _, false) => "#[serde(with = \"crate::json::base64_bytes\")]",
                _ => continue,
            };
            out.push((format!("{scope}.{}", field.name()), adapter));
        }
        for nested in &message.nested_type {
            visit(&scope, nested, out);
        }
    }
    let mut out = Vec::new();
    for file in &descriptors.file {
        let scope = format!(".{}", file.package());
        if !scope.starts_with(PACKAGE_PREFIX) {
            continue;
        }
        for message in &file.message_type {
            visit(&scope, message, &mut out);
        }
    }
    out
}

/// `for_each_message!`, which hands a macro every top-level message of the
/// contracts as `(Rust type, full name)` pairs: the gateway's API document
/// names each answer's schema after the message it is. The contracts nest no
/// messages, so each type is `$crate::<package less portal>::<Name>`.
fn every_message(descriptors: &FileDescriptorSet) -> String {
    let mut pairs = String::new();
    for file in &descriptors.file {
        let Some(package) = file.package().strip_prefix("portal.") else {
            continue;
        };
        let module = package.replace('.', "::");
        for message in &file.message_type {
            pairs.push_str(&format!(
                "        ($crate::{module}::{name}, \"portal.{package}.{name}\"),\n",
                name = message.name()
            ));
        }
    }
    format!(
        "/// Calls `$m! {{ (Type, \"full.Name\"), … }}` with every message of the contracts.\n\
         #[macro_export]\n\
         macro_rules! for_each_message {{\n    ($m:ident) => {{\n        $m! {{\n{pairs}        }}\n    }};\n}}\n"
    )
}
