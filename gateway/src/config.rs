//! The `portal` command line: every setting a flag with a `PORTAL_*` variable.
//! What the binary itself decides (which target, where it listens) and the
//! gateway's HTTP settings are here; each service's own settings are its
//! crate's, and what several read is kit's ([`Shared`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use portal_auth::AuthArgs;
use portal_education::EducationArgs;
use portal_files::FilesArgs;
use portal_kit::config::Shared;
use portal_kit::db::Migrations;
use secrecy::ExposeSecret;

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
    /// The four service targets, each with a database of its own.
    pub const SERVICES: [Target; 4] =
        [Target::Auth, Target::Education, Target::Wiki, Target::Files];

    /// The target's name in `PORTAL_TARGET`; a service's also names its
    /// database (`<name>.db`, `PORTAL_<NAME>_DATABASE_URL`).
    pub fn name(self) -> &'static str {
        match self {
            Target::All => "all",
            Target::Gateway => "gateway",
            Target::Auth => "auth",
            Target::Education => "education",
            Target::Wiki => "wiki",
            Target::Files => "files",
        }
    }

    /// The schema a service target's binary knows; none for `all` and the gateway.
    pub fn migrations(self) -> Option<Migrations> {
        match self {
            Target::Auth => Some(portal_auth::migrations()),
            Target::Education => Some(portal_education::migrations()),
            Target::Wiki => Some(portal_wiki::migrations()),
            Target::Files => Some(portal_files::migrations()),
            Target::All | Target::Gateway => None,
        }
    }

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

/// What `portal` does instead of serving its target.
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Brings the target's databases up to date under the migration lock, then
    /// exits: `all` all four, a service target its own (`crate::migrate`).
    Migrate,
    /// Copies every service's SQLite database, the stored files and the
    /// generated keys of PORTAL_DATA_DIR into DIR while the portal keeps
    /// serving (README.md: backup and restore on one machine).
    Backup {
        /// A new or empty directory.
        dir: PathBuf,
    },
    /// Fills PORTAL_DATA_DIR, new or empty, from the backup in DIR.
    Restore {
        /// What `portal backup` wrote.
        dir: PathBuf,
    },
}

/// The highest first loopback port: the four services need it and the next three.
const LAST_LOOPBACK_PORT: i64 = u16::MAX as i64 - 3;

#[derive(Clone, Debug, Parser)]
#[command(name = "portal", version, about = "Portal: the hospital staff portal")]
pub struct Config {
    /// Without one, `portal` serves its target until stopped.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// What this process runs.
    #[arg(
        long,
        env = "PORTAL_TARGET",
        value_name = "PORTAL_TARGET",
        value_enum,
        default_value = "all"
    )]
    pub target: Target,

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

    #[command(flatten)]
    pub shared: Shared,
    #[command(flatten)]
    pub gateway: GatewayArgs,
    #[command(flatten)]
    pub auth: AuthArgs,
    #[command(flatten)]
    pub education: EducationArgs,
    #[command(flatten)]
    pub files: FilesArgs,
}

/// The gateway's HTTP server and its calls to the services.
#[derive(Clone, Debug, Args)]
pub struct GatewayArgs {
    /// Gateway listen address (REST, gRPC, grpc-web, web client).
    #[arg(
        long,
        env = "PORTAL_HTTP_ADDR",
        value_name = "PORTAL_HTTP_ADDR",
        default_value = "127.0.0.1:8080"
    )]
    pub http_addr: SocketAddr,

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

    /// Seconds a request body may go without 1 KiB of it arriving; then it
    /// fails (408) and its connection is closed. A body's total time is not
    /// limited: a slow link that keeps sending is never cut.
    #[arg(
        long,
        env = "PORTAL_HTTP_BODY_TIMEOUT",
        value_name = "PORTAL_HTTP_BODY_TIMEOUT",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub http_body_timeout: u64,

    /// Request bodies one client address may be sending at once; one more
    /// is refused (429) until one has arrived.
    #[arg(
        long,
        env = "PORTAL_HTTP_MAX_BODIES_PER_ADDRESS",
        value_name = "PORTAL_HTTP_MAX_BODIES_PER_ADDRESS",
        default_value_t = 100,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub http_max_bodies_per_address: u64,

    /// Seconds the gateway waits for a service's answer to one call (the
    /// ingress's own limit, k8s/README); it is sent on as `grpc-timeout`, so
    /// the service stops too. Uploads and downloads last as long as their data.
    #[arg(
        long,
        env = "PORTAL_UPSTREAM_CALL_TIMEOUT",
        value_name = "PORTAL_UPSTREAM_CALL_TIMEOUT",
        default_value_t = portal_kit::deadline::DEFAULT_CALL_LIMIT.as_secs(),
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
}

