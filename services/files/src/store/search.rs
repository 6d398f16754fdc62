//! The search index of documents (issue 25): their titles and a PDF's text,
//! written in the transaction of each insert and delete (and of a text read
//! later, for a PDF stored before texts were), scoped by their equipment model.
//! Who sees a model is the wiki's to say, so the index answers candidates
//! with their model, and the call keeps those the wiki shows the caller.

use portal_kit::ServiceResult;
use portal_kit::search::{self, Allowed, Asked, Entry, Found};
use sqlx::AnyConnection;

use super::Store;

pub const DOCUMENT: &str = "document";
/// The kinds files finds.
pub const KINDS: [&str; 1] = [DOCUMENT];

/// Indexes document `id` as it now stands in `conn`'s transaction (a video
/// is found through the article it is in, not by itself).
pub(super) async fn index_document(conn: &mut AnyConnection, id: i64) -> sqlx::Result<()> {
    let row: Option<(i64, String, String, String)> = sqlx::query_as(
        "SELECT id_related, title, file_name, COALESCE(extracted_text, '') FROM files WHERE id = $1 AND kind = 'document'",
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((model_id, title, file_name, text)) = row else {
        return search::remove(conn, DOCUMENT, id).await;
    };
    let body = format!("{file_name} {text}");
    let entry = Entry {
        kind: DOCUMENT,
        entity_id: id,
        scope: Some(model_id),
        title: &title,
        body: body.trim_end(),
    };
    search::put(conn, &entry).await
}

impl Store {
    /// Indexes every document the index lacks (those stored before it
    /// existed); answers how many.
    pub async fn index_missing(&self) -> ServiceResult<usize> {
        let mut tx = self.write().await?;
        let documents = search::unindexed(
            &mut tx,
            DOCUMENT,
            "SELECT id FROM files WHERE kind = 'document'",
        )
        .await?;
        for id in &documents {
            index_document(&mut tx, *id).await?;
        }
        tx.commit().await?;
        Ok(documents.len())
    }

    /// The best `candidates` documents `asked` finds, each with its model's
    /// id as its path, before the wiki is asked who sees which.
    pub async fn search(&self, asked: &Asked, candidates: usize) -> ServiceResult<Vec<Found>> {
        if !asked.wants(DOCUMENT) {
            return Ok(Vec::new());
        }
        let allowed = [Allowed {
            kind: DOCUMENT,
            scopes: None,
        }];
        let mut conn = self.pool.acquire().await?;
        let hits =
            search::find(&mut conn, self.backend, &asked.query, &allowed, candidates).await?;
        let mut found = Vec::with_capacity(hits.len());
        for hit in hits {
            let model: Option<i64> =
                sqlx::query_scalar("SELECT id_related FROM files WHERE id = $1")
                    .bind(hit.entity_id)
                    .fetch_optional(&mut *conn)
                    .await?;
            // A document deleted since the index was read is left out.
            if let Some(model) = model {
                found.push(Found {
                    hit,
                    path_ids: vec![model],
                });
            }
        }
        Ok(found)
    }
}
