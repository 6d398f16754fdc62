//! The files' metadata. The bytes live in the object store under `blob_key`.

use portal_kit::audit::{self, AuditContext, Changes, Event, action, entity};
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::{AnyConnection, FromRow};

use super::{Store, search};
use crate::domain::content::Kind;
use crate::domain::content::PDF;
use crate::domain::file::Issued;
use crate::domain::range::Span;

use crate::domain::file::MSG_FILE_NOT_FOUND;

/// Serialized: its fields as the audit log records them; never the video's
/// key, which opens it.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord {
    #[serde(skip)]
    pub id: i64,
    pub id_related: i64,
    #[serde(skip)]
    pub kind: String,
    pub title: String,
    pub file_name: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub sha256: String,
    #[serde(skip)]
    pub blob_key: String,
    #[serde(skip)]
    pub uploaded_by: i64,
    #[serde(skip)]
    pub created_at: i64,
    /// A video's key, which opens it without a token ('' for documents and
    /// for videos saved before keys).
    #[serde(skip)]
    pub public_key: String,
}

impl FileRecord {
    pub fn kind(&self) -> Option<Kind> {
        Kind::parse(&self.kind)
    }

    /// Its entity kind in the audit log.
    fn audited(&self) -> &'static str {
        match self.kind() {
            Some(Kind::Video) => VIDEO,
            _ => entity::DOCUMENT,
        }
    }
}

/// A video for rich text, in the audit log (documents are `document`).
pub const VIDEO: &str = "video";

/// A file to record, its blob already stored.
pub struct NewFile<'a> {
    pub kind: Kind,
    pub id_related: i64,
    pub title: &'a str,
    pub file_name: &'a str,
    pub content_type: &'a str,
    pub size: i64,
    pub sha256: &'a str,
    pub blob_key: &'a str,
    pub uploaded_by: i64,
    pub created_at: i64,
    pub public_key: &'a str,
    /// A PDF's text ([`crate::app::pdf_text`]); '' for other files.
    pub extracted_text: &'a str,
}

/// A PDF stored before texts were read: its id, blob and size.
#[derive(Clone, Debug, FromRow)]
pub struct UnreadPdf {
    pub id: i64,
    pub blob_key: String,
    pub size_bytes: i64,
}

const COLUMNS: &str = "id, id_related, kind, title, file_name, content_type, size_bytes, \
                       sha256, blob_key, uploaded_by, created_at, public_key";

impl Store {
    pub async fn insert(&self, file: &NewFile<'_>, audit: &AuditContext) -> ServiceResult<i64> {
        let mut tx = self.write().await?;
        let id = sqlx::query_scalar(
            "INSERT INTO files (id_related, kind, title, file_name, content_type, size_bytes, \
             sha256, blob_key, uploaded_by, created_at, public_key, extracted_text) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
        )
        .bind(file.id_related)
        .bind(file.kind.as_str())
        .bind(file.title)
        .bind(file.file_name)
        .bind(file.content_type)
        .bind(file.size)
        .bind(file.sha256)
        .bind(file.blob_key)
        .bind(file.uploaded_by)
        .bind(file.created_at)
        .bind(file.public_key)
        .bind(file.extracted_text)
        .fetch_one(&mut *tx)
        .await?;
        search::index_document(&mut tx, id).await?;
        let created = file_in(&mut tx, id).await?;
        let changes = Changes::diff(None, Some(&created), &[]);
        let event = Event::new(created.audited(), id, action::CREATE).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(id)
    }

    pub async fn file(&self, id: i64) -> ServiceResult<FileRecord> {
        file_in(&mut *self.pool.acquire().await?, id).await
    }

    /// The documents of an equipment model, oldest first.
    pub async fn documents_of(&self, id_related: i64) -> ServiceResult<Vec<FileRecord>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM files WHERE kind = 'document' AND id_related = $1 ORDER BY id"
        );
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id_related)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Whether any file is recorded (demo documentation loads only into an
    /// empty database).
    pub async fn has_files(&self) -> ServiceResult<bool> {
        let any: Option<i64> = sqlx::query_scalar("SELECT id FROM files LIMIT 1")
            .fetch_optional(&self.pool)
            .await?;
        Ok(any.is_some())
    }

    /// The PDFs whose text was never read (stored before texts were), at most
    /// `limit`, oldest first.
    pub async fn unread_pdfs(&self, limit: i64) -> ServiceResult<Vec<UnreadPdf>> {
        Ok(sqlx::query_as(
            "SELECT id, blob_key, size_bytes FROM files \
             WHERE kind = 'document' AND content_type = $1 AND extracted_text IS NULL \
             ORDER BY id LIMIT $2",
        )
        .bind(PDF)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Keeps the text read of PDF `id` and indexes it with the document, in
    /// one transaction; a text another replica kept first stays.
    pub async fn record_text(&self, id: i64, text: &str) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let recorded = sqlx::query(
            "UPDATE files SET extracted_text = $2 WHERE id = $1 AND extracted_text IS NULL",
        )
        .bind(id)
        .bind(text)
        .execute(&mut *tx)
        .await?;
        if recorded.rows_affected() > 0 {
            search::index_document(&mut tx, id).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Forgets a file; its blob key, for the caller to remove.
    pub async fn delete(&self, id: i64, audit: &AuditContext) -> ServiceResult<String> {
        let mut tx = self.write().await?;
        let sql = format!("DELETE FROM files WHERE id = $1 RETURNING {COLUMNS}");
        let gone: FileRecord = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_FILE_NOT_FOUND))?;
        search::index_document(&mut tx, id).await?;
        let changes = Changes::diff(Some(&gone), None, &[]);
        let event = Event::new(gone.audited(), id, action::DELETE).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(gone.blob_key)
    }

    /// Records that file `file` was read through the download link `issued`
    /// (its `span`, if one was asked for): a read, so a transaction of its own.
    pub async fn record_download(
        &self,
        audit: &AuditContext,
        file: &FileRecord,
        issued: Issued,
        span: Option<Span>,
    ) -> ServiceResult<()> {
        let mut tx = self.write().await?;
        let changes =
            Changes::new()
                .field("link", None::<Issued>, issued)
                .field("range", None::<Span>, span);
        let event = Event::new(file.audited(), file.id, action::DOWNLOAD).changes(changes);
        audit::record(&mut tx, audit, event).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// File `id` as `conn` sees it; NOT_FOUND when there is none.
async fn file_in(conn: &mut AnyConnection, id: i64) -> ServiceResult<FileRecord> {
    let sql = format!("SELECT {COLUMNS} FROM files WHERE id = $1");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_FILE_NOT_FOUND))
}
