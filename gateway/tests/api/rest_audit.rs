//! `GET /api/audit/get-records` and `GET /api/audit/export` (issue 25): every
//! service asked at once on the caller's behalf and merged newest first; only
//! UserManagement reads the log; the export is a CSV Russian Excel opens.

use crate::support::{ADMIN_PASSWORD, envelope, get_data, post_data, sign_in_admin, start};
use portal_kit::Right;
use serde_json::{Value, json};

#[tokio::test]
async fn an_admin_reads_who_granted_what_and_a_learner_is_refused() {
    let portal = start(&[]).await;
    // A real sign-in: recorded with the address the gateway saw.
    let admin = sign_in_admin(&portal.http, &portal.base, ADMIN_PASSWORD).await;
    let created = post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        json!({
            "name": "Елена", "surname": "Морозова", "lastName": "Андреевна",
            "login": "morozova", "password": "morozova-password",
            "email": "morozova@hospital.example", "rights": [],
        }),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    post_data(
        &portal,
        "/api/user/update-user",
        &admin,
        json!({
            "id": id, "name": "Елена", "surname": "Морозова", "lastName": "Андреевна",
            "login": "morozova", "email": "morozova@hospital.example", "rights": [1],
        }),
    )
    .await;

    let page = get_data(
        &portal,
        &format!("/api/audit/get-records?entity=user&entityId={id}&action=grant"),
        &admin,
    )
    .await;
    assert_eq!(page["total"], 1, "{page}");
    // Every service answered.
    assert_eq!(page["incomplete"], false);
    assert_eq!(page["missing"], json!([]));
    let record = &page["records"][0];
    assert_eq!(record["service"], "auth");
    assert_eq!(record["actor"]["userId"], 1);
    assert_eq!(record["actor"]["name"], "Системный Администратор");
    assert_eq!(record["entityName"], "Морозова Елена Андреевна");
    assert_eq!(
        record["changes"],
        json!([{ "field": "rights", "old": [], "new": ["UserManagement"] }])
    );
    assert_eq!(record["address"], "127.0.0.1");
    assert!(!record["requestId"].as_str().unwrap().is_empty());

    // Every record of the user, newest first; the password only as changed.
    let all = get_data(
        &portal,
        &format!("/api/audit/get-records?entity=user&entityId={id}"),
        &admin,
    )
    .await;
    let actions: Vec<&str> = all["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["grant", "create"]);
    assert!(!all.to_string().contains("morozova-password"), "{all}");
    let sign_ins = get_data(
        &portal,
        "/api/audit/get-records?userId=1&action=sign-in",
        &admin,
    )
    .await;
    assert_eq!(sign_ins["total"], 1, "{sign_ins}");

    // Paging: one record a page.
    let second = get_data(
        &portal,
        &format!("/api/audit/get-records?entity=user&entityId={id}&page=2&pageSize=1"),
        &admin,
    )
    .await;
    assert_eq!(second["records"][0]["action"], "create");
    assert_eq!(second["total"], 2);

    // A learner, and an education manager, are refused by the service itself.
    for token in [
        portal.token(50, &[]),
        portal.token(51, &[Right::EducationManagement]),
    ] {
        let (status, _, body) = portal.get("/api/audit/get-records", Some(&token)).await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(envelope(&body)["reason"], "PERMISSION_DENIED");
    }
    let (status, _, _) = portal.get("/api/audit/get-records", None).await;
    assert_eq!(status, 401);
    let (status, _, body) = portal
        .get("/api/audit/get-records?from=01.11.2026", Some(&admin))
        .await;
    assert_eq!(status, 400, "{body}");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_export_is_a_csv_for_russian_excel() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::UserManagement]);
    post_data(
        &portal,
        "/api/department/create",
        &admin,
        json!({ "title": "Кардиология", "users": [] }),
    )
    .await;
    let (status, headers, body) = portal
        .get(
            "/api/audit/export?entity=department&utcOffset=180",
            Some(&admin),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("audit-"),
        "{headers:?}"
    );
    assert!(body.starts_with('\u{feff}'), "a byte order mark first");
    let lines: Vec<&str> = body.trim_start_matches('\u{feff}').lines().collect();
    assert_eq!(
        lines[0],
        "Время;Кто;Адрес;Идентификатор запроса;Служба;Объект;Номер объекта;Действие;Изменения;Причина"
    );
    assert_eq!(lines.len(), 2, "{body}");
    let row: Vec<&str> = lines[1].split(';').collect();
    assert_eq!(row[1], "Системный Администратор");
    assert_eq!((row[4], row[5], row[7]), ("auth", "Отделение", "Создание"));
    assert_eq!(row[8], "Название: — → Кардиология");

    let learner = portal.token(50, &[]);
    let (status, _, body) = portal.get("/api/audit/export", Some(&learner)).await;
    assert_eq!(status, 403, "{body}");
    let refusal: Value = envelope(&body);
    assert_eq!(refusal["reason"], "PERMISSION_DENIED");
    portal.running.stop().await.unwrap();
}

