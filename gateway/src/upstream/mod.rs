//! The gateway's four upstream services, each balanced over its replicas
//! ([`replicas`]): REST translation, gRPC and grpc-web forwarding,
//! and health all call them.

mod replicas;

use std::time::Duration;

use anyhow::Context as _;
use portal_kit::config::Shared;

pub use self::replicas::{Balanced, Discovery, Resolve, Upstream};

#[derive(Clone, Debug)]
pub struct Upstreams {
    pub auth: Upstream,
    pub education: Upstream,
    pub wiki: Upstream,
    pub files: Upstream,
    /// How long a call may wait for its answer (`PORTAL_UPSTREAM_CALL_TIMEOUT`),
    /// set on each call by its caller; uploads and downloads go without it.
    pub call_timeout: Duration,
}

impl Upstreams {
    /// Replicas connect lazily: the gateway starts, and answers 503, while an
    /// upstream is down. Must run inside a Tokio runtime (discovery tasks).
    pub fn connect(
        auth: &str,
        education: &str,
        wiki: &str,
        files: &str,
        discovery: &Discovery,
        call_timeout: Duration,
    ) -> anyhow::Result<Upstreams> {
        Ok(Upstreams {
            auth: Upstream::connect(portal_auth::SERVICE_NAME, auth, discovery)?,
            education: Upstream::connect(portal_education::SERVICE_NAME, education, discovery)?,
            wiki: Upstream::connect(portal_wiki::SERVICE_NAME, wiki, discovery)?,
            files: Upstream::connect(portal_files::SERVICE_NAME, files, discovery)?,
            call_timeout,
        })
    }

    pub fn from_config(shared: &Shared, call_timeout: Duration) -> anyhow::Result<Upstreams> {
        let required = |value: &Option<String>, variable: &str| {
            value
                .clone()
                .with_context(|| format!("{variable}: required for the gateway target"))
        };
        Upstreams::connect(
            &required(&shared.auth_url, "PORTAL_AUTH_URL")?,
            &required(&shared.education_url, "PORTAL_EDUCATION_URL")?,
            &required(&shared.wiki_url, "PORTAL_WIKI_URL")?,
            &required(&shared.files_url, "PORTAL_FILES_URL")?,
            &Discovery::default(),
            call_timeout,
        )
    }

    pub fn all(&self) -> [&Upstream; 4] {
        [&self.auth, &self.education, &self.wiki, &self.files]
    }

    /// Every gRPC service the gateway forwards, with the upstream that owns
    /// it: each upstream's own, and auth's ServiceAccountService beside its
    /// AuthService (one process serves both). The contracts every service
    /// serves over its own records (`portal.audit.v1`, `portal.search.v1`)
    /// are not forwarded: four services serve the same name, so the gateway
    /// asks all four itself (`rest::audit`, `rest::search`).
    pub fn forwarded(&self) -> Vec<(&'static str, &Upstream)> {
        let mut services: Vec<(&'static str, &Upstream)> = self
            .all()
            .into_iter()
            .map(|upstream| (upstream.service, upstream))
            .collect();
        services.push((portal_auth::SERVICE_ACCOUNT_SERVICE_NAME, &self.auth));
        services.push((portal_education::NOTIFICATION_SERVICE_NAME, &self.education));
        services.push((portal_wiki::NOTIFICATION_SERVICE_NAME, &self.wiki));
        services
    }

    /// The upstream that owns a gRPC service name.
    pub fn owning(&self, service: &str) -> Option<&Upstream> {
        self.forwarded()
            .into_iter()
            .find(|(name, _)| *name == service)
            .map(|(_, upstream)| upstream)
    }
}
