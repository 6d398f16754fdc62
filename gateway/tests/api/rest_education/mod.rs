//! Every education-host call of spec §7 over REST (and the calls beyond it):
//! paths, query names, camelCase fields, the envelope, statuses, no correctness
//! for learners, the tries limit under concurrent submissions, and articles
//! with photos up to their 10 MB.

mod for_systems;

use std::collections::HashSet;

use crate::support::{Portal, Post, data, envelope, error, get_data, post_data, post_json, start};
use futures_util::future::join_all;
use portal_kit::Right;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use serde_json::{Value, json};

const LEARNER: i64 = 50;
const OTHER: i64 = 51;

/// A test as spec §3 writes one: `question[]` with `answer[]` and `isCorrect`.
fn test_body(points: i32, drawn: i32, tries: i32, questions: usize) -> Value {
    let question: Vec<Value> = (1..=questions)
        .map(|i| {
            json!({
                "title": format!("Вопрос {i}"),
                "answer": [
                    { "title": "Правильно", "isCorrect": true },
                    { "title": "Неправильно", "isCorrect": false },
                ],
            })
        })
        .collect();
    json!({
        "title": "Гигиена рук",
        "description": "Пять моментов",
        "totalPointsRequired": points,
        "numberOfQuestions": drawn,
        "numberOfTries": tries,
        "question": question,
    })
}

/// `{questionId, answerId}` for every question of a full test, right or wrong.
fn choose(test: &Value, right: bool) -> Vec<Value> {
    test["question"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let answer = q["answer"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["isCorrect"] == right)
                .unwrap();
            json!({ "questionId": q["id"], "answerId": answer["id"] })
        })
        .collect()
}

/// A test, an article linking it, and a course assigned to [`LEARNER`].
async fn assigned(portal: &Portal, admin: &str, tries: i32) -> (Value, Value, Value) {
    assigned_test(portal, admin, test_body(1, 2, tries, 2)).await
}

/// The test of `body`, linked to an article of a course assigned to the learner.
async fn assigned_test(portal: &Portal, admin: &str, body: Value) -> (Value, Value, Value) {
    let test = post_data(
        portal,
        "/api/test/create-test-with-question-and-answers",
        admin,
        body,
    )
    .await;
    let article = post_data(
        portal,
        "/api/course/create-article",
        admin,
        json!({
            "title": "Пять моментов гигиены рук",
            "description": "ВОЗ",
            "content": "<p>Текст<script>alert(1)</script></p>",
            "dateDeadLine": "2099-01-31T00:00:00Z",
            "idTest": test["id"],
        }),
    )
    .await;
    let course = post_data(
        portal,
        "/api/course/create-course-with-user-and-articles",
        admin,
        json!({
            "title": "Профилактика ИСМП",
            "description": "Обязательный курс",
            "dateDeadline": "2099-01-31",
            "userIds": [LEARNER],
            "articleIds": [article["id"]],
        }),
    )
    .await;
    (test, article, course)
}

