//! Spawns the real files service on a random port, with a fresh database and
//! a fresh object store, and talks to it through the generated tonic client.
//! A real wiki service runs beside it (its own database, the same token keys):
//! files asks it who sees a document's equipment model.

use std::future::Future;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt;
use hyper_util::rt::{TokioExecutor, TokioIo};
use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use portal_files::app::links::LinkKeys;
use portal_files::{Blobs, FilesSettings, Limits, SERVICE_NAME};
use portal_kit::Right;
use portal_kit::audit::AuditSettings;
use portal_kit::db::Backend;
use portal_kit::serve::ServiceChannel;
use portal_kit::testing::{ServiceHarness, TestDatabase, TestKeys, backends, serve};
pub use portal_kit::testing::{assert_status, code, with_token};
use portal_proto::files::v1 as pb;
use portal_proto::files::v1::files_service_client::FilesServiceClient;
use portal_proto::wiki::v1 as wiki_pb;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::Status;
use tonic::transport::Channel;
use tower::ServiceExt;

pub type Client = FilesServiceClient<Channel>;

pub const PUBLIC_URL: &str = "https://portal.example.org";
pub const EDITOR_ID: i64 = 5;
pub const LEARNER_ID: i64 = 10;
/// The learner's department (in their token), and another one.
pub const OWN_DEPARTMENT: i64 = 1;
pub const OTHER_DEPARTMENT: i64 = 2;
/// The limits every test service runs with: small, so refusals are cheap.
pub const DOCUMENT_LIMIT: u64 = 3 * 1024 * 1024;
pub const VIDEO_LIMIT: u64 = 2 * 1024 * 1024;
/// How long download links work here.
pub const LINK_LIFETIME: Duration = Duration::from_secs(900);

/// A PDF's first bytes followed by `size - 9` bytes of a pattern.
pub fn pdf(size: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..size.saturating_sub(bytes.len())).map(|i| (i * 7 % 251) as u8));
    bytes.truncate(size);
    bytes
}

/// An MP4's first box followed by a pattern, `size` bytes in all.
pub fn mp4(size: usize) -> Vec<u8> {
    let mut bytes = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
    bytes.extend((0..size.saturating_sub(bytes.len())).map(|i| (i * 13 % 241) as u8));
    bytes.truncate(size);
    bytes
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    Directory,
    S3,
}

/// The service with its object store; derefs to the service.
pub struct TestApp {
    service: ServiceHarness<Client>,
    pub wiki: WikiServiceClient<Channel>,
    /// A model with a unit in the learner's department, made at start.
    pub model: i64,
    pub blobs: Blobs,
    /// The service's download-link keys, to make links it never issued.
    pub links: LinkKeys,
    /// The directory holding the blobs (the local store) or the bucket (S3).
    pub blob_dir: PathBuf,
    /// What the service was started with, to start it again.
    settings: FilesSettings,
    /// Stops the S3 server, if any.
    _s3_server: DropGuard,
    /// Stops the wiki; its database.
    _wiki: (DropGuard, TestDatabase),
    _store_dir: tempfile::TempDir,
}

impl Deref for TestApp {
    type Target = ServiceHarness<Client>;

    fn deref(&self) -> &Self::Target {
        &self.service
    }
}

/// Runs `scenario` on a fresh service for every backend of this run (SQLite,
/// and PostgreSQL when `PORTAL_TEST_POSTGRES_URL` is set) × both object stores.
pub async fn on_each_setup<F, Fut>(scenario: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    for backend in backends() {
        for store in [StoreKind::Directory, StoreKind::S3] {
            eprintln!("--- on {backend:?} with a {store:?} store");
            scenario(spawn_app(backend, store, false).await).await;
        }
    }
}

