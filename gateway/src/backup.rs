//! `portal backup <dir>` and `portal restore <dir>`: the one-machine install
//! (the `all` target: a SQLite database per service, the stored files and the
//! generated keys, all in PORTAL_DATA_DIR) copied while it serves, and put
//! back into an empty data directory.
//!
//! The backup, run as a second process beside the serving one:
//! 1. each service's database through `VACUUM INTO` (`sqlite_snapshot`),
//!    in the order education, wiki, files, auth: a copy taken later holds
//!    everything an earlier one refers to (courses name auth's people, a
//!    rich text files' videos), except what is created during the backup;
//! 2. every blob the copy of files' database references, checked against
//!    the SHA-256 its row recorded at upload (`portal_files::store::backup`
//!    says what happens to a file deleted meanwhile: it is left out);
//! 3. the keys the `all` target generated (access tokens' Ed25519 pair,
//!    download links' key), so the restored portal's sessions and links
//!    still verify;
//! 4. `manifest.json` last (sizes, SHA-256, the binary's version, each
//!    database's newest migration): a directory without it is an unfinished
//!    backup, and restore refuses it.
//!
//! Every write acknowledged before the backup began is in it; one made while
//! it runs may or may not be. PostgreSQL is backed up by its own tools
//! (pg_dump, or CloudNativePG's continuous backup: k8s/README.md), never here.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use portal_files::store::backup as files_backup;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::Connection;

use crate::config::{Config, Target};
use crate::sqlite_snapshot;

/// The layout this binary writes and reads.
const FORMAT: u32 = 1;
const MANIFEST: &str = "manifest.json";
/// Where blobs go inside a backup, each under its key.
const FILES_DIR: &str = "files";

/// Each service's database (`<name>.db`), in the order a backup copies them (see above).
const SERVICES: [Target; 4] = [Target::Education, Target::Wiki, Target::Files, Target::Auth];

/// The key files `all` generates into the data dir when none is configured.
const KEY_FILES: [&str; 3] = ["jwt-private.pem", "jwt-public.pem", "files-link.key"];

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    /// The `portal` that took the backup.
    portal_version: String,
    /// RFC 3339, UTC: when the backup began.
    started_at: String,
    databases: Vec<Database>,
    keys: Vec<Entry>,
    files: Vec<Entry>,
    /// Files deleted while the backup ran, dropped from its copy of files'
    /// database.
    left_out: Vec<LeftOut>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Database {
    service: String,
    /// The newest migration applied (sqlx's version number).
    newest_migration: Option<i64>,
    #[serde(flatten)]
    entry: Entry,
}

/// One file of the backup, relative to its directory.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    path: String,
    bytes: u64,
    sha256: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct LeftOut {
    file_id: i64,
    key: String,
}

