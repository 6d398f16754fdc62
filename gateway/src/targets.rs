//! What `--target` runs. `all` is the services and the gateway in one process,
//! talking over loopback gRPC exactly as they do across a cluster.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use portal_kit::account_limits::ServiceAccountLimits;
use portal_kit::internal::InternalKeys;
use portal_kit::net::TrustedProxies;
use portal_kit::readiness::Readiness;
use portal_kit::revocation::{AccessVersions, AuthChanges};
use portal_kit::serve::{serve_grpc, shutdown_signal};
use secrecy::ExposeSecret;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;

use crate::config::{Config, Target};
use crate::upstream::{Discovery, Upstream, Upstreams};

/// A started `portal`: where it listens and how to stop it.
pub struct Running {
    /// The gateway's address (`all`, `gateway`) or the service's gRPC address.
    pub addr: SocketAddr,
    /// Where `/metrics` is served, if asked (`PORTAL_METRICS_ADDR`).
    pub metrics_addr: Option<SocketAddr>,
    pub shutdown: CancellationToken,
    tasks: JoinSet<anyhow::Result<()>>,
}

impl Running {
    /// Stops accepting, lets in-flight requests finish, and reports the first failure.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown.cancel();
        self.wait().await
    }

    /// Runs until a task ends (a failure, or the shutdown token), then stops the rest.
    async fn wait(&mut self) -> anyhow::Result<()> {
        let mut outcome = Ok(());
        while let Some(joined) = self.tasks.join_next().await {
            self.shutdown.cancel();
            let result = joined.context("a task panicked").and_then(|r| r);
            if outcome.is_ok() {
                outcome = result;
            }
        }
        outcome
    }
}

/// Starts the target and runs it until SIGTERM or Ctrl-C.
pub async fn run(config: Config) -> anyhow::Result<()> {
    // Listening before anything serves (see `shutdown_signal`).
    let signalled = shutdown_signal();
    let mut running = start(config).await?;
    let shutdown = running.shutdown.clone();
    tokio::spawn(async move {
        signalled.await;
        shutdown.cancel();
    });
    running.wait().await
}

/// Binds and starts everything the target runs; returns once it is listening.
pub async fn start(config: Config) -> anyhow::Result<Running> {
    let shutdown = CancellationToken::new();
    let mut tasks = JoinSet::new();
    // Before the services start, so their pools and first calls are recorded.
    let metrics_addr = match config.metrics_addr {
        Some(addr) => {
            let (bound, serving) = crate::observe::serve_metrics(addr, shutdown.clone()).await?;
            tasks.spawn(serving);
            Some(bound)
        }
        None => None,
    };
    let addr = match config.target {
        Target::All => start_all(&config, &shutdown, &mut tasks).await?,
        Target::Gateway => {
            let upstreams = Upstreams::from_config(&config.shared, config.gateway.call_timeout())?;
            start_gateway(&config, upstreams, &shutdown, &mut tasks).await?
        }
        service => {
            let listener = bind(config.grpc_addr(), "PORTAL_GRPC_ADDR").await?;
            let addr = listener.local_addr()?;
            let peers = Peers::Configured(&config);
            let (name, routes) =
                service_routes(service, &config, &key_files(&config)?, &peers, &shutdown).await?;
            let limits = config.shared.service_account_limits;
            let readiness = readiness(&config, service);
            spawn_service(
                &mut tasks, listener, name, routes, readiness, limits, &shutdown,
            );
            addr
        }
    };
    Ok(Running {
        addr,
        metrics_addr,
        shutdown,
        tasks,
    })
}

