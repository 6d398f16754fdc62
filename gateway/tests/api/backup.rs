//! The one-machine backup drill, with the real binary as processes on SQLite:
//! `portal` serves a data directory under a steady write load (departments in
//! auth, courses in education, equipment models in the wiki, documents
//! uploaded and some deleted in files) while `portal backup` runs beside it;
//! `portal restore` fills a fresh directory, a new `portal` serves it, and
//! every write acknowledged before the backup began is there, every stored
//! file byte-exact, sessions and download links issued before still work.
//! A restore into a non-empty directory, from an unfinished or a damaged
//! backup, or of PostgreSQL is refused.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

const PORTAL: &str = env!("CARGO_BIN_EXE_portal");
const ADMIN_PASSWORD: &str = "backup-admin-password";

fn portal_command(data: &Path) -> Command {
    let mut command = Command::new(PORTAL);
    command
        .env_clear()
        .env("PORTAL_DATA_DIR", data)
        .env("PORTAL_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .env("PORTAL_LOG", "warn")
        .stdin(Stdio::null());
    command
}

/// `portal <args>` on `data`, run to its end off the async runtime.
async fn run(data: &Path, args: &[&str]) -> Output {
    let mut command = portal_command(data);
    command.args(args);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A serving `portal` (target all) on `data`, stopped when dropped.
struct Serving {
    child: Child,
    base: String,
    log: PathBuf,
}

impl Serving {
    async fn start(data: &Path, logs: &Path, name: &str) -> Serving {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = logs.join(format!("{name}.log"));
        let out = std::fs::File::create(&log).unwrap();
        let child = portal_command(data)
            .env("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}"))
            .env("PORTAL_WEB_DIR", logs)
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut serving = Serving {
            child,
            base: format!("http://127.0.0.1:{port}"),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !reqwest::get(format!("{}/readyz", serving.base))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            if let Some(status) = serving.child.try_wait().unwrap() {
                panic!(
                    "{name} exited ({status}): {}",
                    std::fs::read_to_string(&serving.log).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "{name} not ready in 60 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        serving
    }

    /// SIGTERM, and the drain's exit 0.
    async fn stop(mut self) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            assert!(Instant::now() < deadline, "not stopped 20 s after SIGTERM");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// REST calls as the signed-in admin.
#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Client {
    async fn sign_in(base: &str) -> Client {
        let http = reqwest::Client::new();
        let token = crate::support::sign_in_admin(&http, base, ADMIN_PASSWORD).await;
        Client {
            http,
            base: base.to_owned(),
            token,
        }
    }

    /// The same session against another portal.
    fn at(&self, base: &str) -> Client {
        Client {
            base: base.to_owned(),
            ..self.clone()
        }
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        crate::support::post_as(&self.http, &url, &self.token, &body).await
    }

    async fn get(&self, path: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .unwrap();
        crate::support::answer(response).await.unwrap()
    }

    async fn upload(&self, path: &str, form: Form) -> Result<Value, String> {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .multipart(form)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        crate::support::answer(response).await
    }

    /// A file's bytes: by id with the token, or by a URL that needs none.
    async fn download(&self, url: &str, with_token: bool) -> (u16, Vec<u8>) {
        let mut request = self.http.get(url);
        if with_token {
            request = request.bearer_auth(&self.token);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.bytes().await.unwrap().to_vec())
    }
}

/// A PDF-signed document whose bytes are unique to `seed`.
fn document(seed: u64, size: usize) -> Vec<u8> {
    let mut bytes = format!("%PDF-1.7\n% document {seed}\n").into_bytes();
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    while bytes.len() < size {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        bytes.push((state >> 33) as u8);
    }
    bytes.truncate(size);
    bytes
}

fn document_form(model: i64, name: &str, content: Vec<u8>) -> Form {
    Form::new()
        .text("idRelated", model.to_string())
        .text("title", "")
        .part("file", Part::bytes(content).file_name(name.to_owned()))
}

/// Titles acknowledged, each with when its answer came.
type Acknowledged = Arc<Mutex<Vec<(String, Instant)>>>;

/// A document the load uploaded: its bytes, when the upload and (for every
/// third) the delete were acknowledged.
struct Uploaded {
    content: Vec<u8>,
    saved: Instant,
    deleted: Option<Instant>,
}

struct Load {
    stop: Arc<std::sync::atomic::AtomicBool>,
    tasks: tokio::task::JoinSet<()>,
    /// Per create route, what it acknowledged.
    titled: BTreeMap<&'static str, Acknowledged>,
    uploaded: Arc<Mutex<BTreeMap<i64, Uploaded>>>,
    failures: Arc<Mutex<Vec<String>>>,
}

/// The create routes the load writes to, each with its body and list route.
const TITLED: [(&str, &str); 3] = [
    ("/api/department/create", "/api/department/get-all"),
    (
        "/api/course/create-course-with-user-and-articles",
        "/api/course/get-all-courses",
    ),
    (
        "/api/environment-model/create",
        "/api/environment-model/get-all",
    ),
];

fn titled_body(path: &str, title: &str) -> Value {
    match path {
        "/api/department/create" => json!({"title": title, "users": []}),
        "/api/course/create-course-with-user-and-articles" => {
            json!({"title": title, "description": "Во время резервного копирования", "dateDeadline": "2099-01-31", "userIds": [1], "articleIds": []})
        }
        _ => json!({"name": title, "brandName": "Dräger", "description": "Под нагрузкой"}),
    }
}

/// The title field of a listed row.
fn title_of(row: &Value) -> Option<&str> {
    row["title"].as_str().or_else(|| row["name"].as_str())
}

impl Load {
    /// Two writers per create route and one uploading documents (deleting every
    /// third right after), each acknowledging in turn.
    fn start(client: &Client, model: i64) -> Load {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let failures = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = tokio::task::JoinSet::new();
        let mut titled = BTreeMap::new();
        for (path, _) in TITLED {
            let acknowledged: Acknowledged = Arc::default();
            titled.insert(path, acknowledged.clone());
            for writer in 0..2 {
                let (client, stop, failures) = (client.clone(), stop.clone(), failures.clone());
                let acknowledged = acknowledged.clone();
                tasks.spawn(async move {
                    let mut i = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        i += 1;
                        let title = format!("Копия {writer}-{i}");
                        match client.post(path, titled_body(path, &title)).await {
                            Ok(_) => acknowledged.lock().unwrap().push((title, Instant::now())),
                            Err(error) => failures.lock().unwrap().push(error),
                        }
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                });
            }
        }
        let uploaded = Arc::new(Mutex::new(BTreeMap::new()));
        {
            let (client, stop, failures) = (client.clone(), stop.clone(), failures.clone());
            let uploaded = uploaded.clone();
            tasks.spawn(async move {
                let mut i = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    i += 1;
                    let content = document(1000 + i, 20_000 + (i as usize % 7) * 3_001);
                    let form = document_form(model, &format!("нагрузка-{i}.pdf"), content.clone());
                    let saved = match client.upload("/api/file/save", form).await {
                        Ok(data) => data["id"].as_i64().unwrap(),
                        Err(error) => {
                            failures.lock().unwrap().push(error);
                            continue;
                        }
                    };
                    let mut record = Uploaded {
                        content,
                        saved: Instant::now(),
                        deleted: None,
                    };
                    if i.is_multiple_of(3) {
                        match client.post("/api/file/delete", json!({"id": saved})).await {
                            Ok(_) => record.deleted = Some(Instant::now()),
                            Err(error) => failures.lock().unwrap().push(error),
                        }
                    }
                    uploaded.lock().unwrap().insert(saved, record);
                }
            });
        }
        Load {
            stop,
            tasks,
            titled,
            uploaded,
            failures,
        }
    }

    async fn stop(mut self) -> Load {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        while self.tasks.join_next().await.is_some() {}
        self
    }
}

/// `dir` is 0700, so nothing in it is anyone else's to read, and each file
/// directly in it (databases, keys, the manifest) is 0600 as well.
fn assert_owners_alone(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(dir), 0o700, "{}", dir.display());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            assert_eq!(mode(&path), 0o600, "{}", path.display());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_backup_under_load_restores_every_acknowledged_write_and_file_byte_exact() {
    let root = tempfile::tempdir().unwrap();
    let (live_dir, backup_dir, restored_dir) = (
        root.path().join("live"),
        root.path().join("backup"),
        root.path().join("restored"),
    );
    let logs = root.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();

    let live = Serving::start(&live_dir, &logs, "live").await;
    let admin = Client::sign_in(&live.base).await;
    let model = admin
        .post(
            "/api/environment-model/create",
            titled_body("", "Монитор пациента"),
        )
        .await
        .unwrap()["id"]
        .as_i64()
        .unwrap();

    // Files of distinct content stored before the load, one over the 5 MiB
    // part size, and a video; their links need no token.
    let mut kept = Vec::new();
    for (seed, size) in [(1, 1_000), (2, 6 * 1024 * 1024 + 17), (3, 300_000)] {
        let content = document(seed, size);
        let form = document_form(model, &format!("паспорт-{seed}.pdf"), content.clone());
        let id = admin.upload("/api/file/save", form).await.unwrap()["id"]
            .as_i64()
            .unwrap();
        kept.push((id, content));
    }
    let video: Vec<u8> = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41"
        .iter()
        .copied()
        .chain((0..40_000).map(|i| (i * 13 % 241) as u8))
        .collect();
    let video_url = admin
        .upload(
            "/api/video/save",
            Form::new().part("video", Part::bytes(video.clone()).file_name("обход.mp4")),
        )
        .await
        .unwrap()["savedVideoUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let links: Vec<(i64, String)> = admin
        .get(&format!("/api/file/get-files?idRelated={model}"))
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_i64().unwrap(),
                f["url"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(links.len(), kept.len());

    // --- The backup, during a steady write load.
    let load = Load::start(&admin, model);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let began = Instant::now();
    let output = run(&live_dir, &["backup", backup_dir.to_str().unwrap()]).await;
    let took = began.elapsed();
    assert!(output.status.success(), "{}", stderr(&output));
    let summary = String::from_utf8_lossy(&output.stdout).into_owned();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let load = load.stop().await;
    live.stop().await;
    let failures = load.failures.lock().unwrap().clone();
    assert!(
        failures.is_empty(),
        "writes failed under the backup: {failures:?}"
    );
    // The live data and the backup are their owner's alone, whatever the umask.
    assert_owners_alone(&live_dir);
    assert_owners_alone(&backup_dir);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(backup_dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["portal_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["databases"].as_array().unwrap().len(), 4);
    assert!(
        manifest["databases"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["newest_migration"].as_i64().is_some()),
        "{manifest}"
    );
    assert_eq!(manifest["keys"].as_array().unwrap().len(), 3);

    // --- Restore: refused over data, or from an unfinished backup.
    let refused = run(&live_dir, &["restore", backup_dir.to_str().unwrap()]).await;
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("is not empty"),
        "{}",
        stderr(&refused)
    );
    let unfinished = root.path().join("unfinished");
    std::fs::create_dir_all(&unfinished).unwrap();
    let refused = run(
        &root.path().join("never-filled"),
        &["restore", unfinished.to_str().unwrap()],
    )
    .await;
    assert!(
        stderr(&refused).contains("has no manifest.json"),
        "{}",
        stderr(&refused)
    );

    let output = run(&restored_dir, &["restore", backup_dir.to_str().unwrap()]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let restored = Serving::start(&restored_dir, &logs, "restored").await;
    // The session signed before the backup verifies: the key pair came along.
    let client = admin.at(&restored.base);

    let mut acknowledged_before = 0;
    let mut acknowledged_during = 0;
    for (path, list) in TITLED {
        let rows = client.get(list).await;
        let stored: HashSet<&str> = rows
            .as_array()
            .unwrap()
            .iter()
            .filter_map(title_of)
            .collect();
        let written = load.titled[path].lock().unwrap();
        let lost: Vec<&String> = written
            .iter()
            .filter(|(title, at)| *at < began && !stored.contains(title.as_str()))
            .map(|(title, _)| title)
            .collect();
        assert!(
            lost.is_empty(),
            "{path}: acknowledged before the backup, lost: {lost:?}"
        );
        acknowledged_before += written.iter().filter(|(_, at)| *at < began).count();
        acknowledged_during += written.iter().filter(|(_, at)| *at >= began).count();
    }

    // Files: the ones before the load by the links issued then (the link key
    // came along), the video by its key, all byte-exact.
    for ((id, url), (kept_id, content)) in links.iter().zip(&kept) {
        assert_eq!(id, kept_id);
        let url = url.replace("http://127.0.0.1:8080", &restored.base);
        let (status, bytes) = client.download(&url, false).await;
        assert_eq!(status, 200, "file {id} by its link");
        assert!(bytes == *content, "file {id} differs after the restore");
    }
    let (status, bytes) = client
        .download(
            &video_url.replace("http://127.0.0.1:8080", &restored.base),
            false,
        )
        .await;
    assert_eq!((status, bytes == video), (200, true), "the video");

    // The load's documents: each listed one whole; each acknowledged before the
    // backup there unless its delete was acknowledged before it too.
    let listed: HashSet<i64> = client
        .get(&format!("/api/file/get-files?idRelated={model}"))
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_i64().unwrap())
        .collect();
    let uploaded = std::mem::take(&mut *load.uploaded.lock().unwrap());
    for id in &listed {
        let content = match uploaded.get(id) {
            Some(record) => &record.content,
            None => {
                &kept
                    .iter()
                    .find(|(k, _)| k == id)
                    .expect("a file nobody uploaded")
                    .1
            }
        };
        let (status, bytes) = client
            .download(&format!("{}/api/file/download/{id}", restored.base), true)
            .await;
        assert_eq!(status, 200, "listed file {id} has no blob");
        assert!(bytes == *content, "file {id} differs after the restore");
    }
    let mut files_before = 0;
    for (id, record) in uploaded.iter().filter(|(_, r)| r.saved < began) {
        files_before += 1;
        match record.deleted {
            Some(at) if at < began => assert!(!listed.contains(id), "deleted file {id} is back"),
            Some(_) => {}
            None => assert!(
                listed.contains(id),
                "file {id}, acknowledged before the backup, lost"
            ),
        }
    }
    println!(
        "backup: `portal backup` took {:.2} s under load ({}); {acknowledged_before} writes and {files_before} uploads acknowledged before it began, all restored (0 lost); {acknowledged_during} more acknowledged while it ran; {} files listed after the restore, each byte-exact",
        took.as_secs_f64(),
        summary.trim(),
        listed.len(),
    );
    restored.stop().await;

    // A damaged backup is refused before anything is written.
    let blob = manifest["files"][0]["path"].as_str().unwrap();
    let mut bytes = std::fs::read(backup_dir.join(blob)).unwrap();
    bytes[100] ^= 1;
    std::fs::write(backup_dir.join(blob), bytes).unwrap();
    let target = root.path().join("from-damaged");
    let refused = run(&target, &["restore", backup_dir.to_str().unwrap()]).await;
    assert!(
        stderr(&refused).contains("the backup is damaged"),
        "{}",
        stderr(&refused)
    );
    assert!(
        !target.exists(),
        "a refused restore wrote {}",
        target.display()
    );
}

#[tokio::test]
async fn postgresql_is_left_to_its_own_tools() {
    let root = tempfile::tempdir().unwrap();
    let mut command = portal_command(root.path());
    command
        .env("PORTAL_DATABASE_URL", "postgres://portal@db/auth")
        .args(["backup", root.path().join("b").to_str().unwrap()]);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("pg_dump") && message.contains("CloudNativePG"),
        "{message}"
    );
    assert!(!root.path().join("b").exists());
}