#[tokio::test]
async fn every_course_and_test_route_answers_with_the_spec_fields() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    let learner = portal.token(LEARNER, &[]);
    let (test, article, course) = assigned(&portal, &admin, 3).await;
    let (test_id, article_id, course_id) = (
        test["id"].as_i64().unwrap(),
        article["id"].as_i64().unwrap(),
        course["id"].as_i64().unwrap(),
    );
    assert_eq!(test["question"][0]["answer"][0]["isCorrect"], true);
    assert_eq!(article["dateDeadline"], "2099-01-31");
    assert_eq!(article["testId"], test_id);
    assert!(!article["content"].as_str().unwrap().contains("script"));
    assert!(course["dateCreation"].as_str().unwrap().ends_with('Z'));

    // The learner's path.
    let courses = get_data(&portal, "/api/course/get-all-courses", &learner).await;
    assert_eq!(courses[0]["id"], course_id);
    let mine = get_data(
        &portal,
        &format!("/api/course/get-all-courses-by-user?userId={LEARNER}"),
        &learner,
    )
    .await;
    assert_eq!(
        mine,
        json!([{ "id": course_id, "title": "Профилактика ИСМП" }])
    );
    let one = get_data(
        &portal,
        &format!("/api/course/get-by-id-course?idCourse={course_id}"),
        &learner,
    )
    .await;
    assert_eq!(one["dateDeadline"], "2099-01-31");
    let articles = get_data(
        &portal,
        &format!("/api/course/get-all-article-by-course?courseId={course_id}"),
        &learner,
    )
    .await;
    assert_eq!(articles[0]["id"], article_id);
    assert_eq!(
        get_data(&portal, "/api/course/get-all-article", &learner).await[0]["id"],
        article_id
    );
    let read = get_data(
        &portal,
        &format!("/api/course/get-by-id-article?idArticle={article_id}"),
        &learner,
    )
    .await;
    assert_eq!(read["title"], "Пять моментов гигиены рук");
    let tests = get_data(
        &portal,
        &format!("/api/test/get-all-test-by-article?articleId={article_id}"),
        &learner,
    )
    .await;
    assert_eq!(tests[0]["id"], test_id);
    assert_eq!(
        get_data(&portal, "/api/test/get-all-test", &learner).await[0]["numberOfTries"],
        3
    );
    let info = get_data(
        &portal,
        &format!("/api/test/get-by-id-test?idTest={test_id}"),
        &learner,
    )
    .await;
    assert_eq!(info["totalPointsRequired"], 1);
    let summary = get_data(
        &portal,
        &format!("/api/test/get-test-summary?idTest={test_id}&userId={LEARNER}"),
        &learner,
    )
    .await;
    assert_eq!(summary["numberOfTriesLeft"], 3);
    let started = post_data(
        &portal,
        "/api/test/start-attempt",
        &learner,
        json!({ "testId": test_id }),
    )
    .await;
    assert_eq!(started["questions"].as_array().unwrap().len(), 2);
    let completed = post_data(
        &portal,
        "/api/test/complete-test",
        &learner,
        json!({ "testId": test_id, "userId": LEARNER, "questionWithAnswers": choose(&test, true) }),
    )
    .await;
    assert_eq!(
        (
            completed["totalPoint"].clone(),
            completed["isPassed"].clone()
        ),
        (json!(2), json!(true))
    );
    let results = get_data(
        &portal,
        &format!("/api/test/get-list-user-test-result-by-test-and-user-id?idTest={test_id}&idUser={LEARNER}"),
        &learner,
    )
    .await;
    assert_eq!(results[0]["test"]["id"], test_id);
    assert_eq!(results[0]["userId"], LEARNER);
    assert!(results[0]["dateCompletion"].is_string());
    let my_tests = get_data(&portal, "/api/test/get-my-tests", &learner).await;
    assert_eq!(my_tests[0]["summary"]["numberOfTriesLeft"], 2);
    assert_eq!(my_tests[0]["isPassed"], true);

    // Nothing a learner receives carries correctness.
    for path in [
        format!("/api/test/get-by-id-test?idTest={test_id}"),
        "/api/test/get-all-test".to_owned(),
        format!("/api/test/get-all-test-by-article?articleId={article_id}"),
    ] {
        let (_, _, body) = portal.get(&path, Some(&learner)).await;
        assert!(!body.contains("isCorrect"), "{path}: {body}");
    }
    let (_, body) = post_json(
        &portal,
        "/api/test/start-attempt",
        &learner,
        json!({ "testId": test_id }),
    )
    .await;
    assert!(!body.contains("isCorrect"), "{body}");

    // The learner may not use the educator's calls.
    let (status, _, body) = portal
        .get(
            &format!("/api/test/get-by-id-full-test?idTest={test_id}"),
            Some(&learner),
        )
        .await;
    assert_eq!(
        error(403, status, &body),
        "У вас нет доступа к данному ресурсу"
    );
    let (status, _, body) = portal.get(&format!("/api/test/get-list-user-test-result-by-test-and-user-id?idTest={test_id}&idUser={OTHER}"), Some(&learner)).await;
    error(403, status, &body);
    let (status, _, body) = portal.get("/api/course/get-all-courses", None).await;
    error(401, status, &body);

    // The educator's calls.
    let full = get_data(
        &portal,
        &format!("/api/test/get-by-id-full-test?idTest={test_id}"),
        &admin,
    )
    .await;
    assert_eq!(full["question"].as_array().unwrap().len(), 2);
    let info = get_data(
        &portal,
        &format!("/api/course/get-full-course-info?idCourse={course_id}"),
        &admin,
    )
    .await;
    assert_eq!(info["userCourse"], json!([{ "userId": LEARNER }]));
    assert_eq!(info["courseArticle"][0]["article"]["id"], article_id);
    assert_eq!(info["title"], "Профилактика ИСМП");
    let all = get_data(&portal, "/api/test/get-all-user-test-result", &admin).await;
    assert_eq!(all.as_array().unwrap().len(), 1);
    let (status, headers, body) = portal
        .get(&format!("/api/test/get-all-user-test-result?testId={test_id}&userId={LEARNER}&dateFrom=2001-01-01&pageSize=1"), Some(&admin))
        .await;
    assert_eq!(data(status, &body).as_array().unwrap().len(), 1);
    assert!(headers.get("x-next-page-token").is_none());
    let compliance = get_data(
        &portal,
        &format!("/api/course/get-course-compliance?idCourse={course_id}"),
        &admin,
    )
    .await;
    assert_eq!(compliance["assignees"][0]["isComplete"], true);
    assert_eq!(compliance["assignees"][0]["isOverdue"], false);
    let analysis = get_data(
        &portal,
        &format!("/api/test/get-question-analysis?idTest={test_id}"),
        &admin,
    )
    .await;
    assert_eq!(analysis[0]["timesCorrect"], 1);

    let mut edited = full.clone();
    edited["title"] = json!("Гигиена рук (2026)");
    let updated = post_data(&portal, "/api/test/update-test", &admin, edited).await;
    assert_eq!(updated["title"], "Гигиена рук (2026)");
    assert_eq!(updated["question"][0]["id"], full["question"][0]["id"]);
    let updated = post_data(
        &portal,
        "/api/course/update-article",
        &admin,
        json!({ "id": article_id, "title": "Гигиена рук", "description": "ВОЗ", "content": "<p>Новый текст</p>", "dateDeadline": "2099-02-01", "testId": test_id }),
    )
    .await;
    assert_eq!(updated["dateDeadline"], "2099-02-01");
    let updated = post_data(
        &portal,
        "/api/course/update-course",
        &admin,
        json!({ "id": course_id, "title": "Профилактика ИСМП", "description": "Курс", "dateDeadline": "2099-03-01", "userIds": [LEARNER, OTHER], "articleIds": [article_id] }),
    )
    .await;
    assert_eq!(updated["dateDeadline"], "2099-03-01");
    assert_eq!(
        get_data(
            &portal,
            "/api/course/get-all-courses",
            &portal.token(OTHER, &[])
        )
        .await[0]["id"],
        course_id
    );

    // The spec §5 messages reach the envelope.
    let (status, body) = post_json(
        &portal,
        "/api/test/create-test-with-question-and-answers",
        &admin,
        test_body(3, 2, 1, 2),
    )
    .await;
    assert_eq!(
        error(400, status, &body),
        "Необходимое количество очков превышает количество вопросов в тесте"
    );
    let (status, body) = post_json(
        &portal,
        "/api/test/create-test-with-question-and-answers",
        &admin,
        test_body(1, 3, 1, 2),
    )
    .await;
    assert_eq!(
        error(400, status, &body),
        "Количество вопросов после перемешивания не может превышать количество вопросов в тесте"
    );
    let (status, body) = post_json(
        &portal,
        "/api/test/create-test-with-question-and-answers",
        &admin,
        test_body(0, 1, 1, 2),
    )
    .await;
    assert_eq!(error(400, status, &body), "Значение должно быть больше 0");

    let openapi = get_openapi(&portal).await;
    for path in [
        "/api/course/create-article",
        "/api/test/complete-test",
        "/api/test/get-test-summary",
    ] {
        assert!(
            openapi["paths"].get(path).is_some(),
            "{path} in the API document"
        );
    }
    portal.running.stop().await.unwrap();
}

