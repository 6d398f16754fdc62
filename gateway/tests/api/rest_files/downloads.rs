//! Downloads over REST: byte-exact large files, ranges, who reads a document,
//! videos by key, and download links that need no token.

use super::*;
use crate::support::{Post, envelope, failed};
use portal_kit::Right;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::time::Duration;

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
            document_form(MODEL, "big.pdf", content.clone()),
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
        failed(&body),
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
            document_form(MODEL, "d.pdf", pdf(100)),
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

/// Issue 12: a nurse of wards 1 and 2 opened a model deployed only in ward 3.
#[tokio::test]
async fn a_nurse_reads_no_document_of_a_model_outside_her_wards() {
    let portal = portal().await;
    let editor = editor(&portal);
    let elsewhere = deployed_model(&portal, 3).await;
    let document = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form(&elsewhere.to_string(), "Руководство.pdf", pdf(300)),
        )
        .await,
    );
    let nurse = portal.token_in(60, &[], &[WARD, OTHER_WARD]);
    let list = format!("/api/file/get-files?idRelated={elsewhere}");
    let url = format!("{}/api/file/download/{}", portal.base, document["id"]);

    let (status, _, body) = portal.get(&list, Some(&nurse)).await;
    assert_eq!(refused(404, (status, envelope(&body))), "Файл не найден");
    let response = download(&portal, &url, Some(&nurse), None).await;
    assert_eq!(response.status().as_u16(), 404);
    let (status, _, body) = portal
        .get(
            &format!("/api/environment-model/get-by-id?environmentModelId={elsewhere}"),
            Some(&nurse),
        )
        .await;
    assert_eq!(status, 404, "the wiki hides the model too: {body}");

    // Her own ward's documents, and an editor every one.
    let (status, _, body) = portal
        .get(
            &format!("/api/file/get-files?idRelated={MODEL}"),
            Some(&nurse),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = portal.get(&list, Some(&editor)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(envelope(&body)["data"][0]["id"], document["id"]);
    let response = download(&portal, &url, Some(&editor), None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.bytes().await.unwrap().as_ref(),
        pdf(300).as_slice()
    );
}

/// Spec §2: a document's title links to its download address, opened in a new
/// tab, where no token goes: the link in the URL get-files gave is enough.
#[tokio::test]
async fn a_listed_documents_url_downloads_without_a_token_under_its_title() {
    let portal = portal().await;
    let editor = editor(&portal);
    let learner = portal.token_in(50, &[], &[WARD]);
    let form = Form::new()
        .text("idRelated", MODEL)
        .text("title", "Паспорт ИВЛ «Дрегер»")
        .part("file", Part::bytes(pdf(5000)).file_name("scan.pdf"));
    let saved = saved(upload(&portal, "/api/file/save", Some(&editor), form).await);
    let files = crate::support::get_data(
        &portal,
        &format!("/api/file/get-files?idRelated={MODEL}"),
        &learner,
    )
    .await;
    let url = files[0]["url"].as_str().expect("url");
    let expected = format!(
        "http://127.0.0.1:8080/api/file/download/{}?link=50.",
        saved["id"]
    );
    assert!(url.starts_with(&expected), "{url}");
    let local = url.replace("http://127.0.0.1:8080", &portal.base);

    let response = download(&portal, &local, None, None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(header(&response, "content-type"), "application/pdf");
    let disposition = header(&response, "content-disposition").to_owned();
    assert!(disposition.starts_with("inline;"), "{disposition}");
    let encoded = disposition
        .split("filename*=UTF-8''")
        .nth(1)
        .expect("filename*");
    assert_eq!(percent_decode(encoded), "Паспорт ИВЛ «Дрегер».pdf");
    assert_eq!(
        response.bytes().await.unwrap().as_ref(),
        pdf(5000).as_slice()
    );
    // A range through the link, as a PDF viewer asks.
    let response = download(&portal, &local, None, Some("bytes=0-8")).await;
    assert_eq!(response.status().as_u16(), 206);
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"%PDF-1.7\n");

    // A changed link is as unknown as a hidden file; an expired one says so.
    let (address, link) = local.split_once("?link=").expect("a link");
    let mut tampered = link.as_bytes().to_vec();
    let last = tampered.len() - 1;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{address}?link={}", String::from_utf8(tampered).unwrap());
    let response = download(&portal, &tampered, None, None).await;
    assert_eq!(response.status().as_u16(), 404);
    assert_eq!(
        failed(&envelope(&response.text().await.unwrap())),
        "Файл не найден"
    );
    let keys = portal_files::app::links::LinkKeys::from_file(
        &portal.data.path().join("files-link.key"),
        Duration::from_secs(900),
    )
    .expect("the key `all` generated");
    let id = saved["id"].as_i64().expect("id");
    let expired = keys
        .issue(
            id,
            portal_files::app::links::Issued {
                issued_to: 50,
                version: 0,
                expires_at: 1_000_000_000,
            },
        )
        .token;
    let response = download(&portal, &format!("{address}?link={expired}"), None, None).await;
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(
        failed(&envelope(&response.text().await.unwrap())),
        "Ссылка на документ устарела: откройте его снова со страницы оборудования"
    );
    // The bearer token still works on the plain address.
    let plain = format!("{}/api/file/download/{id}", portal.base);
    let response = download(&portal, &plain, Some(&learner), None).await;
    assert_eq!(response.status().as_u16(), 200);
}

/// Issue 19: a range asked `If-Range` another version of the file is the
/// whole file (RFC 9110 §13.1.5); the same version's range is the range.
/// Either way one download through a link is one call of the files service,
/// so one record in the audit log.
#[tokio::test]
async fn a_range_for_another_version_of_the_file_is_the_whole_file() {
    let portal = portal().await;
    let editor = editor(&portal);
    let content = pdf(10_000);
    let data = saved(
        upload(
            &portal,
            "/api/file/save",
            Some(&editor),
            document_form(MODEL, "d.pdf", content.clone()),
        )
        .await,
    );
    let id = data["id"].as_i64().expect("id");
    let files = crate::support::get_data(
        &portal,
        &format!("/api/file/get-files?idRelated={MODEL}"),
        &editor,
    )
    .await;
    let link = files[0]["url"]
        .as_str()
        .expect("a download link")
        .replace("http://127.0.0.1:8080", &portal.base);
    let etag = format!("\"{}\"", hex::encode(Sha256::digest(&content)));
    let ask = |if_range: String| {
        let (portal, link) = (&portal, &link);
        async move {
            let response = portal
                .http
                .get(link)
                .header("range", "bytes=100-199")
                .header("if-range", if_range)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let has_range = response.headers().contains_key("content-range");
            (status, has_range, response.bytes().await.unwrap().to_vec())
        }
    };
    assert_eq!(
        ask(etag.clone()).await,
        (206, true, content[100..200].to_vec())
    );
    let others = [
        "\"0000\"".to_owned(),
        format!("W/{etag}"),
        "Wed, 21 Oct 2015 07:28:00 GMT".to_owned(),
    ];
    for other in &others {
        assert_eq!(
            ask(other.clone()).await,
            (200, false, content.clone()),
            "{other}"
        );
    }

    let admin = portal.token(1, &[Right::UserManagement]);
    let page = crate::support::get_data(
        &portal,
        &format!("/api/audit/get-records?entity=document&entityId={id}&action=download"),
        &admin,
    )
    .await;
    assert_eq!(
        page["total"],
        1 + others.len(),
        "one record a download: {page}"
    );
    let ranges: Vec<&Value> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|record| record["changes"].as_array())
        .flatten()
        .filter(|change| change["field"] == "range")
        .map(|change| &change["new"])
        .collect();
    // Newest first: the whole file three times, then the range.
    let whole = json!({ "offset": 0, "length": content.len() });
    let range = json!({ "offset": 100, "length": 100 });
    assert_eq!(
        ranges,
        [&whole, &whole, &whole, &range],
        "what was sent: {page}"
    );
}

