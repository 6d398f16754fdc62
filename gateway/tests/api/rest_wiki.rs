//! Every wiki-host call of spec §7 over REST (and the unit edits and public
//! instruction beyond it): paths, query names, camelCase fields, the envelope
//! and statuses.

use crate::support::{Portal, Post, data, envelope, error, get_data, post_data, post_json, start};
use portal_kit::Right;
use portal_kit::access::Scope;
use portal_kit::token::TokenIssuer;
use serde_json::{Value, json};

const EDITOR: i64 = 40;
const LEARNER: i64 = 50;
const WARD: i64 = 1;
const OTHER_WARD: i64 = 2;

struct Tokens {
    editor: String,
    learner: String,
}

fn tokens(portal: &Portal) -> Tokens {
    Tokens {
        editor: portal.token_in(EDITOR, &[Right::EquipmentEditing], &[]),
        learner: portal.token_in(LEARNER, &[], &[WARD]),
    }
}

/// A model with one unit in [`WARD`], made over REST.
async fn model_with_unit(portal: &Portal, tokens: &Tokens, inventory: &str) -> (Value, Value) {
    let model = post_data(
        portal,
        "/api/environment-model/create",
        &tokens.editor,
        json!({
            "name": "Монитор пациента BeneView T5",
            "brandName": "Mindray",
            "description": "Прикроватный монитор",
            "shortInstruction": "<p>Включите<script>alert(1)</script></p>",
        }),
    )
    .await;
    let unit = post_data(
        portal,
        "/api/environment/create",
        &tokens.editor,
        json!({
            "environmentModelId": model["id"],
            "departmentDeployment": WARD,
            "serialNumber": "T5-1",
            "inventoryNumber": inventory,
        }),
    )
    .await;
    (model, unit)
}

#[tokio::test]
async fn models_are_created_updated_and_read_with_the_specs_fields() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let (model, unit) = model_with_unit(&portal, &tokens, "ИН-1").await;
    assert_eq!(model["shortInstruction"], "<p>Включите</p>", "sanitised");
    let qr = model["shortInstructionQrCode"].as_str().unwrap();
    assert!(qr.starts_with("iVBORw0KGgo"), "base64 of a PNG: {qr}");
    for field in [
        "departmentId",
        "serialNumber",
        "inventoryNumber",
        "environmentModelId",
    ] {
        assert!(unit.get(field).is_some(), "{field} in {unit}");
    }
    assert_eq!(unit["departmentId"], WARD);

    let id = model["id"].as_i64().unwrap();
    let updated = post_data(
        &portal,
        "/api/environment-model/update",
        &tokens.editor,
        json!({
            "id": id,
            "name": "BeneView T5",
            "brandName": "Mindray",
            "description": "Монитор",
            "shortInstruction": "<h2>Включение</h2>",
        }),
    )
    .await;
    assert_eq!(updated["name"], "BeneView T5");

    let read = get_data(
        &portal,
        &format!("/api/environment-model/get-by-id?environmentModelId={id}"),
        &tokens.learner,
    )
    .await;
    assert_eq!(read["name"], "BeneView T5");
    assert_eq!(read["environments"][0]["inventoryNumber"], "ИН-1");
    assert_eq!(read["environments"][0]["isMaintenanceOverdue"], false);

    let all = get_data(&portal, "/api/environment-model/get-all", &tokens.learner).await;
    assert_eq!(all.as_array().unwrap().len(), 1);
    assert_eq!(all[0]["shortInstructionQrCode"], "", "no QR in the list");

    let by_department = get_data(
        &portal,
        &format!("/api/environment-model/get-all-by-department?departmentId={WARD}"),
        &tokens.learner,
    )
    .await;
    assert_eq!(by_department[0]["id"], id);
    assert_eq!(by_department[0]["name"], "BeneView T5");
    assert_eq!(by_department[0]["unitsOverdue"], 0);

    let (status, _, body) = portal
        .get(
            &format!("/api/environment-model/get-all-by-department?departmentId={OTHER_WARD}"),
            Some(&tokens.learner),
        )
        .await;
    error(403, status, &body);
    let (status, _, body) = portal
        .get(
            "/api/environment-model/get-by-id?environmentModelId=999",
            Some(&tokens.learner),
        )
        .await;
    assert_eq!(error(404, status, &body), "Модель оборудования не найдена");
    let (status, _, body) = portal
        .get("/api/environment-model/get-by-id", Some(&tokens.learner))
        .await;
    error(400, status, &body);
    let (status, _, body) = portal.get("/api/environment-model/get-all", None).await;
    error(401, status, &body);
}

