//! The files service: Blobs (documents, videos) and their metadata.
//!
//! The contract (`portal.files.v1.FilesService`) is fixed in `proto/`; this crate owns the
//! schema and starts the service. Its RPCs are registered with their feature
//! issue: until then a call answers UNIMPLEMENTED, health and reflection answer.

use portal_kit::db::{Database, DbError, Migrations};
use tonic::service::Routes;

pub const SERVICE_NAME: &str = "portal.files.v1.FilesService";

static MIGRATIONS: Migrations = Migrations {
    sqlite: sqlx::migrate!("migrations/sqlite"),
    postgres: sqlx::migrate!("migrations/postgres"),
};

pub struct FilesSettings {
    pub database_url: String,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("files database: {0}")]
    Database(#[from] DbError),
}

/// Connects and migrates the service's database and returns its routes.
pub async fn routes(settings: FilesSettings) -> Result<Routes, StartError> {
    Database::connect(&settings.database_url, &MIGRATIONS).await?;
    Ok(Routes::default())
}

#[cfg(test)]
mod tests {
    use portal_kit::testing::{TestDatabase, backends};

    use super::*;

    #[tokio::test]
    async fn migrations_apply_twice_cleanly_on_every_backend() {
        for backend in backends() {
            let db = TestDatabase::new(backend).await;
            let database = Database::connect(&db.url, &MIGRATIONS)
                .await
                .expect("first start");
            database.migrate(&MIGRATIONS).await.expect("second run");
            Database::connect(&db.url, &MIGRATIONS)
                .await
                .expect("restart");
        }
    }
}
