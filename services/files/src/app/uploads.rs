//! Uploads: an upload stream is its metadata, then the content in chunks of
//! at most 1 MiB. The content is written to a new blob while it streams in,
//! its type checked from its first bytes, refused the moment it passes its
//! kind's limit; a PDF's text is read from the stored blob; then it is
//! recorded and indexed. Nothing of a refused upload is kept.

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::files::v1 as pb;
use sha2::{Digest, Sha256};
use tonic::{Status, Streaming};

use crate::app::pdf_text;
use crate::domain::content::{ContentType, Kind, SNIFF_BYTES};
use crate::domain::file_name::{SafeFileName, Title};
use crate::store::Store;
use crate::store::blobs::{self, Blobs, NewBlob};
use crate::store::file::NewFile;

pub const MSG_NO_METADATA: &str = "Загрузка должна начинаться с описания файла";
pub const MSG_SECOND_METADATA: &str = "Описание файла передаётся только один раз, в начале";
pub const MSG_CHUNK_TOO_BIG: &str = "Часть файла больше 1 МБ";
pub const MSG_UPLOAD_BROKEN: &str = "Загрузка прервана";

/// The largest chunk an upload message may carry.
pub const MAX_CHUNK: usize = 1024 * 1024;

/// Upload size limits, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub document: u64,
    pub video: u64,
}

/// Stores uploaded files: their bytes as blobs, their metadata as records.
#[derive(Clone)]
pub struct Uploads {
    store: Store,
    blobs: Blobs,
    limits: Limits,
}

impl Uploads {
    pub fn new(store: Store, blobs: Blobs, limits: Limits) -> Uploads {
        Uploads {
            store,
            blobs,
            limits,
        }
    }

    /// Stores the content that follows the metadata, then records it; a blob
    /// whose record could not be written is removed again. The new file's id,
    /// and a video's key (128 random bits; '' for a document). Every upload is
    /// counted by kind and outcome, and a stored one's bytes; a stored one
    /// recorded in `audit`.
    pub async fn save(
        &self,
        kind: Kind,
        uploader: i64,
        id_related: i64,
        offered: (&str, &str),
        chunks: impl Stream<Item = ServiceResult<Bytes>> + Unpin,
        audit: &AuditContext,
    ) -> ServiceResult<(i64, String)> {
        let saved = self
            .store_and_record(kind, uploader, id_related, offered, chunks, audit)
            .await;
        let outcome = match &saved {
            Ok(_) => "stored",
            Err(ServiceError::Internal(_) | ServiceError::Unavailable(_)) => "failed",
            Err(_) => "refused",
        };
        metrics::counter!("portal_uploads_total", "kind" => kind.as_str(), "outcome" => outcome)
            .increment(1);
        saved.map(|(id, public_key, size)| {
            metrics::counter!("portal_upload_bytes_total", "kind" => kind.as_str()).increment(size);
            (id, public_key)
        })
    }

    /// [`Uploads::save`]'s work; also the stored size.
    async fn store_and_record(
        &self,
        kind: Kind,
        uploader: i64,
        id_related: i64,
        offered: (&str, &str),
        chunks: impl Stream<Item = ServiceResult<Bytes>> + Unpin,
        audit: &AuditContext,
    ) -> ServiceResult<(i64, String, u64)> {
        let (file_name, title) = offered;
        let public_key = match kind {
            Kind::Video => hex::encode(rand::random::<[u8; 16]>()),
            Kind::Document => String::new(),
        };
        let limit = match kind {
            Kind::Document => self.limits.document,
            Kind::Video => self.limits.video,
        };
        let received = receive(&self.blobs, kind, limit, chunks).await?;
        let name = SafeFileName::from_offered(file_name, received.content_type.extensions);
        let title = match Title::parse(title, &name) {
            Ok(title) => title,
            Err(error) => {
                blobs::remove(&self.blobs, &received.key).await?;
                return Err(error);
            }
        };
        let extracted_text = if received.content_type.mime == pdf_text::PDF {
            pdf_text::read(&self.blobs, &received.key, received.size).await
        } else {
            String::new()
        };
        let recorded = self
            .store
            .insert(
                &NewFile {
                    kind,
                    id_related,
                    title: title.as_str(),
                    file_name: name.as_str(),
                    content_type: received.content_type.mime,
                    size: i64::try_from(received.size).map_err(ServiceError::internal)?,
                    sha256: &received.sha256,
                    blob_key: &received.key,
                    uploaded_by: uploader,
                    created_at: now_millis(),
                    public_key: &public_key,
                    extracted_text: &extracted_text,
                },
                audit,
            )
            .await;
        match recorded {
            Ok(id) => {
                tracing::info!(
                    id,
                    kind = kind.as_str(),
                    size = received.size,
                    "file stored"
                );
                Ok((id, public_key, received.size))
            }
            Err(error) => {
                if let Err(cleanup) = blobs::remove(&self.blobs, &received.key).await {
                    tracing::warn!(key = %received.key, error = %cleanup, "unrecorded blob left behind");
                }
                Err(error)
            }
        }
    }
}

/// One message of an upload stream: its metadata or a piece of content.
pub(crate) enum Piece<M> {
    Metadata(M),
    Chunk(Vec<u8>),
}