#[tokio::test]
async fn writes_need_equipment_editing_and_valid_fields() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let body = json!({ "name": "Монитор", "brandName": "Mindray", "description": "Монитор" });
    let (status, text) = post_json(
        &portal,
        "/api/environment-model/create",
        &tokens.learner,
        body,
    )
    .await;
    assert_eq!(
        error(403, status, &text),
        "У вас нет доступа к данному ресурсу"
    );
    let (status, text) = post_json(
        &portal,
        "/api/environment-model/create",
        &tokens.editor,
        json!({ "name": " ", "brandName": "Mindray", "description": "Монитор" }),
    )
    .await;
    assert_eq!(
        error(400, status, &text),
        "Введите название модели оборудования"
    );
    let (model, _) = model_with_unit(&portal, &tokens, "ИН-1").await;
    let (status, text) = post_json(
        &portal,
        "/api/environment/create",
        &tokens.editor,
        json!({
            "environmentModelId": model["id"],
            "departmentDeployment": OTHER_WARD,
            "serialNumber": "T5-2",
            "inventoryNumber": "ИН-1",
        }),
    )
    .await;
    assert_eq!(
        error(409, status, &text),
        "Инвентарный номер «ИН-1» уже присвоен другому оборудованию"
    );
    let (status, text) = post_json(
        &portal,
        "/api/environment/create",
        &tokens.editor,
        json!({ "environmentModelId": model["id"], "departmentDeployment": WARD, "serialNumber": "", "inventoryNumber": "ИН-2" }),
    )
    .await;
    assert_eq!(error(400, status, &text), "Введите серийный номер");
}

#[tokio::test]
async fn save_instruction_answers_success_and_error_message() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let (model, _) = model_with_unit(&portal, &tokens, "ИН-1").await;
    let saved = post_data(
        &portal,
        "/api/environment-model/save-instruction",
        &tokens.editor,
        json!({
            "environmentModelId": model["id"],
            "shortInstruction": "<p onclick=\"alert(1)\">Шаг 1</p><a href=\"javascript:alert(1)\">x</a>",
        }),
    )
    .await;
    assert_eq!(
        saved["shortInstruction"],
        "<p>Шаг 1</p><a rel=\"noopener noreferrer\">x</a>"
    );
    let (status, text) = post_json(
        &portal,
        "/api/environment-model/save-instruction",
        &tokens.learner,
        json!({ "environmentModelId": model["id"], "shortInstruction": "<p>x</p>" }),
    )
    .await;
    assert_eq!(
        error(403, status, &text),
        "У вас нет доступа к данному ресурсу"
    );
    let (status, text) = post_json(
        &portal,
        "/api/environment-model/save-instruction",
        &tokens.editor,
        json!({ "environmentModelId": 999, "shortInstruction": "<p>x</p>" }),
    )
    .await;
    assert_eq!(error(404, status, &text), "Модель оборудования не найдена");
}

#[tokio::test]
async fn an_instruction_with_a_photo_over_the_default_limits_goes_through_rest() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let (model, _) = model_with_unit(&portal, &tokens, "ИН-1").await;
    let photo = "A".repeat(6 * 1024 * 1024);
    let html = format!("<p><img src=\"data:image/png;base64,{photo}\"></p>");
    post_data(
        &portal,
        "/api/environment-model/save-instruction",
        &tokens.editor,
        json!({ "environmentModelId": model["id"], "shortInstruction": html }),
    )
    .await;
    let read = get_data(
        &portal,
        &format!(
            "/api/environment-model/get-by-id?environmentModelId={}",
            model["id"]
        ),
        &tokens.learner,
    )
    .await;
    assert_eq!(read["shortInstruction"], html);
}

