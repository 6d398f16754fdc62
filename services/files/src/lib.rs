//! Portal's files service: equipment documentation and videos embedded in rich
//! text. The bytes live in an object store (a directory, or an S3 bucket); the
//! metadata (title, safe name, detected type, size, SHA-256, uploader) in the
//! service's database.
//!
//! Reading order: this file wires the parts; [`rpc`] is the gRPC face (caller
//! check → parse → app or store → reply); [`convert`] turns records into the
//! contract's messages; [`app`] the uploads (streaming, limits, type, blob,
//! record) and the short-lived download links GetFiles hands out; [`domain`]
//! the rules (safe names, allowed contents, byte ranges); [`store`] the
//! metadata queries and the object store (streamed writes, ranged reads);
//! [`app::models`] who sees a document's equipment model (the wiki's answer);
//! [`demo`] the demo documentation; `migrations/{sqlite,postgres}` the schema.

pub mod app;
pub mod convert;
pub mod demo;
pub mod domain;
pub mod rpc;
pub mod store;

use std::path::{Path, PathBuf};
use std::time::Duration;

use portal_kit::audit::{AuditRpc, AuditSettings};
use portal_kit::db::{DatabaseSettings, Migrations};
use portal_kit::housekeeping::Housekeeping;
use portal_kit::idempotency::Idempotent;
use portal_kit::revocation::AccessVersions;
use portal_kit::serve::ServiceChannel;
use portal_kit::start::StartError;
use portal_proto::audit::v1::audit_service_server::AuditServiceServer;
use portal_proto::files::v1::files_service_server::FilesServiceServer;
use portal_proto::search::v1::search_service_server::SearchServiceServer;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;

use crate::app::links::LinkKeys;
use crate::app::models::Models;
use crate::app::pdf_text;
use crate::app::uploads::Uploads;
pub use crate::app::uploads::{Limits, MAX_CHUNK};
use crate::rpc::{FilesRpc, SearchRpc};
use crate::store::Store;
pub use crate::store::blobs::Blobs;

/// The full gRPC name of the service, for health and routing.
pub const SERVICE_NAME: &str = "portal.files.v1.FilesService";

const MIB: u64 = 1024 * 1024;

/// Files' own part of the `portal` command line.
#[derive(Clone, Debug, clap::Args)]
pub struct FilesArgs {
    /// Where file blobs live: a local directory, or `s3://bucket/prefix`
    /// [default: <data dir>/files].
    #[arg(long, env = "PORTAL_FILES_STORE", value_name = "PORTAL_FILES_STORE")]
    pub files_store: Option<String>,

    /// The largest document an upload may carry, in MiB; a bigger one is refused
    /// while it streams in.
    #[arg(
        long,
        env = "PORTAL_FILES_MAX_DOCUMENT_MIB",
        value_name = "PORTAL_FILES_MAX_DOCUMENT_MIB",
        default_value_t = 100,
        value_parser = clap::value_parser!(u64).range(1..=1_048_576)
    )]
    pub files_max_document_mib: u64,

    /// The largest video an upload may carry, in MiB.
    #[arg(
        long,
        env = "PORTAL_FILES_MAX_VIDEO_MIB",
        value_name = "PORTAL_FILES_MAX_VIDEO_MIB",
        default_value_t = 500,
        value_parser = clap::value_parser!(u64).range(1..=1_048_576)
    )]
    pub files_max_video_mib: u64,

    /// The key(s) that sign documents' download links (HMAC-SHA256): a file of
    /// one key per line, each at least 32 characters (`openssl rand -base64 48`);
    /// the first signs, every one verifies, so a new key can be added before it
    /// signs. Every files replica needs the same file; files only [default:
    /// generated into the data dir by `all`].
    #[arg(
        long,
        env = "PORTAL_FILES_LINK_KEY_FILE",
        value_name = "PORTAL_FILES_LINK_KEY_FILE"
    )]
    pub files_link_key_file: Option<PathBuf>,

    /// Seconds a document's download link works, from the listing that made
    /// it: a link opened in a new tab or passed to a colleague needs no token
    /// until then. The web client lists documents again before their links
    /// end; keep it short, since anyone holding a link reads that one file.
    #[arg(
        long,
        env = "PORTAL_FILES_LINK_LIFETIME",
        value_name = "PORTAL_FILES_LINK_LIFETIME",
        default_value_t = 900,
        value_parser = clap::value_parser!(u64).range(60..=86_400)
    )]
    pub files_link_lifetime: u64,
}

impl FilesArgs {
    /// Where file blobs live: `PORTAL_FILES_STORE`, else `files` in `data_dir`.
    pub fn store(&self, data_dir: &Path) -> String {
        self.files_store
            .clone()
            .unwrap_or_else(|| data_dir.join("files").display().to_string())
    }

    pub fn limits(&self) -> Limits {
        Limits {
            document: self.files_max_document_mib * MIB,
            video: self.files_max_video_mib * MIB,
        }
    }

    pub fn link_lifetime(&self) -> Duration {
        Duration::from_secs(self.files_link_lifetime)
    }
}

