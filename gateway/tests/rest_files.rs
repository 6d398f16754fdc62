//! Every file-saver call of spec §7 over REST, and the download URL: the
//! envelope, uploads refused (empty, no file, too big while streaming, forged
//! type), odd names, a byte-exact 50 MB download, and Range requests.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use portal_kit::Right;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::{Portal, Post, envelope, start};

const MODEL: i64 = 7;
const MIB: usize = 1024 * 1024;

/// A portal whose documents may reach 64 MiB and videos 1 MiB.
async fn portal() -> Portal {
    start(&["--files-max-document-mib=64", "--files-max-video-mib=1"]).await
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
    assert_eq!(body["success"], false, "{body}");
    body["errorMessage"].as_str().unwrap_or_default().to_owned()
}

fn saved((status, body): (u16, Value)) -> Value {
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], true, "{body}");
    body["data"].clone()
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
    let learner = portal.token(50, &[]);

    let data = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form("7", "Паспорт.pdf", pdf(1000)),
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
    assert_eq!(status, 200, "{body}");
    let files = envelope(&body)["data"].clone();
    assert_eq!(files.as_array().map(Vec::len), Some(1), "{files}");
    assert_eq!(files[0]["id"], id);
    assert_eq!(files[0]["title"], "Паспорт.pdf");
    assert_eq!(files[0]["url"], url.as_str());
    let (status, _, body) = portal
        .get("/api/file/get-files?idRelated=8", Some(&learner))
        .await;
    assert_eq!((status, envelope(&body)["data"].clone()), (200, json!([])));
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
    let (status, body) = delete(editor.clone()).await;
    assert_eq!(
        (status, body["success"].clone()),
        (200, json!(true)),
        "{body}"
    );
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
async fn uploads_without_a_file_or_rights_are_refused_and_nothing_is_kept() {
    let portal = portal().await;
    let editor = editor(&portal);
    let save = "/api/file/save";

    let empty = document_form("7", "empty.pdf", Vec::new());
    assert_eq!(
        refused(400, upload(&portal, save, Some(&editor), empty).await),
        "Файл пуст"
    );
    let no_file = Form::new().text("idRelated", "7");
    assert_eq!(
        refused(400, upload(&portal, save, Some(&editor), no_file).await),
        "Не выбран файл"
    );
    // What a browser sends for a file input left empty.
    let unchosen = Form::new()
        .text("idRelated", "7")
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
        .text("idRelated", "7");
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
        (status, envelope(&body)["errorMessage"].clone()),
        (400, json!("Ожидается форма multipart/form-data с файлом"))
    );

    let form = || document_form("7", "a.pdf", pdf(10));
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
                document_form("7", "manual.pdf", forged),
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
            document_form("7", "список.pdf", text.clone()),
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
                document_form("7", offered, pdf(50)),
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
            document_form("7", &long, pdf(50)),
        )
        .await,
    );
    let (_, _, body) = portal
        .get("/api/file/get-files?idRelated=7", Some(&editor))
        .await;
    let files = envelope(&body)["data"].clone();
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
            assert_eq!(
                body["errorMessage"],
                "Файл слишком большой: можно не больше 1 МБ"
            );
        }
        // The gateway may close the connection before the client reads the answer.
        Err(error) => assert!(error.is_request() || error.is_body(), "{error}"),
    }
    let read = sent.load(Ordering::Relaxed) as usize;
    assert!(read < total / 2, "refused after {read} of {total} bytes");
    assert_eq!(stored_files(&portal), 0);

    // A document over its own limit too.
    let data = document_form("7", "big.pdf", pdf(64 * MIB + 1));
    refused(
        413,
        upload(&portal, "/api/file/save", Some(&editor), data).await,
    );
    assert_eq!(stored_files(&portal), 0);
}

