//! The statistics as CSV (`/api/test/export-user-test-results`): what Excel
//! needs to open it (BOM, `;`, the RFC 6266 file name), the page's filters,
//! names from auth, formulas neutralised, and the right it needs.

use crate::support::{Portal, Post, data, envelope, failed, get_data, post_data, start};
use serde_json::{Value, json};

const EXPORT: &str = "/api/test/export-user-test-results";

async fn sign_in(portal: &Portal, login: &str) -> String {
    let post = Post {
        json: Some(json!({ "login": login, "password": format!("{login}-demo-password") })),
        ..Post::default()
    };
    let (status, _, body) = portal.post("/api/auth/login", post).await;
    data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The raw answer: status, headers and bytes (the BOM must survive).
async fn export(
    portal: &Portal,
    query: &str,
    token: &str,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    export_encoded(portal, query, token, "identity").await
}

async fn export_encoded(
    portal: &Portal,
    query: &str,
    token: &str,
    encoding: &str,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let response = portal
        .http
        .get(format!("{}{EXPORT}{query}", portal.base))
        .bearer_auth(token)
        .header("accept-encoding", encoding)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

fn lines(bytes: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(bytes).unwrap();
    let text = text
        .strip_prefix('\u{feff}')
        .expect("a byte order mark first");
    text.split_terminator("\r\n").map(str::to_owned).collect()
}

#[tokio::test]
async fn the_educator_downloads_the_filtered_results_as_csv_for_excel_and_a_learner_cannot() {
    let portal = start(&["--seed-demo=true"]).await;
    let educator = sign_in(&portal, "educator").await;

    let (status, headers, bytes) = export(&portal, "?utcOffset=180", &educator).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"statistics-"),
        "{disposition}"
    );
    assert!(
        disposition.contains("filename*=UTF-8''%D0%A1%D1%82%D0%B0"),
        "{disposition}"
    );
    let all = lines(&bytes);
    assert_eq!(
        all[0],
        "Тест;Сотрудник;Отделения;Баллы;Из;Пройден;Дата завершения"
    );
    let results = get_data(&portal, "/api/test/get-all-user-test-result", &educator).await;
    let results = results.as_array().unwrap();
    assert_eq!(all.len(), results.len() + 1, "{all:?}");
    // Names and departments come from auth: no row falls back to a bare id.
    assert!(
        all[1..].iter().all(|line| !line.contains("Сотрудник №")),
        "{all:?}"
    );
    assert!(
        all[1..]
            .iter()
            .all(|line| line.ends_with(|c: char| c.is_ascii_digit())),
        "{all:?}"
    );

    // A browser takes it compressed, as the gateway sends text; the stream ends cleanly.
    let (status, headers, gzipped) =
        export_encoded(&portal, "?utcOffset=180", &educator, "gzip").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "gzip");
    let mut unpacked = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gzipped[..]),
        &mut unpacked,
    )
    .unwrap();
    assert_eq!(lines(&unpacked), all);

    // The page's filters: one test only.
    let test_id = results[0]["test"]["id"].as_i64().unwrap();
    let title = results[0]["test"]["title"].as_str().unwrap();
    let (status, _, bytes) = export(&portal, &format!("?testId={test_id}"), &educator).await;
    assert_eq!(status, 200);
    let one_test = lines(&bytes);
    let expected = results
        .iter()
        .filter(|r| r["test"]["id"].as_i64() == Some(test_id))
        .count();
    assert_eq!(one_test.len(), expected + 1, "{one_test:?}");
    assert!(one_test[1..].iter().all(|line| line.starts_with(title)));

    // A learner is refused with the envelope, before any CSV is sent.
    let nurse = sign_in(&portal, "nurse").await;
    let (status, headers, bytes) = export(&portal, "", &nurse).await;
    assert_eq!(status, 403);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    failed(&envelope(std::str::from_utf8(&bytes).unwrap()));
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn a_title_that_looks_like_a_formula_is_written_as_text() {
    let portal = start(&["--seed-demo=true"]).await;
    let educator = sign_in(&portal, "educator").await;
    let results = get_data(&portal, "/api/test/get-all-user-test-result", &educator).await;
    let test_id = results[0]["test"]["id"].as_i64().unwrap();
    let mut test = get_data(
        &portal,
        &format!("/api/test/get-by-id-full-test?idTest={test_id}"),
        &educator,
    )
    .await;
    test["title"] = json!("=HYPERLINK(\"http://evil\";\"Гигиена\")");
    post_data(&portal, "/api/test/update-test", &educator, test).await;

    let (status, _, bytes) = export(&portal, &format!("?testId={test_id}"), &educator).await;
    assert_eq!(status, 200);
    let rows = lines(&bytes);
    assert!(rows.len() > 1, "{rows:?}");
    for row in &rows[1..] {
        assert!(
            row.starts_with("\"'=HYPERLINK(\"\"http://evil\"\";\"\"Гигиена\"\")\";"),
            "{row}"
        );
    }
    let (status, _, body) = portal.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&body).unwrap();
    assert!(
        document["paths"][EXPORT]["get"]["responses"]["200"]["content"]
            .get("text/csv; charset=utf-8")
            .is_some(),
        "{}",
        document["paths"][EXPORT]
    );
    portal.running.stop().await.unwrap();
}