/// A fresh service; `seed_demo` as `PORTAL_SEED_DEMO`.
pub async fn spawn_app(backend: Backend, store: StoreKind, seed_demo: bool) -> TestApp {
    let store_dir = tempfile::tempdir().expect("temp dir");
    let s3_server = CancellationToken::new();
    let (blobs, blob_dir) = match store {
        StoreKind::Directory => {
            let dir = store_dir.path().join("files");
            (
                portal_files::store::blobs::directory(&dir).expect("directory store"),
                dir,
            )
        }
        StoreKind::S3 => {
            let endpoint = start_s3_server(store_dir.path(), s3_server.clone()).await;
            let builder = AmazonS3Builder::new()
                .with_endpoint(endpoint)
                .with_allow_http(true)
                .with_region("us-east-1")
                .with_access_key_id(S3_KEY)
                .with_secret_access_key(S3_SECRET);
            let blobs =
                portal_files::store::blobs::s3("s3://portal/files", builder).expect("S3 store");
            (blobs, store_dir.path().join("portal"))
        }
    };
    let keys = TestKeys::new();
    let link_key_file =
        portal_files::app::links::ensure_key_file(store_dir.path()).expect("link key");
    let links = LinkKeys::from_file(&link_key_file, LINK_LIFETIME).expect("link keys");
    let (wiki, wiki_serving, wiki_database) = start_wiki(backend, &keys).await;
    let wiki_channel = ServiceChannel::new(
        wiki.clone()
            .map_err(|error| Status::from_error(Box::new(error))),
    );
    let settings = |database_url: String, keys: &TestKeys| FilesSettings {
        database: database_url.into(),
        public_key_file: keys.public_key_file.clone(),
        access_versions: Default::default(),
        blobs: Arc::clone(&blobs),
        public_url: PUBLIC_URL.into(),
        limits: Limits {
            document: DOCUMENT_LIMIT,
            video: VIDEO_LIMIT,
        },
        seed_demo,
        wiki: wiki_channel.clone(),
        link_key_file: link_key_file.clone(),
        link_lifetime: LINK_LIFETIME,
        audit: AuditSettings::loopback(),
        shutdown: CancellationToken::new(),
    };
    let routes = |database_url, keys: &TestKeys| portal_files::routes(settings(database_url, keys));
    let service =
        ServiceHarness::start_with_keys(backend, keys, SERVICE_NAME, routes, Client::new).await;
    let settings = settings(service.database.url.clone(), &service.keys);
    let mut app = TestApp {
        service,
        wiki: WikiServiceClient::new(wiki),
        model: 0,
        blobs,
        links,
        blob_dir,
        settings,
        _s3_server: s3_server.drop_guard(),
        _wiki: (wiki_serving, wiki_database),
        _store_dir: store_dir,
    };
    app.model = app.deployed_model("Аппарат ИВЛ", OWN_DEPARTMENT).await;
    app
}

/// A channel to nothing that listens (the discard port): UNAVAILABLE.
fn nowhere() -> ServiceChannel {
    ServiceChannel::new(
        tonic::transport::Endpoint::from_static("http://127.0.0.1:9")
            .connect_lazy()
            .map_err(|error| Status::from_error(Box::new(error))),
    )
}

/// The real wiki service on a free port, verifying tokens with `keys`.
async fn start_wiki(backend: Backend, keys: &TestKeys) -> (Channel, DropGuard, TestDatabase) {
    let database = TestDatabase::new(backend).await;
    let routes = portal_wiki::routes(portal_wiki::WikiSettings {
        database: database.url.clone().into(),
        public_key_file: keys.public_key_file.clone(),
        access_versions: Default::default(),
        public_url: PUBLIC_URL.into(),
        seed_demo: false,
        // Files asks the wiki only who sees a model, which asks no one.
        education: nowhere(),
        auth: nowhere(),
        audit: AuditSettings::loopback(),
        shutdown: CancellationToken::new(),
        internal: keys.internal.clone(),
    })
    .await
    .expect("wiki starts");
    let (channel, serving) = serve(portal_wiki::SERVICE_NAME, routes).await;
    (channel, serving, database)
}

const S3_KEY: &str = "portal-test";
const S3_SECRET: &str = "portal-test-secret";

