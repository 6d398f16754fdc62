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
//! [`models`] who sees a document's equipment model (the wiki's answer);
//! [`demo`] the demo documentation; `migrations/{sqlite,postgres}` the schema.

pub mod app;
pub mod convert;
pub mod demo;
pub mod domain;
pub mod models;
pub mod rpc;
pub mod store;

use std::path::PathBuf;
use std::time::Duration;

use portal_kit::db::{Database, Migrations};
use portal_kit::revocation::AccessVersions;
use portal_kit::start::StartError;
use portal_kit::token::TokenVerifier;
use portal_proto::files::v1::files_service_server::FilesServiceServer;
use tonic::service::Routes;

use crate::app::links::LinkKeys;
pub use crate::app::uploads::Limits;
use crate::app::uploads::Uploads;
use crate::models::Models;
pub use crate::models::WikiChannel;
use crate::rpc::FilesRpc;
use crate::store::Store;
pub use crate::store::blobs::Blobs;

/// The full gRPC name of the service, for health and routing.
pub const SERVICE_NAME: &str = "portal.files.v1.FilesService";

/// What files needs to start.
#[derive(Clone)]
pub struct FilesSettings {
    pub database_url: String,
    /// The public key(s) access tokens are verified with.
    pub public_key_file: PathBuf,
    /// Each person's access version, kept current from auth by the binary
    /// ([`AccessVersions::follow`]): older tokens are refused.
    pub access_versions: AccessVersions,
    /// Where blobs live ([`blobs::open`]).
    pub blobs: Blobs,
    /// `PORTAL_PUBLIC_URL`: download links are absolute.
    pub public_url: String,
    pub limits: Limits,
    /// `PORTAL_SEED_DEMO`: load the demo documentation into an empty database.
    pub seed_demo: bool,
    /// The wiki service, which decides who sees an equipment model and so
    /// its documents.
    pub wiki: WikiChannel,
    /// `PORTAL_FILES_LINK_KEY_FILE`: the keys of download links, the same
    /// file for every replica.
    pub link_key_file: PathBuf,
    /// `PORTAL_FILES_LINK_LIFETIME`: how long a download link works.
    pub link_lifetime: Duration,
}

/// The schema of each backend, embedded in the binary.
pub fn migrations() -> Migrations {
    portal_kit::migrations!()
}

/// Connects and migrates the database, loads the demo documentation if asked,
/// and returns the service's routes (with the token interceptor installed).
pub async fn routes(settings: FilesSettings) -> Result<Routes, StartError> {
    let verifier = TokenVerifier::from_pem_file(&settings.public_key_file)?
        .with_access_versions(settings.access_versions.clone());
    let links = LinkKeys::from_file(&settings.link_key_file, settings.link_lifetime)
        .map_err(|error| StartError::Setting(format!("download-link keys: {error}")))?;
    let database = Database::connect(&settings.database_url, &migrations())
        .await
        .map_err(StartError::database("files"))?;
    let store = Store::new(database.pool);
    let uploads = Uploads::new(store.clone(), settings.blobs.clone(), settings.limits);
    let rpc = FilesRpc::new(
        store.clone(),
        settings.blobs,
        uploads.clone(),
        Models::new(settings.wiki),
        links,
        &settings.public_url,
    );
    if settings.seed_demo {
        demo::load(&store, &uploads)
            .await
            .map_err(StartError::step("loading demo documentation"))?;
    }
    // Upload messages carry at most 1 MiB: tonic's 4 MiB decode limit holds them.
    let service = FilesServiceServer::with_interceptor(rpc, verifier);
    Ok(Routes::new(service))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn migrations_apply_twice_cleanly_on_every_backend() {
        portal_kit::testing::assert_migrations_apply_twice(&migrations()).await;
    }
}