/// `portal backup <dir>`.
pub async fn take(config: &Config, dir: &Path) -> anyhow::Result<()> {
    let clock = Instant::now();
    let data_dir = &config.shared.data_dir;
    for service in SERVICES.map(Target::name) {
        let live = data_dir.join(format!("{service}.db"));
        ensure!(
            live.exists(),
            "PORTAL_DATA_DIR: no {} — is this the data directory of a portal that has run?",
            live.display()
        );
    }
    ensure_empty(dir, "the backup directory")?;
    create_private_dir(dir)?;
    let started_at = now_rfc3339()?;

    let mut databases = Vec::new();
    for service in SERVICES.map(Target::name) {
        let file = format!("{service}.db");
        sqlite_snapshot::copy(&data_dir.join(&file), &dir.join(&file)).await?;
        portal_kit::private_fs::restrict(&dir.join(&file), 0o600)?;
        tracing::info!(service, "database copied");
        databases.push((service, file));
    }

    let blobs = portal_files::store::blobs::open(&config.files.store(data_dir))?;
    let (files, left_out) = copy_files_out(&blobs, &data_dir.join("files.db"), dir).await?;

    // The databases' entries last: files' copy may have lost rows above.
    let mut manifest_databases = Vec::new();
    for (service, file) in databases {
        manifest_databases.push(Database {
            service: service.to_owned(),
            newest_migration: sqlite_snapshot::newest_migration(&dir.join(&file)).await?,
            entry: entry(dir, &file)?,
        });
    }
    let mut keys = Vec::new();
    for name in KEY_FILES {
        let live = data_dir.join(name);
        if live.exists() {
            let bytes = std::fs::read(&live).with_context(|| live.display().to_string())?;
            portal_kit::private_fs::write_new(&dir.join(name), &bytes)
                .with_context(|| dir.join(name).display().to_string())?;
            keys.push(entry(dir, name)?);
        }
    }
    if keys.len() < KEY_FILES.len() {
        tracing::warn!(
            "key files configured outside PORTAL_DATA_DIR are not in the backup: keep them with it"
        );
    }

    let manifest = Manifest {
        format: FORMAT,
        portal_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_at,
        databases: manifest_databases,
        keys,
        files,
        left_out,
    };
    write_manifest(dir, &manifest)?;
    println!(
        "portal backup: {} databases, {} files ({} bytes), {} keys into {} in {:.1} s{}",
        manifest.databases.len(),
        manifest.files.len(),
        manifest.files.iter().map(|f| f.bytes).sum::<u64>(),
        manifest.keys.len(),
        dir.display(),
        clock.elapsed().as_secs_f64(),
        match manifest.left_out.len() {
            0 => String::new(),
            n => format!("; {n} files deleted meanwhile left out"),
        }
    );
    Ok(())
}

/// Copies every blob the backup's copy of files' database references; drops
/// from the copy the files deleted since it was taken.
async fn copy_files_out(
    blobs: &portal_files::Blobs,
    live_database: &Path,
    dir: &Path,
) -> anyhow::Result<(Vec<Entry>, Vec<LeftOut>)> {
    let mut copy = sqlite_snapshot::open(&dir.join("files.db"), true).await?;
    let mut live = sqlite_snapshot::open(live_database, false).await?;
    let (mut files, mut left_out) = (Vec::new(), Vec::new());
    for recorded in files_backup::recorded(&mut copy).await? {
        let path = format!("{FILES_DIR}/{}", recorded.key);
        match files_backup::copy_out(blobs, &recorded.key, &dir.join(&path)).await? {
            Some(written) => {
                ensure!(
                    written.size == recorded.size && written.sha256 == recorded.sha256,
                    "file {}: blob {} is not what was uploaded ({} bytes, SHA-256 {}; recorded {} bytes, {}): the store is damaged",
                    recorded.id,
                    recorded.key,
                    written.size,
                    written.sha256,
                    recorded.size,
                    recorded.sha256
                );
                files.push(Entry {
                    path,
                    bytes: written.size,
                    sha256: written.sha256,
                });
            }
            None if !files_backup::still_recorded(&mut live, recorded.id).await? => {
                files_backup::forget(&mut copy, recorded.id).await?;
                tracing::info!(file = recorded.id, "deleted while the backup ran: left out");
                left_out.push(LeftOut {
                    file_id: recorded.id,
                    key: recorded.key,
                });
            }
            None => bail!(
                "file {}: its blob {} is missing from the store while the file is still recorded: the store is damaged (delete the file or put the blob back, then back up again)",
                recorded.id,
                recorded.key
            ),
        }
    }
    copy.close().await?;
    live.close().await?;
    Ok((files, left_out))
}

