//! Persistence: the files' metadata in the service's database ([`file`]: one
//! set of queries for SQLite and PostgreSQL through sqlx's Any driver), and
//! their bytes in the object store ([`blobs`]) under the key the metadata
//! names. A read or change of one file by id that finds none is NOT_FOUND
//! here. [`backup`] is files' part of `portal backup` and `portal restore`.

pub mod backup;
pub mod blobs;
pub mod file;

use sqlx::AnyPool;

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
}

impl Store {
    pub fn new(pool: AnyPool) -> Store {
        Store { pool }
    }
}
