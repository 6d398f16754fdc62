//! `make bench`: uploads and downloads through the release `portal` binary vs
//! the object store alone, measured in the same run on the same disk; and the
//! process's memory while a 1 GiB upload streams through it. The files
//! service's metadata on SQLite (target `all`) and, with
//! `PORTAL_TEST_POSTGRES_URL`, on PostgreSQL (the split topology, each service
//! on a fresh database of its own, dropped after): two columns. Nothing here
//! asserts a time.
//!
//! - baseline: the local directory store, opened as the files service opens it
//!   (`blobs::directory`), written in the service's 5 MiB parts and read back,
//!   in this process, with the same bytes;
//! - upload: a multipart POST to `/api/file/save`, streamed from memory by the
//!   client, through the gateway into the files service and its store;
//! - download: `GET /api/file/download/{id}`, read to the end;
//! - memory: the portal's resident size idle, at its highest during the 1 GiB
//!   upload (`VmHWM`), and after.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::path::Path as BlobPath;
use object_store::{ObjectStoreExt, WriteMultipart};
use reqwest::multipart::{Form, Part};
use serde_json::Value;

mod support;
// The split topology as the tests run it: k8s settings, fresh databases.
#[path = "../tests/api/support/cluster/mod.rs"]
mod cluster;

use cluster::{Process, Topology};
use support::Portal;

const MIB: usize = 1024 * 1024;
/// The throughput runs' size, and the memory run's.
const THROUGHPUT_MIB: usize = 256;
const MEMORY_MIB: usize = 1024;
/// The client offers the file in pieces of this size.
const PIECE: usize = 256 * 1024;

/// A PDF's signature and then a pattern: `mib` MiB as shared pieces.
fn pieces(mib: usize) -> impl Iterator<Item = Bytes> {
    let mut first = b"%PDF-1.7\n".to_vec();
    first.resize(PIECE, b'x');
    let first = Bytes::from(first);
    let rest = Bytes::from((0..PIECE).map(|i| (i * 31 % 253) as u8).collect::<Vec<_>>());
    std::iter::once(first).chain(std::iter::repeat_n(rest, mib * MIB / PIECE - 1))
}

fn mib_per_second(mib: usize, started: Instant) -> f64 {
    mib as f64 / started.elapsed().as_secs_f64()
}

async fn baseline(mib: usize) -> (f64, f64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = portal_files::store::blobs::directory(dir.path()).expect("store");
    let path = BlobPath::from("bench/blob");
    let started = Instant::now();
    let upload = store.put_multipart(&path).await.expect("multipart");
    let mut writer = WriteMultipart::new_with_chunk_size(upload, 5 * MIB);
    for piece in pieces(mib) {
        writer.wait_for_capacity(2).await.expect("capacity");
        writer.write(&piece);
    }
    writer.finish().await.expect("finish");
    let write = mib_per_second(mib, started);
    let started = Instant::now();
    let read: usize = store
        .get(&path)
        .await
        .expect("get")
        .into_stream()
        .map_ok(|bytes| bytes.len())
        .try_fold(0, |sum, n| async move { Ok(sum + n) })
        .await
        .expect("read");
    assert_eq!(read, mib * MIB);
    (write, mib_per_second(mib, started))
}

async fn sign_in(http: &reqwest::Client, base: &str) -> String {
    let reply: Value = http
        .post(format!("{base}/api/auth/login"))
        .json(&serde_json::json!({ "login": "engineer", "password": "engineer-demo-password" }))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("sign in")
        .json()
        .await
        .expect("sign-in JSON");
    reply["data"]["accessToken"]
        .as_str()
        .expect("token")
        .to_owned()
}

/// Uploads `mib` MiB as a document; its download URL (on this portal).
async fn upload(http: &reqwest::Client, base: &str, token: &str, mib: usize) -> String {
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(
        pieces(mib).map(Ok::<_, std::io::Error>),
    ));
    let part = Part::stream_with_length(body, (mib * MIB) as u64).file_name("bench.pdf");
    let form = Form::new().text("idRelated", "1").part("file", part);
    let reply: Value = http
        .post(format!("{base}/api/file/save"))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .expect("upload")
        .json()
        .await
        .expect("upload JSON");
    let id = reply["data"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{reply}"));
    format!("{base}/api/file/download/{id}")
}

async fn download(http: &reqwest::Client, url: &str, token: &str) -> usize {
    let response = http
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .expect("download");
    let mut stream = response.bytes_stream();
    let mut read = 0;
    while let Some(chunk) = stream.next().await {
        read += chunk.expect("chunk").len();
    }
    read
}

/// The split topology's processes on PostgreSQL databases of their own.
struct Split {
    topology: Topology,
    processes: Vec<Process>,
    base: String,
}

