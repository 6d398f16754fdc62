//! The file-saver host's calls (spec §7): documents of an equipment model under
//! `/api/file`, videos for rich text under `/api/video`, and the stable download
//! URL every file has.
//!
//! Uploads are multipart forms streamed part by part into the files service's
//! client-streaming RPCs: the gateway never holds a file, only one message of
//! at most [`MESSAGE_BYTES`] at a time, and the service refuses a file the
//! moment it passes its limit. Form fields must come before the file part (as
//! browsers send a `FormData` in the order it was filled), since the service
//! reads the metadata first; `idRelated` may also be a query parameter.
//!
//! Downloads stream the other way, with `Range` support (one range, as video
//! players ask), `Content-Disposition` with an RFC 6266 `filename*`, and
//! `attachment` for every type the service does not call safe to show inline.

use crate::rest::route::{get, post};
use crate::upstream::Balanced;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use portal_files::domain::range::{etag, if_current};
use portal_proto::files::v1 as pb;
use portal_proto::files::v1::files_service_client::FilesServiceClient;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use utoipa::{IntoParams, ToSchema};

use super::disposition::{Disposition, content_disposition};
use super::docs::{self, FormField};
use super::forward::{forward, method};
use super::{ApiError, ApiResult, AppState, Body as JsonBody, CallContext, Data, Endpoint, Query};

pub const MSG_NO_FILE: &str = "Не выбран файл";
pub const MSG_NOT_A_FORM: &str = "Ожидается форма multipart/form-data с файлом";
pub const MSG_BAD_FIELD: &str = "Некорректное поле формы";
pub const MSG_UPLOAD_BROKEN: &str = "Загрузка прервана: файл получен не полностью";
pub const MSG_RANGE_NOT_SATISFIABLE: &str = "Запрошенный диапазон байтов лежит за концом файла";
const MSG_BAD_STREAM: &str = "Файловый сервис ответил не по протоколу";

/// Upload messages are cut to this size whatever the client sent: the
/// contract's largest chunk (1 MiB, under gRPC's 4 MiB message), as each
/// message costs its own encoding, frame and wake-up on both sides; the files
/// service's HTTP/2 window holds several (`kit::serve`).
pub const MESSAGE_BYTES: usize = portal_files::MAX_CHUNK;
/// A text field of the form (an id, a title) is never longer.
const MAX_FIELD_BYTES: usize = 4 * 1024;

/// Downloads may be framed by the portal's own pages (an instruction embeds its
/// videos) and run nothing of their own.
const DOWNLOAD_CSP: &str = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/file/get-files",
            "Документы модели оборудования (id, title, url…)",
            docs::query::<IdRelated>,
            get(forward(
                |Query(query): Query<IdRelated>| pb::GetFilesRequest {
                    id_related: query.id_related,
                },
                method!(client, get_files),
                |reply| reply.files,
            )),
        ),
        Endpoint::post(
            "/api/file/save",
            "Загрузить документ: multipart/form-data с полями idRelated и title (необязательно), затем file",
            docs::Input::Form(const {
                &[
                    FormField::integer("idRelated"),
                    FormField::text("title"),
                    FormField::file("file"),
                ]
            }),
            post(save_file).layer(DefaultBodyLimit::disable()),
        )
        .params(docs::query::<MaybeIdRelated>),
        Endpoint::post(
            "/api/file/delete",
            "Удалить документ или видео: {id}",
            docs::json::<FileId>(),
            post(forward(
                |JsonBody(body): JsonBody<FileId>| pb::DeleteFileRequest { id: body.id },
                method!(client, delete_file),
                |_| (),
            )),
        ),
        Endpoint::download(
            "/api/file/download/{id}",
            "Скачать файл (поддерживает Range; видео без входа — с ключом key из video/save, документ — со ссылкой link из get-files)",
            || [docs::path::<FileId>(), docs::query::<DownloadLink>()].concat(),
            "*/*",
            axum::routing::get(download),
        )
        .also(&[
            StatusCode::PARTIAL_CONTENT,
            StatusCode::RANGE_NOT_SATISFIABLE,
            StatusCode::BAD_GATEWAY,
        ])
        .public(),
        Endpoint::post(
            "/api/video/save",
            "Загрузить видео для текста: multipart/form-data с полем video; ответ data.savedVideoUrl",
            docs::Input::Form(const { &[FormField::file("video")] }),
            post(save_video).layer(DefaultBodyLimit::disable()),
        ),
    ]
}