impl From<pb::SaveFileRequest> for Piece<pb::FileMetadata> {
    fn from(message: pb::SaveFileRequest) -> Self {
        match message.payload {
            Some(pb::save_file_request::Payload::Metadata(metadata)) => Piece::Metadata(metadata),
            Some(pb::save_file_request::Payload::Chunk(chunk)) => Piece::Chunk(chunk),
            None => Piece::Chunk(Vec::new()),
        }
    }
}

impl From<pb::SaveVideoRequest> for Piece<pb::VideoMetadata> {
    fn from(message: pb::SaveVideoRequest) -> Self {
        match message.payload {
            Some(pb::save_video_request::Payload::Metadata(metadata)) => Piece::Metadata(metadata),
            Some(pb::save_video_request::Payload::Chunk(chunk)) => Piece::Chunk(chunk),
            None => Piece::Chunk(Vec::new()),
        }
    }
}

/// Splits an upload stream into its metadata and the content after it.
pub(crate) async fn split_upload<T, M>(
    mut stream: Streaming<T>,
) -> ServiceResult<(M, impl Stream<Item = ServiceResult<Bytes>> + Unpin)>
where
    T: Into<Piece<M>> + Send + 'static,
{
    let metadata = match stream.message().await.map_err(broken)?.map(Into::into) {
        Some(Piece::Metadata(metadata)) => metadata,
        _ => return Err(ServiceError::invalid(MSG_NO_METADATA)),
    };
    let chunks = stream.map_err(broken).and_then(|message| {
        std::future::ready(match message.into() {
            Piece::Metadata(_) => Err(ServiceError::invalid(MSG_SECOND_METADATA)),
            Piece::Chunk(chunk) if chunk.len() > MAX_CHUNK => {
                Err(ServiceError::invalid(MSG_CHUNK_TOO_BIG))
            }
            Piece::Chunk(chunk) => Ok(Bytes::from(chunk)),
        })
    });
    Ok((metadata, chunks))
}

/// The client's stream failed (it went away, or sent something undecodable).
fn broken(status: Status) -> ServiceError {
    tracing::debug!(%status, "upload stream broken");
    ServiceError::invalid(MSG_UPLOAD_BROKEN)
}

/// A stored upload.
#[derive(Debug)]
struct Received {
    pub key: String,
    pub content_type: ContentType,
    pub size: u64,
    pub sha256: String,
}

/// Too large: the message names the limit.
fn too_large(limit: u64) -> ServiceError {
    ServiceError::TooLarge(format!(
        "Файл слишком большой: можно не больше {} МБ",
        limit / (1024 * 1024)
    ))
}

/// Reads the content from `chunks`, checks its type from the first bytes and
/// writes it under a new key, refusing it the moment it passes `limit` bytes.
async fn receive<S>(blobs: &Blobs, kind: Kind, limit: u64, mut chunks: S) -> ServiceResult<Received>
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

    let mut blob = NewBlob::start(blobs, kind).await?;
    let mut hashing = Hashing::start();
    let outcome = async {
        let head = Bytes::from(head);
        hashing.update(head.clone()).await?;
        blob.write(head).await?;
        if let Some(rest) = rest {
            hashing.update(rest.clone()).await?;
            blob.write(rest).await?;
        }
        while let Some(chunk) = chunks.next().await.transpose()? {
            size += chunk.len() as u64;
            if size > limit {
                return Err(too_large(limit));
            }
            hashing.update(chunk.clone()).await?;
            blob.write(chunk).await?;
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        blob.abort().await;
        return Err(error);
    }
    let sha256 = match hashing.finish().await {
        Ok(sha256) => sha256,
        Err(error) => {
            blob.abort().await;
            return Err(error);
        }
    };
    let key = blob.finish().await?;
    Ok(Received {
        key,
        content_type,
        size,
        sha256,
    })
}

/// An upload's SHA-256, each chunk hashed on a blocking thread from the same
/// shared bytes the store writes: a chunk is hashed while it is written and
/// the next one arrives, where one task doing all three took their sum. The
/// thread is held only while a chunk is hashed, not while a slow phone sends
/// the next one, and chunks are hashed in order: each waits for the last.
struct Hashing {
    hasher: Option<Sha256>,
    hashing: Option<tokio::task::JoinHandle<Sha256>>,
}

impl Hashing {
    fn start() -> Hashing {
        Hashing {
            hasher: Some(Sha256::new()),
            hashing: None,
        }
    }

    async fn update(&mut self, chunk: Bytes) -> ServiceResult<()> {
        let mut hasher = self.hashed().await?;
        self.hashing = Some(tokio::task::spawn_blocking(move || {
            hasher.update(&chunk);
            hasher
        }));
        Ok(())
    }

    /// The hex digest of everything given.
    async fn finish(mut self) -> ServiceResult<String> {
        Ok(hex::encode(self.hashed().await?.finalize()))
    }

    /// The hasher once every chunk given so far is in it.
    async fn hashed(&mut self) -> ServiceResult<Sha256> {
        match (self.hashing.take(), self.hasher.take()) {
            (Some(hashing), _) => hashing.await.map_err(ServiceError::internal),
            (None, Some(hasher)) => Ok(hasher),
            (None, None) => Err(ServiceError::internal("the upload's hasher is gone")),
        }
    }
}