async fn start_all(
    config: &Config,
    shutdown: &CancellationToken,
    tasks: &mut JoinSet<anyhow::Result<()>>,
) -> anyhow::Result<SocketAddr> {
    let data_dir = &config.shared.data_dir;
    // Password hashes, private keys and every record: the owner's alone.
    portal_kit::private_fs::create_dir(data_dir).with_context(|| {
        format!(
            "PORTAL_DATA_DIR: cannot create {} readable by its owner only",
            data_dir.display()
        )
    })?;
    let keys = key_files(config)?;
    let mut listeners = Vec::new();
    for service in Target::SERVICES {
        listeners.push(bind(config.loopback_addr(service), "PORTAL_LOOPBACK_PORT").await?);
    }
    let url = |listener: &TcpListener| -> anyhow::Result<String> {
        Ok(format!("http://{}", listener.local_addr()?))
    };
    let [auth, education, wiki, files] = &listeners[..] else {
        anyhow::bail!("four services");
    };
    let upstreams = Upstreams::connect(
        &url(auth)?,
        &url(education)?,
        &url(wiki)?,
        &url(files)?,
        &Discovery::default(),
        config.gateway.call_timeout(),
    )?;
    // Files asks the wiki who sees a model, education asks auth for the HR
    // system's keys, the wiki asks education and auth who is cleared to
    // operate equipment, and every service asks auth whose tokens are stale:
    // over the gateway's own upstreams.
    let peers = Peers::Gateway(&upstreams);
    for (service, listener) in Target::SERVICES.into_iter().zip(listeners) {
        let (name, routes) = service_routes(service, config, &keys, &peers, shutdown).await?;
        let limits = config.shared.service_account_limits;
        let readiness = readiness(config, service);
        spawn_service(tasks, listener, name, routes, readiness, limits, shutdown);
    }
    start_gateway(config, upstreams, shutdown, tasks).await
}

async fn start_gateway(
    config: &Config,
    upstreams: Upstreams,
    shutdown: &CancellationToken,
    tasks: &mut JoinSet<anyhow::Result<()>>,
) -> anyhow::Result<SocketAddr> {
    let listener = bind(config.gateway.http_addr, "PORTAL_HTTP_ADDR").await?;
    let addr = listener.local_addr()?;
    let app = crate::web::app(config, upstreams)?;
    let limits = crate::server::Limits::from_config(config);
    let shutdown = shutdown.clone();
    tasks.spawn(async move {
        tracing::info!(%addr, "gateway listening");
        crate::server::serve(listener, app, limits, shutdown)
            .await
            .context("gateway")?;
        tracing::info!("gateway stopped");
        Ok(())
    });
    Ok(addr)
}

/// A service is ready while its database answers (`portal_kit::readiness`);
/// another service being away does not make it unready, since most of its
/// calls need only its own data.
fn readiness(config: &Config, service: Target) -> Readiness {
    Readiness::of_database(
        config
            .shared
            .database_url_for(service.name())
            .expose_secret(),
    )
}

fn spawn_service(
    tasks: &mut JoinSet<anyhow::Result<()>>,
    listener: TcpListener,
    name: &'static str,
    routes: Routes,
    readiness: Readiness,
    limits: ServiceAccountLimits,
    shutdown: &CancellationToken,
) {
    let shutdown = shutdown.clone();
    tasks.spawn(async move {
        serve_grpc(listener, name, routes, readiness, limits, shutdown)
            .await
            .with_context(|| format!("serving {name}"))
    });
}

async fn bind(addr: SocketAddr, variable: &str) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr)
        .await
        .with_context(|| format!("{variable}: cannot listen on {addr}"))
}

/// How a service keeps its audit log: `PORTAL_AUDIT_RETENTION_DAYS`, and
/// whose forwarded client address its records believe.
fn audit_settings(config: &Config) -> portal_kit::audit::AuditSettings {
    portal_kit::audit::AuditSettings {
        retention_days: config.shared.audit.audit_retention_days,
        trusted_proxies: service_trusted_proxies(config),
    }
}

/// Whose forwarded client address a service believes: in `all` only loopback,
/// where the in-process gateway is its one caller; otherwise the configured
/// proxies (the gateway's pods).
fn service_trusted_proxies(config: &Config) -> TrustedProxies {
    match config.target {
        Target::All => TrustedProxies::loopback(),
        _ => config.shared.trusted_proxies.clone(),
    }
}

/// The key files: configured ones, else (for `all`) generated into the data dir.
struct KeyFiles {
    private: Option<PathBuf>,
    public: PathBuf,
    /// What the services' calls to each other are signed with.
    internal: InternalKeys,
}

fn key_files(config: &Config) -> anyhow::Result<KeyFiles> {
    let internal = internal_keys(config)?;
    match (
        &config.auth.jwt_private_key_file,
        &config.shared.jwt_public_key_file,
    ) {
        (private, Some(public)) => Ok(KeyFiles {
            private: private.clone(),
            public: public.clone(),
            internal,
        }),
        (None, None) if config.target == Target::All => {
            let (private, public) = portal_kit::token::ensure_key_pair(&config.shared.data_dir)?;
            Ok(KeyFiles {
                private: Some(private),
                public,
                internal,
            })
        }
        _ => anyhow::bail!(
            "PORTAL_JWT_PUBLIC_KEY_FILE: required for the {:?} target",
            config.target
        ),
    }
}

