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
//! the integration calls of [`app::integration`], and for the e-mail
//! addresses of the daily digest ([`app::digest`], auth's internal
//! `MailRecipientService`); the digest also asks the wiki's internal
//! `DigestItemService` for its equipment items ([`app::equipment_items`]),
//! and a self-enrolment asks the wiki whether a course clears its caller
//! ([`app::clearance`]). [`notification_rpc`] serves the bell's items and
//! the digest's calls (`NotificationService`).

pub mod app;
pub mod convert;
pub mod demo;
pub mod domain;
pub mod notification_rpc;
pub mod rpc;
pub mod store;

use std::path::PathBuf;
use std::time::Duration;

use jiff::tz::TimeZone;
use lettre::message::Mailbox;
use secrecy::SecretString;

use portal_kit::audit::{AuditRpc, AuditSettings};
use portal_kit::db::{DatabaseSettings, Migrations};
use portal_kit::housekeeping::Housekeeping;
use portal_kit::idempotency::Idempotent;
use portal_kit::internal::InternalKeys;
use portal_kit::revocation::AccessVersions;
use portal_kit::rich_text::{FrameHosts, Frames, MAX_MESSAGE_BYTES};
use portal_kit::serve::ServiceChannel;
use portal_kit::start::StartError;
use portal_proto::audit::v1::audit_service_server::AuditServiceServer;
use portal_proto::education::v1::education_service_server::EducationServiceServer;
use portal_proto::education::v1::notification_service_server::NotificationServiceServer;
use portal_proto::search::v1::search_service_server::SearchServiceServer;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;

use crate::app::clearance::Equipment;
use crate::app::digest::{DigestSettings, Digests, MailSettings};
use crate::app::staff::Staff;
use crate::domain::article::ContentCleaner;
use crate::notification_rpc::NotificationRpc;
use crate::rpc::{EducationRpc, SearchRpc};
use crate::store::Store;

/// The full gRPC name of the service, for health and routing.
pub const SERVICE_NAME: &str = "portal.education.v1.EducationService";
/// The bell's and the digest's service, served beside it.
pub const NOTIFICATION_SERVICE_NAME: &str =
    portal_proto::education::v1::notification_service_server::SERVICE_NAME;

/// Education's own part of the `portal` command line.
#[derive(Clone, Debug, clap::Args)]
pub struct EducationArgs {
    /// Hosts besides the portal whose pages articles may frame over https
    /// (video players), comma-separated, e.g. `rutube.ru,www.youtube.com`; the
    /// CSP's `frame-src` names the same [default: none, only the portal].
    #[arg(long, env = "PORTAL_FRAME_HOSTS", value_name = "PORTAL_FRAME_HOSTS", default_value = "", value_parser = FrameHosts::parse)]
    pub frame_hosts: FrameHosts,

    /// The SMTP relay of the daily e-mail digest and of auth's password
    /// reset links: `smtp://host:25` (STARTTLS with `?tls=required`) or
    /// `smtps://user:password@host:465`; neither is sent when unset.
    #[arg(long, env = "PORTAL_SMTP_URL", value_name = "PORTAL_SMTP_URL", value_parser = parse_smtp_url)]
    pub smtp_url: Option<SecretString>,
    #[arg(long, env = "PORTAL_SMTP_URL_FILE", value_name = "PORTAL_SMTP_URL_FILE", value_parser = portal_kit::secret_file::parse_with(parse_smtp_url), conflicts_with = "smtp_url")]
    pub smtp_url_file: Option<SecretString>,

    /// The sender of the digest and of the reset links, e.g.
    /// `Портал <portal@hospital.local>`.
    #[arg(long, env = "PORTAL_SMTP_FROM", value_name = "PORTAL_SMTP_FROM", default_value = "portal@localhost", value_parser = parse_mailbox)]
    pub smtp_from: Mailbox,

    /// The hour (0–23, in PORTAL_TIME_ZONE) from which each day's digests
    /// are sent.
    #[arg(long, env = "PORTAL_REMINDER_HOUR", value_name = "PORTAL_REMINDER_HOUR", default_value_t = 8, value_parser = clap::value_parser!(i8).range(0..=23))]
    pub reminder_hour: i8,

    /// The time zone of the reminder hour and of a digest's day (IANA name).
    #[arg(long, env = "PORTAL_TIME_ZONE", value_name = "PORTAL_TIME_ZONE", default_value = "Europe/Moscow", value_parser = parse_time_zone)]
    pub time_zone: TimeZone,
}

impl EducationArgs {
    /// The digest's settings; `public_url` is `PORTAL_PUBLIC_URL`.
    pub fn digests(&self, public_url: &str) -> DigestSettings {
        DigestSettings {
            mail: self
                .smtp_url
                .as_ref()
                .or(self.smtp_url_file.as_ref())
                .cloned()
                .map(|relay| MailSettings {
                    relay,
                    from: self.smtp_from.clone(),
                }),
            reminder_hour: self.reminder_hour,
            time_zone: self.time_zone.clone(),
            public_url: public_url.to_owned(),
            retry_after: DIGEST_RETRY_AFTER,
        }
    }
}