/// `portal restore <dir>`.
pub async fn restore(config: &Config, dir: &Path) -> anyhow::Result<()> {
    let clock = Instant::now();
    let data_dir = &config.shared.data_dir;
    ensure_empty(data_dir, "PORTAL_DATA_DIR")?;
    let manifest = read_manifest(dir)?;
    verify(dir, &manifest)?;
    check_schemas(&manifest)?;

    let store = config.files.store(data_dir);
    create_private_dir(data_dir)?;
    let blobs = portal_files::store::blobs::open(&store)?;
    ensure!(
        files_backup::is_empty(&blobs).await?,
        "PORTAL_FILES_STORE {store} already holds files: restore only into an empty store"
    );
    fill(&manifest, dir, data_dir, &blobs)
        .await
        .with_context(|| {
            format!(
                "the restore stopped half-way: empty {} (and PORTAL_FILES_STORE) before trying again",
                data_dir.display()
            )
        })?;
    println!(
        "portal restore: {} databases, {} files, {} keys from {} (taken by portal {} at {}) into {} in {:.1} s",
        manifest.databases.len(),
        manifest.files.len(),
        manifest.keys.len(),
        dir.display(),
        manifest.portal_version,
        manifest.started_at,
        data_dir.display(),
        clock.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Every service's database is there, none with a schema newer than this
/// binary knows.
fn check_schemas(manifest: &Manifest) -> anyhow::Result<()> {
    for database in &manifest.databases {
        ensure!(
            SERVICES
                .iter()
                .any(|service| service.name() == database.service),
            "{MANIFEST}: unknown service {}",
            database.service
        );
    }
    for target in SERVICES {
        let service = target.name();
        let database = manifest
            .databases
            .iter()
            .find(|d| d.service == service)
            .with_context(|| {
                format!("{MANIFEST}: no {service} database: the backup is incomplete")
            })?;
        let known = target
            .migrations()
            .and_then(|migrations| migrations.sqlite.iter().map(|m| m.version).max());
        if database.newest_migration > known {
            bail!(
                "{}: its schema is newer (migration {}) than this portal {} knows (up to {}): restore with portal {}, which took the backup",
                database.entry.path,
                database.newest_migration.unwrap_or_default(),
                env!("CARGO_PKG_VERSION"),
                known.unwrap_or_default(),
                manifest.portal_version
            );
        }
    }
    Ok(())
}

/// Writes the verified backup into the data directory and the store.
async fn fill(
    manifest: &Manifest,
    dir: &Path,
    data_dir: &Path,
    blobs: &portal_files::Blobs,
) -> anyhow::Result<()> {
    for database in &manifest.databases {
        let to = data_dir.join(format!("{}.db", database.service));
        std::fs::copy(dir.join(&database.entry.path), &to)
            .with_context(|| to.display().to_string())?;
        sync(&to)?;
    }
    for key in &manifest.keys {
        let bytes = std::fs::read(dir.join(&key.path))?;
        let to = data_dir.join(&key.path);
        portal_kit::private_fs::write_new(&to, &bytes).with_context(|| to.display().to_string())?;
    }
    for file in &manifest.files {
        files_backup::copy_in(blobs, blob_key(file)?, &dir.join(&file.path)).await?;
    }
    Ok(())
}

/// The store key of a blob listed at `files/<key>`.
fn blob_key(file: &Entry) -> anyhow::Result<&str> {
    file.path
        .strip_prefix(&format!("{FILES_DIR}/"))
        .with_context(|| format!("{MANIFEST}: {} is not under {FILES_DIR}/", file.path))
}

/// Refuses a directory that holds anything: a backup written over another,
/// or a restore over a portal's data, would mix two states into one.
fn ensure_empty(dir: &Path, what: &str) -> anyhow::Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            ensure!(
                entries.next().is_none(),
                "{what} {} is not empty: give a new or empty directory (nothing is overwritten)",
                dir.display()
            );
            Ok(())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error).with_context(|| format!("{what} {}", dir.display())),
    }
}

/// A directory only its owner reads: it holds password hashes and private keys.
fn create_private_dir(dir: &Path) -> anyhow::Result<()> {
    portal_kit::private_fs::create_dir(dir)
        .with_context(|| format!("cannot create {} readable by its owner only", dir.display()))
}

fn sync(path: &Path) -> anyhow::Result<()> {
    std::fs::File::open(path)
        .and_then(|file| file.sync_all())
        .with_context(|| format!("syncing {}", path.display()))
}

/// The size and SHA-256 of `path` inside `dir`, read back from the disk.
fn entry(dir: &Path, path: &str) -> anyhow::Result<Entry> {
    let (bytes, sha256) = digest(&dir.join(path))?;
    Ok(Entry {
        path: path.to_owned(),
        bytes,
        sha256,
    })
}

