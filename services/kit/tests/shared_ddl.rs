//! A table kit's code reads and writes in every service's database is created
//! by each service's own migration, which must copy kit's DDL verbatim: a
//! column added in one copy and not another would fail only on that service,
//! and only at run time.

use std::fs;
use std::path::{Path, PathBuf};

const SERVICES: [&str; 4] = ["auth", "education", "wiki", "files"];

/// The DDL of each backend's migration that creates `table` in every service,
/// without its comment lines.
fn copies(table: &str, backend: &str) -> Vec<(PathBuf, String)> {
    let services = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let create = format!("CREATE TABLE {table} (");
    let mut found = Vec::new();
    for service in SERVICES {
        let folder = services.join(service).join("migrations").join(backend);
        let mut copy = None;
        for entry in fs::read_dir(&folder).expect("a service's migrations") {
            let path = entry.expect("a migration").path();
            let text = fs::read_to_string(&path).expect("a migration's text");
            if text.contains(&create) {
                assert!(copy.is_none(), "{table} is created twice in {folder:?}");
                copy = Some((path, without_comments(&text)));
            }
        }
        found.push(copy.unwrap_or_else(|| panic!("no migration of {folder:?} creates {table}")));
    }
    found
}

fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

fn assert_copied_verbatim(table: &str, sqlite: &str, postgres: &str) {
    for (backend, ddl) in [("sqlite", sqlite), ("postgres", postgres)] {
        for (path, copy) in copies(table, backend) {
            assert_eq!(copy, ddl.trim(), "{path:?} is not kit's DDL of {table}");
        }
    }
}

#[test]
fn every_service_creates_the_search_index_as_kit_defines_it() {
    assert_copied_verbatim(
        "search_entries",
        portal_kit::search::SQLITE_SCHEMA,
        portal_kit::search::POSTGRES_SCHEMA,
    );
}

#[test]
fn every_service_creates_the_audit_log_as_kit_defines_it() {
    assert_copied_verbatim(
        "audit_records",
        portal_kit::audit::SQLITE_SCHEMA,
        portal_kit::audit::POSTGRES_SCHEMA,
    );
}
