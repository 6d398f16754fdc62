//! `portal migrate`: brings the target's databases up to date and exits. An
//! upgrade runs it before the new release's services start (Kubernetes: each
//! service's init container), so no probe's window bounds a long migration,
//! and the services run with `PORTAL_MIGRATE=check`.

use anyhow::Context;
use secrecy::ExposeSecret;

use crate::config::{Config, Target};

/// Migrates every database of the target in turn; the first that fails stops
/// the run, naming its service and why.
pub async fn run(config: &Config) -> anyhow::Result<()> {
    let services = match config.target {
        Target::All => {
            let data_dir = &config.shared.data_dir;
            std::fs::create_dir_all(data_dir).with_context(|| {
                format!("PORTAL_DATA_DIR: cannot create {}", data_dir.display())
            })?;
            Target::SERVICES.to_vec()
        }
        Target::Gateway => anyhow::bail!(
            "PORTAL_TARGET: the gateway has no database; `portal migrate` migrates `all` or one service"
        ),
        service => vec![service],
    };
    for service in services {
        let name = service.name();
        let migrations = service
            .migrations()
            .with_context(|| format!("{name} has no database of its own"))?;
        let url = config.shared.database_url_for(name);
        let migrated = portal_kit::db::migrate(url.expose_secret(), &migrations)
            .await
            .with_context(|| format!("{name} database"))?;
        let applied = match &migrated.applied[..] {
            [] => "none".to_owned(),
            versions => format!("{versions:?}"),
        };
        tracing::info!(
            service = name,
            release = migrations.release,
            "{name} database is up to date: newest migration {}, applied now: {applied}",
            migrated.newest_migration
        );
    }
    Ok(())
}
