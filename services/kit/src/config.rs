//! The `portal` command line: every setting a flag with a `PORTAL_*` variable.
//!
//! Each value names its variable as its `value_name`, so clap's refusal of a bad
//! value ("invalid value 'x' for '--http-addr <PORTAL_HTTP_ADDR>'") tells an
//! operator which variable to fix.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::net::TrustedProxies;
use crate::rich_text::FrameHosts;

/// What this process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// Gateway and the four services in one process.
    All,
    Gateway,
    Auth,
    Education,
    Wiki,
    Files,
}

impl Target {
    /// The gRPC port a service target listens on unless told otherwise.
    pub fn default_grpc_port(self) -> u16 {
        match self {
            Target::Auth => 50051,
            Target::Education => 50052,
            Target::Wiki => 50053,
            Target::Files => 50054,
            Target::All | Target::Gateway => 0,
        }
    }
}

/// The highest first loopback port: the four services need it and the next three.
const LAST_LOOPBACK_PORT: i64 = u16::MAX as i64 - 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Debug, Parser)]
#[command(name = "portal", version, about = "Portal: the hospital staff portal")]
pub struct Config {
    /// What this process runs.
    #[arg(
        long,
        env = "PORTAL_TARGET",
        value_name = "PORTAL_TARGET",
        value_enum,
        default_value = "all"
    )]
    pub target: Target,

    /// Gateway listen address (REST, gRPC, grpc-web, web client).
    #[arg(
        long,
        env = "PORTAL_HTTP_ADDR",
        value_name = "PORTAL_HTTP_ADDR",
        default_value = "127.0.0.1:8080"
    )]
    pub http_addr: SocketAddr,

    /// A service target's gRPC listen address [default: 0.0.0.0:50051 auth, :50052
    /// education, :50053 wiki, :50054 files].
    #[arg(long, env = "PORTAL_GRPC_ADDR", value_name = "PORTAL_GRPC_ADDR")]
    pub grpc_addr: Option<SocketAddr>,

    /// Where `/metrics` (Prometheus) is served, on a port of its own that no
    /// Service or Ingress exposes, e.g. `0.0.0.0:9090` [default: not served,
    /// and nothing is recorded].
    #[arg(long, env = "PORTAL_METRICS_ADDR", value_name = "PORTAL_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,

    /// In `all`: the loopback port of the auth service, with education, wiki and
    /// files on the next three, to call a service directly (grpcurl, `make
    /// bench`) [default: free ports chosen at start].
    #[arg(long, env = "PORTAL_LOOPBACK_PORT", value_name = "PORTAL_LOOPBACK_PORT", value_parser = clap::value_parser!(u16).range(1..=LAST_LOOPBACK_PORT))]
    pub loopback_port: Option<u16>,

    /// SQLite files, stored files and generated keys.
    #[arg(
        long,
        env = "PORTAL_DATA_DIR",
        value_name = "PORTAL_DATA_DIR",
        default_value = "./data"
    )]
    pub data_dir: PathBuf,

    /// A service target's database: `sqlite://…` or `postgres://…` [default: a
    /// SQLite file per service in the data dir].
    #[arg(long, env = "PORTAL_DATABASE_URL", value_name = "PORTAL_DATABASE_URL", value_parser = parse_database_url)]
    pub database_url: Option<String>,

    /// The gateway's upstream auth service: `http://host:port`, whose name
    /// resolves to every replica (a headless Service, e.g.
    /// `http://auth-headless:50051`), or several such URLs separated by commas.
    /// Calls are balanced over the replicas, found again every 5 s. Also
    /// required for the education, wiki and files targets, which ask auth every
    /// second whose access tokens are stale (blocked, rights changed).
    #[arg(long, env = "PORTAL_AUTH_URL", value_name = "PORTAL_AUTH_URL", value_parser = parse_upstream_urls)]
    pub auth_url: Option<String>,
    /// The gateway's upstream education service.
    #[arg(long, env = "PORTAL_EDUCATION_URL", value_name = "PORTAL_EDUCATION_URL", value_parser = parse_upstream_urls)]
    pub education_url: Option<String>,
    /// The gateway's upstream wiki service; also the files service's, which
    /// asks the wiki who sees a model (required for the files target).
    #[arg(long, env = "PORTAL_WIKI_URL", value_name = "PORTAL_WIKI_URL", value_parser = parse_upstream_urls)]
    pub wiki_url: Option<String>,
    /// The gateway's upstream files service.
    #[arg(long, env = "PORTAL_FILES_URL", value_name = "PORTAL_FILES_URL", value_parser = parse_upstream_urls)]
    pub files_url: Option<String>,

    /// Ed25519 private key (PKCS#8 PEM) that signs access tokens; auth only
    /// [default: generated into the data dir by `all`].
    #[arg(
        long,
        env = "PORTAL_JWT_PRIVATE_KEY_FILE",
        value_name = "PORTAL_JWT_PRIVATE_KEY_FILE"
    )]
    pub jwt_private_key_file: Option<PathBuf>,
    /// Ed25519 public key (SPKI PEM) every service verifies access tokens with.
    #[arg(
        long,
        env = "PORTAL_JWT_PUBLIC_KEY_FILE",
        value_name = "PORTAL_JWT_PUBLIC_KEY_FILE"
    )]
    pub jwt_public_key_file: Option<PathBuf>,

    /// Absolute base URL people reach the portal at (QR codes, file links, cookies).
    #[arg(long, env = "PORTAL_PUBLIC_URL", value_name = "PORTAL_PUBLIC_URL", default_value = "http://127.0.0.1:8080", value_parser = parse_public_url)]
    pub public_url: String,

    /// Hosts besides the portal whose pages articles may frame over https
    /// (video players), comma-separated, e.g. `rutube.ru,www.youtube.com`; the
    /// CSP's `frame-src` names the same [default: none, only the portal].
    #[arg(long, env = "PORTAL_FRAME_HOSTS", value_name = "PORTAL_FRAME_HOSTS", default_value = "", value_parser = FrameHosts::parse)]
    pub frame_hosts: FrameHosts,

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

    /// The bootstrap admin's login, created once when no user exists.
    #[arg(
        long,
        env = "PORTAL_ADMIN_LOGIN",
        value_name = "PORTAL_ADMIN_LOGIN",
        default_value = "admin"
    )]
    pub admin_login: String,
    /// The bootstrap admin's password [default: random, printed once].
    #[arg(
        long,
        env = "PORTAL_ADMIN_PASSWORD",
        value_name = "PORTAL_ADMIN_PASSWORD",
        hide_env_values = true
    )]
    pub admin_password: Option<String>,

    /// Load demo data (with published demo passwords) into an empty database.
    /// Never by default: `make run` asks for it.
    #[arg(
        long,
        env = "PORTAL_SEED_DEMO",
        value_name = "PORTAL_SEED_DEMO",
        default_value_t = false,
        action = clap::ArgAction::Set
    )]
    pub seed_demo: bool,

    /// Proxies whose `X-Forwarded-For` is believed, as comma-separated CIDRs: for
    /// the gateway, the ingress in front of it; for a service, the gateway
    /// [default: none; a service in `all` trusts loopback].
    #[arg(
        long,
        env = "PORTAL_TRUSTED_PROXIES",
        value_name = "PORTAL_TRUSTED_PROXIES",
        default_value = ""
    )]
    pub trusted_proxies: TrustedProxies,

    /// Seconds a client has to send a request's headers; an HTTP/1 connection
    /// waiting for its next request is closed after as long. Stops half-sent
    /// requests from holding connections.
    #[arg(
        long,
        env = "PORTAL_HTTP_HEADER_TIMEOUT",
        value_name = "PORTAL_HTTP_HEADER_TIMEOUT",
        default_value_t = 15,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub http_header_timeout: u64,

    /// Seconds a gateway connection may stay open with no request in flight
    /// (HTTP/2 included) before it is closed.
    #[arg(
        long,
        env = "PORTAL_HTTP_IDLE_TIMEOUT",
        value_name = "PORTAL_HTTP_IDLE_TIMEOUT",
        default_value_t = 120,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub http_idle_timeout: u64,

    /// Seconds the gateway waits for a service's answer to one call (the
    /// ingress's own limit, k8s/README); it is sent on as `grpc-timeout`, so
    /// the service stops too. Uploads and downloads last as long as their data.
    #[arg(
        long,
        env = "PORTAL_UPSTREAM_CALL_TIMEOUT",
        value_name = "PORTAL_UPSTREAM_CALL_TIMEOUT",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub upstream_call_timeout: u64,

    /// Connections the gateway serves at once; beyond it new ones wait in the
    /// listen queue. Keep it below the open-file limit (`ulimit -n`), which also
    /// covers database and upstream connections.
    #[arg(
        long,
        env = "PORTAL_HTTP_MAX_CONNECTIONS",
        value_name = "PORTAL_HTTP_MAX_CONNECTIONS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub http_max_connections: u64,

    /// Built web client served by the gateway.
    #[arg(
        long,
        env = "PORTAL_WEB_DIR",
        value_name = "PORTAL_WEB_DIR",
        default_value = "web/dist"
    )]
    pub web_dir: PathBuf,

    /// tracing filter, e.g. `info` or `portal_auth=debug,info`.
    #[arg(
        long,
        env = "PORTAL_LOG",
        value_name = "PORTAL_LOG",
        default_value = "info"
    )]
    pub log: String,
    #[arg(
        long,
        env = "PORTAL_LOG_FORMAT",
        value_name = "PORTAL_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    pub log_format: LogFormat,
}

