//! Portal's training service: courses of articles, tests with questions drawn
//! per attempt, attempts scored on the server, results and statistics.
//!
//! Reading order: this file wires the parts; [`rpc`] is the gRPC face (caller
//! check → parse → store or use case → map); [`convert`] maps records to the
//! contract's messages; [`app`] the use cases that take more than one store
//! call, and the start-up housekeeping; [`domain`] the types that cannot be
//! invalid and the rules; [`store`] the queries, one module per aggregate;
//! [`demo`] the demo courses; `migrations/{sqlite,postgres}` the schema.
//! [`app::staff`] asks auth for the HR system's keys (the one call education
//! makes to another service besides following auth's access changes), for
//! the integration calls of [`app::integration`].

pub mod app;
pub mod convert;
pub mod demo;
pub mod domain;
pub mod rpc;
pub mod store;

use std::path::PathBuf;

use portal_kit::db::{DatabaseSettings, Migrations};
use portal_kit::idempotency::Idempotent;
use portal_kit::revocation::AccessVersions;
use portal_kit::rich_text::{FrameHosts, Frames, MAX_MESSAGE_BYTES};
use portal_kit::serve::ServiceChannel;
use portal_kit::start::StartError;
use portal_proto::education::v1::education_service_server::EducationServiceServer;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;

use crate::app::staff::Staff;
use crate::domain::article::ContentCleaner;
use crate::rpc::EducationRpc;
use crate::store::Store;

/// The full gRPC name of the service, for health and routing.
pub const SERVICE_NAME: &str = "portal.education.v1.EducationService";

/// Education's own part of the `portal` command line.
#[derive(Clone, Debug, clap::Args)]
pub struct EducationArgs {
    /// Hosts besides the portal whose pages articles may frame over https
    /// (video players), comma-separated, e.g. `rutube.ru,www.youtube.com`; the
    /// CSP's `frame-src` names the same [default: none, only the portal].
    #[arg(long, env = "PORTAL_FRAME_HOSTS", value_name = "PORTAL_FRAME_HOSTS", default_value = "", value_parser = FrameHosts::parse)]
    pub frame_hosts: FrameHosts,
}

/// What education needs to start.
#[derive(Clone, Debug)]
pub struct EducationSettings {
    pub database: DatabaseSettings,
    /// The public key(s) access tokens are verified with.
    pub public_key_file: PathBuf,
    /// `PORTAL_PUBLIC_URL`: articles may frame the portal's own pages.
    pub public_url: String,
    /// `PORTAL_FRAME_HOSTS`: the other hosts articles may frame.
    pub frame_hosts: FrameHosts,
    /// Each person's access version, kept current from auth by the binary
    /// ([`AccessVersions::follow`]): older tokens are refused.
    pub access_versions: AccessVersions,
    pub seed_demo: bool,
    /// The auth service, which turns the HR system's keys (employee numbers,
    /// department codes) into user ids and back for the integration calls.
    pub auth: ServiceChannel,
    /// The server's shutdown: open WatchTrainingRecords streams end then, so
    /// the drain does not wait for them.
    pub shutdown: CancellationToken,
}

/// The oldest migration a binary must know (its newest at least this) to run on
/// the schema this release leaves. Kept while a release only expands the
/// schema, raised only by one that contracts it (ARCHITECTURE.md, invariants).
/// No release before this one reads it, so it starts at the newest migration.
pub const OLDEST_COMPATIBLE_READER: i64 = 6;

/// The schema of each backend, embedded in the binary.
pub fn migrations() -> Migrations {
    portal_kit::migrations!(OLDEST_COMPATIBLE_READER)
}

/// Connects, migrates, loads demo courses if asked, and returns the service's
/// routes (with the token interceptor installed).
pub async fn routes(settings: EducationSettings) -> Result<Routes, StartError> {
    let (database, verifier) = portal_kit::start::open(
        "education",
        &settings.database,
        &migrations(),
        &settings.public_key_file,
        &settings.access_versions,
    )
    .await?;
    let idempotency_keys = database.pool.clone();
    let store = Store::new(database.pool, database.backend);
    let cleaner = ContentCleaner::new(Frames::new(&settings.public_url, settings.frame_hosts));
    app::housekeeping::reclean_articles(&store, &cleaner)
        .await
        .map_err(StartError::step("cleaning stored articles again"))?;
    store.index_missing().await.map_err(StartError::step(
        "indexing courses, articles and tests for search",
    ))?;
    if settings.seed_demo {
        demo::load(&store, &cleaner)
            .await
            .map_err(StartError::step("loading demo courses"))?;
    }
    // Article writes carry rich text up to its limit (images inside). What
    // education sends stays unbounded: a list of articles may be larger.
    let rpc = EducationRpc::new(store, cleaner, Staff::new(settings.auth), settings.shutdown);
    let server = EducationServiceServer::new(rpc).max_decoding_message_size(MAX_MESSAGE_BYTES);
    Ok(Routes::new(InterceptedService::new(
        Idempotent::new(server, idempotency_keys),
        verifier,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<EducationArgs, String> {
        portal_kit::config::parse_args(args)
    }

    #[test]
    fn frame_hosts_are_a_comma_separated_list_of_host_names() {
        let args = parse(&["--frame-hosts", "rutube.ru, www.youtube.com"]).unwrap();
        assert_eq!(args.frame_hosts.hosts(), ["rutube.ru", "www.youtube.com"]);
        let err = parse(&["--frame-hosts", "https://rutube.ru"]).unwrap_err();
        assert!(err.contains("PORTAL_FRAME_HOSTS"), "{err}");
        assert!(
            parse(&[]).unwrap().frame_hosts.hosts().is_empty(),
            "frames only from the portal"
        );
    }

    #[tokio::test]
    async fn migrations_apply_twice_cleanly_on_every_backend() {
        portal_kit::testing::assert_migrations_apply_twice(&migrations()).await;
    }
}