impl GatewayArgs {
    pub fn call_timeout(&self) -> Duration {
        Duration::from_secs(self.upstream_call_timeout)
    }
}

impl Config {
    /// The `service.name` of this process's spans unless `OTEL_SERVICE_NAME`
    /// gives one: `portal-<target>`, `portal` for `all`.
    pub fn service_name(&self) -> String {
        match self.target {
            Target::All => "portal".to_owned(),
            target => format!("portal-{}", target.name()),
        }
    }

    /// The gRPC address of a service target.
    pub fn grpc_addr(&self) -> SocketAddr {
        self.grpc_addr
            .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], self.target.default_grpc_port())))
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
        if matches!(
            self.command,
            Some(Command::Backup { .. } | Command::Restore { .. })
        ) {
            return check_backup(self);
        }
        if self.target == Target::All && self.shared.database_url().is_some() {
            return Err("PORTAL_DATABASE_URL: the `all` target keeps one SQLite file per service in PORTAL_DATA_DIR; set a database URL only for a single service target".into());
        }
        if self.target != Target::All && self.loopback_port.is_some() {
            return Err("PORTAL_LOOPBACK_PORT: only the `all` target runs services on loopback; a service target listens on PORTAL_GRPC_ADDR".into());
        }
        Ok(())
    }
}

/// Refuses what `portal backup` and `portal restore` cannot do, before anything
/// starts.
fn check_backup(config: &Config) -> Result<(), String> {
    if config.target != Target::All {
        return Err("PORTAL_TARGET: `portal backup` and `portal restore` work on the `all` target's data directory only".into());
    }
    match config.shared.database_url().map(|url| url.expose_secret().to_owned()) {
        Some(url) if url.starts_with("postgres") => Err("PORTAL_DATABASE_URL names PostgreSQL: `portal backup` and `portal restore` copy only the one-machine install's SQLite databases. Back PostgreSQL up with its own tools: pg_dump, or on Kubernetes CloudNativePG's continuous backup (k8s/README.md, «Backups»)".into()),
        Some(_) => Err("PORTAL_DATABASE_URL: `portal backup` and `portal restore` work on the `all` target's databases, one SQLite file per service in PORTAL_DATA_DIR; unset it".into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, String> {
        portal_kit::config::parse_args(args)
    }

    #[test]
    fn a_bad_http_addr_is_refused_naming_the_variable() {
        let err = parse(&["--http-addr", "localhost-8080"]).unwrap_err();
        assert!(err.contains("PORTAL_HTTP_ADDR"), "{err}");
    }

    #[test]
    fn migrate_is_a_command_beside_serving() {
        let serve = Config::try_parse_from(["portal"]).unwrap();
        assert_eq!(serve.command, None);
        let migrate = Config::try_parse_from(["portal", "--target=auth", "migrate"]).unwrap();
        assert_eq!(
            (migrate.command, migrate.target),
            (Some(Command::Migrate), Target::Auth)
        );
    }

    #[test]
    fn an_unknown_target_is_refused_naming_the_variable() {
        let err = parse(&["--target", "billing"]).unwrap_err();
        assert!(err.contains("PORTAL_TARGET"), "{err}");
    }

    #[test]
    fn defaults_follow_the_design() {
        let config = parse(&[]).unwrap();
        assert_eq!(config.target, Target::All);
        assert_eq!(config.gateway.http_addr.to_string(), "127.0.0.1:8080");
        assert_eq!(
            (
                config.gateway.http_header_timeout,
                config.gateway.http_idle_timeout,
                config.gateway.http_max_connections,
                config.gateway.upstream_call_timeout
            ),
            (15, 120, 10_000, 60)
        );
        let auth = parse(&["--target", "auth"]).unwrap();
        assert_eq!(auth.grpc_addr().to_string(), "0.0.0.0:50051");
        assert!(!auth.shared.seed_demo);
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

    #[test]
    fn the_configuration_never_prints_a_password() {
        let config = parse(&[
            "--target=auth",
            "--admin-password=admin-secret-pw",
            "--database-url=postgres://portal:db-secret-pw@db/auth",
        ])
        .unwrap();
        let printed = format!("{config:?}");
        assert!(!printed.contains("admin-secret-pw"), "{printed}");
        assert!(!printed.contains("db-secret-pw"), "{printed}");
    }
}
