//! How a service starts, and why it could not, said the same way by all four.

use std::path::Path;

use crate::ServiceError;
use crate::db::{Database, DatabaseSettings, DbError, Migrations};
use crate::revocation::AccessVersions;
use crate::token::{KeyError, TokenVerifier};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("access-token keys: {0}")]
    Keys(#[from] KeyError),
    #[error("{service} database: {source}")]
    Database {
        service: &'static str,
        #[source]
        source: DbError,
    },
    /// A setting that cannot serve, named by its variable.
    #[error("{0}")]
    Setting(String),
    /// A step of the start (housekeeping, the bootstrap admin, demo data) failed.
    #[error("{step}: {source}")]
    Step {
        step: &'static str,
        #[source]
        source: ServiceError,
    },
}

impl StartError {
    /// The error of `service`'s database as a start error, for `map_err`.
    pub fn database(service: &'static str) -> impl FnOnce(DbError) -> StartError {
        move |source| StartError::Database { service, source }
    }

    /// A failed start step as a start error, for `map_err`.
    pub fn step(step: &'static str) -> impl FnOnce(ServiceError) -> StartError {
        move |source| StartError::Step { step, source }
    }
}

/// What a service that verifies auth's tokens opens first: its database, with the
/// schema brought up to date or checked (`PORTAL_MIGRATE`), and the token check that refuses tokens older than
/// the person's access version.
pub async fn open(
    service: &'static str,
    database: &DatabaseSettings,
    migrations: &Migrations,
    public_key_file: &Path,
    access_versions: &AccessVersions,
) -> Result<(Database, TokenVerifier), StartError> {
    let verifier = TokenVerifier::from_pem_file(public_key_file)?
        .with_access_versions(access_versions.clone());
    let database = Database::open(database, migrations)
        .await
        .map_err(StartError::database(service))?;
    Ok((database, verifier))
}