/// Issue 19: video ids are sequential, so an anonymous viewer opens a video by
/// the unguessable key in its URL, never by its id alone; signed-in people
/// still open it by its id.
#[tokio::test]
async fn an_anonymous_viewer_opens_a_video_by_its_key_not_its_id() {
    let portal = portal().await;
    let editor = editor(&portal);
    let video = saved(
        upload(
            &portal,
            "/api/video/save",
            Some(&editor),
            Form::new().part("video", Part::bytes(mp4(3000)).file_name("v.mp4")),
        )
        .await,
    );
    let url = video["savedVideoUrl"]
        .as_str()
        .unwrap()
        .replace("http://127.0.0.1:8080", &portal.base);
    let (by_id, key) = url.split_once("?key=").expect("a key in the URL");
    assert!(
        key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "{key}"
    );

    let response = download(&portal, &url, None, None).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.bytes().await.unwrap().as_ref(),
        mp4(3000).as_slice()
    );
    let response = download(&portal, by_id, None, None).await;
    assert_eq!(response.status().as_u16(), 401);
    let wrong = format!("{by_id}?key={}", "0".repeat(32));
    assert_eq!(
        download(&portal, &wrong, None, None)
            .await
            .status()
            .as_u16(),
        401
    );
    let learner = portal.token(50, &[]);
    let response = download(&portal, by_id, Some(&learner), None).await;
    assert_eq!(response.status().as_u16(), 200);
}

/// Issue 37: a shared ward PC's history keeps the document links a session
/// was given; signing out ends them with the session.
#[tokio::test]
async fn signing_out_ends_the_document_links_the_session_was_given() {
    let portal = portal().await;
    let form = document_form(MODEL, "scan.pdf", pdf(2000));
    saved(upload(&portal, "/api/file/save", Some(&editor(&portal)), form).await);
    // The admin signs in as a browser does: a token of their access version,
    // and the session's refresh cookie.
    let (status, headers, body) = portal
        .post(
            "/api/auth/login",
            Post {
                json: Some(json!({"login": "admin", "password": crate::support::ADMIN_PASSWORD})),
                ..Post::default()
            },
        )
        .await;
    let token = crate::support::data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let refresh = headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(|cookie| cookie.strip_prefix("portal_refresh="))
        .and_then(|cookie| cookie.split(';').next())
        .expect("the session's cookie")
        .to_owned();
    let files = crate::support::get_data(
        &portal,
        &format!("/api/file/get-files?idRelated={MODEL}"),
        &token,
    )
    .await;
    let link = files[0]["url"]
        .as_str()
        .unwrap()
        .replace("http://127.0.0.1:8080", &portal.base);
    assert_eq!(download(&portal, &link, None, None).await.status(), 200);

    let (status, _, body) = portal
        .post(
            "/api/auth/logout",
            Post {
                token: Some(&token),
                refresh_cookie: Some(&refresh),
                origin: Some(&portal.base),
                ..Post::default()
            },
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // The files service learns of it within a second or two.
    let refused = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let response = download(&portal, &link, None, None).await;
            if response.status() == 401 {
                break failed(&envelope(&response.text().await.unwrap()));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the link still opens after sign-out");
    assert_eq!(
        refused,
        "Ссылка на документ больше не действует: сеанс, в котором её открыли, завершён. Войдите и откройте документ снова"
    );
    portal.running.stop().await.unwrap();
}
