//! Persistence: the files' metadata in the service's database ([`file`]: one
//! set of queries for SQLite and PostgreSQL through sqlx's Any driver), and
//! their bytes in the object store ([`blobs`]) under the key the metadata
//! names. A read or change of one file by id that finds none is NOT_FOUND
//! here. [`backup`] is files' part of `portal backup` and `portal restore`.

pub mod backup;
pub mod blobs;
pub mod file;
pub mod search;

use portal_kit::ServiceResult;
use portal_kit::db::{Backend, begin_write};
use sqlx::{Any, AnyPool, Transaction};

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

impl Store {
    pub fn new(pool: AnyPool, backend: Backend) -> Store {
        Store { pool, backend }
    }

    async fn write(&self) -> ServiceResult<Transaction<'static, Any>> {
        begin_write(&self.pool, self.backend).await
    }
}