/// What files needs to start.
#[derive(Clone)]
pub struct FilesSettings {
    pub database: DatabaseSettings,
    /// The public key(s) access tokens are verified with.
    pub public_key_file: PathBuf,
    /// Each person's access version, kept current from auth by the binary
    /// ([`AccessVersions::follow`]): older tokens are refused.
    pub access_versions: AccessVersions,
    /// Where blobs live ([`store::blobs::open`]).
    pub blobs: Blobs,
    /// `PORTAL_PUBLIC_URL`: download links are absolute.
    pub public_url: String,
    pub limits: Limits,
    /// `PORTAL_SEED_DEMO`: load the demo documentation into an empty database.
    pub seed_demo: bool,
    /// The wiki service, which decides who sees an equipment model and so
    /// its documents.
    pub wiki: ServiceChannel,
    /// `PORTAL_FILES_LINK_KEY_FILE`: the keys of download links, the same
    /// file for every replica.
    pub link_key_file: PathBuf,
    /// `PORTAL_FILES_LINK_LIFETIME`: how long a download link works.
    pub link_lifetime: Duration,
    /// The audit log's retention and whose forwarded addresses it believes.
    pub audit: AuditSettings,
    /// The server's shutdown: the daily housekeeping stops then.
    pub shutdown: CancellationToken,
}

/// The oldest migration a binary must know (its newest at least this) to run on
/// the schema this release leaves. Kept while a release only expands the
/// schema, raised only by one that contracts it (ARCHITECTURE.md, invariants).
/// No release before this one reads it, so it starts at the newest migration.
pub const OLDEST_COMPATIBLE_READER: i64 = 3;

/// The schema of each backend, embedded in the binary.
pub fn migrations() -> Migrations {
    portal_kit::migrations!(OLDEST_COMPATIBLE_READER)
}

/// Connects and migrates the database, loads the demo documentation if asked,
/// and returns the service's routes (with the token interceptor installed).
pub async fn routes(settings: FilesSettings) -> Result<Routes, StartError> {
    let links = LinkKeys::from_file(&settings.link_key_file, settings.link_lifetime)
        .map_err(|error| StartError::Setting(format!("download-link keys: {error}")))?;
    let (database, verifier) = portal_kit::start::open(
        "files",
        &settings.database,
        &migrations(),
        &settings.public_key_file,
        &settings.access_versions,
    )
    .await?;
    let idempotency_keys = database.pool.clone();
    Housekeeping::of("files", &database, &settings.audit, false).spawn(settings.shutdown.clone());
    let audit = AuditServiceServer::new(AuditRpc::new(database.pool.clone()));
    let store = Store::new(database.pool, database.backend);
    store
        .index_missing()
        .await
        .map_err(StartError::step("indexing documents for search"))?;
    tokio::spawn({
        let (store, blobs) = (store.clone(), settings.blobs.clone());
        async move {
            match pdf_text::read_unread(&store, &blobs).await {
                Ok(0) => {}
                Ok(read) => tracing::info!(read, "texts of earlier PDFs read for search"),
                Err(error) => tracing::warn!(%error, "reading the texts of earlier PDFs stopped"),
            }
        }
    });
    let uploads = Uploads::new(store.clone(), settings.blobs.clone(), settings.limits);
    let models = Models::new(settings.wiki);
    let search = SearchServiceServer::new(SearchRpc::new(store.clone(), models.clone()));
    let rpc = FilesRpc::new(
        store.clone(),
        settings.blobs,
        uploads.clone(),
        models,
        (links, settings.access_versions.clone()),
        (&settings.public_url, settings.audit.trusted_proxies),
    );
    if settings.seed_demo {
        demo::load(&store, &uploads)
            .await
            .map_err(StartError::step("loading demo documentation"))?;
    }
    // Upload messages carry at most 1 MiB: tonic's 4 MiB decode limit holds them.
    let service = InterceptedService::new(
        Idempotent::new(FilesServiceServer::new(rpc), idempotency_keys),
        verifier.clone(),
    );
    Ok(Routes::new(service)
        .add_service(InterceptedService::new(audit, verifier.clone()))
        .add_service(InterceptedService::new(search, verifier)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<FilesArgs, String> {
        portal_kit::config::parse_args(args)
    }

    #[test]
    fn defaults_follow_the_design() {
        let args = parse(&[]).unwrap();
        assert_eq!(
            (
                args.files_max_document_mib,
                args.files_max_video_mib,
                args.files_link_lifetime
            ),
            (100, 500, 900)
        );
        assert_eq!(
            Path::new(&args.store(Path::new("./data"))),
            Path::new("./data/files")
        );
    }

    #[test]
    fn a_zero_limit_or_a_too_short_link_is_refused_naming_the_variable() {
        for (flag, variable) in [
            (
                "--files-max-document-mib=0",
                "PORTAL_FILES_MAX_DOCUMENT_MIB",
            ),
            ("--files-max-video-mib=0", "PORTAL_FILES_MAX_VIDEO_MIB"),
            ("--files-link-lifetime=59", "PORTAL_FILES_LINK_LIFETIME"),
        ] {
            let err = parse(&[flag]).unwrap_err();
            assert!(err.contains(variable), "{err}");
        }
    }

    #[tokio::test]
    async fn migrations_apply_twice_cleanly_on_every_backend() {
        portal_kit::testing::assert_migrations_apply_twice(&migrations()).await;
    }
}
