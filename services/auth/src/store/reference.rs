//! The reference lists the migrations fill: statuses, positions and rights.

use portal_kit::ServiceResult;
use sqlx::FromRow;

use super::Store;

#[derive(Clone, Debug, FromRow)]
pub struct StatusRecord {
    pub id: i64,
    pub name: String,
    pub blocks_sign_in: i64,
}

#[derive(Clone, Debug, FromRow)]
pub struct PositionRecord {
    pub id: i64,
    pub title: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct RightRecord {
    pub id: i64,
    pub name: String,
}

impl Store {
    pub async fn statuses(&self) -> ServiceResult<Vec<StatusRecord>> {
        Ok(
            sqlx::query_as("SELECT id, name, blocks_sign_in FROM statuses ORDER BY id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub async fn positions(&self) -> ServiceResult<Vec<PositionRecord>> {
        Ok(
            sqlx::query_as("SELECT id, title FROM positions ORDER BY title, id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub async fn rights(&self) -> ServiceResult<Vec<RightRecord>> {
        Ok(sqlx::query_as("SELECT id, name FROM rights ORDER BY id")
            .fetch_all(&self.pool)
            .await?)
    }

    pub async fn status_named(&self, name: &str) -> ServiceResult<Option<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM statuses WHERE name = $1")
                .bind(name)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    pub async fn position_titled(&self, title: &str) -> ServiceResult<Option<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM positions WHERE title = $1")
                .bind(title)
                .fetch_optional(&self.pool)
                .await?,
        )
    }
}