/// A real S3 API server (s3s over s3s-fs) on a free port, storing bucket
/// `portal` under `root`; stops with `shutdown`.
async fn start_s3_server(root: &Path, shutdown: CancellationToken) -> String {
    std::fs::create_dir_all(root.join("portal")).expect("bucket directory");
    let fs = s3s_fs::FileSystem::new(root).expect("s3s-fs");
    let mut builder = s3s::service::S3ServiceBuilder::new(fs);
    builder.set_auth(s3s::auth::SimpleAuth::from_single(S3_KEY, S3_SECRET));
    let service = builder.build();
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind S3 port");
    let address = listener.local_addr().expect("S3 address");
    tokio::spawn(async move {
        loop {
            let socket = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((socket, _)) => socket,
                    Err(_) => continue,
                },
                () = shutdown.cancelled() => break,
            };
            let service = service.clone();
            tokio::spawn(async move {
                let connection = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                let _ = connection
                    .serve_connection(TokioIo::new(socket), service)
                    .await;
            });
        }
    });
    format!("http://{address}")
}

/// A document upload: metadata, then `content` in chunks of `chunk` bytes.
pub fn document_stream(
    id_related: i64,
    title: &str,
    file_name: &str,
    content: &[u8],
    chunk: usize,
) -> Vec<pb::SaveFileRequest> {
    use pb::save_file_request::Payload;
    let metadata = pb::FileMetadata {
        id_related,
        title: title.into(),
        file_name: file_name.into(),
        content_type: "application/pdf".into(),
    };
    std::iter::once(Payload::Metadata(metadata))
        .chain(content.chunks(chunk).map(|c| Payload::Chunk(c.to_vec())))
        .map(|payload| pb::SaveFileRequest {
            payload: Some(payload),
        })
        .collect()
}

pub fn video_stream(file_name: &str, content: &[u8]) -> Vec<pb::SaveVideoRequest> {
    use pb::save_video_request::Payload;
    let metadata = pb::VideoMetadata {
        file_name: file_name.into(),
        content_type: "video/mp4".into(),
    };
    std::iter::once(Payload::Metadata(metadata))
        .chain(
            content
                .chunks(64 * 1024)
                .map(|c| Payload::Chunk(c.to_vec())),
        )
        .map(|payload| pb::SaveVideoRequest {
            payload: Some(payload),
        })
        .collect()
}

impl TestApp {
    /// Starts the service once more on the same database and store, as a
    /// second start of the process would, and talks to that one from now on.
    pub async fn restart(&mut self) {
        let routes = portal_files::routes(self.settings.clone())
            .await
            .expect("files starts again");
        self.service
            .restart(SERVICE_NAME, routes, Client::new)
            .await;
    }

    pub fn editor_token(&self) -> String {
        self.keys.token(EDITOR_ID, &[Right::EquipmentEditing], &[])
    }

    pub fn learner_token(&self) -> String {
        self.keys.token(LEARNER_ID, &[], &[OWN_DEPARTMENT])
    }

    /// A new equipment model in the wiki with one unit in `department`.
    pub async fn deployed_model(&self, name: &str, department: i64) -> i64 {
        let editor = Some(self.editor_token());
        let mut wiki = self.wiki.clone();
        let model = wiki
            .create_environment_model(with_token(
                wiki_pb::CreateEnvironmentModelRequest {
                    name: name.into(),
                    brand_name: "Dräger".into(),
                    description: "Аппарат искусственной вентиляции лёгких".into(),
                    short_instruction: String::new(),
                    manufacturer_id: 0,
                    environment_type_id: 0,
                },
                editor.as_deref(),
            ))
            .await
            .expect("create model")
            .into_inner()
            .environment_model
            .expect("created model");
        wiki.create_environment(with_token(
            wiki_pb::CreateEnvironmentRequest {
                environment_model_id: model.id,
                department_deployment: department,
                serial_number: format!("SN-{}-{department}", model.id),
                inventory_number: format!("INV-{}-{department}", model.id),
            },
            editor.as_deref(),
        ))
        .await
        .expect("create unit");
        model.id
    }