async fn get_openapi(portal: &Portal) -> Value {
    let (status, _, body) = portal.get("/api/openapi.json", None).await;
    assert_eq!(status, 200);
    serde_json::from_str(&body).unwrap()
}

/// Spec §7's flow is `complete-test` alone (issue 37): on a test that shows
/// every question, a hand-in without a start takes a try and is scored; with
/// an `Idempotency-Key` a retry is answered again without a second try; ten
/// at once take only the tries left.
#[tokio::test]
async fn complete_test_alone_is_scored_where_the_test_shows_every_question() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    let learner = portal.token(LEARNER, &[]);
    let (test, _, _) = assigned(&portal, &admin, 3).await;
    let body = json!({
        "testId": test["id"],
        "userId": LEARNER,
        "questionWithAnswers": choose(&test, true),
    });
    let keyed = |key: &'static str| {
        portal
            .http
            .post(format!("{}/api/test/complete-test", portal.base))
            .bearer_auth(&learner)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
    };
    let first = keyed("spec-flow-1").await.unwrap();
    assert_eq!(first.status(), 200);
    let first = envelope(&first.text().await.unwrap());
    assert_eq!(first["data"]["totalPoint"], 2);
    assert_eq!(first["data"]["isPassed"], true);
    assert_eq!(first["data"]["numberOfTriesLeft"], 2);
    let again = envelope(&keyed("spec-flow-1").await.unwrap().text().await.unwrap());
    assert_eq!(again["data"], first["data"], "replayed, not taken again");

    let outcomes = join_all(
        (0..10).map(|_| post_json(&portal, "/api/test/complete-test", &learner, body.clone())),
    )
    .await;
    let accepted = outcomes.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(accepted, 2, "the two tries left: {outcomes:?}");
    for (status, refused) in outcomes.iter().filter(|(status, _)| *status != 200) {
        assert_eq!(
            error(409, *status, refused),
            "Вы исчерпали все попытки для прохождения теста"
        );
    }
    let results = get_data(
        &portal,
        &format!(
            "/api/test/get-list-user-test-result-by-test-and-user-id?idTest={}&idUser={LEARNER}",
            test["id"]
        ),
        &learner,
    )
    .await;
    assert_eq!(results.as_array().unwrap().len(), 3);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn tens_of_simultaneous_starts_and_submissions_through_the_gateway_use_one_try() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    let learner = portal.token(LEARNER, &[]);
    // Two of three questions drawn per attempt: a start chooses them.
    let (test, _, _) = assigned_test(&portal, &admin, test_body(1, 2, 3, 3)).await;
    let every = json!({ "testId": test["id"], "questionWithAnswers": choose(&test, true) });

    // Nothing started: the answers choose no questions; the refusal says why.
    let (status, refused) = post_json(&portal, "/api/test/complete-test", &learner, every).await;
    assert_eq!(
        error(409, status, &refused),
        "Нет начатой попытки прохождения теста: начните тест, чтобы получить вопросы"
    );
    assert_eq!(envelope(&refused)["errorCode"], "no-open-attempt");
    assert_eq!(envelope(&refused)["reason"], "NO_OPEN_ATTEMPT");

    let start_body = json!({ "testId": test["id"] });
    let starts = (0..30).map(|_| {
        post_json(
            &portal,
            "/api/test/start-attempt",
            &learner,
            start_body.clone(),
        )
    });
    let started = join_all(starts).await;
    let attempts: HashSet<i64> = started
        .iter()
        .map(|(status, body)| data(*status, body)["attemptId"].as_i64().unwrap())
        .collect();
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    let (status, body) = &started[0];
    let drawn: Vec<Value> = data(*status, body)["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].clone())
        .collect();
    let answers: Vec<Value> = choose(&test, true)
        .into_iter()
        .filter(|answer| drawn.contains(&answer["questionId"]))
        .collect();
    let body = json!({ "testId": test["id"], "questionWithAnswers": answers });
    let complete = || post_json(&portal, "/api/test/complete-test", &learner, body.clone());

    let outcomes = join_all((0..30).map(|_| complete())).await;
    let accepted = outcomes.iter().filter(|(status, _)| *status == 200).count();
    let refused = outcomes.iter().filter(|(status, _)| *status == 409).count();
    assert_eq!((accepted, refused), (1, 29), "{outcomes:?}");
    let summary = get_data(
        &portal,
        &format!(
            "/api/test/get-test-summary?idTest={}&userId={LEARNER}",
            test["id"]
        ),
        &learner,
    )
    .await;
    assert_eq!(summary["numberOfTriesLeft"], 2);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_demo_nurse_finds_her_two_courses_and_the_educator_the_results() {
    let portal = start(&["--seed-demo=true"]).await;
    let sign_in = |login: &'static str| {
        let body = json!({ "login": login, "password": format!("{login}-demo-password") });
        let post = Post {
            json: Some(body),
            ..Post::default()
        };
        let portal = &portal;
        async move {
            let (status, _, body) = portal.post("/api/auth/login", post).await;
            data(status, &body)["accessToken"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let nurse = sign_in("nurse").await;
    let courses = get_data(&portal, "/api/course/get-all-courses", &nurse).await;
    assert_eq!(courses.as_array().unwrap().len(), 2, "{courses}");
    let my_tests = get_data(&portal, "/api/test/get-my-tests", &nurse).await;
    assert_eq!(my_tests.as_array().unwrap().len(), 2, "{my_tests}");
    let educator = sign_in("educator").await;
    let results = get_data(&portal, "/api/test/get-all-user-test-result", &educator).await;
    // Hand hygiene: the nurse twice, the doctor once; basic CPR: the nurse (358 days
    // ago, lapsing) and the senior nurse.
    assert_eq!(results.as_array().unwrap().len(), 5, "{results}");
    portal.running.stop().await.unwrap();
}

/// Article content with a photo inside, as the editor sends images.
fn with_photo(bytes: usize) -> String {
    format!(
        "<p>Схема отделения:</p><p><img src=\"data:image/png;base64,{}\"></p>",
        "A".repeat(bytes)
    )
}

fn article_body(content: &str) -> Value {
    json!({
        "title": "Схема отделения",
        "description": "С фотографией",
        "content": content,
        "dateDeadLine": "2099-01-31T00:00:00Z",
    })
}

#[tokio::test]
async fn an_article_with_a_photo_up_to_ten_megabytes_is_saved_and_a_larger_one_refused() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    // About 9 MB: over axum's 2 MB body and gRPC's 4 MB message defaults.
    let content = with_photo(9 * 1000 * 1000);
    let saved = post_data(
        &portal,
        "/api/course/create-article",
        &admin,
        article_body(&content),
    )
    .await;
    assert_eq!(saved["content"], content.as_str());
    let mut update = article_body(&content);
    update["id"] = saved["id"].clone();
    update["title"] = json!("Схема отделения, 2-е изд.");
    post_data(&portal, "/api/course/update-article", &admin, update).await;
    let read = get_data(
        &portal,
        &format!("/api/course/get-by-id-article?idArticle={}", saved["id"]),
        &admin,
    )
    .await;
    assert_eq!(read["title"], "Схема отделения, 2-е изд.");
    assert_eq!(read["content"], content.as_str());

    // The web client's way: gRPC(-web) forwarded to the service as it came.
    let limit = portal_kit::rich_text::MAX_MESSAGE_BYTES;
    let mut education =
        EducationServiceClient::new(portal.grpc_channel().await).max_decoding_message_size(limit);
    let mut request = tonic::Request::new(pb::CreateArticleRequest {
        title: "Схема по gRPC".to_owned(),
        description: "С фотографией".to_owned(),
        content: content.clone(),
        date_deadline: "2099-01-31".to_owned(),
        test_id: 0,
    });
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {admin}").parse().unwrap());
    let article = education
        .create_article(request)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(article.article.unwrap().content, content);

    // 11 MB: over the promise, refused by education in Russian.
    let (status, body) = post_json(
        &portal,
        "/api/course/create-article",
        &admin,
        article_body(&with_photo(11 * 1000 * 1000)),
    )
    .await;
    assert_eq!(
        error(400, status, &body),
        "Содержимое статьи не должно превышать 10 МБ"
    );
    // Past the room for the rest of the message the gateway refuses the body.
    let (status, body) = post_json(
        &portal,
        "/api/course/update-article",
        &admin,
        article_body(&with_photo(12 * 1024 * 1024)),
    )
    .await;
    assert_eq!(error(413, status, &body), "Слишком большой запрос");
}

/// Issue 19: `null` for an optional field means "none" (`"idTest": null` was a
/// 400), and a body of the wrong shape says which field is wrong and why.
#[tokio::test]
async fn null_is_none_and_a_wrong_field_is_named() {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    let mut body = article_body("<p>Текст</p>");
    body["idTest"] = Value::Null;
    body["id"] = Value::Null;
    let saved = post_data(&portal, "/api/course/create-article", &admin, body.clone()).await;
    assert!(saved["testId"].is_null() || saved["testId"] == 0, "{saved}");
    body["id"] = saved["id"].clone();
    body["title"] = json!("Схема отделения, 2-е изд.");
    let updated = post_data(&portal, "/api/course/update-article", &admin, body.clone()).await;
    assert_eq!(updated["title"], "Схема отделения, 2-е изд.");

    body["title"] = json!(5);
    let (status, answer) = post_json(&portal, "/api/course/update-article", &admin, body).await;
    assert_eq!(
        error(400, status, &answer),
        "Поле «title»: ожидается строка"
    );
    let course = json!({ "title": "Курс", "userIds": [1, "два"] });
    let (status, answer) = post_json(
        &portal,
        "/api/course/create-course-with-user-and-articles",
        &admin,
        course,
    )
    .await;
    assert_eq!(
        error(400, status, &answer),
        "Поле «userIds[1]»: ожидается целое число"
    );
    portal.running.stop().await.unwrap();
}
