//! Revisions over REST (issue 25): an article's, a test's and a short
//! instruction's saves listed with who and when, one read back, and one
//! restored as a new save; a learner refused; the routes in the OpenAPI
//! document.

use crate::support::{Portal, error, get_data, post_data, post_json, start};
use portal_kit::Right;
use serde_json::{Value, json};

const EDITOR: i64 = 1;
const LEARNER: i64 = 50;

fn article(id: Option<&Value>, content: &str) -> Value {
    let mut body = json!({
        "title": "Гигиена рук",
        "description": "Пять моментов",
        "content": content,
        "dateDeadline": "2099-01-31",
    });
    if let Some(id) = id {
        body["id"] = id.clone();
    }
    body
}

fn test(id: Option<&Value>, questions: &[&str]) -> Value {
    let question: Vec<Value> = questions
        .iter()
        .map(|title| {
            json!({
                "title": title,
                "answer": [
                    { "title": "Да", "isCorrect": true },
                    { "title": "Нет", "isCorrect": false },
                ],
            })
        })
        .collect();
    let mut body = json!({
        "title": "Гигиена рук",
        "description": "Пять моментов",
        "totalPointsRequired": 1,
        "numberOfQuestions": 1,
        "numberOfTries": 3,
        "question": question,
    });
    if let Some(id) = id {
        body["id"] = id.clone();
    }
    body
}

async fn list(portal: &Portal, path: &str, token: &str) -> Vec<Value> {
    get_data(portal, path, token)
        .await
        .as_array()
        .expect("a list")
        .clone()
}