impl Split {
    /// The split topology (k8s settings, `tests/support/cluster.rs`) with demo
    /// data, on fresh databases of the server at `admin_url`.
    async fn start(admin_url: &str) -> Split {
        let one = cluster::loopback(1);
        let education = SocketAddr::new(one, cluster::free_port(one));
        let topology = Topology::new(admin_url, vec![education]).await;
        let limit = document_limit();
        let service = |name: &str, target: &str, grpc: SocketAddr| {
            let mut env = topology.service_env(target, grpc);
            env.push(("PORTAL_SEED_DEMO".to_owned(), "true".to_owned()));
            env.push(("PORTAL_LOG".to_owned(), "warn".to_owned()));
            if target == "files" {
                env.push(("PORTAL_FILES_MAX_DOCUMENT_MIB".to_owned(), limit.clone()));
            }
            if let Err(output) = cluster::portal_migrate(&env) {
                panic!("{name}: portal migrate failed:\n{output}");
            }
            Process::spawn(name, env, &topology.logs)
        };
        let mut processes = vec![
            service("auth", "auth", topology.auth),
            service("education", "education", education),
            service("wiki", "wiki", topology.wiki),
            service("files", "files", topology.files),
        ];
        let (gateway, client) = topology.spawn_gateway();
        processes.push(gateway);
        let http = reqwest::Client::new();
        let mut waiting: Vec<&mut Process> = processes.iter_mut().collect();
        client.wait_serving(&http, &mut waiting).await;
        Split {
            topology,
            processes,
            base: client.base,
        }
    }

    /// Stops the processes, then drops their databases.
    async fn stop(self) {
        drop(self.processes);
        self.topology.databases.drop_all().await;
    }
}

/// The document limit both runs set: above the memory run's upload.
fn document_limit() -> String {
    (2 * MEMORY_MIB).to_string()
}

/// A row's figure and the baseline it is a ratio to.
type Pick = fn(&Figures) -> (f64, f64);

/// One backend's figures, in MiB/s.
struct Figures {
    write: f64,
    upload: f64,
    read: f64,
    download: f64,
}

/// The baseline, then an upload and its download through the gateway, in the
/// same run on the same disk.
async fn measure(base: &str) -> Figures {
    let http = reqwest::Client::new();
    let token = sign_in(&http, base).await;
    let (write, read) = baseline(THROUGHPUT_MIB).await;
    let started = Instant::now();
    let url = upload(&http, base, &token, THROUGHPUT_MIB).await;
    let upload = mib_per_second(THROUGHPUT_MIB, started);
    let started = Instant::now();
    assert_eq!(download(&http, &url, &token).await, THROUGHPUT_MIB * MIB);
    let download = mib_per_second(THROUGHPUT_MIB, started);
    Figures {
        write,
        upload,
        read,
        download,
    }
}

#[tokio::main]
async fn main() {
    let limit = document_limit();
    let portal = Portal::start(&[
        ("PORTAL_SEED_DEMO", "true"),
        ("PORTAL_FILES_MAX_DOCUMENT_MIB", limit.as_str()),
    ])
    .await;
    let on_sqlite = Some(measure(&portal.base).await);
    let on_postgres = match std::env::var("PORTAL_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => {
            let split = Split::start(&url).await;
            let figures = measure(&split.base).await;
            split.stop().await;
            Some(figures)
        }
        _ => None,
    };

    let column = |figures: &Option<Figures>, value: Pick| {
        figures
            .as_ref()
            .map_or("— (set PORTAL_TEST_POSTGRES_URL)".to_owned(), |figures| {
                let (speed, baseline) = value(figures);
                format!("{speed:.0} MiB/s, {:.2}×", speed / baseline)
            })
    };
    println!(
        "\n| {THROUGHPUT_MIB} MiB, vs the object store alone | SQLite | PostgreSQL |\n|---|---|---|"
    );
    let rows: [(&str, Pick); 4] = [
        ("object store write (baseline)", |f| (f.write, f.write)),
        ("upload through the gateway", |f| (f.upload, f.write)),
        ("object store read (baseline)", |f| (f.read, f.read)),
        ("download through the gateway", |f| (f.download, f.read)),
    ];
    for (name, value) in rows {
        println!(
            "| {name} | {} | {} |",
            column(&on_sqlite, value),
            column(&on_postgres, value)
        );
    }

    // The memory run: one process holds the gateway and the files service.
    let http = reqwest::Client::new();
    let base = portal.base.as_str();
    let token = sign_in(&http, base).await;
    let before = portal.rss_mib();
    let peak_before = portal.peak_rss_mib();
    let started = Instant::now();
    upload(&http, base, &token, MEMORY_MIB).await;
    let big = mib_per_second(MEMORY_MIB, started);
    let peak = portal.peak_rss_mib();
    println!(
        "\n| portal process during a {MEMORY_MIB} MiB upload (SQLite, `all`) | MiB |\n|---|---|"
    );
    println!("| resident before | {before:.0} |");
    println!("| highest before (VmHWM) | {peak_before:.0} |");
    println!("| highest during (VmHWM) | {peak:.0} |");
    println!("| resident after | {:.0} |", portal.rss_mib());
    println!("| upload rate | {big:.0} MiB/s |");
}
