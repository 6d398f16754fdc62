//! `GET /api/search` over the whole portal (issue 25): every service asked
//! at once on the caller's behalf, hits merged by rank, each with the link
//! of its page; Russian word forms, lookalikes and an inventory number's
//! prefix; nothing the caller may not open.

use crate::support::{Portal, envelope, error, get_data, post_data, start};
use portal_kit::Right;
use serde_json::{Value, json};

const LEARNER: i64 = 50;
const OTHER_LEARNER: i64 = 51;
const WARD: i64 = 1;
const OTHER_WARD: i64 = 2;

async fn search(portal: &Portal, token: &str, query: &str) -> Vec<Value> {
    let path = format!("/api/search?q={}", urlencoding(query));
    get_data(portal, &path, token)
        .await
        .as_array()
        .unwrap()
        .clone()
}

/// The query string's form of `text`.
fn urlencoding(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn found(hits: &[Value]) -> Vec<(String, i64)> {
    hits.iter()
        .map(|h| {
            (
                h["kind"].as_str().unwrap().to_owned(),
                h["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// A model with one unit in `department`, made over REST by an editor.
async fn equipment(portal: &Portal, name: &str, department: i64, inventory: &str) -> (i64, i64) {
    let editor = portal.token(40, &[Right::EquipmentEditing]);
    let model = post_data(
        portal,
        "/api/environment-model/create",
        &editor,
        json!({
            "name": name,
            "brandName": "Zoll",
            "description": "Автоматический наружный",
            "shortInstruction": "<p>Наложите электроды</p>",
        }),
    )
    .await;
    let unit = post_data(
        portal,
        "/api/environment/create",
        &editor,
        json!({
            "environmentModelId": model["id"],
            "departmentDeployment": department,
            "serialNumber": "SN-1",
            "inventoryNumber": inventory,
        }),
    )
    .await;
    (model["id"].as_i64().unwrap(), unit["id"].as_i64().unwrap())
}

async fn course(portal: &Portal, title: &str, learner: i64) -> i64 {
    let admin = portal.token(1, &[Right::EducationManagement]);
    let course = post_data(
        portal,
        "/api/course/create-course-with-user-and-articles",
        &admin,
        json!({
            "title": title,
            "description": "Обязательный курс",
            "dateDeadline": "2099-01-31",
            "userIds": [learner],
            "articleIds": [],
        }),
    )
    .await;
    course["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_learner_finds_their_equipment_and_courses_by_any_form_and_nothing_else() {
    let portal = start(&[]).await;
    let (model, unit) = equipment(&portal, "Дефибриллятор Zoll AED", WARD, "ИН-2024-0012").await;
    let (hidden_model, hidden_unit) = equipment(
        &portal,
        "Дефибриллятор реанимационный",
        OTHER_WARD,
        "ИН-7777-0001",
    )
    .await;
    let assigned = course(&portal, "Дефибрилляция для медсестёр", LEARNER).await;
    let unassigned = course(&portal, "Дефибрилляция скрытая", OTHER_LEARNER).await;
    let learner = portal.token_in(LEARNER, &[], &[WARD]);

    // A plural finds the singular: the model by its name first, then its
    // unit by its model's name; the model links to the learner's
    // department's page.
    let hits = search(&portal, &learner, "дефибрилляторы").await;
    assert_eq!(
        found(&hits),
        [
            ("environment-model".to_owned(), model),
            ("environment".to_owned(), unit)
        ]
    );
    assert_eq!(
        hits[0]["url"],
        format!("/departments/environments/{WARD}/environment/{model}/short-instruction")
    );
    assert!(
        hits[0]["snippet"].as_str().unwrap().contains("<mark>"),
        "{}",
        hits[0]
    );

    // "Дeфибрилляция" with a Latin e, and «ё» typed as «е».
    let hits = search(&portal, &learner, "Дeфибрилляция для медсестер").await;
    assert_eq!(found(&hits), [("course".to_owned(), assigned)]);
    assert_eq!(hits[0]["url"], format!("/courses/{assigned}"));

    // The start of a hidden title or number finds nothing hidden.
    for query in ["дефибрилляция скр", "реанимац", "ИН-7777"] {
        let hits = search(&portal, &learner, query).await;
        assert!(hits.is_empty(), "{query}: {hits:?}");
    }
    let all = found(&search(&portal, &learner, "деф").await);
    for hidden in [
        ("course".to_owned(), unassigned),
        ("environment-model".to_owned(), hidden_model),
        ("environment".to_owned(), hidden_unit),
    ] {
        assert!(!all.contains(&hidden), "{all:?}");
    }

    // A prefix of an inventory number finds the unit, linked to its model's
    // instruction (issue 37).
    let hits = search(&portal, &learner, "ИН-2024-00").await;
    assert_eq!(found(&hits), [("environment".to_owned(), unit)]);
    assert_eq!(
        hits[0]["url"],
        format!("/departments/environments/{WARD}/environment/{model}/short-instruction")
    );
}

#[tokio::test]
async fn people_are_found_by_user_managers_only_and_a_blank_query_is_refused() {
    let portal = start(&[]).await;
    let manager = portal.token(1, &[Right::UserManagement]);
    let hits = search(&portal, &manager, "системный админ").await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["kind"], "user");
    assert!(
        hits[0]["url"]
            .as_str()
            .unwrap()
            .starts_with("/admin/users-management/admin-users/")
    );
    let learner = portal.token_in(LEARNER, &[], &[WARD]);
    assert!(
        search(&portal, &learner, "системный админ")
            .await
            .is_empty()
    );

    let (status, _, body) = portal.get("/api/search?q=%20-%20", Some(&learner)).await;
    assert_eq!(error(400, status, &body), "Введите слово для поиска");
    assert_eq!(envelope(&body)["errorCode"], "search-query-empty");
    let (status, _, body) = portal
        .get("/api/search?q=курс&kinds=course,courses", Some(&learner))
        .await;
    assert_eq!(
        error(400, status, &body),
        "Неизвестный вид результатов поиска: courses"
    );
    assert_eq!(envelope(&body)["errorCode"], "search-kind-unknown");
    let (status, _, body) = portal.get("/api/search?q=дефибриллятор", None).await;
    assert_eq!(status, 401, "{body}");
}