pub(super) fn client(state: &AppState) -> FilesServiceClient<Balanced> {
    FilesServiceClient::new(state.upstreams.files.channel.clone())
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct IdRelated {
    id_related: i64,
}

#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
struct MaybeIdRelated {
    id_related: Option<i64>,
}

#[derive(Deserialize, ToSchema, IntoParams)]
struct FileId {
    id: i64,
}

/// A download's query: the download link get-files put on a document's URL,
/// or the key video/save put on a video's, if any.
#[derive(Deserialize, Default, IntoParams)]
#[serde(default)]
struct DownloadLink {
    link: String,
    key: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SavedVideo {
    saved_video_url: String,
}

async fn save_file(
    State(state): State<AppState>,
    caller: CallContext,
    Query(query): Query<MaybeIdRelated>,
    request: Request,
) -> ApiResult<pb::SaveFileResponse> {
    let form = Form::open(request, "file").await?;
    let id_related = match (query.id_related, form.fields.get("idRelated")) {
        (_, Some(text)) => text
            .trim()
            .parse()
            .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_FIELD))?,
        (Some(id), None) => id,
        (None, None) => 0,
    };
    let metadata = pb::FileMetadata {
        id_related,
        title: form.fields.get("title").cloned().unwrap_or_default(),
        file_name: form.file_name.clone(),
        content_type: form.content_type.clone(),
    };
    use pb::save_file_request::Payload;
    let (messages, failed) = form.into_messages(Payload::Metadata(metadata), Payload::Chunk);
    let messages = messages.map(|payload| pb::SaveFileRequest {
        payload: Some(payload),
    });
    // An upload is answered after its last byte, however long it takes.
    let mut files = client(&state);
    let reply = until_failed(
        files.save_file(caller.request_without_deadline(messages)),
        failed,
    )
    .await?;
    Ok(Data(reply))
}

async fn save_video(
    State(state): State<AppState>,
    caller: CallContext,
    request: Request,
) -> ApiResult<SavedVideo> {
    let form = Form::open(request, "video").await?;
    let metadata = pb::VideoMetadata {
        file_name: form.file_name.clone(),
        content_type: form.content_type.clone(),
    };
    use pb::save_video_request::Payload;
    let (messages, failed) = form.into_messages(Payload::Metadata(metadata), Payload::Chunk);
    let messages = messages.map(|payload| pb::SaveVideoRequest {
        payload: Some(payload),
    });
    let mut files = client(&state);
    let reply = until_failed(
        files.save_video(caller.request_without_deadline(messages)),
        failed,
    )
    .await?;
    Ok(Data(SavedVideo {
        saved_video_url: reply.saved_video_url,
    }))
}

/// The upload's answer, unless the form broke off first: then the call is
/// dropped (cancelling it, so the service keeps nothing) and the person reads why.
async fn until_failed<T>(
    call: impl Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    failed: oneshot::Receiver<&'static str>,
) -> Result<T, ApiError> {
    tokio::select! {
        reply = call => Ok(reply?.into_inner()),
        Ok(message) = failed => Err(ApiError::new(StatusCode::BAD_REQUEST, message)),
    }
}

/// A multipart form read up to its file part: the text fields before it, and
/// the file part itself, still unread.
struct Form {
    fields: std::collections::HashMap<String, String>,
    file_name: String,
    content_type: String,
    file: multer::Field<'static>,
}