/// The key of the services' calls to each other: the configured file, else
/// (for `all`) one generated into the data dir.
fn internal_keys(config: &Config) -> anyhow::Result<InternalKeys> {
    let path = match (&config.shared.internal_key_file, config.target) {
        (Some(path), _) => path.clone(),
        (None, Target::All) => portal_kit::internal::ensure_key_file(&config.shared.data_dir)?,
        (None, target) => anyhow::bail!(
            "PORTAL_INTERNAL_KEY_FILE: required for the {target:?} target, which signs and checks the services' calls to each other"
        ),
    };
    InternalKeys::from_file(&path).context("PORTAL_INTERNAL_KEY_FILE")
}

/// The key file of documents' download links: the configured one, else (for
/// `all`) one generated into the data dir.
fn link_key_file(config: &Config) -> anyhow::Result<PathBuf> {
    match (&config.files.files_link_key_file, config.target) {
        (Some(path), _) => Ok(path.clone()),
        (None, Target::All) => Ok(portal_files::app::links::ensure_key_file(
            &config.shared.data_dir,
        )?),
        (None, _) => anyhow::bail!("PORTAL_FILES_LINK_KEY_FILE: required for the files target"),
    }
}

/// The services a service calls: in `all` the gateway's own upstreams, for a
/// service target those its URLs name.
enum Peers<'a> {
    Gateway(&'a Upstreams),
    Configured(&'a Config),
}

impl Peers<'_> {
    /// Every auth replica (`PORTAL_AUTH_URL`).
    fn auth(&self) -> anyhow::Result<Upstream> {
        match self {
            Peers::Gateway(upstreams) => Ok(upstreams.auth.clone()),
            Peers::Configured(config) => {
                connect(portal_auth::SERVICE_NAME, &config.shared.auth_url, || {
                    format!(
                        "PORTAL_AUTH_URL: required for the {:?} target, which learns from auth whose tokens are stale",
                        config.target
                    )
                })
            }
        }
    }

    /// Every education replica (`PORTAL_EDUCATION_URL`).
    fn education(&self) -> anyhow::Result<Upstream> {
        match self {
            Peers::Gateway(upstreams) => Ok(upstreams.education.clone()),
            Peers::Configured(config) => connect(
                portal_education::SERVICE_NAME,
                &config.shared.education_url,
                || {
                    "PORTAL_EDUCATION_URL: required for the wiki target, which asks education who is cleared to operate equipment".to_owned()
                },
            ),
        }
    }

    /// Every wiki replica (`PORTAL_WIKI_URL`).
    fn wiki(&self) -> anyhow::Result<Upstream> {
        match self {
            Peers::Gateway(upstreams) => Ok(upstreams.wiki.clone()),
            Peers::Configured(config) => {
                connect(portal_wiki::SERVICE_NAME, &config.shared.wiki_url, || {
                    format!(
                        "PORTAL_WIKI_URL: required for the {:?} target (education: the digest's equipment items; files: who sees a document's model)",
                        config.target
                    )
                })
            }
        }
    }

    /// Each person's access version, followed from every auth replica, so
    /// that the service refuses tokens signed before a block or a change of
    /// rights.
    fn access_versions(&self, internal: &InternalKeys) -> anyhow::Result<AccessVersions> {
        let versions = AccessVersions::default();
        versions.follow(AuthChanges::new(
            internal.channel(self.auth()?.service_channel()),
        ));
        Ok(versions)
    }
}

/// Every replica of `service` at `urls`; `missing` says what to set when none is.
fn connect(
    service: &'static str,
    urls: &Option<String>,
    missing: impl FnOnce() -> String,
) -> anyhow::Result<Upstream> {
    let urls = urls.as_deref().with_context(missing)?;
    Ok(Upstream::connect(service, urls, &Discovery::default())?)
}

