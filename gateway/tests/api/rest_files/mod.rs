//! Every file-saver call of spec §7 over REST, and the download URL: the
//! envelope, uploads refused (empty, no file, too big while streaming, forged
//! type), odd names, a byte-exact 50 MB download, Range requests, an upload
//! slower than the call time-out, who reads a document (whom the wiki
//! shows its equipment model), and download links that need no token.

mod downloads;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use crate::support::{Portal, Post, envelope, error, failed, start, succeeded};
use portal_kit::Right;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

/// The model the documents here belong to: the first of a fresh wiki, with a
/// unit in [`WARD`].
const MODEL: &str = "1";
const WARD: i64 = 1;
const OTHER_WARD: i64 = 2;
const MIB: usize = 1024 * 1024;

/// A portal whose documents may reach 64 MiB and videos 1 MiB, with [`MODEL`].
async fn portal() -> Portal {
    let portal = start(&["--files-max-document-mib=64", "--files-max-video-mib=1"]).await;
    let model = deployed_model(&portal, WARD).await;
    assert_eq!(model.to_string(), MODEL);
    portal
}

/// A new model with one unit in `ward`, made over REST; its id.
async fn deployed_model(portal: &Portal, ward: i64) -> i64 {
    let editor = editor(portal);
    let create = |path: &'static str, json: Value| {
        let editor = &editor;
        async move {
            let post = Post {
                json: Some(json),
                token: Some(editor),
                ..Post::default()
            };
            let (status, _, body) = portal.post(path, post).await;
            assert_eq!(status, 200, "{path}: {body}");
            envelope(&body)["data"].clone()
        }
    };
    let model = create(
        "/api/environment-model/create",
        json!({
            "name": format!("Аппарат ИВЛ, отделение {ward}"),
            "brandName": "Dräger",
            "description": "Аппарат искусственной вентиляции лёгких",
        }),
    )
    .await;
    create(
        "/api/environment/create",
        json!({
            "environmentModelId": model["id"],
            "departmentDeployment": ward,
            "serialNumber": format!("SN-{ward}-{}", model["id"]),
            "inventoryNumber": format!("ИН-{ward}-{}", model["id"]),
        }),
    )
    .await;
    model["id"].as_i64().expect("model id")
}

fn pdf(size: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..size.saturating_sub(bytes.len())).map(|i| (i * 31 % 253) as u8));
    bytes.truncate(size);
    bytes
}

fn mp4(size: usize) -> Vec<u8> {
    let mut bytes = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
    bytes.extend((0..size.saturating_sub(bytes.len())).map(|i| (i * 13 % 241) as u8));
    bytes.truncate(size);
    bytes
}

fn editor(portal: &Portal) -> String {
    portal.token(5, &[Right::EquipmentEditing])
}

fn document_form(id_related: &str, name: &str, content: Vec<u8>) -> Form {
    Form::new()
        .text("idRelated", id_related.to_owned())
        .text("title", "")
        .part("file", Part::bytes(content).file_name(name.to_owned()))
}

async fn upload(portal: &Portal, path: &str, token: Option<&str>, form: Form) -> (u16, Value) {
    let mut request = portal
        .http
        .post(format!("{}{path}", portal.base))
        .multipart(form);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("upload answered");
    let status = response.status().as_u16();
    (status, envelope(&response.text().await.unwrap()))
}

fn refused(expected: u16, (status, body): (u16, Value)) -> String {
    assert_eq!(status, expected, "{body}");
    failed(&body)
}

fn saved((status, body): (u16, Value)) -> Value {
    assert_eq!(status, 200, "{body}");
    succeeded(&body)
}

