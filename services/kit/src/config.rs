//! The `portal` settings more than one part reads: where data and databases
//! are, how people and services reach each other, who is trusted, how the
//! process logs. Each crate owns the rest of its settings (its own
//! `clap::Args`), and the binary's `Config` flattens them all.
//!
//! Each value names its variable as its `value_name`, so clap's refusal of a bad
//! value ("invalid value 'x' for '--http-addr <PORTAL_HTTP_ADDR>'") tells an
//! operator which variable to fix.

use std::path::PathBuf;

use clap::Args;
use secrecy::SecretString;

use crate::account_limits::ServiceAccountLimits;
use crate::audit::AuditArgs;
use crate::db::DatabaseSettings;
use crate::db::schema::MigrateMode;
use crate::net::TrustedProxies;
use crate::secret_file;
use crate::telemetry::LogFormat;

#[derive(Clone, Debug, Args)]
pub struct Shared {
    /// SQLite files, stored files and generated keys.
    #[arg(
        long,
        env = "PORTAL_DATA_DIR",
        value_name = "PORTAL_DATA_DIR",
        default_value = "./data"
    )]
    pub data_dir: PathBuf,

    /// A service target's database: `sqlite://…` or `postgres://…` [default: a
    /// SQLite file per service in the data dir]. PostgreSQL over TLS checking the
    /// server: `?sslmode=verify-full&sslrootcert=/path/ca.crt`.
    #[arg(long, env = "PORTAL_DATABASE_URL", value_name = "PORTAL_DATABASE_URL", value_parser = parse_database_url)]
    database_url: Option<SecretString>,
    /// PORTAL_DATABASE_URL read from this file (e.g. a mounted Secret).
    #[arg(long, env = "PORTAL_DATABASE_URL_FILE", value_name = "PORTAL_DATABASE_URL_FILE", value_parser = secret_file::parse_with(parse_database_url), conflicts_with = "database_url")]
    database_url_file: Option<SecretString>,

    /// The gateway's upstream auth service: `http://host:port`, whose name
    /// resolves to every replica (a headless Service, e.g.
    /// `http://auth-headless:50051`), or several such URLs separated by commas.
    /// Calls are balanced over the replicas, found again every 5 s. Also
    /// required for the education, wiki and files targets, which ask auth every
    /// second whose access tokens are stale (blocked, rights changed).
    #[arg(long, env = "PORTAL_AUTH_URL", value_name = "PORTAL_AUTH_URL", value_parser = parse_upstream_urls)]
    pub auth_url: Option<String>,
    /// The gateway's upstream education service; also the wiki's, which asks
    /// it who is cleared to operate equipment (required for the wiki target).
    #[arg(long, env = "PORTAL_EDUCATION_URL", value_name = "PORTAL_EDUCATION_URL", value_parser = parse_upstream_urls)]
    pub education_url: Option<String>,
    /// The gateway's upstream wiki service; also the files service's, which
    /// asks the wiki who sees a model, and education's, whose daily digest
    /// asks it for equipment items (required for the files and education
    /// targets).
    #[arg(long, env = "PORTAL_WIKI_URL", value_name = "PORTAL_WIKI_URL", value_parser = parse_upstream_urls)]
    pub wiki_url: Option<String>,
    /// The gateway's upstream files service.
    #[arg(long, env = "PORTAL_FILES_URL", value_name = "PORTAL_FILES_URL", value_parser = parse_upstream_urls)]
    pub files_url: Option<String>,

    /// Ed25519 public key (SPKI PEM) every service verifies access tokens with.
    #[arg(
        long,
        env = "PORTAL_JWT_PUBLIC_KEY_FILE",
        value_name = "PORTAL_JWT_PUBLIC_KEY_FILE"
    )]
    pub jwt_public_key_file: Option<PathBuf>,

    /// The key(s) the services' calls to each other are signed with (one
    /// per line, the first signs; `openssl rand -base64 48`): the same file
    /// for every service target, never the gateway's [default: generated
    /// into the data dir by `all`].
    #[arg(
        long,
        env = "PORTAL_INTERNAL_KEY_FILE",
        value_name = "PORTAL_INTERNAL_KEY_FILE"
    )]
    pub internal_key_file: Option<PathBuf>,

    /// Absolute base URL people reach the portal at (QR codes, file links, cookies).
    #[arg(long, env = "PORTAL_PUBLIC_URL", value_name = "PORTAL_PUBLIC_URL", default_value = "http://127.0.0.1:8080", value_parser = parse_public_url)]
    pub public_url: String,

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

    /// What a service's start does with its database's schema: `auto` applies
    /// its missing migrations (one machine); `check` never migrates and refuses
    /// to start unless `portal migrate` applied them all (Kubernetes: the init
    /// container).
    #[arg(
        long,
        env = "PORTAL_MIGRATE",
        value_name = "PORTAL_MIGRATE",
        value_enum,
        default_value = "auto"
    )]
    pub migrate: MigrateMode,

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

    /// How fast each service account may call each replica of a service.
    #[command(flatten)]
    pub service_account_limits: ServiceAccountLimits,

    /// How long every service keeps its audit records.
    #[command(flatten)]
    pub audit: AuditArgs,

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

    /// The OpenTelemetry collector (OTLP over gRPC, `http://collector:4317`)
    /// every span of a trace is sent to [default: none, no span is sent].
    #[arg(
        long,
        env = "OTEL_EXPORTER_OTLP_ENDPOINT",
        value_name = "OTEL_EXPORTER_OTLP_ENDPOINT"
    )]
    pub otel_endpoint: Option<String>,
    /// The `service.name` of the spans sent [default: `portal-<target>`,
    /// `portal` for `all`].
    #[arg(long, env = "OTEL_SERVICE_NAME", value_name = "OTEL_SERVICE_NAME")]
    pub otel_service_name: Option<String>,
}

