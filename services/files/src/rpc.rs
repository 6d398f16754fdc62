//! The gRPC face of files: each call checks its caller, parses the request,
//! asks the object store and the metadata store, and maps the answer back.
//!
//! Access per call (the contract's comments): SaveFile and DeleteFile need
//! EquipmentEditing; SaveVideo EquipmentEditing or EducationManagement (both
//! edit rich text that embeds videos); GetFiles and the download of a document
//! need a signed-in caller who sees the document's equipment model, as the wiki
//! decides ([`Models`]): a model hidden from them is NOT_FOUND, as if it had no
//! documents; the download of a video needs its key or a signed-in caller,
//! since the public instruction page embeds it (with its key) for people who
//! are not signed in. A download
//! with a link GetFiles issued ([`LinkKeys`]) is decided by the link alone.

use std::pin::Pin;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};
use portal_kit::db::{now_millis, timestamp_from_millis};
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};
use portal_proto::files::v1 as pb;
use portal_proto::files::v1::files_service_server::FilesService;
use tonic::{Request, Response, Status, Streaming};

use crate::app::links::{Link, LinkKeys};
use crate::domain::content::{ContentType, Kind};
use crate::domain::file_name::{SafeFileName, Title};
use crate::domain::range::{self, Span};
use crate::models::Models;
use crate::store::blobs::{self, Blobs};
use crate::store::{FileRecord, NewFile, Store};

pub const MSG_FILE_NOT_FOUND: &str = "Файл не найден";
pub const MSG_NO_METADATA: &str = "Загрузка должна начинаться с описания файла";
pub const MSG_SECOND_METADATA: &str = "Описание файла передаётся только один раз, в начале";
pub const MSG_CHUNK_TOO_BIG: &str = "Часть файла больше 1 МБ";
pub const MSG_NO_MODEL: &str = "Не указано оборудование, к которому относится документ";
pub const MSG_MODEL_NOT_FOUND: &str =
    "Модель оборудования, к которой относится документ, не найдена";
pub const MSG_UPLOAD_BROKEN: &str = "Загрузка прервана";

/// The largest chunk an upload message may carry.
const MAX_CHUNK: usize = 1024 * 1024;

/// Upload size limits, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub document: u64,
    pub video: u64,
}

pub struct FilesRpc {
    store: Store,
    blobs: Blobs,
    models: Models,
    links: LinkKeys,
    public_url: String,
    limits: Limits,
}

impl FilesRpc {
    pub fn new(
        store: Store,
        blobs: Blobs,
        models: Models,
        links: LinkKeys,
        public_url: &str,
        limits: Limits,
    ) -> FilesRpc {
        FilesRpc {
            store,
            blobs,
            models,
            links,
            public_url: public_url.trim_end_matches('/').to_owned(),
            limits,
        }
    }

    fn url(&self, id: i64) -> String {
        format!("{}/api/file/download/{id}", self.public_url)
    }

    /// A video's URL for rich text: with its key, which opens it without a token.
    fn video_url(&self, id: i64, public_key: &str) -> String {
        format!("{}?key={public_key}", self.url(id))
    }

    /// A file's metadata; its URL carries `link` if given.
    fn file(&self, record: FileRecord, link: Option<&Link>) -> pb::File {
        let url = match link {
            Some(link) => format!("{}?link={}", self.url(record.id), link.token),
            None => self.url(record.id),
        };
        pb::File {
            url,
            url_expires_at: link.map(|link| prost_types::Timestamp {
                seconds: link.expires_at,
                nanos: 0,
            }),
            inline: ContentType::of_stored(&record.content_type).is_some_and(|t| t.inline),
            id: record.id,
            title: record.title,
            id_related: record.id_related,
            file_name: record.file_name,
            content_type: record.content_type,
            size: record.size_bytes,
            sha256: record.sha256,
            uploader_id: record.uploaded_by,
            created_at: Some(timestamp_from_millis(record.created_at)),
        }
    }