/// Files under the blob directory (`<data dir>/files`), part files included.
fn stored_files(portal: &Portal) -> usize {
    fn count(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir).map_or(0, |entries| {
            entries
                .flatten()
                .map(|e| {
                    if e.path().is_dir() {
                        count(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
    }
    count(&portal.data.path().join("files"))
}

async fn download(
    portal: &Portal,
    url: &str,
    token: Option<&str>,
    range: Option<&str>,
) -> reqwest::Response {
    let mut request = portal.http.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(range) = range {
        request = request.header("range", range);
    }
    request.send().await.expect("download answered")
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test]
async fn every_file_saver_route_answers_in_the_envelope() {
    let portal = portal().await;
    let editor = editor(&portal);
    let learner = portal.token_in(50, &[], &[WARD]);

    let data = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form(MODEL, "Паспорт.pdf", pdf(1000)),
        )
        .await,
    );
    let id = data["id"].as_i64().expect("id");
    let url = data["url"].as_str().expect("url").to_owned();
    assert_eq!(url, format!("http://127.0.0.1:8080/api/file/download/{id}"));

    let (status, _, body) = portal
        .get(
            &format!("/api/file/get-files?idRelated={MODEL}"),
            Some(&learner),
        )
        .await;
    let files = crate::support::data(status, &body);
    assert_eq!(files.as_array().map(Vec::len), Some(1), "{files}");
    assert_eq!(files[0]["id"], id);
    assert_eq!(files[0]["title"], "Паспорт.pdf");
    let listed = files[0]["url"].as_str().expect("url");
    assert!(listed.starts_with(&format!("{url}?link=")), "{listed}");
    let (status, _, body) = portal
        .get("/api/file/get-files?idRelated=999", Some(&learner))
        .await;
    assert_eq!(refused(404, (status, envelope(&body))), "Файл не найден");
    let (status, _, body) = portal
        .get("/api/file/get-files?idRelated=x", Some(&learner))
        .await;
    assert_eq!(status, 400, "{body}");

    let local = format!("{}/api/file/download/{id}", portal.base);
    let response = download(&portal, &local, Some(&learner), None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(header(&response, "content-type"), "application/pdf");
    assert_eq!(header(&response, "x-content-type-options"), "nosniff");
    assert_eq!(header(&response, "accept-ranges"), "bytes");
    assert_eq!(
        header(&response, "content-disposition"),
        "inline; filename=\"_______.pdf\"; filename*=UTF-8''%D0%9F%D0%B0%D1%81%D0%BF%D0%BE%D1%80%D1%82.pdf"
    );
    assert_eq!(
        response.bytes().await.unwrap().as_ref(),
        pdf(1000).as_slice()
    );

    let video = saved(
        upload(
            &portal,
            "/api/video/save",
            Some(&editor),
            Form::new().part("video", Part::bytes(mp4(5000)).file_name("обход.mp4")),
        )
        .await,
    );
    let video_url = video["savedVideoUrl"].as_str().expect("savedVideoUrl");
    assert!(
        video_url.starts_with("http://127.0.0.1:8080/api/file/download/"),
        "{video_url}"
    );

    let delete = |token: String| {
        let portal = &portal;
        async move {
            let post = Post {
                json: Some(json!({ "id": id })),
                token: Some(&token),
                ..Post::default()
            };
            let (status, _, body) = portal.post("/api/file/delete", post).await;
            (status, envelope(&body))
        }
    };
    assert_eq!(
        refused(403, delete(learner.clone()).await),
        "У вас нет доступа к данному ресурсу"
    );
    saved(delete(editor.clone()).await);
    assert_eq!(refused(404, delete(editor.clone()).await), "Файл не найден");
    assert_eq!(
        download(&portal, &local, Some(&learner), None)
            .await
            .status()
            .as_u16(),
        404
    );

    let (_, _, document) = portal.get("/api/openapi.json", None).await;
    for path in [
        "/api/file/get-files",
        "/api/file/save",
        "/api/file/delete",
        "/api/file/download/{id}",
        "/api/video/save",
    ] {
        assert!(
            document.contains(&format!("\"{path}\"")),
            "{path} in the API document"
        );
    }
}

#[tokio::test]
async fn uploads_without_a_file_a_known_model_or_rights_are_refused_and_nothing_is_kept() {
    let portal = portal().await;
    let editor = editor(&portal);
    let save = "/api/file/save";

    let empty = document_form(MODEL, "empty.pdf", Vec::new());
    assert_eq!(
        refused(400, upload(&portal, save, Some(&editor), empty).await),
        "Файл пуст"
    );
    let no_file = Form::new().text("idRelated", MODEL);
    assert_eq!(
        refused(400, upload(&portal, save, Some(&editor), no_file).await),
        "Не выбран файл"
    );
    // What a browser sends for a file input left empty.
    let unchosen = Form::new()
        .text("idRelated", MODEL)
        .part("file", Part::bytes(Vec::new()).file_name(""));
    assert_eq!(
        refused(400, upload(&portal, save, Some(&editor), unchosen).await),
        "Не выбран файл"
    );
    let no_video = Form::new().text("title", "x");
    assert_eq!(
        refused(
            400,
            upload(&portal, "/api/video/save", Some(&editor), no_video).await
        ),
        "Не выбран файл"
    );
    let no_model = document_form("", "a.pdf", pdf(10));
    assert_eq!(
        refused(400, upload(&portal, save, Some(&editor), no_model).await),
        "Некорректное поле формы"
    );
    let model_after_file = Form::new()
        .part("file", Part::bytes(pdf(10)).file_name("a.pdf"))
        .text("idRelated", MODEL);
    assert_eq!(
        refused(
            400,
            upload(&portal, save, Some(&editor), model_after_file).await
        ),
        "Не указано оборудование, к которому относится документ"
    );
    let json_body = Post {
        json: Some(json!({ "idRelated": 7 })),
        token: Some(&editor),
        ..Post::default()
    };
    let (status, _, body) = portal.post(save, json_body).await;
    assert_eq!(
        error(400, status, &body),
        "Ожидается форма multipart/form-data с файлом"
    );

    let unknown_model = document_form("999", "a.pdf", pdf(MIB));
    assert_eq!(
        refused(
            404,
            upload(&portal, save, Some(&editor), unknown_model).await
        ),
        "Модель оборудования, к которой относится документ, не найдена"
    );

    let form = || document_form(MODEL, "a.pdf", pdf(10));
    assert_eq!(
        refused(401, upload(&portal, save, None, form()).await),
        "Требуется вход в систему"
    );
    let learner = portal.token(50, &[]);
    refused(403, upload(&portal, save, Some(&learner), form()).await);
    let educator = portal.token(51, &[Right::EducationManagement]);
    refused(403, upload(&portal, save, Some(&educator), form()).await);
    assert_eq!(stored_files(&portal), 0);
}

#[tokio::test]
async fn a_forged_type_is_refused_and_a_misnamed_one_stored_as_what_it_is() {
    let portal = portal().await;
    let editor = editor(&portal);
    let executable = b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff\0\0 program".to_vec();
    let page = b"<!DOCTYPE html><script>fetch('/api/auth/logout')</script>".to_vec();
    for forged in [executable, page] {
        let message = refused(
            400,
            upload(
                &portal,
                "/api/file/save",
                Some(&editor),
                document_form(MODEL, "manual.pdf", forged),
            )
            .await,
        );
        assert!(
            message.starts_with("Этот тип файла нельзя загрузить"),
            "{message}"
        );
    }
    let not_a_video = Form::new().part(
        "video",
        Part::bytes(pdf(100))
            .file_name("clip.mp4")
            .mime_str("video/mp4")
            .unwrap(),
    );
    let message = refused(
        400,
        upload(&portal, "/api/video/save", Some(&editor), not_a_video).await,
    );
    assert!(message.starts_with("Файл не является видео"), "{message}");
    assert_eq!(stored_files(&portal), 0);

    let text = "Инв. №;Модель\n1;ИВЛ\n".as_bytes().to_vec();
    let data = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form(MODEL, "список.pdf", text.clone()),
        )
        .await,
    );
    let url = format!("{}/api/file/download/{}", portal.base, data["id"]);
    let response = download(&portal, &url, Some(&editor), None).await;
    assert_eq!(
        header(&response, "content-type"),
        "text/plain; charset=utf-8"
    );
    assert!(header(&response, "content-disposition").starts_with("attachment;"));
    assert!(header(&response, "content-disposition").ends_with(".pdf.txt"));
    assert_eq!(header(&response, "x-content-type-options"), "nosniff");
    assert_eq!(response.bytes().await.unwrap().as_ref(), text.as_slice());
}

#[tokio::test]
async fn odd_names_are_stored_as_safe_names() {
    let portal = portal().await;
    let editor = editor(&portal);
    let long = format!("{}.pdf", "Инструкция по эксплуатации ".repeat(12));
    assert!(long.chars().count() >= 300);
    let cases = [
        ("../../../etc/passwd.pdf", "passwd.pdf"),
        ("..\\..\\Windows\\win.ini.pdf", "win.ini.pdf"),
        ("Руководство «Дрегер» №2.pdf", "Руководство «Дрегер» №2.pdf"),
        ("name\u{202E}fdp.exe", "namefdp.exe.pdf"),
    ];
    for (offered, expected) in cases {
        let data = saved(
            upload(
                &portal,
                "/api/file/save",
                Some(&editor),
                document_form(MODEL, offered, pdf(50)),
            )
            .await,
        );
        let url = format!("{}/api/file/download/{}", portal.base, data["id"]);
        let response = download(&portal, &url, Some(&editor), None).await;
        let disposition = header(&response, "content-disposition").to_owned();
        let encoded = disposition
            .split("filename*=UTF-8''")
            .nth(1)
            .expect("filename*");
        let decoded = percent_decode(encoded);
        assert_eq!(decoded, expected, "{offered}");
    }
    let data = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form(MODEL, &long, pdf(50)),
        )
        .await,
    );
    let (status, _, body) = portal
        .get(
            &format!("/api/file/get-files?idRelated={MODEL}"),
            Some(&editor),
        )
        .await;
    let files = crate::support::data(status, &body);
    let last = files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == data["id"])
        .unwrap();
    let title = last["title"].as_str().unwrap();
    assert!(
        title.chars().count() <= 120 && title.ends_with(".pdf"),
        "{title}"
    );
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn an_oversized_upload_is_refused_while_it_streams_and_nothing_is_kept() {
    let portal = portal().await;
    let editor = editor(&portal);
    // 64 MiB offered against the 1 MiB video limit, counted as it is read.
    let total = 64 * MIB;
    let sent = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&sent);
    let head = mp4(64 * 1024);
    let pieces = (0..total / (64 * 1024)).map(move |i| {
        counter.fetch_add(64 * 1024, Ordering::Relaxed);
        Ok::<_, std::io::Error>(if i == 0 {
            head.clone()
        } else {
            vec![7u8; 64 * 1024]
        })
    });
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(pieces));
    let form = Form::new().part(
        "video",
        Part::stream_with_length(body, total as u64).file_name("long.mp4"),
    );
    let response = portal
        .http
        .post(format!("{}/api/video/save", portal.base))
        .bearer_auth(&editor)
        .multipart(form)
        .send()
        .await;
    match response {
        Ok(response) => {
            assert_eq!(response.status().as_u16(), 413);
            let body = envelope(&response.text().await.unwrap());
            assert_eq!(failed(&body), "Файл слишком большой: можно не больше 1 МБ");
        }
        // The gateway may close the connection before the client reads the answer.
        Err(error) => assert!(error.is_request() || error.is_body(), "{error}"),
    }
    let read = sent.load(Ordering::Relaxed) as usize;
    assert!(read < total / 2, "refused after {read} of {total} bytes");
    assert_eq!(stored_files(&portal), 0);

    // A document over its own limit too.
    let data = document_form(MODEL, "big.pdf", pdf(64 * MIB + 1));
    refused(
        413,
        upload(&portal, "/api/file/save", Some(&editor), data).await,
    );
    assert_eq!(stored_files(&portal), 0);
}

