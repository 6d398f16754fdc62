//! The gRPC face of files: each call checks its caller, parses the request,
//! hands an upload to [`Uploads`] or asks the object store and the metadata
//! store, and maps the answer back.
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
//! Search: the shared SearchService (`portal.search.v1`) in [`search`].

mod search;

pub use search::SearchRpc;

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use portal_kit::audit::{AuditActor, AuditContext};
use portal_kit::db::now_millis;
use portal_kit::deadline::Deadline;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::net::TrustedProxies;
use portal_kit::revocation::AccessVersions;
use portal_kit::{Caller, Right, ServiceError};
use portal_proto::files::v1 as pb;
use portal_proto::files::v1::files_service_server::FilesService;
use tonic::{Request, Response, Status, Streaming};

use crate::app::links::{Issued, LinkKeys, MSG_LINK_SIGNED_OUT};
use crate::app::models::Models;
use crate::app::uploads::{Uploads, split_upload};
use crate::convert;
use crate::domain::content::Kind;
use crate::domain::file::MSG_FILE_NOT_FOUND;
use crate::domain::file_name::SafeFileName;
use crate::domain::range::{self, Span};
use crate::store::Store;
use crate::store::blobs::{self, Blobs};
use crate::store::file::FileRecord;

pub const MSG_NO_MODEL: &str = "Не указано оборудование, к которому относится документ";
pub const MSG_MODEL_NOT_FOUND: &str =
    "Модель оборудования, к которой относится документ, не найдена";

pub struct FilesRpc {
    store: Store,
    blobs: Blobs,
    uploads: Uploads,
    models: Models,
    links: LinkKeys,
    /// Each person's access version: a link issued to a token of an older
    /// one (signed out since, blocked, rights changed) no longer opens.
    versions: AccessVersions,
    public_url: String,
    /// Whose forwarded client address the audit log believes.
    proxies: TrustedProxies,
    /// Answers the deprecated Search.
    search: SearchRpc,
}

impl FilesRpc {
    pub fn new(
        store: Store,
        blobs: Blobs,
        uploads: Uploads,
        models: Models,
        (links, versions): (LinkKeys, AccessVersions),
        (public_url, proxies): (&str, TrustedProxies),
    ) -> FilesRpc {
        FilesRpc {
            search: SearchRpc::new(store.clone(), models.clone()),
            store,
            blobs,
            uploads,
            models,
            links,
            versions,
            public_url: public_url.trim_end_matches('/').to_owned(),
            proxies,
        }
    }

    /// Who makes a write, from where: what its audit record names.
    fn audit<T>(&self, request: &Request<T>) -> AuditContext {
        AuditContext::of(request, &self.proxies)
    }

    fn url(&self, id: i64) -> String {
        format!("{}/api/file/download/{id}", self.public_url)
    }

    /// A video's URL for rich text: with its key, which opens it without a token.
    fn video_url(&self, id: i64, public_key: &str) -> String {
        format!("{}?key={public_key}", self.url(id))
    }
}

/// The steps of a download.
impl FilesRpc {
    /// The download link `asked` carries, if any, checked before the file is
    /// looked up: a link that is not one tells nothing, not even whether the
    /// file exists.
    fn checked_link(&self, asked: &pb::DownloadFileRequest) -> Result<Option<Issued>, Status> {
        let link = match asked.link.as_str() {
            "" => return Ok(None),
            link => link,
        };
        let issued = self.links.check(asked.id, link, unix_seconds())?;
        if !self
            .versions
            .is_person_at_least(issued.issued_to, issued.version)
        {
            return Err(ServiceError::Unauthenticated(MSG_LINK_SIGNED_OUT.into()).into());
        }
        Ok(Some(issued))
    }

    /// Whether `caller` may download `record`: by a link `issued`, else as
    /// a document's or a video's reader.
    async fn may_download(
        &self,
        request: &Request<pb::DownloadFileRequest>,
        caller: &Caller,
        deadline: Deadline,
        record: &FileRecord,
        issued: Option<Issued>,
    ) -> Result<(), Status> {
        match issued {
            Some(issued) => tracing::info!(
                id = record.id,
                issued_to = issued.issued_to,
                "file read through a download link"
            ),
            None if record.kind() != Some(Kind::Video) => {
                caller.claims()?;
                self.models
                    .require_visible(
                        request.metadata(),
                        deadline,
                        record.id_related,
                        MSG_FILE_NOT_FOUND,
                    )
                    .await?;
            }
            // A video opens by its key without a token (ids are sequential:
            // anyone could count through them), and for anyone signed in by its
            // id alone. One saved before keys opens by its id, as its rich text
            // links it.
            None if record.public_key.is_empty() || request.get_ref().key == record.public_key => {}
            None => {
                caller.claims()?;
            }
        }
        Ok(())
    }

