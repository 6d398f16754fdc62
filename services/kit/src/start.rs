//! Why a service could not start, said the same way by all four.

use crate::ServiceError;
use crate::db::DbError;
use crate::token::KeyError;

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
