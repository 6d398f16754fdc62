//! The bytes of files, in an object store (`object_store`): a local directory by
//! default, an S3-compatible bucket by configuration. Keys are made here, never
//! from a client's name. An upload is written while it streams in and is
//! aborted (nothing kept) when it fails, passes its limit or is not allowed.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as BlobPath;
use object_store::prefix::PrefixStore;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, WriteMultipart};
use portal_kit::{ServiceError, ServiceResult};
use sha2::{Digest, Sha256};

use crate::domain::content::{ContentType, Kind, SNIFF_BYTES};
use crate::domain::range::Span;

/// Bytes written to the store per part (S3's smallest part is 5 MiB), and parts
/// in flight at once: an upload holds at most about three parts in memory.
const PART_BYTES: usize = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT: usize = 2;
/// The largest chunk a download message carries (the contract's 64 KiB).
pub const DOWNLOAD_CHUNK: usize = 64 * 1024;

pub type Blobs = Arc<dyn ObjectStore>;

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("PORTAL_FILES_STORE: cannot use the directory {0}: {1}")]
    Directory(String, #[source] std::io::Error),
    #[error("PORTAL_FILES_STORE: {0}")]
    Store(#[from] object_store::Error),
    #[error("PORTAL_FILES_STORE: expected s3://bucket or s3://bucket/prefix, got {0}")]
    BadUrl(String),
}

/// The store `PORTAL_FILES_STORE` names: `s3://bucket[/prefix]` (credentials,
/// region and endpoint from the standard `AWS_*` variables), else a directory.
pub fn open(location: &str) -> Result<Blobs, OpenError> {
    if location.starts_with("s3://") {
        s3(location, AmazonS3Builder::from_env())
    } else {
        directory(Path::new(location))
    }
}

/// A local directory, made if missing.
pub fn directory(path: &Path) -> Result<Blobs, OpenError> {
    let shown = path.display().to_string();
    std::fs::create_dir_all(path).map_err(|e| OpenError::Directory(shown.clone(), e))?;
    let store = LocalFileSystem::new_with_prefix(path)?;
    Ok(Arc::new(store))
}

/// An S3 bucket (and key prefix) given as `s3://bucket[/prefix]`, with the rest
/// of its settings in `builder`.
pub fn s3(location: &str, builder: AmazonS3Builder) -> Result<Blobs, OpenError> {
    let rest = location
        .strip_prefix("s3://")
        .ok_or_else(|| OpenError::BadUrl(location.to_owned()))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(OpenError::BadUrl(location.to_owned()));
    }
    // reqwest's rustls needs a process-wide crypto provider; a second call finds
    // one installed, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let store = builder.with_bucket_name(bucket).build()?;
    let prefix = prefix.trim_matches('/');
    Ok(if prefix.is_empty() {
        Arc::new(store)
    } else {
        Arc::new(PrefixStore::new(store, prefix))
    })
}

/// A new storage key: the kind and 128 random bits, nothing of the client's.
pub fn new_key(kind: Kind) -> String {
    format!(
        "{}/{}",
        kind.as_str(),
        hex::encode(rand::random::<[u8; 16]>())
    )
}

/// A stored upload.
#[derive(Debug)]
pub struct Received {
    pub key: String,
    pub content_type: ContentType,
    pub size: u64,
    pub sha256: String,
}

/// Too large: the message names the limit.
pub fn too_large(limit: u64) -> ServiceError {
    ServiceError::TooLarge(format!(
        "Файл слишком большой: можно не больше {} МБ",
        limit / (1024 * 1024)
    ))
}

/// Reads the content from `chunks`, checks its type from the first bytes and
/// writes it under a new key, refusing it the moment it passes `limit` bytes.
pub async fn receive<S>(
    blobs: &Blobs,
    kind: Kind,
    limit: u64,
    mut chunks: S,
) -> ServiceResult<Received>
where
    S: Stream<Item = ServiceResult<Bytes>> + Unpin,
{
    let mut head = Vec::new();
    let mut size: u64 = 0;
    let mut rest = None;
    while head.len() < SNIFF_BYTES {
        let Some(chunk) = chunks.next().await.transpose()? else {
            break;
        };
        size += chunk.len() as u64;
        if size > limit {
            return Err(too_large(limit));
        }
        let room = SNIFF_BYTES - head.len();
        if chunk.len() > room {
            head.extend_from_slice(&chunk[..room]);
            rest = Some(chunk.slice(room..));
        } else {
            head.extend_from_slice(&chunk);
        }
    }
    let content_type = ContentType::detect(kind, &head)?;

    let key = new_key(kind);
    let upload = blobs
        .put_multipart(&BlobPath::from(key.as_str()))
        .await
        .map_err(ServiceError::internal)?;
    let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
    let mut hasher = Sha256::new();
    hasher.update(&head);
    writer.write(&head);
    if let Some(rest) = rest {
        hasher.update(&rest);
        writer.write(&rest);
    }
    let outcome = async {
        while let Some(chunk) = chunks.next().await.transpose()? {
            size += chunk.len() as u64;
            if size > limit {
                return Err(too_large(limit));
            }
            hasher.update(&chunk);
            writer
                .wait_for_capacity(PARTS_IN_FLIGHT)
                .await
                .map_err(ServiceError::internal)?;
            writer.write(&chunk);
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        if let Err(abort) = writer.abort().await {
            tracing::warn!(%key, error = %abort, "aborting a refused upload failed");
        }
        return Err(error);
    }
    writer.finish().await.map_err(ServiceError::internal)?;
    Ok(Received {
        key,
        content_type,
        size,
        sha256: hex::encode(hasher.finalize()),
    })
}

/// The bytes of `span` of the blob `key`, in chunks of at most [`DOWNLOAD_CHUNK`].
pub async fn read(
    blobs: &Blobs,
    key: &str,
    size: u64,
    span: Span,
) -> ServiceResult<impl Stream<Item = ServiceResult<Bytes>> + Send + 'static> {
    let range = (span != Span::whole(size)).then(|| GetRange::Bounded(span.offset..span.end()));
    let options = GetOptions {
        range,
        ..GetOptions::default()
    };
    let found = blobs
        .get_opts(&BlobPath::from(key), options)
        .await
        .map_err(ServiceError::internal)?;
    Ok(found
        .into_stream()
        .map_err(ServiceError::internal)
        .map_ok(|bytes| futures_util::stream::iter(split(bytes).map(Ok)))
        .try_flatten())
}

/// `bytes` in pieces of at most [`DOWNLOAD_CHUNK`], without copying.
fn split(mut bytes: Bytes) -> impl Iterator<Item = Bytes> {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            None
        } else {
            let take = bytes.len().min(DOWNLOAD_CHUNK);
            Some(bytes.split_to(take))
        }
    })
}

/// Removes a blob; one already gone is not an error.
pub async fn remove(blobs: &Blobs, key: &str) -> ServiceResult<()> {
    match blobs.delete(&BlobPath::from(key)).await {
        Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(error) => Err(ServiceError::internal(error)),
    }
}