    /// The download's answer: its start (the file, the span sent, its name),
    /// then the span's bytes in chunks, if any.
    async fn download_stream(
        &self,
        record: FileRecord,
        size: u64,
        span: Option<Span>,
    ) -> Result<DownloadStream, Status> {
        let key = record.blob_key.clone();
        let download_name =
            SafeFileName::for_download(&record.title, &record.file_name).into_string();
        let url = self.url(record.id);
        let file = convert::file(record, url, None);
        let start = pb::DownloadFileResponse {
            payload: Some(pb::download_file_response::Payload::Start(
                pb::DownloadStart {
                    file: Some(file),
                    offset: span.map_or(0, |s| s.offset as i64),
                    length: span.map_or(0, |s| s.length as i64),
                    range_not_satisfiable: span.is_none(),
                    download_name,
                },
            )),
        };
        let first = futures_util::stream::once(std::future::ready(Ok(start)));
        Ok(match span {
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
        })
    }
}

/// The time download links are issued and checked at.
fn unix_seconds() -> i64 {
    now_millis().div_euclid(1000)
}

type RpcResult<T> = Result<Response<T>, Status>;
type DownloadStream = Pin<Box<dyn Stream<Item = Result<pb::DownloadFileResponse, Status>> + Send>>;

#[tonic::async_trait]
impl FilesService for FilesRpc {
    async fn save_file(
        &self,
        request: Request<Streaming<pb::SaveFileRequest>>,
    ) -> RpcResult<pb::SaveFileResponse> {
        let deadline = Deadline::of_call(request.metadata());
        let uploader = Caller::of(&request)
            .require(Right::EquipmentEditing)?
            .user_id;
        let credentials = request.metadata().clone();
        let audit = self.audit(&request);
        let (metadata, chunks): (pb::FileMetadata, _) = split_upload(request.into_inner()).await?;
        if metadata.id_related <= 0 {
            return Err(ServiceError::invalid(MSG_NO_MODEL).into());
        }
        // Before a byte is stored: a document of no model would be no one's.
        self.models
            .require_visible(
                &credentials,
                deadline,
                metadata.id_related,
                MSG_MODEL_NOT_FOUND,
            )
            .await?;
        let (id, _) = self
            .uploads
            .save(
                Kind::Document,
                uploader,
                metadata.id_related,
                (&metadata.file_name, &metadata.title),
                chunks,
                &audit,
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
        let deadline = Deadline::of_call(request.metadata());
        let claims = Caller::of(&request).claims()?.clone();
        let id_related = request.get_ref().id_related;
        self.models
            .require_visible(request.metadata(), deadline, id_related, MSG_FILE_NOT_FOUND)
            .await?;
        let files = self.store.documents_of(id_related).await?;
        let expires_at = self.links.expiry(unix_seconds());
        Ok(Response::new(pb::GetFilesResponse {
            files: files
                .into_iter()
                .map(|f| {
                    let link = self.links.issue(
                        f.id,
                        Issued {
                            issued_to: claims.user_id,
                            version: claims.ver,
                            expires_at,
                        },
                    );
                    let url = self.url(f.id);
                    convert::file(f, url, Some(&link))
                })
                .collect(),
        }))
    }

    type DownloadFileStream = DownloadStream;

    async fn download_file(
        &self,
        request: Request<pb::DownloadFileRequest>,
    ) -> RpcResult<DownloadStream> {
        let deadline = Deadline::of_call(request.metadata());
        let caller = Caller::of(&request);
        // Files are people's: a link or key opens a download for anyone who
        // holds it, but not for another hospital system's token.
        caller.refuse_service_account()?;
        let issued = self.checked_link(request.get_ref())?;
        let record = self.store.file(request.get_ref().id).await?;
        self.may_download(&request, &caller, deadline, &record, issued)
            .await?;
        let audit = self.audit(&request);
        let asked = request.into_inner();
        let range = range::if_current(asked.range, &asked.if_range, &record.sha256);
        let size = u64::try_from(record.size_bytes).map_err(ServiceError::internal)?;
        let span = range::resolve(size, range.as_ref())?;
        if let Some(issued) = issued {
            // Who holds a link is not known without a token: the person it
            // was issued to stands for them, the link itself in the record.
            let audit = match audit.actor {
                AuditActor::Person(_) => audit,
                _ => audit.acting_as(AuditActor::Person(issued.issued_to)),
            };
            self.store
                .record_download(&audit, &record, issued, span)
                .await?;
        }
        let stream = self.download_stream(record, size, span).await?;
        Ok(Response::new(stream))
    }

    async fn delete_file(
        &self,
        request: Request<pb::DeleteFileRequest>,
    ) -> RpcResult<pb::DeleteFileResponse> {
        Caller::of(&request).require(Right::EquipmentEditing)?;
        let key = self
            .store
            .delete(request.get_ref().id, &self.audit(&request))
            .await?;
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
        let audit = self.audit(&request);
        let (metadata, chunks): (pb::VideoMetadata, _) = split_upload(request.into_inner()).await?;
        let (id, public_key) = self
            .uploads
            .save(
                Kind::Video,
                uploader,
                0,
                (&metadata.file_name, ""),
                chunks,
                &audit,
            )
            .await?;
        Ok(Response::new(pb::SaveVideoResponse {
            id,
            saved_video_url: self.video_url(id, &public_key),
        }))
    }

    /// Deprecated: SearchService's Search answers it.
    async fn search(&self, request: Request<pb::SearchRequest>) -> RpcResult<pb::SearchResponse> {
        portal_kit::search::answer_deprecated(&self.search, request).await
    }
}