impl Form {
    async fn open(request: Request, file_field: &str) -> Result<Form, ApiError> {
        let bad = |message: &'static str| ApiError::new(StatusCode::BAD_REQUEST, message);
        let boundary = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| multer::parse_boundary(value).ok())
            .ok_or_else(|| bad(MSG_NOT_A_FORM))?;
        let mut multipart =
            multer::Multipart::new(request.into_body().into_data_stream(), boundary);
        let mut fields = std::collections::HashMap::new();
        loop {
            let field = match multipart.next_field().await {
                Ok(Some(field)) => field,
                Ok(None) => return Err(bad(MSG_NO_FILE)),
                Err(error) => {
                    tracing::debug!(%error, "unreadable multipart form");
                    return Err(bad(MSG_NOT_A_FORM));
                }
            };
            let name = field.name().unwrap_or_default().to_owned();
            if name == file_field {
                // A browser sends a part with an empty file name when no file
                // was chosen.
                let file_name = field.file_name().unwrap_or_default().to_owned();
                if file_name.is_empty() {
                    return Err(bad(MSG_NO_FILE));
                }
                let content_type = field
                    .content_type()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                // The parts after the file are never read: dropping the
                // multipart keeps the file field readable on its own.
                drop(multipart);
                return Ok(Form {
                    fields,
                    file_name,
                    content_type,
                    file: field,
                });
            }
            fields.insert(name, read_text(field).await?);
        }
    }

    /// The upload as RPC messages: `metadata`, then the file in pieces of
    /// [`MESSAGE_BYTES`]. If the body breaks off, the stream stalls (it must not
    /// end, or the service would keep a cut file) and `failed` says why.
    fn into_messages<P: Send + 'static>(
        self,
        metadata: P,
        chunk: fn(Vec<u8>) -> P,
    ) -> (
        impl Stream<Item = P> + Send + 'static,
        oneshot::Receiver<&'static str>,
    ) {
        let (tell, failed) = oneshot::channel();
        let pieces = gathered(self.file, tell).map(chunk);
        (
            futures_util::stream::once(async { metadata }).chain(pieces),
            failed,
        )
    }
}

async fn read_text(mut field: multer::Field<'static>) -> Result<String, ApiError> {
    let bad = || ApiError::new(StatusCode::BAD_REQUEST, MSG_BAD_FIELD);
    let mut text = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(|_| bad())? {
        if text.len() + chunk.len() > MAX_FIELD_BYTES {
            return Err(bad());
        }
        text.extend_from_slice(&chunk);
    }
    String::from_utf8(text).map_err(|_| bad())
}

/// The file's bytes in pieces of exactly [`MESSAGE_BYTES`] (the last one
/// shorter), however the client framed them: multer hands on all it has read
/// at once, which on a fast link is many megabytes, more than the files
/// service takes in one message. Each piece is the message's own buffer,
/// filled once from the body's frames (the only copy before encoding). On a
/// body error `tell` gets the reason and the stream stalls.
fn gathered(
    file: multer::Field<'static>,
    tell: oneshot::Sender<&'static str>,
) -> impl Stream<Item = Vec<u8>> + Send + 'static {
    let state = (file, Bytes::new(), Some(tell));
    futures_util::stream::unfold(state, |(mut file, mut unsent, mut tell)| async move {
        let mut piece = Vec::new();
        loop {
            if !unsent.is_empty() {
                if piece.capacity() == 0 {
                    piece.reserve_exact(MESSAGE_BYTES);
                }
                let take = unsent.len().min(MESSAGE_BYTES - piece.len());
                piece.extend_from_slice(&unsent.split_to(take));
                if piece.len() == MESSAGE_BYTES {
                    return Some((piece, (file, unsent, tell)));
                }
            }
            match file.chunk().await {
                Ok(Some(chunk)) => unsent = chunk,
                Ok(None) if piece.is_empty() => return None,
                Ok(None) => return Some((piece, (file, unsent, tell))),
                Err(error) => {
                    tracing::info!(%error, "upload body broke off");
                    if let Some(tell) = tell.take() {
                        let _ = tell.send(MSG_UPLOAD_BROKEN);
                    }
                    std::future::pending::<()>().await;
                }
            }
        }
    })
}

// --- Downloads ---