/// How long after a relay's failure the daily job tries a digest again.
pub const DIGEST_RETRY_AFTER: Duration = Duration::from_secs(5 * 60);

fn parse_smtp_url(value: &str) -> Result<SecretString, String> {
    if !(value.starts_with("smtp://") || value.starts_with("smtps://")) {
        return Err("expected smtp://host:port or smtps://user:password@host:port".into());
    }
    let relay = SecretString::from(value.to_owned());
    app::digest::relay_transport(&relay)
        .map(|_| relay)
        .map_err(|error| format!("not a relay URL: {error}"))
}

fn parse_mailbox(value: &str) -> Result<Mailbox, String> {
    value
        .parse()
        .map_err(|error| format!("not an e-mail address: {error}"))
}

fn parse_time_zone(value: &str) -> Result<TimeZone, String> {
    TimeZone::get(value).map_err(|_| format!("unknown time zone {value:?} (e.g. Europe/Moscow)"))
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
    /// The wiki, whose internal `DigestItemService` gives the daily digest
    /// its equipment items (clearances lapsing, maintenance due), and which
    /// tells which courses clear a person to operate its equipment.
    pub wiki: ServiceChannel,
    /// The server's shutdown: open WatchTrainingRecords streams end then, so
    /// the drain does not wait for them; the daily digest job and
    /// housekeeping stop then.
    pub shutdown: CancellationToken,
    /// The daily e-mail digest ([`EducationArgs::digests`]).
    pub digests: DigestSettings,
    /// The audit log's retention and whose forwarded addresses it believes.
    pub audit: AuditSettings,
    /// Signs the digest's calls to auth's and the wiki's internal services.
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
    Housekeeping::of("education", &database, &settings.audit, true)
        .spawn(settings.shutdown.clone());
    let audit = AuditServiceServer::new(AuditRpc::new(database.pool.clone()));
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
    let equipment = Equipment::new(settings.wiki.clone());
    let digests = Digests::new(
        store.clone(),
        settings.digests,
        settings.internal.channel(settings.auth.clone()),
        settings.internal.channel(settings.wiki),
        settings.shutdown.clone(),
    )
    .map_err(|error| StartError::Setting(format!("PORTAL_SMTP_URL: {error}")))?;
    digests.spawn_daily();
    let proxies = settings.audit.trusted_proxies;
    let notifications = NotificationServiceServer::new(NotificationRpc::new(
        store.clone(),
        digests,
        proxies.clone(),
    ));
    let search = SearchServiceServer::new(SearchRpc::new(store.clone()));
    let rpc = EducationRpc::new(
        store,
        cleaner,
        (Staff::new(settings.auth), equipment),
        settings.shutdown,
        proxies,
    );
    let server = EducationServiceServer::new(rpc).max_decoding_message_size(MAX_MESSAGE_BYTES);
    Ok(Routes::new(InterceptedService::new(
        Idempotent::new(server, idempotency_keys.clone()),
        verifier.clone(),
    ))
    .add_service(InterceptedService::new(
        Idempotent::new(notifications, idempotency_keys),
        verifier.clone(),
    ))
    .add_service(InterceptedService::new(audit, verifier.clone()))
    .add_service(InterceptedService::new(search, verifier)))
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

    #[test]
    fn the_digest_settings_are_checked_at_start() {
        let args = parse(&[]).unwrap();
        assert!(
            args.digests("http://127.0.0.1:8080").mail.is_none(),
            "off by default"
        );
        assert_eq!(args.reminder_hour, 8);
        assert_eq!(args.time_zone.iana_name(), Some("Europe/Moscow"));
        let on = parse(&[
            "--smtp-url",
            "smtps://portal:secret@relay.hospital.local:465",
            "--smtp-from",
            "Портал <portal@hospital.local>",
            "--reminder-hour",
            "7",
            "--time-zone",
            "Asia/Yekaterinburg",
        ])
        .unwrap();
        assert!(on.digests("https://portal").mail.is_some());
        assert!(
            !format!("{on:?}").contains("secret"),
            "the relay's password never printed"
        );
        for bad in [
            ["--smtp-url", "http://relay:25"],
            ["--smtp-from", "not an address"],
            ["--reminder-hour", "24"],
            ["--time-zone", "Moscow"],
        ] {
            let err = parse(&bad).unwrap_err();
            let variable = format!("PORTAL_{}", bad[0][2..].replace('-', "_").to_uppercase());
            assert!(err.contains(&variable), "{bad:?}: {err}");
        }
    }

    #[tokio::test]
    async fn migrations_apply_twice_cleanly_on_every_backend() {
        portal_kit::testing::assert_migrations_apply_twice(&migrations()).await;
    }
}
