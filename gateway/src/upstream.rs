//! The gateway's four upstream services: a gRPC channel each (REST translation,
//! health) and their base URLs (byte-for-byte forwarding of gRPC and grpc-web).

use std::time::Duration;

use anyhow::Context;
use portal_kit::config::Config;
use tonic::transport::{Channel, Endpoint};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const TCP_KEEPALIVE: Duration = Duration::from_secs(30);

#[derive(Clone, Debug)]
pub struct Upstream {
    /// The full gRPC name of the service, e.g. `portal.auth.v1.AuthService`.
    pub service: &'static str,
    pub base_url: String,
    pub channel: Channel,
}

#[derive(Clone, Debug)]
pub struct Upstreams {
    pub auth: Upstream,
    pub education: Upstream,
    pub wiki: Upstream,
    pub files: Upstream,
    /// The files service without the per-call time-out: an upload's answer
    /// comes after its last byte, however long the file takes to arrive.
    pub files_streams: Channel,
}

impl Upstreams {
    /// Channels connect lazily: the gateway starts, and answers 503, while an
    /// upstream is down.
    pub fn connect(
        auth: &str,
        education: &str,
        wiki: &str,
        files: &str,
    ) -> anyhow::Result<Upstreams> {
        Ok(Upstreams {
            auth: upstream(portal_auth::SERVICE_NAME, auth)?,
            education: upstream(portal_education::SERVICE_NAME, education)?,
            wiki: upstream(portal_wiki::SERVICE_NAME, wiki)?,
            files: upstream(portal_files::SERVICE_NAME, files)?,
            files_streams: Endpoint::from_shared(files.to_owned())
                .with_context(|| format!("upstream URL of the files service: {files}"))?
                .connect_timeout(CONNECT_TIMEOUT)
                .tcp_keepalive(Some(TCP_KEEPALIVE))
                .connect_lazy(),
        })
    }

    pub fn from_config(config: &Config) -> anyhow::Result<Upstreams> {
        let required = |value: &Option<String>, variable: &str| {
            value
                .clone()
                .with_context(|| format!("{variable}: required for the gateway target"))
        };
        Upstreams::connect(
            &required(&config.auth_url, "PORTAL_AUTH_URL")?,
            &required(&config.education_url, "PORTAL_EDUCATION_URL")?,
            &required(&config.wiki_url, "PORTAL_WIKI_URL")?,
            &required(&config.files_url, "PORTAL_FILES_URL")?,
        )
    }

    pub fn all(&self) -> [&Upstream; 4] {
        [&self.auth, &self.education, &self.wiki, &self.files]
    }

    /// The upstream that owns a gRPC service name.
    pub fn owning(&self, service: &str) -> Option<&Upstream> {
        self.all()
            .into_iter()
            .find(|upstream| upstream.service == service)
    }
}

fn upstream(service: &'static str, url: &str) -> anyhow::Result<Upstream> {
    let channel = Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("upstream URL of {service}: {url}"))?
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(Duration::from_secs(60))
        .tcp_keepalive(Some(TCP_KEEPALIVE))
        .connect_lazy();
    Ok(Upstream {
        service,
        base_url: url.trim_end_matches('/').to_owned(),
        channel,
    })
}