impl Shared {
    /// Where this process's spans go, named `default_name` unless
    /// `OTEL_SERVICE_NAME` says otherwise.
    pub fn tracing(&self, default_name: &str) -> crate::traces::Tracing {
        crate::traces::Tracing {
            endpoint: self.otel_endpoint.clone().filter(|e| !e.trim().is_empty()),
            service_name: self
                .otel_service_name
                .clone()
                .filter(|name| !name.trim().is_empty())
                .unwrap_or_else(|| default_name.to_owned()),
        }
    }

    /// The database URL given (PORTAL_DATABASE_URL or its file), if any.
    pub fn database_url(&self) -> Option<&SecretString> {
        self.database_url
            .as_ref()
            .or(self.database_url_file.as_ref())
    }

    /// A service's database: the configured URL, else its SQLite file in the data dir.
    pub fn database_url_for(&self, service: &str) -> SecretString {
        self.database_url().cloned().unwrap_or_else(|| {
            format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join(format!("{service}.db")).display()
            )
            .into()
        })
    }

    /// A service's database as its start opens it.
    pub fn database_for(&self, service: &str) -> DatabaseSettings {
        DatabaseSettings {
            url: self.database_url_for(service),
            migrate: self.migrate,
        }
    }
}

/// Parses `args` as a command line of `A` alone, as each crate's tests of its
/// own settings do.
#[cfg(any(test, feature = "testing"))]
pub fn parse_args<A: Args>(args: &[&str]) -> Result<A, String> {
    use clap::Parser;

    #[derive(Parser)]
    struct Only<A: Args> {
        #[command(flatten)]
        args: A,
    }

    Only::try_parse_from(std::iter::once("portal").chain(args.iter().copied()))
        .map(|only| only.args)
        .map_err(|e| e.to_string())
}