fn digest(path: &Path) -> anyhow::Result<(u64, String)> {
    let mut file = std::fs::File::open(path).with_context(|| path.display().to_string())?;
    let mut hasher = Sha256::new();
    let bytes =
        std::io::copy(&mut file, &mut hasher).with_context(|| path.display().to_string())?;
    Ok((bytes, hex::encode(hasher.finalize())))
}

fn write_manifest(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let written = dir.join(format!("{MANIFEST}.partial"));
    portal_kit::private_fs::write_new(&written, &serde_json::to_vec_pretty(manifest)?)
        .with_context(|| written.display().to_string())?;
    sync(&written)?;
    std::fs::rename(&written, dir.join(MANIFEST))?;
    sync(dir)
}

fn read_manifest(dir: &Path) -> anyhow::Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => bail!(
            "{} has no {MANIFEST}: not a portal backup, or one that did not finish",
            dir.display()
        ),
        read => read.with_context(|| path.display().to_string())?,
    };
    let manifest: Manifest =
        serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    ensure!(
        manifest.format == FORMAT,
        "{}: backup format {} (portal {}); this portal reads format {FORMAT}",
        path.display(),
        manifest.format,
        manifest.portal_version
    );
    Ok(manifest)
}

/// Every file the manifest lists is there with its size and SHA-256, checked
/// before anything is restored.
fn verify(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let entries = manifest
        .databases
        .iter()
        .map(|database| &database.entry)
        .chain(&manifest.keys)
        .chain(&manifest.files);
    for file in &manifest.files {
        blob_key(file)?;
    }
    for listed in entries {
        let relative = PathBuf::from(&listed.path);
        ensure!(
            relative
                .components()
                .all(|part| matches!(part, std::path::Component::Normal(_))),
            "{MANIFEST}: {} leaves the backup directory",
            listed.path
        );
        let (bytes, sha256) = digest(&dir.join(&relative))?;
        ensure!(
            bytes == listed.bytes && sha256 == listed.sha256,
            "{}: {bytes} bytes, SHA-256 {sha256}; the manifest says {} bytes, {}: the backup is damaged",
            listed.path,
            listed.bytes,
            listed.sha256
        );
    }
    Ok(())
}

fn now_rfc3339() -> anyhow::Result<String> {
    Ok(time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339)?)
}

#[cfg(test)]
mod tests {
    use object_store::ObjectStoreExt;
    use object_store::path::Path as BlobPath;

    use super::*;
    use clap::Parser;

