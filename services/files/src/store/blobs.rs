//! The bytes of files, in an object store (`object_store`): a local directory by
//! default, an S3-compatible bucket by configuration. Keys are made here, never
//! from a client's name. A new blob is written part by part while its upload
//! streams in ([`NewBlob`]), and aborted (nothing kept) when the upload fails.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::chunked::ChunkedStore;
use object_store::local::LocalFileSystem;
use object_store::path::Path as BlobPath;
use object_store::prefix::PrefixStore;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, WriteMultipart};
use portal_kit::{ServiceError, ServiceResult, secret_file};
use secrecy::ExposeSecret;

use crate::domain::content::Kind;
use crate::domain::range::Span;

/// Bytes written to the store per part (S3's smallest part is 5 MiB), and parts
/// in flight at once: an upload holds at most about three parts in memory.
pub(crate) const PART_BYTES: usize = 5 * 1024 * 1024;
pub(crate) const PARTS_IN_FLIGHT: usize = 2;
/// The largest chunk a download message carries (the contract's 64 KiB).
pub const DOWNLOAD_CHUNK: usize = 64 * 1024;
/// A local file is read this much at a time, then sent in [`DOWNLOAD_CHUNK`]s.
pub const READ_BYTES: usize = 1024 * 1024;

pub type Blobs = Arc<dyn ObjectStore>;

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("PORTAL_FILES_STORE: cannot use the directory {0}: {1}")]
    Directory(String, #[source] std::io::Error),
    #[error("PORTAL_FILES_STORE: {0}")]
    Store(#[from] object_store::Error),
    #[error("PORTAL_FILES_STORE: expected s3://bucket or s3://bucket/prefix, got {0}")]
    BadUrl(String),
    #[error("the S3 credentials: {0}")]
    Credential(String),
}

/// The store `PORTAL_FILES_STORE` names: `s3://bucket[/prefix]` (credentials,
/// region and endpoint from the standard `AWS_*` variables, the secret ones also
/// as files: [`CREDENTIAL_VARIABLES`]), else a directory.
pub fn open(location: &str) -> Result<Blobs, OpenError> {
    if location.starts_with("s3://") {
        let builder = with_credential_files(AmazonS3Builder::from_env(), |variable| {
            std::env::var_os(variable)
        })?;
        s3(location, builder)
    } else {
        directory(Path::new(location))
    }
}

/// The S3 client's secret settings, each of which may also be given as
/// `<variable>_FILE` (`kit::secret_file`); object_store reads only the variables.
pub const CREDENTIAL_VARIABLES: [&str; 4] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SSE_CUSTOMER_KEY_BASE64",
];

/// `builder` with the S3 credentials given as files in the environment `lookup`
/// reads; one given both ways is refused, naming both variables.
fn with_credential_files(
    mut builder: AmazonS3Builder,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Result<AmazonS3Builder, OpenError> {
    for variable in CREDENTIAL_VARIABLES {
        if let Some(value) =
            secret_file::resolve(variable, &lookup).map_err(OpenError::Credential)?
        {
            // The key of the variable, as `AmazonS3Builder::from_env` finds it.
            let key: AmazonS3ConfigKey = variable.to_ascii_lowercase().parse()?;
            builder = builder.with_config(key, value.expose_secret());
        }
    }
    Ok(builder)
}

/// A local directory, made if missing. Its files are read [`READ_BYTES`] at a
/// time: object_store's own 8 KiB reads cost a blocking-pool round trip each,
/// which held downloads to a few hundred MiB/s.
pub fn directory(path: &Path) -> Result<Blobs, OpenError> {
    let shown = path.display().to_string();
    std::fs::create_dir_all(path).map_err(|e| OpenError::Directory(shown.clone(), e))?;
    let store = LocalFileSystem::new_with_prefix(path)?;
    Ok(Arc::new(ChunkedStore::new(Arc::new(store), READ_BYTES)))
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

/// A blob being written under a new key; nothing is kept unless it is
/// finished.
pub struct NewBlob {
    key: String,
    writer: WriteMultipart,
}

impl NewBlob {
    /// Starts a blob of `kind` under a new key.
    pub async fn start(blobs: &Blobs, kind: Kind) -> ServiceResult<NewBlob> {
        let key = new_key(kind);
        let upload = blobs
            .put_multipart(&BlobPath::from(key.as_str()))
            .await
            .map_err(ServiceError::internal)?;
        Ok(NewBlob {
            key,
            writer: WriteMultipart::new_with_chunk_size(upload, PART_BYTES),
        })
    }

    /// Appends `bytes`, once fewer than `PARTS_IN_FLIGHT` parts are being
    /// written. The part holds the chunk itself, not a copy of it.
    pub async fn write(&mut self, bytes: Bytes) -> ServiceResult<()> {
        self.writer
            .wait_for_capacity(PARTS_IN_FLIGHT)
            .await
            .map_err(ServiceError::internal)?;
        self.writer.put(bytes);
        Ok(())
    }

    /// Drops what was written; a failure to is only logged, as the upload is
    /// refused anyway.
    pub async fn abort(self) {
        let NewBlob { key, writer } = self;
        if let Err(abort) = writer.abort().await {
            tracing::warn!(%key, error = %abort, "aborting a refused upload failed");
        }
    }

    /// Keeps the blob; its key.
    pub async fn finish(self) -> ServiceResult<String> {
        self.writer.finish().await.map_err(ServiceError::internal)?;
        Ok(self.key)
    }
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

/// The whole blob `key` in memory (a PDF whose text is read).
pub async fn read_all(blobs: &Blobs, key: &str) -> ServiceResult<Bytes> {
    let found = blobs
        .get(&BlobPath::from(key))
        .await
        .map_err(ServiceError::internal)?;
    found.bytes().await.map_err(ServiceError::internal)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_credentials_may_come_from_files_and_not_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let key_id = dir.path().join("access-key-id");
        let secret = dir.path().join("secret-access-key");
        std::fs::write(&key_id, "portal-files\n").unwrap();
        std::fs::write(&secret, "s3-secret-from-file\n").unwrap();
        let environment = |variable: &str| match variable {
            "AWS_ACCESS_KEY_ID_FILE" => Some(key_id.clone().into_os_string()),
            "AWS_SECRET_ACCESS_KEY_FILE" => Some(secret.clone().into_os_string()),
            _ => None,
        };
        let builder = with_credential_files(AmazonS3Builder::new(), environment).unwrap();
        assert_eq!(
            builder
                .get_config_value(&AmazonS3ConfigKey::AccessKeyId)
                .as_deref(),
            Some("portal-files")
        );
        assert_eq!(
            builder
                .get_config_value(&AmazonS3ConfigKey::SecretAccessKey)
                .as_deref(),
            Some("s3-secret-from-file")
        );
        assert_eq!(builder.get_config_value(&AmazonS3ConfigKey::Token), None);

        let both_ways = |variable: &str| match variable {
            "AWS_SECRET_ACCESS_KEY" => Some("s3-secret-in-env".into()),
            "AWS_SECRET_ACCESS_KEY_FILE" => Some(secret.clone().into_os_string()),
            _ => None,
        };
        let err = with_credential_files(AmazonS3Builder::new(), both_ways)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("AWS_SECRET_ACCESS_KEY and AWS_SECRET_ACCESS_KEY_FILE"),
            "{err}"
        );
    }
}