#[tokio::test]
async fn a_50_mb_document_downloads_byte_exact_and_ranges_slice_it() {
    let portal = portal().await;
    let editor = editor(&portal);
    let content = pdf(50 * 1000 * 1000);
    let data = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form("7", "big.pdf", content.clone()),
        )
        .await,
    );
    let url = format!("{}/api/file/download/{}", portal.base, data["id"]);

    let response = download(&portal, &url, Some(&editor), None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(header(&response, "content-length"), "50000000");
    assert_eq!(
        header(&response, "etag"),
        format!("\"{}\"", hex::encode(Sha256::digest(&content)))
    );
    let body = response.bytes().await.unwrap();
    assert!(body.as_ref() == content.as_slice(), "byte-exact");

    let cases = [
        ("bytes=0-99", 0..100),
        ("bytes=25000000-25999999", 25_000_000..26_000_000),
        ("bytes=-1000", 49_999_000..50_000_000),
        ("bytes=49999990-", 49_999_990..50_000_000),
    ];
    for (range, expected) in cases {
        let response = download(&portal, &url, Some(&editor), Some(range)).await;
        assert_eq!(response.status().as_u16(), 206, "{range}");
        assert_eq!(
            header(&response, "content-range"),
            format!("bytes {}-{}/50000000", expected.start, expected.end - 1)
        );
        assert_eq!(
            header(&response, "content-length"),
            (expected.end - expected.start).to_string()
        );
        assert!(
            response.bytes().await.unwrap().as_ref() == &content[expected],
            "{range}"
        );
    }
    let response = download(&portal, &url, Some(&editor), Some("bytes=50000000-")).await;
    assert_eq!(response.status().as_u16(), 416);
    assert_eq!(header(&response, "content-range"), "bytes */50000000");
    let body = envelope(&response.text().await.unwrap());
    assert_eq!(
        body["errorMessage"],
        "Запрошенный диапазон байтов лежит за концом файла"
    );
    // A range it cannot read is ignored: the whole file.
    let response = download(&portal, &url, Some(&editor), Some("bytes=0-1,5-9")).await;
    assert_eq!(
        (
            response.status().as_u16(),
            header(&response, "content-length")
        ),
        (200, "50000000")
    );
}

#[tokio::test]
async fn videos_play_without_sign_in_and_documents_need_it() {
    let portal = portal().await;
    let editor = editor(&portal);
    let video = saved(
        upload(
            &portal,
            "/api/video/save",
            Some(&editor),
            Form::new().part("video", Part::bytes(mp4(20_000)).file_name("v.mp4")),
        )
        .await,
    );
    let document = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form("7", "d.pdf", pdf(100)),
        )
        .await,
    );
    let local = |url: &Value| {
        url.as_str()
            .unwrap()
            .replace("http://127.0.0.1:8080", &portal.base)
    };

    let response = download(
        &portal,
        &local(&video["savedVideoUrl"]),
        None,
        Some("bytes=100-199"),
    )
    .await;
    assert_eq!(response.status().as_u16(), 206);
    assert_eq!(header(&response, "content-type"), "video/mp4");
    assert!(header(&response, "content-disposition").starts_with("inline;"));
    // An instruction page of the portal may frame it; nobody else.
    assert_eq!(header(&response, "x-frame-options"), "SAMEORIGIN");
    assert!(header(&response, "content-security-policy").contains("frame-ancestors 'self'"));
    assert_eq!(
        response.bytes().await.unwrap().as_ref(),
        &mp4(20_000)[100..200]
    );

    let response = download(&portal, &local(&document["url"]), None, None).await;
    assert_eq!(response.status().as_u16(), 401);
    let response = download(
        &portal,
        &format!("{}/api/file/download/999", portal.base),
        Some(&editor),
        None,
    )
    .await;
    assert_eq!(response.status().as_u16(), 404);
    let response = download(
        &portal,
        &format!("{}/api/file/download/abc", portal.base),
        Some(&editor),
        None,
    )
    .await;
    assert_eq!(response.status().as_u16(), 400);
}