#[tokio::test]
async fn revisions_are_listed_read_and_restored_over_rest() {
    let portal = start(&[]).await;
    let editor = portal.token(
        EDITOR,
        &[Right::EducationManagement, Right::EquipmentEditing],
    );
    let learner = portal.token(LEARNER, &[]);

    // An article saved three times.
    let created = post_data(
        &portal,
        "/api/course/create-article",
        &editor,
        article(None, "<p>Мойте руки водой</p>"),
    )
    .await;
    let id = created["id"].clone();
    for content in ["<p>Мойте руки с мылом</p>", "<p>Обработайте руки</p>"]
    {
        post_data(
            &portal,
            "/api/course/update-article",
            &editor,
            article(Some(&id), content),
        )
        .await;
    }
    let revisions = list(
        &portal,
        &format!("/api/course/get-article-revisions?idArticle={id}"),
        &editor,
    )
    .await;
    assert_eq!(revisions.len(), 3);
    assert_eq!(revisions[0]["authorId"], EDITOR);
    assert!(revisions[0]["createdAt"].as_str().unwrap().ends_with('Z'));
    let first = revisions[2]["id"].clone();
    let one = get_data(
        &portal,
        &format!("/api/course/get-article-revision?idArticle={id}&revisionId={first}"),
        &editor,
    )
    .await;
    assert_eq!(one["article"]["content"], "<p>Мойте руки водой</p>");
    assert_eq!(one["revision"]["id"], first);
    let restored = post_data(
        &portal,
        "/api/course/restore-article-revision",
        &editor,
        json!({ "idArticle": id, "revisionId": first }),
    )
    .await;
    assert_eq!(restored["content"], "<p>Мойте руки водой</p>");
    let after = list(
        &portal,
        &format!("/api/course/get-article-revisions?idArticle={id}"),
        &editor,
    )
    .await;
    assert_eq!(after.len(), 4);

    // A learner may not read or restore them.
    let (status, _, body) = portal
        .get(
            &format!("/api/course/get-article-revisions?idArticle={id}"),
            Some(&learner),
        )
        .await;
    assert_eq!(
        error(403, status, &body),
        "У вас нет доступа к данному ресурсу"
    );
    let (status, body) = post_json(
        &portal,
        "/api/course/restore-article-revision",
        &learner,
        json!({ "idArticle": id, "revisionId": first }),
    )
    .await;
    error(403, status, &body);
    // A revision that is not the article's.
    let (status, _, body) = portal
        .get(
            &format!("/api/course/get-article-revision?idArticle={id}&revisionId=999999"),
            Some(&editor),
        )
        .await;
    error(404, status, &body);

    // A test: its questions as spec §3 writes them.
    let created = post_data(
        &portal,
        "/api/test/create-test-with-question-and-answers",
        &editor,
        test(None, &["Когда мыть руки?"]),
    )
    .await;
    let test_id = created["id"].clone();
    let mut changed = test(Some(&test_id), &["Сколько длится обработка?"]);
    changed["question"][0]["id"] = created["question"][0]["id"].clone();
    post_data(&portal, "/api/test/update-test", &editor, changed).await;
    let revisions = list(
        &portal,
        &format!("/api/test/get-test-revisions?idTest={test_id}"),
        &editor,
    )
    .await;
    assert_eq!(revisions.len(), 2);
    assert_eq!(revisions[0]["size"], 1);
    let first = revisions[1]["id"].clone();
    let one = get_data(
        &portal,
        &format!("/api/test/get-test-revision?idTest={test_id}&revisionId={first}"),
        &editor,
    )
    .await;
    assert_eq!(one["test"]["question"][0]["title"], "Когда мыть руки?");
    assert_eq!(one["test"]["question"][0]["answer"][0]["isCorrect"], true);
    let restored = post_data(
        &portal,
        "/api/test/restore-test-revision",
        &editor,
        json!({ "idTest": test_id, "revisionId": first }),
    )
    .await;
    assert_eq!(restored["question"][0]["title"], "Когда мыть руки?");
    assert_eq!(restored["question"][0]["id"], created["question"][0]["id"]);

    // A model's short instruction.
    let model = post_data(
        &portal,
        "/api/environment-model/create",
        &editor,
        json!({
            "name": "Монитор пациента",
            "brandName": "Mindray",
            "description": "Прикроватный монитор",
            "shortInstruction": "<p>Включите монитор</p>",
        }),
    )
    .await;
    let model_id = model["id"].clone();
    post_data(
        &portal,
        "/api/environment-model/save-instruction",
        &editor,
        json!({ "environmentModelId": model_id, "shortInstruction": "<p>Выключите монитор</p>" }),
    )
    .await;
    let revisions = list(
        &portal,
        &format!("/api/environment-model/get-instruction-revisions?environmentModelId={model_id}"),
        &editor,
    )
    .await;
    assert_eq!(revisions.len(), 2);
    let first = revisions[1]["id"].clone();
    let one = get_data(
        &portal,
        &format!(
            "/api/environment-model/get-instruction-revision?environmentModelId={model_id}&revisionId={first}"
        ),
        &editor,
    )
    .await;
    assert_eq!(one["shortInstruction"], "<p>Включите монитор</p>");
    let restored = post_data(
        &portal,
        "/api/environment-model/restore-instruction-revision",
        &editor,
        json!({ "environmentModelId": model_id, "revisionId": first }),
    )
    .await;
    assert_eq!(restored, "<p>Включите монитор</p>");
    let (status, _, body) = portal
        .get(
            &format!(
                "/api/environment-model/get-instruction-revisions?environmentModelId={model_id}"
            ),
            Some(&learner),
        )
        .await;
    error(403, status, &body);

    // Every route is in the OpenAPI document.
    let (status, _, body) = portal.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&body).unwrap();
    for path in [
        "/api/course/get-article-revisions",
        "/api/course/get-article-revision",
        "/api/course/restore-article-revision",
        "/api/test/get-test-revisions",
        "/api/test/get-test-revision",
        "/api/test/restore-test-revision",
        "/api/environment-model/get-instruction-revisions",
        "/api/environment-model/get-instruction-revision",
        "/api/environment-model/restore-instruction-revision",
    ] {
        assert!(
            document["paths"][path].is_object(),
            "{path} is not documented"
        );
    }
    portal.running.stop().await.unwrap();
}