impl Config {
    /// The gRPC address of a service target.
    pub fn grpc_addr(&self) -> SocketAddr {
        self.grpc_addr
            .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], self.target.default_grpc_port())))
    }

    /// A service's database: the configured URL, else its SQLite file in the data dir.
    pub fn database_url_for(&self, service: &str) -> String {
        self.database_url.clone().unwrap_or_else(|| {
            format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join(format!("{service}.db")).display()
            )
        })
    }

    /// Where file blobs live: `PORTAL_FILES_STORE`, else `files` in the data dir.
    pub fn files_store(&self) -> String {
        self.files_store
            .clone()
            .unwrap_or_else(|| self.data_dir.join("files").display().to_string())
    }

    /// Where `service` listens inside `all`: loopback, on its port after
    /// [`Config::loopback_port`], or a free one.
    pub fn loopback_addr(&self, service: Target) -> SocketAddr {
        let offset = match service {
            Target::Education => 1,
            Target::Wiki => 2,
            Target::Files => 3,
            Target::Auth | Target::All | Target::Gateway => 0,
        };
        let port = self.loopback_port.map_or(0, |first| first + offset);
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    /// Settings that only make sense for some targets are refused for others,
    /// rather than silently ignored.
    pub fn check(&self) -> Result<(), String> {
        if self.target == Target::All && self.database_url.is_some() {
            return Err("PORTAL_DATABASE_URL: the `all` target keeps one SQLite file per service in PORTAL_DATA_DIR; set a database URL only for a single service target".into());
        }
        if self.target != Target::All && self.loopback_port.is_some() {
            return Err("PORTAL_LOOPBACK_PORT: only the `all` target runs services on loopback; a service target listens on PORTAL_GRPC_ADDR".into());
        }
        Ok(())
    }
}