fn parse_database_url(value: &str) -> Result<SecretString, String> {
    if value.starts_with("sqlite:")
        || value.starts_with("postgres://")
        || value.starts_with("postgresql://")
    {
        Ok(value.into())
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
    use secrecy::ExposeSecret;

    use super::*;

    fn parse(args: &[&str]) -> Result<Shared, String> {
        parse_args(args)
    }

    #[test]
    fn a_database_url_of_another_kind_is_refused() {
        let err = parse(&["--database-url", "mysql://x"]).unwrap_err();
        assert!(err.contains("PORTAL_DATABASE_URL"), "{err}");
    }

    #[test]
    fn defaults_follow_the_design() {
        let shared = parse(&[]).unwrap();
        assert!(!shared.seed_demo, "demo accounts only when asked");
        assert_eq!(
            shared.migrate,
            MigrateMode::Auto,
            "one machine migrates at start"
        );
        assert_eq!(shared.trusted_proxies, TrustedProxies::none());
        assert_eq!(shared.audit.audit_retention_days, 1095, "three years");
        let err = parse(&["--audit-retention-days", "0"]).unwrap_err();
        assert!(err.contains("PORTAL_AUDIT_RETENTION_DAYS"), "{err}");
        assert!(
            shared
                .database_url_for("auth")
                .expose_secret()
                .ends_with("auth.db?mode=rwc")
        );
    }

    #[test]
    fn a_database_password_is_never_printed() {
        let shared = parse(&["--database-url", "postgres://portal:s3cret-pw@db/auth"]).unwrap();
        let printed = format!("{shared:?} {:?}", shared.database_url_for("auth"));
        assert!(!printed.contains("s3cret-pw"), "{printed}");
        assert_eq!(
            shared.database_url_for("auth").expose_secret(),
            "postgres://portal:s3cret-pw@db/auth"
        );
    }

    #[test]
    fn the_database_url_may_come_from_a_file_checked_as_the_variable_is() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("uri");
        let file_arg = format!("--database-url-file={}", file.display());

        std::fs::write(&file, "postgres://portal:s3cret-pw@db/auth\n").unwrap();
        let shared = parse(&[&file_arg]).unwrap();
        assert_eq!(
            shared.database_url_for("auth").expose_secret(),
            "postgres://portal:s3cret-pw@db/auth"
        );
        assert!(!format!("{shared:?}").contains("s3cret-pw"));

        let both = parse(&[&file_arg, "--database-url=postgres://db/auth"]).unwrap_err();
        assert!(
            both.contains("PORTAL_DATABASE_URL>") && both.contains("PORTAL_DATABASE_URL_FILE>"),
            "{both}"
        );

        std::fs::write(&file, "mysql://portal:s3cret-pw@db/auth\n").unwrap();
        let wrong_kind = parse(&[&file_arg]).unwrap_err();
        assert!(
            wrong_kind.contains("PORTAL_DATABASE_URL_FILE") && wrong_kind.contains("sqlite:"),
            "{wrong_kind}"
        );
        assert!(!wrong_kind.contains("s3cret-pw"), "{wrong_kind}");

        let missing = dir.path().join("missing");
        let unreadable =
            parse(&[&format!("--database-url-file={}", missing.display())]).unwrap_err();
        assert!(
            unreadable.contains("PORTAL_DATABASE_URL_FILE")
                && unreadable.contains(&missing.display().to_string())
                && unreadable.contains("cannot read it"),
            "{unreadable}"
        );
    }

    #[test]
    fn an_upstream_is_one_or_more_http_urls_with_ports() {
        let shared = parse(&[
            "--education-url",
            "http://127.0.0.2:50052/, http://127.0.0.3:50052",
        ])
        .unwrap();
        assert_eq!(
            shared.education_url.as_deref(),
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
        let shared = parse(&["--trusted-proxies", "10.0.0.0/8,192.0.2.7"]).unwrap();
        assert!(shared.trusted_proxies.trusts("10.2.3.4".parse().unwrap()));
        let err = parse(&["--trusted-proxies", "ingress"]).unwrap_err();
        assert!(err.contains("PORTAL_TRUSTED_PROXIES"), "{err}");
    }
}