    pub async fn save_document(
        &self,
        token: Option<&str>,
        id_related: i64,
        file_name: &str,
        content: &[u8],
    ) -> Result<pb::SaveFileResponse, Status> {
        let messages = document_stream(id_related, "", file_name, content, 64 * 1024);
        self.client
            .clone()
            .save_file(with_token(futures_util::stream::iter(messages), token))
            .await
            .map(|r| r.into_inner())
    }

    pub async fn save_video(
        &self,
        token: Option<&str>,
        file_name: &str,
        content: &[u8],
    ) -> Result<pb::SaveVideoResponse, Status> {
        self.client
            .clone()
            .save_video(with_token(
                futures_util::stream::iter(video_stream(file_name, content)),
                token,
            ))
            .await
            .map(|r| r.into_inner())
    }

    pub async fn files(&self, id_related: i64) -> Vec<pb::File> {
        self.client
            .clone()
            .get_files(with_token(
                pb::GetFilesRequest { id_related },
                Some(&self.learner_token()),
            ))
            .await
            .expect("get files")
            .into_inner()
            .files
    }

    /// Downloads `id` (or `range` of it): the start message and the bytes.
    pub async fn download(
        &self,
        token: Option<&str>,
        id: i64,
        range: Option<pb::ByteRange>,
    ) -> Result<(pb::DownloadStart, Vec<u8>), Status> {
        let request = pb::DownloadFileRequest {
            id,
            range,
            link: String::new(),
            ..Default::default()
        };
        self.download_as(with_token(request, token)).await
    }

    /// Downloads `video` (or `range` of it) by the key in its URL, with no token.
    pub async fn download_video(
        &self,
        video: &pb::SaveVideoResponse,
        range: Option<pb::ByteRange>,
    ) -> Result<(pb::DownloadStart, Vec<u8>), Status> {
        let (_, key) = video
            .saved_video_url
            .split_once("?key=")
            .expect("a key in the video's URL");
        let request = pb::DownloadFileRequest {
            id: video.id,
            range,
            key: key.to_owned(),
            ..Default::default()
        };
        self.download_as(tonic::Request::new(request)).await
    }

    /// Downloads `id` with download link `link` and no token.
    pub async fn download_with_link(
        &self,
        id: i64,
        link: &str,
    ) -> Result<(pb::DownloadStart, Vec<u8>), Status> {
        let request = pb::DownloadFileRequest {
            id,
            range: None,
            link: link.to_owned(),
            ..Default::default()
        };
        self.download_as(tonic::Request::new(request)).await
    }

    async fn download_as(
        &self,
        request: tonic::Request<pb::DownloadFileRequest>,
    ) -> Result<(pb::DownloadStart, Vec<u8>), Status> {
        let mut stream = self
            .client
            .clone()
            .download_file(request)
            .await?
            .into_inner();
        let mut start = None;
        let mut bytes = Vec::new();
        while let Some(message) = stream.message().await? {
            match message.payload {
                Some(pb::download_file_response::Payload::Start(s)) => {
                    assert!(start.is_none(), "one start message");
                    start = Some(s);
                }
                Some(pb::download_file_response::Payload::Chunk(chunk)) => {
                    assert!(chunk.len() <= 64 * 1024, "chunks of at most 64 KiB");
                    bytes.extend_from_slice(&chunk);
                }
                None => panic!("empty message"),
            }
        }
        Ok((start.expect("a start message"), bytes))
    }

    /// Every blob in the store, by listing it through the object store API,
    /// and for a directory also every file on disk (part files included).
    pub async fn stored_blobs(&self) -> usize {
        let listed: Vec<_> = self
            .blobs
            .list(None)
            .try_collect()
            .await
            .expect("list blobs");
        let on_disk = count_files(&self.blob_dir);
        listed.len().max(on_disk)
    }
}

fn count_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| {
            let path = entry.path();
            if path.is_dir() { count_files(&path) } else { 1 }
        })
        .sum()
}