#[tokio::test]
async fn the_public_instruction_needs_no_sign_in_and_tells_nothing_else() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let (model, _) = model_with_unit(&portal, &tokens, "ИН-1").await;
    let (status, _, body) = portal
        .get(
            &format!(
                "/api/environment-model/get-public-instruction?environmentModelId={}",
                model["id"]
            ),
            None,
        )
        .await;
    let public = data(status, &body);
    assert_eq!(
        public,
        json!({ "name": "Монитор пациента BeneView T5", "shortInstruction": "<p>Включите</p>" })
    );
    let (status, _, body) = portal
        .get(
            "/api/environment-model/get-public-instruction?environmentModelId=999",
            None,
        )
        .await;
    error(404, status, &body);
}

#[tokio::test]
async fn units_are_listed_by_model_edited_and_retired() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let (model, unit) = model_with_unit(&portal, &tokens, "ИН-1").await;
    let path = format!(
        "/api/environment/get-all-by-model-id?environmentModelId={}",
        model["id"]
    );
    let units = get_data(&portal, &path, &tokens.learner).await;
    assert_eq!(units[0]["id"], unit["id"]);
    assert_eq!(units[0]["departmentId"], WARD);
    assert_eq!(units[0]["inventoryNumber"], "ИН-1");

    let updated = post_data(
        &portal,
        "/api/environment/update",
        &tokens.editor,
        json!({
            "id": unit["id"],
            "departmentDeployment": WARD,
            "serialNumber": "T5-1",
            "inventoryNumber": "ИН-10",
        }),
    )
    .await;
    assert_eq!(updated["inventoryNumber"], "ИН-10");
    post_data(
        &portal,
        "/api/environment/retire",
        &tokens.editor,
        json!({ "id": unit["id"] }),
    )
    .await;
    let units = get_data(&portal, &path, &tokens.editor).await;
    assert_eq!(units, json!([]));
    let (status, text) = post_json(
        &portal,
        "/api/environment/retire",
        &tokens.editor,
        json!({ "id": unit["id"] }),
    )
    .await;
    assert_eq!(error(404, status, &text), "Оборудование не найдено");
}

#[tokio::test]
async fn the_api_document_lists_every_wiki_route() {
    let portal = start(&[]).await;
    let (status, _, body) = portal.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&body).unwrap();
    for path in [
        "/api/environment-model/get-all",
        "/api/environment-model/get-all-by-department",
        "/api/environment-model/get-by-id",
        "/api/environment-model/create",
        "/api/environment-model/update",
        "/api/environment-model/save-instruction",
        "/api/environment-model/get-public-instruction",
        "/api/environment/get-all-by-model-id",
        "/api/environment/create",
        "/api/environment/update",
        "/api/environment/retire",
        "/api/country/get-all",
        "/api/country/create",
        "/api/manufacturer/get-all",
        "/api/manufacturer/create",
        "/api/environment-type/get-all",
        "/api/environment-type/create",
        "/api/common-document/get-all",
        "/api/common-document/create",
    ] {
        assert!(document["paths"].get(path).is_some(), "{path} missing");
    }
}

/// Each reference resource with a valid entry to create and the name of the
/// field it lists by.
fn reference_entries() -> [(&'static str, Value, &'static str); 4] {
    [
        ("country", json!({ "name": "Германия" }), "name"),
        (
            "manufacturer",
            json!({ "name": "Dräger", "countryId": 0 }),
            "name",
        ),
        ("environment-type", json!({ "name": "Аппарат ИВЛ" }), "name"),
        (
            "common-document",
            json!({
                "title": "Приказ о порядке эксплуатации",
                "description": "Общий для всех отделений",
                "url": "https://portal.example/order.pdf",
            }),
            "title",
        ),
    ]
}

#[tokio::test]
async fn reference_data_is_created_by_an_editor_and_read_by_anyone_signed_in() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    for (resource, entry, field) in reference_entries() {
        let list = format!("/api/{resource}/get-all");
        assert_eq!(get_data(&portal, &list, &tokens.learner).await, json!([]));
        let created = post_data(
            &portal,
            &format!("/api/{resource}/create"),
            &tokens.editor,
            entry.clone(),
        )
        .await;
        assert!(created["id"].as_i64().unwrap() > 0, "{created}");
        assert_eq!(created[field], entry[field]);
        let listed = get_data(&portal, &list, &tokens.learner).await;
        assert_eq!(listed, json!([created]), "{resource}");
        let (status, _, body) = portal.get(&list, None).await;
        error(401, status, &body);
    }
    let country = get_data(&portal, "/api/Country/get-all", &tokens.learner).await;
    assert_eq!(
        country[0]["name"], "Германия",
        "the resource matches in any case"
    );
    let document = get_data(&portal, "/api/common-document/get-all", &tokens.learner).await;
    for field in ["id", "title", "description", "url"] {
        assert!(document[0].get(field).is_some(), "{field} in {document}");
    }
}