    #[test]
    fn backup_and_restore_are_the_all_targets_alone() {
        for command in ["backup", "restore"] {
            let config =
                Config::try_parse_from(["portal", "--target=auth", command, "/tmp/x"]).unwrap();
            assert!(config.check().unwrap_err().contains("PORTAL_TARGET"));
            let all = Config::try_parse_from(["portal", command, "/tmp/x"]).unwrap();
            assert_eq!(all.check(), Ok(()));
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_empty_backup_directory_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("backup");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    /// A live files database and store with three documents, and a backup
    /// directory holding the database's copy.
    struct Fixture {
        _root: tempfile::TempDir,
        live: PathBuf,
        pool: sqlx::AnyPool,
        blobs: portal_files::Blobs,
        backup: PathBuf,
    }

    async fn fixture() -> Fixture {
        let root = tempfile::tempdir().unwrap();
        let live = root.path().join("files.db");
        let url = format!("sqlite://{}?mode=rwc", live.display());
        let database = portal_kit::db::Database::connect(&url, &portal_files::migrations())
            .await
            .unwrap();
        let blobs = portal_files::store::blobs::directory(&root.path().join("files")).unwrap();
        for id in 1..=3i64 {
            let content = format!("%PDF-1.7 document {id}").into_bytes();
            let key = format!("document/{id:032x}");
            blobs
                .put(&BlobPath::from(key.as_str()), content.clone().into())
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO files (id, id_related, kind, title, file_name, content_type, size_bytes, sha256, blob_key, uploaded_by, created_at) \
                 VALUES ($1, 1, 'document', 't', 't.pdf', 'application/pdf', $2, $3, $4, 1, 0)",
            )
            .bind(id)
            .bind(content.len() as i64)
            .bind(hex::encode(Sha256::digest(&content)))
            .bind(key)
            .execute(&database.pool)
            .await
            .unwrap();
        }
        let backup = root.path().join("backup");
        std::fs::create_dir(&backup).unwrap();
        sqlite_snapshot::copy(&live, &backup.join("files.db"))
            .await
            .unwrap();
        Fixture {
            _root: root,
            live,
            pool: database.pool,
            blobs,
            backup,
        }
    }

    async fn delete_blob(fixture: &Fixture, id: i64) {
        fixture
            .blobs
            .delete(&BlobPath::from(format!("document/{id:032x}")))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_file_deleted_after_the_database_copy_is_left_out_of_it() {
        let fixture = fixture().await;
        // DeleteFile's order: the row, then the blob.
        sqlx::query("DELETE FROM files WHERE id = 2")
            .execute(&fixture.pool)
            .await
            .unwrap();
        delete_blob(&fixture, 2).await;

        let (files, left_out) = copy_files_out(&fixture.blobs, &fixture.live, &fixture.backup)
            .await
            .unwrap();
        let copied: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(copied, [1, 3].map(|id| format!("files/document/{id:032x}")));
        assert_eq!(left_out.iter().map(|l| l.file_id).collect::<Vec<_>>(), [2]);
        let mut copy = sqlite_snapshot::open(&fixture.backup.join("files.db"), false)
            .await
            .unwrap();
        let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM files ORDER BY id")
            .fetch_all(&mut copy)
            .await
            .unwrap();
        assert_eq!(ids, [1, 3]);
    }

    #[test]
    fn a_schema_newer_than_the_binary_or_a_missing_database_is_refused() {
        let database = |service: &str, newest_migration| Database {
            service: service.to_owned(),
            newest_migration,
            entry: Entry {
                path: format!("{service}.db"),
                bytes: 0,
                sha256: String::new(),
            },
        };
        let known = |service: &str| {
            SERVICES
                .iter()
                .find(|s| s.name() == service)
                .unwrap()
                .migrations()
                .unwrap()
                .sqlite
                .iter()
                .map(|m| m.version)
                .max()
        };
        let manifest = |databases| Manifest {
            format: FORMAT,
            portal_version: "9.9.9".into(),
            started_at: String::new(),
            databases,
            keys: vec![],
            files: vec![],
            left_out: vec![],
        };
        let current = || SERVICES.map(|service| database(service.name(), known(service.name())));
        assert!(check_schemas(&manifest(current().into())).is_ok());

        let mut newer = current();
        newer[3].newest_migration = Some(known("auth").unwrap() + 1);
        let error = check_schemas(&manifest(newer.into()))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("auth.db") && error.contains("portal 9.9.9"),
            "{error}"
        );

        let error = check_schemas(&manifest(current()[..3].to_vec()))
            .unwrap_err()
            .to_string();
        assert!(error.contains("no auth database"), "{error}");
        let mut stray = current().to_vec();
        stray.push(database("../elsewhere", None));
        let error = check_schemas(&manifest(stray)).unwrap_err().to_string();
        assert!(error.contains("unknown service"), "{error}");
    }

    /// Why copying the fixture's blobs out failed.
    async fn refusal(fixture: &Fixture) -> String {
        copy_files_out(&fixture.blobs, &fixture.live, &fixture.backup)
            .await
            .unwrap_err()
            .to_string()
    }

    #[tokio::test]
    async fn a_missing_or_altered_blob_of_a_recorded_file_fails_the_backup() {
        let missing = fixture().await;
        delete_blob(&missing, 3).await;
        let error = refusal(&missing).await;
        assert!(
            error.contains("file 3") && error.contains("damaged"),
            "{error}"
        );

        let altered = fixture().await;
        altered
            .blobs
            .put(
                &BlobPath::from(format!("document/{:032x}", 1)),
                b"%PDF-1.7 something else".to_vec().into(),
            )
            .await
            .unwrap();
        let error = refusal(&altered).await;
        assert!(
            error.contains("file 1") && error.contains("not what was uploaded"),
            "{error}"
        );
    }
}