async fn download(
    State(state): State<AppState>,
    caller: CallContext,
    Path(id): Path<i64>,
    Query(query): Query<DownloadLink>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let range = headers
        .get(header::RANGE)
        .and_then(|value| value.to_str().ok())
        .and_then(parse_range);
    // Not text: a validator that matches nothing.
    let if_range = headers
        .get(header::IF_RANGE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).trim().to_owned())
        .unwrap_or_default();
    // One call, so one audit record of a download through a link: the files
    // service sends the range only for the version `If-Range` names, else
    // the whole file ([`if_current`]).
    let (mut stream, mut start) =
        open_download(&state, &caller, id, (range, &if_range), &query).await?;
    let sha256 = start.file.as_ref().map_or("", |f| f.sha256.as_str());
    let etag = etag(sha256);
    let asked_range = if_current(range, &if_range, sha256).is_some();
    // A files service older than `if_range` sends the range regardless
    // (a rolling update): the whole file is asked of it again.
    let whole = !start.range_not_satisfiable
        && start.offset == 0
        && start.file.as_ref().is_some_and(|f| f.size == start.length);
    if range.is_some() && !asked_range && !whole {
        (stream, start) = open_download(&state, &caller, id, (None, ""), &query).await?;
    }
    let file = start.file.unwrap_or_default();
    if start.range_not_satisfiable {
        let mut response =
            ApiError::new(StatusCode::RANGE_NOT_SATISFIABLE, MSG_RANGE_NOT_SATISFIABLE)
                .into_response();
        insert(
            &mut response,
            header::CONTENT_RANGE,
            format!("bytes */{}", file.size),
        );
        return Ok(response);
    }
    let mut response = Response::new(chunks(stream));
    if asked_range {
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        let last = start.offset + start.length - 1;
        insert(
            &mut response,
            header::CONTENT_RANGE,
            format!("bytes {}-{last}/{}", start.offset, file.size),
        );
    }
    describe(
        &mut response,
        file,
        &start.download_name,
        start.length,
        etag,
    );
    Ok(response)
}

/// The file's content as the files service streams it after its start.
fn chunks(stream: tonic::Streaming<pb::DownloadFileResponse>) -> Body {
    Body::from_stream(stream.filter_map(|message| {
        std::future::ready(match message {
            Ok(pb::DownloadFileResponse {
                payload: Some(pb::download_file_response::Payload::Chunk(chunk)),
            }) => Some(Ok(Bytes::from(chunk))),
            Ok(_) => None,
            Err(status) => {
                tracing::warn!(%status, "download broke off");
                Some(Err(std::io::Error::other(status.message().to_owned())))
            }
        })
    }))
}

/// What a browser needs to know of the file it is given: its type and
/// length, its name, that it may ask for parts, and that it runs nothing.
fn describe(response: &mut Response, file: pb::File, name: &str, length: i64, etag: String) {
    let disposition = if file.inline {
        Disposition::Inline
    } else {
        Disposition::Attachment
    };
    insert(response, header::CONTENT_TYPE, file.content_type);
    insert(response, header::CONTENT_LENGTH, length.to_string());
    insert(response, header::ACCEPT_RANGES, "bytes".to_owned());
    insert(response, header::ETAG, etag);
    response.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        content_disposition(disposition, name, name),
    );
    insert(
        response,
        header::CONTENT_SECURITY_POLICY,
        DOWNLOAD_CSP.to_owned(),
    );
    insert(response, header::X_FRAME_OPTIONS, "SAMEORIGIN".to_owned());
}

/// The download of file `id` (of `range` in it, if any, for the version
/// `if_range` names): its stream and its first message.
async fn open_download(
    state: &AppState,
    caller: &CallContext,
    id: i64,
    (range, if_range): (Option<pb::ByteRange>, &str),
    query: &DownloadLink,
) -> Result<
    (
        tonic::Streaming<pb::DownloadFileResponse>,
        pb::DownloadStart,
    ),
    ApiError,
> {
    let request = pb::DownloadFileRequest {
        id,
        range,
        link: query.link.clone(),
        key: query.key.clone(),
        if_range: if_range.to_owned(),
    };
    // As long as the file takes to arrive.
    let mut stream = client(state)
        .download_file(caller.request_without_deadline(request))
        .await?
        .into_inner();
    match stream.message().await?.and_then(|m| m.payload) {
        Some(pb::download_file_response::Payload::Start(start)) => Ok((stream, start)),
        _ => {
            tracing::error!(id, "download stream did not start with its metadata");
            Err(ApiError::new(StatusCode::BAD_GATEWAY, MSG_BAD_STREAM))
        }
    }
}