fn parse_database_url(value: &str) -> Result<String, String> {
    if value.starts_with("sqlite:")
        || value.starts_with("postgres://")
        || value.starts_with("postgresql://")
    {
        Ok(value.to_owned())
    } else {
        Err("expected a URL starting with sqlite: or postgres://".into())
    }
}

fn parse_upstream_url(value: &str) -> Result<String, String> {
    let uri: http::Uri = value.parse().map_err(|e| format!("not a URL: {e}"))?;
    match (uri.scheme_str(), uri.host()) {
        (Some("http" | "https"), Some(_)) => Ok(value.trim_end_matches('/').to_owned()),
        _ => Err("expected http://host:port".into()),
    }
}

/// One or more comma-separated `http://host:port` (the replicas of a service).
fn parse_upstream_urls(value: &str) -> Result<String, String> {
    let urls = value
        .split(',')
        .map(|url| {
            let url = parse_upstream_url(url.trim())?;
            let uri: http::Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
            match (uri.scheme_str(), uri.port_u16()) {
                (Some("http"), Some(_)) => Ok(url),
                _ => Err("expected http://host:port".to_owned()),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(urls.join(","))
}

fn parse_public_url(value: &str) -> Result<String, String> {
    parse_upstream_url(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, String> {
        Config::try_parse_from(std::iter::once("portal").chain(args.iter().copied()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_bad_http_addr_is_refused_naming_the_variable() {
        let err = parse(&["--http-addr", "localhost-8080"]).unwrap_err();
        assert!(err.contains("PORTAL_HTTP_ADDR"), "{err}");
    }

    #[test]
    fn an_unknown_target_is_refused_naming_the_variable() {
        let err = parse(&["--target", "billing"]).unwrap_err();
        assert!(err.contains("PORTAL_TARGET"), "{err}");
    }

    #[test]
    fn a_database_url_of_another_kind_is_refused() {
        let err = parse(&["--database-url", "mysql://x"]).unwrap_err();
        assert!(err.contains("PORTAL_DATABASE_URL"), "{err}");
    }

    #[test]
    fn frame_hosts_are_a_comma_separated_list_of_host_names() {
        let config = parse(&["--frame-hosts", "rutube.ru, www.youtube.com"]).unwrap();
        assert_eq!(config.frame_hosts.hosts(), ["rutube.ru", "www.youtube.com"]);
        let err = parse(&["--frame-hosts", "https://rutube.ru"]).unwrap_err();
        assert!(err.contains("PORTAL_FRAME_HOSTS"), "{err}");
    }

    #[test]
    fn defaults_follow_the_design() {
        let config = parse(&[]).unwrap();
        assert!(
            config.frame_hosts.hosts().is_empty(),
            "frames only from the portal"
        );
        assert_eq!(config.target, Target::All);
        assert_eq!(config.http_addr.to_string(), "127.0.0.1:8080");
        assert!(!config.seed_demo, "demo accounts only when asked");
        assert_eq!(config.trusted_proxies, TrustedProxies::none());
        assert_eq!(
            (
                config.http_header_timeout,
                config.http_idle_timeout,
                config.http_max_connections,
                config.upstream_call_timeout
            ),
            (15, 120, 10_000, 60)
        );
        assert!(
            config
                .database_url_for("auth")
                .ends_with("auth.db?mode=rwc")
        );
        assert_eq!(
            (
                config.files_max_document_mib,
                config.files_max_video_mib,
                config.files_link_lifetime
            ),
            (100, 500, 900)
        );
        assert_eq!(
            std::path::Path::new(&config.files_store()),
            std::path::Path::new("./data/files")
        );
        let auth = parse(&["--target", "auth"]).unwrap();
        assert_eq!(auth.grpc_addr().to_string(), "0.0.0.0:50051");
        assert!(!auth.seed_demo);
    }

    #[test]
    fn an_upstream_is_one_or_more_http_urls_with_ports() {
        let config = parse(&[
            "--education-url",
            "http://127.0.0.2:50052/, http://127.0.0.3:50052",
        ])
        .unwrap();
        assert_eq!(
            config.education_url.as_deref(),
            Some("http://127.0.0.2:50052,http://127.0.0.3:50052")
        );
        for bad in [
            "http://education",
            "https://education:50052",
            "education:50052",
        ] {
            let err = parse(&["--education-url", bad]).unwrap_err();
            assert!(err.contains("PORTAL_EDUCATION_URL"), "{bad}: {err}");
        }
    }

    #[test]
    fn trusted_proxies_are_cidrs_and_a_bad_one_names_the_variable() {
        let config = parse(&["--trusted-proxies", "10.0.0.0/8,192.0.2.7"]).unwrap();
        assert!(config.trusted_proxies.trusts("10.2.3.4".parse().unwrap()));
        let err = parse(&["--trusted-proxies", "ingress"]).unwrap_err();
        assert!(err.contains("PORTAL_TRUSTED_PROXIES"), "{err}");
    }

    #[test]
    fn loopback_ports_follow_the_first_and_belong_to_all_only() {
        let config = parse(&["--loopback-port", "50100"]).unwrap();
        assert_eq!(config.check(), Ok(()));
        assert_eq!(
            config.loopback_addr(Target::Auth).to_string(),
            "127.0.0.1:50100"
        );
        assert_eq!(
            config.loopback_addr(Target::Files).to_string(),
            "127.0.0.1:50103"
        );
        assert_eq!(parse(&[]).unwrap().loopback_addr(Target::Wiki).port(), 0);
        let err = parse(&["--loopback-port", "65533"]).unwrap_err();
        assert!(err.contains("PORTAL_LOOPBACK_PORT"), "{err}");
        let auth = parse(&["--target", "auth", "--loopback-port", "50100"]).unwrap();
        assert!(
            auth.check()
                .unwrap_err()
                .starts_with("PORTAL_LOOPBACK_PORT")
        );
    }

    #[test]
    fn a_zero_time_out_or_connection_cap_is_refused_naming_the_variable() {
        for (flag, variable) in [
            (
                "--files-max-document-mib=0",
                "PORTAL_FILES_MAX_DOCUMENT_MIB",
            ),
            ("--files-max-video-mib=0", "PORTAL_FILES_MAX_VIDEO_MIB"),
            ("--files-link-lifetime=59", "PORTAL_FILES_LINK_LIFETIME"),
            ("--http-header-timeout=0", "PORTAL_HTTP_HEADER_TIMEOUT"),
            ("--http-idle-timeout=0", "PORTAL_HTTP_IDLE_TIMEOUT"),
            ("--http-max-connections=0", "PORTAL_HTTP_MAX_CONNECTIONS"),
            ("--upstream-call-timeout=0", "PORTAL_UPSTREAM_CALL_TIMEOUT"),
        ] {
            let err = parse(&[flag]).unwrap_err();
            assert!(err.contains(variable), "{err}");
        }
    }

    #[test]
    fn the_all_target_refuses_a_shared_database_url() {
        let config = parse(&["--database-url", "postgres://db/portal"]).unwrap();
        assert!(
            config
                .check()
                .unwrap_err()
                .starts_with("PORTAL_DATABASE_URL")
        );
    }
}