#[tokio::test]
async fn creating_reference_data_needs_equipment_editing() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    for (resource, entry, _) in reference_entries() {
        let path = format!("/api/{resource}/create");
        let (status, text) = post_json(&portal, &path, &tokens.learner, entry.clone()).await;
        assert_eq!(
            error(403, status, &text),
            "У вас нет доступа к данному ресурсу",
            "{resource}"
        );
        let anonymous = Post {
            json: Some(entry),
            ..Post::default()
        };
        let (status, _, text) = portal.post(&path, anonymous).await;
        error(401, status, &text);
        let list = format!("/api/{resource}/get-all");
        assert_eq!(get_data(&portal, &list, &tokens.editor).await, json!([]));
    }
}

#[tokio::test]
async fn bad_reference_input_is_refused_with_a_russian_message() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let refused = [
        (
            "country",
            json!({ "name": " " }),
            400,
            "Введите название страны",
        ),
        (
            "country",
            json!({ "name": "я".repeat(301) }),
            400,
            "Название страны не должно превышать 300 символов",
        ),
        (
            "manufacturer",
            json!({}),
            400,
            "Введите название производителя",
        ),
        (
            "manufacturer",
            json!({ "name": "Mindray", "countryId": 999 }),
            400,
            "Страна не найдена",
        ),
        (
            "environment-type",
            json!({ "name": "" }),
            400,
            "Введите название типа оборудования",
        ),
        (
            "common-document",
            json!({ "title": "Приказ", "url": "javascript:alert(1)" }),
            400,
            "Ссылка на документ должна начинаться с http:// или https://",
        ),
        (
            "common-document",
            json!({ "title": "", "url": "https://portal.example/a.pdf" }),
            400,
            "Введите название документа",
        ),
        (
            "environment-type",
            json!({ "name": "ИВЛ\u{202E}лоб" }),
            400,
            "Название типа оборудования не должно содержать невидимых и управляющих символов",
        ),
        (
            "country",
            json!({ "name": 5 }),
            400,
            "Поле «name»: ожидается строка",
        ),
    ];
    for (resource, body, expected, message) in refused {
        let (status, text) = post_json(
            &portal,
            &format!("/api/{resource}/create"),
            &tokens.editor,
            body,
        )
        .await;
        assert_eq!(error(expected, status, &text), message, "{resource}");
    }
    let document = |title: &str| json!({ "title": title, "url": "https://portal.example/a.pdf" });
    for (resource, first, again, shown) in [
        (
            "country",
            json!({ "name": "Германия" }),
            json!({ "name": " германия " }),
            "германия",
        ),
        (
            "manufacturer",
            json!({ "name": "Дрёгер" }),
            json!({ "name": "ДРЕГЕР" }),
            "ДРЕГЕР",
        ),
        (
            "environment-type",
            json!({ "name": "Аппарат ИВЛ" }),
            json!({ "name": "аппарат ивл" }),
            "аппарат ивл",
        ),
        (
            "common-document",
            document("Приказ № 5 об учёте"),
            document("ПРИКАЗ  № 5 об учете"),
            "ПРИКАЗ № 5 об учете",
        ),
    ] {
        let path = format!("/api/{resource}/create");
        post_data(&portal, &path, &tokens.editor, first).await;
        let (status, text) = post_json(&portal, &path, &tokens.editor, again).await;
        assert_eq!(
            error(409, status, &text),
            format!("«{shown}» уже есть в справочнике"),
            "{resource}"
        );
    }
}