fn insert(response: &mut Response, name: header::HeaderName, value: String) {
    match HeaderValue::try_from(value) {
        Ok(value) => {
            response.headers_mut().insert(name, value);
        }
        Err(error) => tracing::warn!(%name, %error, "header value dropped"),
    }
}

/// One `bytes=` range (`a-b`, `a-`, `-n`). Anything else — another unit,
/// several ranges, bad syntax — is ignored and the whole file sent, as RFC 9110
/// allows.
fn parse_range(value: &str) -> Option<pb::ByteRange> {
    let spec = value.trim().strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (first, last) = spec.split_once('-')?;
    let number = |text: &str| -> Option<Option<i64>> {
        let text = text.trim();
        if text.is_empty() {
            Some(None)
        } else if text.bytes().all(|b| b.is_ascii_digit()) {
            text.parse().ok().map(Some)
        } else {
            None
        }
    };
    match (number(first)?, number(last)?) {
        (Some(first), last) if last.is_none_or(|last| last >= first) => Some(pb::ByteRange {
            first: Some(first),
            last,
            suffix_length: None,
        }),
        (None, Some(suffix)) => Some(pb::ByteRange {
            first: None,
            last: None,
            suffix_length: Some(suffix),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file part of a form that arrives as `frames`.
    async fn file_part(frames: Vec<Bytes>) -> multer::Field<'static> {
        let body = futures_util::stream::iter(frames.into_iter().map(Ok::<_, std::io::Error>));
        let mut form = multer::Multipart::new(body, "b");
        form.next_field().await.unwrap().expect("a file part")
    }

    fn form(file: &[u8]) -> Vec<u8> {
        let mut form =
            b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n"
                .to_vec();
        form.extend_from_slice(file);
        form.extend_from_slice(b"\r\n--b--\r\n");
        form
    }

    async fn pieces(frames: Vec<Bytes>) -> Vec<Vec<u8>> {
        let (tell, _failed) = oneshot::channel();
        gathered(file_part(frames).await, tell).collect().await
    }

    #[tokio::test]
    async fn a_file_sent_in_one_huge_frame_goes_on_in_protocol_sized_pieces() {
        let file: Vec<u8> = (0..32 * 1024 * 1024 + 5).map(|i| (i % 251) as u8).collect();
        let pieces = pieces(vec![Bytes::from(form(&file))]).await;
        assert_eq!(pieces.len(), 33);
        assert!(
            pieces[..32]
                .iter()
                .all(|piece| piece.len() == MESSAGE_BYTES)
        );
        assert_eq!(pieces.concat(), file);
    }

    #[tokio::test]
    async fn small_frames_are_gathered_into_protocol_sized_pieces() {
        let file: Vec<u8> = (0..MESSAGE_BYTES * 2 + 10)
            .map(|i| (i % 249) as u8)
            .collect();
        let frames = form(&file)
            .chunks(1000)
            .map(Bytes::copy_from_slice)
            .collect();
        let pieces = pieces(frames).await;
        let sizes: Vec<usize> = pieces.iter().map(Vec::len).collect();
        assert_eq!(sizes, [MESSAGE_BYTES, MESSAGE_BYTES, 10]);
        assert_eq!(pieces.concat(), file);
    }

    fn range(value: &str) -> Option<(Option<i64>, Option<i64>, Option<i64>)> {
        parse_range(value).map(|r| (r.first, r.last, r.suffix_length))
    }

    #[test]
    fn the_three_range_forms_are_read_and_the_rest_ignored() {
        assert_eq!(range("bytes=0-99"), Some((Some(0), Some(99), None)));
        assert_eq!(range("bytes=100-"), Some((Some(100), None, None)));
        assert_eq!(range("bytes=-500"), Some((None, None, Some(500))));
        for ignored in [
            "bytes=5-1",
            "bytes=0-1,5-9",
            "items=0-1",
            "bytes=a-b",
            "bytes=-",
            "bytes=+1-2",
        ] {
            assert_eq!(range(ignored), None, "{ignored}");
        }
    }
}

docs::typed!(SavedVideo);