#[tokio::test]
async fn an_upload_slower_than_the_call_time_out_is_saved_whole() {
    let portal = start(&["--upstream-call-timeout=1"]).await;
    let model = deployed_model(&portal, WARD).await;
    let editor = editor(&portal);
    // 2 MiB arriving in eight pieces over about 2.4 s.
    let content = pdf(2 * MIB);
    let pieces: Vec<Vec<u8>> = content.chunks(MIB / 4).map(<[u8]>::to_vec).collect();
    let trickle = futures_util::stream::iter(pieces).then(|piece| async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok::<_, std::io::Error>(piece)
    });
    let form = Form::new().text("idRelated", model.to_string()).part(
        "file",
        Part::stream(reqwest::Body::wrap_stream(trickle)).file_name("slow.pdf"),
    );
    let started = Instant::now();
    let data = saved(upload(&portal, "/api/file/save", Some(&editor), form).await);
    assert!(started.elapsed() >= Duration::from_secs(2));
    let local = format!("{}/api/file/download/{}", portal.base, data["id"]);
    let response = download(&portal, &local, Some(&editor), None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert!(response.bytes().await.unwrap() == content);
}

/// Issue 19: clients that write a large file in one go made the gateway pass
/// pieces of many megabytes on to the files service, which refuses a message
/// over 4 MiB and a chunk over 1 MiB; the gateway cuts them to the protocol's size.
#[tokio::test]
async fn a_document_sent_in_one_32_mib_frame_is_saved_byte_exact() {
    let portal = portal().await;
    let editor = editor(&portal);
    let content = pdf(32 * MIB + 17);
    let mut form = format!(
        "--cut\r\nContent-Disposition: form-data; name=\"idRelated\"\r\n\r\n{MODEL}\r\n\
         --cut\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.pdf\"\r\n\
         Content-Type: application/pdf\r\n\r\n"
    )
    .into_bytes();
    form.extend_from_slice(&content);
    form.extend_from_slice(b"\r\n--cut--\r\n");
    let one_frame = futures_util::stream::once(async move { Ok::<_, std::io::Error>(form) });
    let response = portal
        .http
        .post(format!("{}/api/file/save", portal.base))
        .bearer_auth(&editor)
        .header("content-type", "multipart/form-data; boundary=cut")
        .body(reqwest::Body::wrap_stream(one_frame))
        .send()
        .await
        .expect("upload answered");
    let status = response.status().as_u16();
    let data = saved((status, envelope(&response.text().await.unwrap())));
    let url = format!("{}/api/file/download/{}", portal.base, data["id"]);
    let response = download(&portal, &url, Some(&editor), None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert!(response.bytes().await.unwrap() == content, "byte-exact");
}
