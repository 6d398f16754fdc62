//! Portal's equipment service: equipment models with their short instruction
//! and QR code, units deployed in departments, each unit's maintenance logbook,
//! named journals, reference data, and the public read of one instruction.
//!
//! Reading order: this file wires the parts; [`rpc`] is the gRPC face (caller
//! check → parse → app or store → reply); [`convert`] turns records into the
//! contract's messages; [`app`] what goes beyond one store call (the start-up
//! housekeeping, the kept QR codes, label sheets, maintenance overviews,
//! clearance to operate equipment, which asks education and auth);
//! [`domain`] the types that cannot be invalid and the rules; [`store`] the
//! queries, one module per aggregate; [`demo`] the demo equipment;
//! `migrations/{sqlite,postgres}` the schema.

pub mod app;
pub mod convert;
pub mod demo;
pub mod digest_rpc;
pub mod domain;
pub mod notification_rpc;
pub mod rpc;
pub mod store;

use std::path::PathBuf;

use portal_kit::audit::{AuditRpc, AuditSettings};
use portal_kit::db::{DatabaseSettings, Migrations};
use portal_kit::housekeeping::Housekeeping;
use portal_kit::idempotency::Idempotent;
use portal_kit::internal::InternalKeys;
use portal_kit::revocation::AccessVersions;
use portal_kit::rich_text::MAX_MESSAGE_BYTES;
use portal_kit::serve::ServiceChannel;
use portal_kit::start::StartError;
use portal_proto::audit::v1::audit_service_server::AuditServiceServer;
use portal_proto::search::v1::search_service_server::SearchServiceServer;
use portal_proto::wiki::v1::digest_item_service_server::DigestItemServiceServer;
use portal_proto::wiki::v1::notification_service_server::NotificationServiceServer;
use portal_proto::wiki::v1::wiki_service_server::WikiServiceServer;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;

use crate::app::clearance::Training;
use crate::digest_rpc::DigestRpc;
use crate::domain::instruction::Sanitizer;
use crate::notification_rpc::NotificationRpc;
use crate::rpc::{SearchRpc, WikiRpc};
use crate::store::Store;

/// The full gRPC name of the service, for health and routing.
pub const SERVICE_NAME: &str = "portal.wiki.v1.WikiService";
/// The wiki's part of the bell, served beside it.
pub const NOTIFICATION_SERVICE_NAME: &str =
    portal_proto::wiki::v1::notification_service_server::SERVICE_NAME;