async fn service_routes(
    target: Target,
    config: &Config,
    keys: &KeyFiles,
    peers: &Peers<'_>,
    shutdown: &CancellationToken,
) -> anyhow::Result<(&'static str, Routes)> {
    Ok(match target {
        Target::Auth => (
            portal_auth::SERVICE_NAME,
            portal_auth::routes(auth_settings(config, keys, shutdown)?).await?,
        ),
        Target::Education => (
            portal_education::SERVICE_NAME,
            portal_education::routes(education_settings(config, keys, peers, shutdown)?).await?,
        ),
        Target::Wiki => (
            portal_wiki::SERVICE_NAME,
            portal_wiki::routes(wiki_settings(config, keys, peers, shutdown)?).await?,
        ),
        Target::Files => (
            portal_files::SERVICE_NAME,
            portal_files::routes(files_settings(config, keys, peers, shutdown)?).await?,
        ),
        Target::All | Target::Gateway => anyhow::bail!("{target:?} is not a service"),
    })
}

fn auth_settings(
    config: &Config,
    keys: &KeyFiles,
    shutdown: &CancellationToken,
) -> anyhow::Result<portal_auth::AuthSettings> {
    let shared = &config.shared;
    let private_key_file = keys
        .private
        .clone()
        .context("PORTAL_JWT_PRIVATE_KEY_FILE: required for the auth target")?;
    Ok(portal_auth::AuthSettings {
        database: shared.database_for("auth"),
        private_key_file,
        public_key_file: keys.public.clone(),
        admin_login: config.auth.admin_login.clone(),
        admin_password: config.auth.admin_password().cloned(),
        seed_demo: shared.seed_demo,
        audit: audit_settings(config),
        public_url: shared.public_url.clone(),
        shutdown: shutdown.clone(),
        staff_sync_max_block_percent: config.auth.staff_sync_max_block_percent,
        mfa_for_admins: config.auth.mfa_for_admins,
        internal: keys.internal.clone(),
        // The digests' relay and sender: one PORTAL_SMTP_URL for the portal.
        mail: config
            .education
            .digests(&shared.public_url)
            .mail
            .map(|mail| portal_auth::app::reset_mail::MailRelay {
                relay: mail.relay,
                from: mail.from,
            }),
        directory: config.auth.directory.settings()?,
        sso: config.auth.sso.settings(&shared.public_url)?,
    })
}

fn education_settings(
    config: &Config,
    keys: &KeyFiles,
    peers: &Peers<'_>,
    shutdown: &CancellationToken,
) -> anyhow::Result<portal_education::EducationSettings> {
    let shared = &config.shared;
    Ok(portal_education::EducationSettings {
        database: shared.database_for("education"),
        public_key_file: keys.public.clone(),
        public_url: shared.public_url.clone(),
        frame_hosts: config.education.frame_hosts.clone(),
        access_versions: peers.access_versions(&keys.internal)?,
        seed_demo: shared.seed_demo,
        auth: peers.auth()?.service_channel(),
        wiki: peers.wiki()?.service_channel(),
        shutdown: shutdown.clone(),
        digests: config.education.digests(&shared.public_url),
        audit: audit_settings(config),
        internal: keys.internal.clone(),
    })
}

fn wiki_settings(
    config: &Config,
    keys: &KeyFiles,
    peers: &Peers<'_>,
    shutdown: &CancellationToken,
) -> anyhow::Result<portal_wiki::WikiSettings> {
    let shared = &config.shared;
    Ok(portal_wiki::WikiSettings {
        database: shared.database_for("wiki"),
        public_key_file: keys.public.clone(),
        access_versions: peers.access_versions(&keys.internal)?,
        public_url: shared.public_url.clone(),
        seed_demo: shared.seed_demo,
        education: peers.education()?.service_channel(),
        auth: peers.auth()?.service_channel(),
        audit: audit_settings(config),
        shutdown: shutdown.clone(),
        internal: keys.internal.clone(),
    })
}

fn files_settings(
    config: &Config,
    keys: &KeyFiles,
    peers: &Peers<'_>,
    shutdown: &CancellationToken,
) -> anyhow::Result<portal_files::FilesSettings> {
    let shared = &config.shared;
    let wiki = peers.wiki()?;
    Ok(portal_files::FilesSettings {
        database: shared.database_for("files"),
        public_key_file: keys.public.clone(),
        access_versions: peers.access_versions(&keys.internal)?,
        blobs: portal_files::store::blobs::open(&config.files.store(&shared.data_dir))?,
        public_url: shared.public_url.clone(),
        limits: config.files.limits(),
        seed_demo: shared.seed_demo,
        wiki: wiki.service_channel(),
        link_key_file: link_key_file(config)?,
        link_lifetime: config.files.link_lifetime(),
        audit: audit_settings(config),
        shutdown: shutdown.clone(),
    })
}