/// A token of another hospital system (service account `account_id`)
/// granted `scopes`, signed with the portal's key.
fn system_token(portal: &Portal, account_id: i64, scopes: &[Scope]) -> String {
    let issuer = TokenIssuer::from_pem_file(&portal.data.path().join("jwt-private.pem")).unwrap();
    portal_kit::testing::sign_service(&issuer, account_id, scopes)
}

#[tokio::test]
async fn a_register_upserts_and_pages_units_over_rest_in_the_issues_names() {
    let portal = start(&[]).await;
    let tokens = tokens(&portal);
    let (model, unit) = model_with_unit(&portal, &tokens, "ИН-1").await;
    let writer = system_token(&portal, 7, &[Scope::EquipmentWrite]);
    let reader = system_token(&portal, 8, &[Scope::EquipmentRead]);
    let batch = json!({
        "dryRun": false,
        "units": [
            {
                "inventoryNumber": "ИН-1",
                "serialNumber": "T5-1",
                "modelId": model["id"],
                "departmentId": OTHER_WARD,
            },
            {
                "inventoryNumber": "ИН-2",
                "serialNumber": "T5-2",
                "modelId": model["id"],
                "departmentId": WARD,
                "retired": true,
            },
            { "inventoryNumber": "ИН-3", "serialNumber": "", "modelId": model["id"], "departmentId": WARD },
        ],
    });
    let path = "/api/integration/upsert-equipment-units";
    let done = post_data(&portal, path, &writer, batch.clone()).await;
    assert_eq!(
        (
            &done["created"],
            &done["changed"],
            &done["unchanged"],
            &done["dryRun"]
        ),
        (&json!(1), &json!(1), &json!(0), &json!(false)),
        "{done}"
    );
    assert_eq!(done["units"][0]["id"], unit["id"]);
    assert_eq!(done["units"][0]["changedFields"], json!(["departmentId"]));
    assert_eq!(done["units"][1]["inventoryNumber"], "ИН-2");
    let refused = &done["errors"][0];
    assert_eq!(
        (
            &refused["index"],
            &refused["field"],
            &refused["reason"],
            &refused["message"]
        ),
        (
            &json!(2),
            &json!("serialNumber"),
            &json!("invalid-field"),
            &json!("Введите серийный номер")
        )
    );
    let again = post_data(&portal, path, &writer, batch).await;
    assert_eq!(
        (&again["created"], &again["changed"], &again["unchanged"]),
        (&json!(0), &json!(0), &json!(2))
    );

    let first = get_data(
        &portal,
        "/api/integration/equipment-units?after=0&limit=1",
        &reader,
    )
    .await;
    assert_eq!(first["units"][0]["inventoryNumber"], "ИН-1");
    assert_eq!(first["units"][0]["departmentId"], OTHER_WARD);
    assert_eq!(
        first["units"][0]["modelName"],
        "Монитор пациента BeneView T5"
    );
    assert_eq!(first["units"][0]["changedBy"]["serviceAccountId"], 7);
    assert_eq!(first["units"][0]["createdBy"]["userId"], EDITOR);
    let next = first["next"].as_i64().unwrap();
    let last = get_data(
        &portal,
        &format!("/api/integration/equipment-units?after={next}"),
        &reader,
    )
    .await;
    assert_eq!(last["units"][0]["inventoryNumber"], "ИН-2");
    assert_eq!(last["units"][0]["retired"], true);
    assert_eq!(last["units"][0]["createdBy"]["serviceAccountId"], 7);
    assert_eq!(last["next"], 0);

    // Each scope opens its own call only; a person needs EquipmentEditing.
    let (status, _, body) = portal
        .get("/api/integration/equipment-units", Some(&writer))
        .await;
    assert_eq!(
        error(403, status, &body),
        "Внешней системе не разрешена эта операция"
    );
    assert_eq!(envelope(&body)["errorCode"], "scope-missing");
    let (status, text) = post_json(&portal, path, &reader, json!({ "units": [] })).await;
    error(403, status, &text);
    let (status, text) = post_json(&portal, path, &tokens.learner, json!({ "units": [] })).await;
    error(403, status, &text);
    let empty = post_data(&portal, path, &tokens.editor, json!({ "dryRun": true })).await;
    assert_eq!(
        (&empty["created"], &empty["dryRun"]),
        (&json!(0), &json!(true))
    );
}