/// What the wiki needs to start.
#[derive(Clone, Debug)]
pub struct WikiSettings {
    pub database: DatabaseSettings,
    /// The public key(s) access tokens are verified with.
    pub public_key_file: PathBuf,
    /// Each person's access version, kept current from auth by the binary
    /// ([`AccessVersions::follow`]): older tokens are refused.
    pub access_versions: AccessVersions,
    /// `PORTAL_PUBLIC_URL`: what QR codes open, and whose videos instructions
    /// may embed.
    pub public_url: String,
    pub seed_demo: bool,
    /// The education service, which knows courses and who passed them
    /// (clearance to operate equipment).
    pub education: ServiceChannel,
    /// The auth service, which lists a department's members.
    pub auth: ServiceChannel,
    /// The audit log's retention and whose forwarded addresses it believes.
    pub audit: AuditSettings,
    /// The server's shutdown: the daily housekeeping stops then.
    pub shutdown: CancellationToken,
    /// Checks education's calls to the internal `DigestItemService`.
    pub internal: InternalKeys,
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

/// Connects, migrates, loads demo equipment if asked, and returns the
/// service's routes (with the token interceptor installed).
pub async fn routes(settings: WikiSettings) -> Result<Routes, StartError> {
    let (database, verifier) = portal_kit::start::open(
        "wiki",
        &settings.database,
        &migrations(),
        &settings.public_key_file,
        &settings.access_versions,
    )
    .await?;
    let idempotency_keys = database.pool.clone();
    Housekeeping::of("wiki", &database, &settings.audit, true).spawn(settings.shutdown.clone());
    let audit = AuditServiceServer::new(AuditRpc::new(database.pool.clone()));
    let store = Store::new(database.pool, database.backend);
    let sanitizer = Sanitizer::new(&settings.public_url);
    app::housekeeping::at_start(&store, &sanitizer)
        .await
        .map_err(StartError::step(
            "keying reference names or cleaning instructions at start",
        ))?;
    store
        .index_missing()
        .await
        .map_err(StartError::step("indexing equipment for search"))?;
    if settings.seed_demo {
        demo::load(&store, &sanitizer)
            .await
            .map_err(StartError::step("loading demo equipment"))?;
    }
    let training = Training::new(settings.education, settings.auth);
    let proxies = settings.audit.trusted_proxies;
    let notifications = NotificationServiceServer::new(NotificationRpc::new(
        store.clone(),
        training.clone(),
        proxies.clone(),
    ));
    // Internal, like auth's MailRecipientService: education's digest job asks
    // it for no person, so only the services' credential opens it.
    let digest_items = InterceptedService::new(
        DigestItemServiceServer::new(DigestRpc::new(store.clone())),
        settings.internal.guard(),
    );
    let search = SearchServiceServer::new(SearchRpc::new(store.clone()));
    let rpc = WikiRpc::new(store, &settings.public_url, training, proxies);
    let server = WikiServiceServer::new(rpc)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    Ok(Routes::new(InterceptedService::new(
        Idempotent::new(server, idempotency_keys.clone()),
        verifier.clone(),
    ))
    .add_service(InterceptedService::new(
        Idempotent::new(notifications, idempotency_keys),
        verifier.clone(),
    ))
    .add_service(InterceptedService::new(audit, verifier.clone()))
    .add_service(InterceptedService::new(search, verifier))
    .add_service(digest_items))
}

#[cfg(test)]
mod tests {
    use portal_kit::testing::{TestDatabase, backends};

    use super::*;

    #[tokio::test]
    async fn migrations_apply_twice_cleanly_on_every_backend() {
        portal_kit::testing::assert_migrations_apply_twice(&migrations()).await;
    }

    #[tokio::test]
    async fn names_from_before_their_keys_are_keyed_at_start() {
        for backend in backends() {
            let db = TestDatabase::new(backend).await;
            let database = portal_kit::db::Database::connect(&db.url, &migrations())
                .await
                .expect("start");
            // Two rows each written before 0003 and 0004, which read alike: one
            // gets the key, and the start goes on.
            for name in ["Германия", "ГЕРМАНИЯ"] {
                sqlx::query("INSERT INTO countries (name) VALUES ($1)")
                    .bind(name)
                    .execute(&database.pool)
                    .await
                    .expect("an old row");
                sqlx::query("INSERT INTO common_documents (title, url) VALUES ($1, $2)")
                    .bind(format!("Приказ, {name}"))
                    .bind("https://hospital.example/order.pdf")
                    .execute(&database.pool)
                    .await
                    .expect("an old document");
            }
            let store = Store::new(database.pool, database.backend);
            store.key_reference_names().await.expect("keyed");
            let refused = store
                .create_name(
                    &portal_kit::audit::AuditContext::system(),
                    crate::store::reference::NameTable::Countries,
                    "германия",
                )
                .await
                .expect_err("a lookalike of a keyed old row");
            assert_eq!(refused.to_string(), "«германия» уже есть в справочнике");
            let draft = crate::domain::reference::DocumentDraft::parse(
                "приказ, германия",
                "",
                "https://hospital.example/order.pdf",
            )
            .expect("a draft");
            let refused = store
                .create_document(&portal_kit::audit::AuditContext::system(), &draft)
                .await
                .expect_err("a lookalike of a keyed old document");
            assert_eq!(
                refused.to_string(),
                "«приказ, германия» уже есть в справочнике"
            );
        }
    }
}