    /// Stores the content that follows the metadata, then records it; a blob
    /// whose record could not be written is removed again. The new file's id,
    /// and a video's key (128 random bits; '' for a document).
    pub(crate) async fn save(
        &self,
        kind: Kind,
        uploader: i64,
        id_related: i64,
        offered: (&str, &str),
        chunks: impl Stream<Item = ServiceResult<Bytes>> + Unpin,
    ) -> ServiceResult<(i64, String)> {
        let (file_name, title) = offered;
        let public_key = match kind {
            Kind::Video => hex::encode(rand::random::<[u8; 16]>()),
            Kind::Document => String::new(),
        };
        let limit = match kind {
            Kind::Document => self.limits.document,
            Kind::Video => self.limits.video,
        };
        let received = blobs::receive(&self.blobs, kind, limit, chunks).await?;
        let name = SafeFileName::from_offered(file_name, received.content_type.extensions);
        let title = match Title::parse(title, &name) {
            Ok(title) => title,
            Err(error) => {
                blobs::remove(&self.blobs, &received.key).await?;
                return Err(error);
            }
        };
        let recorded = self
            .store
            .insert(&NewFile {
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
            })
            .await;
        match recorded {
            Ok(id) => {
                tracing::info!(
                    id,
                    kind = kind.as_str(),
                    size = received.size,
                    "file stored"
                );
                Ok((id, public_key))
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

/// The time download links are issued and checked at.
fn unix_seconds() -> i64 {
    now_millis().div_euclid(1000)
}

type RpcResult<T> = Result<Response<T>, Status>;
type DownloadStream = Pin<Box<dyn Stream<Item = Result<pb::DownloadFileResponse, Status>> + Send>>;

/// One message of an upload stream: its metadata or a piece of content.
enum Piece<M> {
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
async fn split_upload<T, M>(
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

#[tonic::async_trait]
impl FilesService for FilesRpc {
    async fn save_file(
        &self,
        request: Request<Streaming<pb::SaveFileRequest>>,
    ) -> RpcResult<pb::SaveFileResponse> {
        let uploader = Caller::of(&request)
            .require(Right::EquipmentEditing)?
            .user_id;
        let credentials = request.metadata().clone();
        let (metadata, chunks): (pb::FileMetadata, _) = split_upload(request.into_inner()).await?;
        if metadata.id_related <= 0 {
            return Err(ServiceError::invalid(MSG_NO_MODEL).into());
        }
        // Before a byte is stored: a document of no model would be no one's.
        self.models
            .require_visible(&credentials, metadata.id_related, MSG_MODEL_NOT_FOUND)
            .await?;
        let (id, _) = self
            .save(
                Kind::Document,
                uploader,
                metadata.id_related,
                (&metadata.file_name, &metadata.title),
                chunks,
            )
            .await?;
        Ok(Response::new(pb::SaveFileResponse {
            id,
            url: self.url(id),
        }))
    }

    async fn get_files(
        &self,
        request: Request<pb::GetFilesRequest>,
    ) -> RpcResult<pb::GetFilesResponse> {
        let user_id = Caller::of(&request).claims()?.user_id;
        let id_related = request.get_ref().id_related;
        self.models
            .require_visible(request.metadata(), id_related, MSG_FILE_NOT_FOUND)
            .await?;
        let files = self.store.documents_of(id_related).await?;
        let expires_at = self.links.expiry(unix_seconds());
        Ok(Response::new(pb::GetFilesResponse {
            files: files
                .into_iter()
                .map(|f| {
                    let link = self.links.issue(f.id, user_id, expires_at);
                    self.file(f, Some(&link))
                })
                .collect(),
        }))
    }

    type DownloadFileStream = DownloadStream;

    async fn download_file(
        &self,
        request: Request<pb::DownloadFileRequest>,
    ) -> RpcResult<DownloadStream> {
        let caller = Caller::of(&request);
        let asked = request.get_ref();
        // Checked before the file is looked up: a link that is not one tells
        // nothing, not even whether the file exists.
        let issued_to = match asked.link.as_str() {
            "" => None,
            link => Some(self.links.check(asked.id, link, unix_seconds())?),
        };
        let record = self
            .store
            .file(asked.id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_FILE_NOT_FOUND))?;
        match issued_to {
            Some(user_id) => tracing::info!(
                id = record.id,
                issued_to = user_id,
                "file read through a download link"
            ),
            None if record.kind() != Some(Kind::Video) => {
                caller.claims()?;
                self.models
                    .require_visible(request.metadata(), record.id_related, MSG_FILE_NOT_FOUND)
                    .await?;
            }
            // A video opens by its key without a token (ids are sequential:
            // anyone could count through them), and for anyone signed in by its
            // id alone. One saved before keys opens by its id, as its rich text
            // links it.
            None if record.public_key.is_empty() || asked.key == record.public_key => {}
            None => {
                caller.claims()?;
            }
        }
        let range = request.into_inner().range;
        let size = u64::try_from(record.size_bytes).map_err(ServiceError::internal)?;
        let span = range::resolve(size, range.as_ref())?;
        let key = record.blob_key.clone();
        let download_name =
            SafeFileName::for_download(&record.title, &record.file_name).into_string();
        let file = self.file(record, None);
        let start = |span: Option<Span>| pb::DownloadFileResponse {
            payload: Some(pb::download_file_response::Payload::Start(
                pb::DownloadStart {
                    file: Some(file.clone()),
                    offset: span.map_or(0, |s| s.offset as i64),
                    length: span.map_or(0, |s| s.length as i64),
                    range_not_satisfiable: span.is_none(),
                    download_name: download_name.clone(),
                },
            )),
        };
        let first = futures_util::stream::once(std::future::ready(Ok(start(span))));
        let stream: DownloadStream = match span {
            Some(span) if span.length > 0 => {
                let chunks = blobs::read(&self.blobs, &key, size, span).await?;
                Box::pin(first.chain(chunks.map(|chunk| {
                    chunk
                        .map_err(Status::from)
                        .map(|bytes| pb::DownloadFileResponse {
                            payload: Some(pb::download_file_response::Payload::Chunk(
                                bytes.to_vec(),
                            )),
                        })
                })))
            }
            _ => Box::pin(first),
        };
        Ok(Response::new(stream))
    }

    async fn delete_file(
        &self,
        request: Request<pb::DeleteFileRequest>,
    ) -> RpcResult<pb::DeleteFileResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let key = self
            .store
            .delete(request.get_ref().id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_FILE_NOT_FOUND))?;
        blobs::remove(&self.blobs, &key).await?;
        Ok(Response::new(pb::DeleteFileResponse {}))
    }

    async fn save_video(
        &self,
        request: Request<Streaming<pb::SaveVideoRequest>>,
    ) -> RpcResult<pb::SaveVideoResponse> {
        let caller = Caller::of(&request);
        let claims = caller.claims()?;
        if !(caller.has(Right::EquipmentEditing) || caller.has(Right::EducationManagement)) {
            return Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()).into());
        }
        let uploader = claims.user_id;
        let (metadata, chunks): (pb::VideoMetadata, _) = split_upload(request.into_inner()).await?;
        let (id, public_key) = self
            .save(Kind::Video, uploader, 0, (&metadata.file_name, ""), chunks)
            .await?;
        Ok(Response::new(pb::SaveVideoResponse {
            id,
            saved_video_url: self.video_url(id, &public_key),
        }))
    }
}