/// Each record of a page as `service:id`, in order.
fn keys(page: &Value) -> Vec<String> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| format!("{}:{}", record["service"].as_str().unwrap(), record["id"]))
        .collect()
}

#[tokio::test]
async fn a_walk_by_cursor_shows_every_record_once_in_order() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::UserManagement, Right::EquipmentEditing]);
    // Records of two services, interleaved in time.
    for n in 0..6 {
        post_data(
            &portal,
            "/api/department/create",
            &admin,
            json!({ "title": format!("Отделение {n}"), "users": [] }),
        )
        .await;
        post_data(
            &portal,
            "/api/country/create",
            &admin,
            json!({ "name": format!("Страна {n}") }),
        )
        .await;
    }
    let filter = "action=create";
    let all = get_data(
        &portal,
        &format!("/api/audit/get-records?{filter}&pageSize=200"),
        &admin,
    )
    .await;
    let expected = keys(&all);
    // The bootstrap admin's own creation may be among them.
    assert!(expected.len() >= 12, "{all}");
    assert_eq!(all["total"], expected.len());
    assert_eq!(all["nextCursor"], Value::Null, "one page holds them all");

    let mut walked = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            None => format!("/api/audit/get-records?{filter}&pageSize=5"),
            Some(cursor) => {
                format!("/api/audit/get-records?{filter}&pageSize=5&cursor={cursor}")
            }
        };
        let page = get_data(&portal, &path, &admin).await;
        pages += 1;
        assert_eq!(page["page"], pages, "{page}");
        assert_eq!(
            page["total"],
            expected.len(),
            "the first page's total on each"
        );
        walked.extend(keys(&page));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, expected.len().div_ceil(5));
    assert_eq!(walked, expected, "every record once, newest first");

    // A page number still gives the same page as the walk did.
    let second = get_data(
        &portal,
        &format!("/api/audit/get-records?{filter}&pageSize=5&page=2"),
        &admin,
    )
    .await;
    assert_eq!(keys(&second), expected[5..10]);
    assert!(second["nextCursor"].is_string(), "{second}");
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn a_cursor_the_gateway_did_not_give_is_refused() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::UserManagement]);
    for cursor in ["not-a-cursor", "eyJwIjpbXX0", "e30"] {
        let (status, _, body) = portal
            .get(
                &format!("/api/audit/get-records?cursor={cursor}"),
                Some(&admin),
            )
            .await;
        assert_eq!(status, 400, "{cursor}: {body}");
        let refusal = envelope(&body);
        assert_eq!(refusal["errorCode"], "audit-cursor-invalid", "{body}");
        assert!(
            refusal["errorMessage"]
                .as_str()
                .unwrap()
                .contains("первой страницы"),
            "{body}"
        );
    }
    portal.running.stop().await.unwrap();
}
