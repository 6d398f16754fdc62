//! Files' part of a one-machine backup (`portal backup`, `portal restore`):
//! which blobs a copy of the database references, and those blobs copied out
//! of the object store into plain files and back.
//!
//! The copy of the database is taken first; every blob it references exists,
//! since an upload stores its blob before its row. A delete removes the row
//! first and the blob after, so a referenced blob found missing while the
//! backup copies it belongs to a row deleted since the copy was taken: that
//! row is dropped from the copy too ([`forget`]), as if the backup had begun a
//! moment later. A blob missing while its row is still there is damage, and
//! the backup refuses rather than carry it.

use std::path::Path;

use futures_util::StreamExt;
use object_store::path::Path as BlobPath;
use object_store::{ObjectStore, ObjectStoreExt, WriteMultipart};
use sha2::{Digest, Sha256};
use sqlx::SqliteConnection;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::blobs::{Blobs, PART_BYTES, PARTS_IN_FLIGHT};

/// A file's record as a backup checks its blob against it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub id: i64,
    pub key: String,
    pub size: u64,
    /// Lowercase hex, as stored at upload.
    pub sha256: String,
}

/// A blob written out: its length and SHA-256 (lowercase hex).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("the files database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("blob {key}: {source}")]
    Store {
        key: String,
        #[source]
        source: object_store::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn store_error(key: &str) -> impl FnOnce(object_store::Error) -> BackupError + '_ {
    move |source| BackupError::Store {
        key: key.to_owned(),
        source,
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> BackupError + '_ {
    move |source| BackupError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Every file a database (a backup's copy) records, by id.
pub async fn recorded(database: &mut SqliteConnection) -> Result<Vec<Recorded>, BackupError> {
    let rows: Vec<(i64, String, i64, String)> =
        sqlx::query_as("SELECT id, blob_key, size_bytes, sha256 FROM files ORDER BY id")
            .fetch_all(database)
            .await?;
    Ok(rows
        .into_iter()
        .map(|(id, key, size, sha256)| Recorded {
            id,
            key,
            size: u64::try_from(size).unwrap_or_default(),
            sha256,
        })
        .collect())
}

/// Whether the live database still records file `id`.
pub async fn still_recorded(live: &mut SqliteConnection, id: i64) -> Result<bool, BackupError> {
    Ok(
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM files WHERE id = ?)")
            .bind(id)
            .fetch_one(live)
            .await?,
    )
}

/// Drops file `id` from a backup's copy: it was deleted while the backup ran.
pub async fn forget(copy: &mut SqliteConnection, id: i64) -> Result<(), BackupError> {
    sqlx::query("DELETE FROM files WHERE id = ?")
        .bind(id)
        .execute(copy)
        .await?;
    Ok(())
}

/// Writes blob `key` to the new file `to`, synced; `None` when the store has
/// no such blob.
pub async fn copy_out(blobs: &Blobs, key: &str, to: &Path) -> Result<Option<Written>, BackupError> {
    let found = match blobs.get(&BlobPath::from(key)).await {
        Ok(found) => found,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(store_error(key)(error)),
    };
    if let Some(parent) = to.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(io_error(parent))?;
    }
    // A backup's files are its owner's alone, as the data directory's are.
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)
        .await
        .map_err(io_error(to))?;
    let (mut hasher, mut size) = (Sha256::new(), 0u64);
    let mut chunks = found.into_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(store_error(key))?;
        hasher.update(&chunk);
        size += chunk.len() as u64;
        file.write_all(&chunk).await.map_err(io_error(to))?;
    }
    file.sync_all().await.map_err(io_error(to))?;
    Ok(Some(Written {
        size,
        sha256: hex::encode(hasher.finalize()),
    }))
}

/// Stores the file `from` as blob `key`, part by part as uploads are written.
/// A failed copy is aborted, so no unfinished upload is left in the store.
pub async fn copy_in(blobs: &Blobs, key: &str, from: &Path) -> Result<(), BackupError> {
    let mut file = tokio::fs::File::open(from).await.map_err(io_error(from))?;
    let upload = blobs
        .put_multipart(&BlobPath::from(key))
        .await
        .map_err(store_error(key))?;
    let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
    match write_all(&mut file, &mut writer, key, from).await {
        Ok(()) => {
            writer.finish().await.map_err(store_error(key))?;
            Ok(())
        }
        Err(error) => {
            if let Err(abort) = writer.abort().await {
                tracing::warn!(%key, error = %abort, "aborting a failed copy into the store failed");
            }
            Err(error)
        }
    }
}

async fn write_all(
    file: &mut tokio::fs::File,
    writer: &mut WriteMultipart,
    key: &str,
    from: &Path,
) -> Result<(), BackupError> {
    let mut buffer = vec![0u8; PART_BYTES];
    loop {
        let read = file.read(&mut buffer).await.map_err(io_error(from))?;
        if read == 0 {
            return Ok(());
        }
        writer
            .wait_for_capacity(PARTS_IN_FLIGHT)
            .await
            .map_err(store_error(key))?;
        writer.write(&buffer[..read]);
    }
}

/// Whether the store holds no blob at all (a restore fills only an empty one).
pub async fn is_empty(blobs: &Blobs) -> Result<bool, BackupError> {
    match blobs.list(None).next().await {
        None => Ok(true),
        Some(Ok(_)) => Ok(false),
        Some(Err(error)) => Err(store_error("(listing)")(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_blob_copied_out_and_in_again_is_byte_exact() {
        let dir = tempfile::tempdir().unwrap();
        let live = super::super::blobs::directory(&dir.path().join("live")).unwrap();
        let content: Vec<u8> = (0..PART_BYTES + 12_345).map(|i| (i % 251) as u8).collect();
        live.put(&BlobPath::from("document/ab"), content.clone().into())
            .await
            .unwrap();
        let out = dir.path().join("backup/files/document/ab");
        let written = copy_out(&live, "document/ab", &out).await.unwrap().unwrap();
        assert_eq!(written.size, content.len() as u64);
        assert_eq!(written.sha256, hex::encode(Sha256::digest(&content)));
        assert_eq!(
            copy_out(&live, "document/gone", &dir.path().join("x"))
                .await
                .unwrap(),
            None
        );

        let restored = super::super::blobs::directory(&dir.path().join("restored")).unwrap();
        assert!(is_empty(&restored).await.unwrap());
        copy_in(&restored, "document/ab", &out).await.unwrap();
        assert!(!is_empty(&restored).await.unwrap());
        let back = restored
            .get(&BlobPath::from("document/ab"))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(back.as_ref(), content.as_slice());
    }
}
