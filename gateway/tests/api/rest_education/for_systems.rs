//! The integration routes other hospital systems call (assign a course, records
//! after a cursor, the watch stream), and a course's validity round trip.

use super::*;
use crate::support::{error, get_data, post_data, post_json, start};
use portal_kit::Right;
use portal_proto::education::v1 as pb;
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use serde_json::{Value, json};

/// Other systems' training routes (issue 21): a course assigned by user id
/// with a deadline of their own, the result pulled as a record after a
/// cursor, and the assignee's standing, in the envelope and camelCase.
#[tokio::test]
async fn integration_routes_assign_a_course_and_hand_out_records_after_a_cursor() {
    let portal = start(&[]).await;
    // The bootstrap admin (user 1 in auth) is the learner here: auth knows them.
    let admin = portal.token(1, &[Right::EducationManagement]);
    let test = post_data(
        &portal,
        "/api/test/create-test-with-question-and-answers",
        &admin,
        test_body(1, 2, 3, 2),
    )
    .await;
    let article = post_data(
        &portal,
        "/api/course/create-article",
        &admin,
        json!({
            "title": "Пять моментов гигиены рук",
            "description": "ВОЗ",
            "content": "<p>Текст</p>",
            "dateDeadLine": "2099-01-31",
            "idTest": test["id"],
        }),
    )
    .await;
    let course = post_data(
        &portal,
        "/api/course/create-course-with-user-and-articles",
        &admin,
        json!({
            "title": "Профилактика ИСМП",
            "description": "Обязательный курс",
            "dateDeadline": "2099-01-31",
            "userIds": [],
            "articleIds": [article["id"]],
        }),
    )
    .await;
    let assign = json!({
        "courseId": course["id"],
        "employeeNumbers": ["Т-404"],
        "departmentCodes": [],
        "userIds": [1],
        "dateDeadline": "2099-12-31",
    });
    let assigned = post_data(
        &portal,
        "/api/integration/assign-course",
        &admin,
        assign.clone(),
    )
    .await;
    assert_eq!(assigned["assigned"], json!([1]));
    assert_eq!(assigned["notFoundEmployeeNumbers"], json!(["Т-404"]));
    let again = post_data(&portal, "/api/integration/assign-course", &admin, assign).await;
    assert_eq!(again["assigned"], json!([]));
    assert_eq!(again["unchanged"], json!([1]));

    post_data(
        &portal,
        "/api/test/start-attempt",
        &admin,
        json!({ "testId": test["id"] }),
    )
    .await;
    post_data(
        &portal,
        "/api/test/complete-test",
        &admin,
        json!({ "testId": test["id"], "questionWithAnswers": choose(&test, true) }),
    )
    .await;

    let page = get_data(
        &portal,
        "/api/integration/training-records?after=0&limit=10",
        &admin,
    )
    .await;
    let record = &page["records"][0];
    assert_eq!(page["next"], record["seq"]);
    assert_eq!(record["userId"], 1);
    assert_eq!(record["employeeNumber"], "");
    assert_eq!(record["courseId"], course["id"]);
    assert_eq!(record["testTitle"], "Гигиена рук");
    assert_eq!(
        (record["points"].clone(), record["maxPoints"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(record["passed"], true);
    assert!(record["completedAt"].as_str().unwrap().ends_with('Z'));
    let next = page["next"].as_i64().unwrap();
    let rest = get_data(
        &portal,
        &format!("/api/integration/training-records?after={next}"),
        &admin,
    )
    .await;
    assert_eq!(rest, json!({ "records": [], "next": next }));

    let standing = get_data(
        &portal,
        &format!(
            "/api/integration/training-compliance?courseId={}",
            course["id"]
        ),
        &admin,
    )
    .await;
    let item = &standing["items"][0];
    assert_eq!(item["dateDeadline"], "2099-12-31");
    assert_eq!(item["ownDeadline"], true);
    assert_eq!(item["isComplete"], true);

    let learner = portal.token(LEARNER, &[]);
    let (status, _, body) = portal
        .get("/api/integration/training-records", Some(&learner))
        .await;
    error(403, status, &body);
}

/// The gRPC watch of training records through the gateway streams past the
/// upstream call time-out that bounds every unary call.
#[tokio::test]
async fn the_watch_of_training_records_outlives_the_upstream_call_time_out() {
    let portal = start(&["--upstream-call-timeout=1"]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    let (test, _, _) = assigned(&portal, &admin, 3).await;
    let mut client = EducationServiceClient::new(portal.grpc_channel().await);
    let mut request = tonic::Request::new(pb::WatchTrainingRecordsRequest { after: 0 });
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {admin}").parse().unwrap());
    let mut watch = client
        .watch_training_records(request)
        .await
        .unwrap()
        .into_inner();
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let learner = portal.token(LEARNER, &[]);
    post_data(
        &portal,
        "/api/test/start-attempt",
        &learner,
        json!({ "testId": test["id"] }),
    )
    .await;
    post_data(
        &portal,
        "/api/test/complete-test",
        &learner,
        json!({ "testId": test["id"], "questionWithAnswers": choose(&test, true) }),
    )
    .await;
    let message = tokio::time::timeout(std::time::Duration::from_secs(1), watch.message())
        .await
        .expect("the record within a second")
        .expect("the stream is still open")
        .expect("a message");
    assert_eq!(message.records[0].user_id, LEARNER);
}

#[tokio::test]
async fn a_course_validity_in_months_round_trips_absent_on_create_never_expires_and_on_update_is_kept()
 {
    let portal = start(&[]).await;
    let admin = portal.token(1, &[Right::EducationManagement]);
    // Written before issue 24: no validityMonths, so passes never expire.
    let (_, article, course) = assigned(&portal, &admin, 3).await;
    assert_eq!(course["validityMonths"].as_i64().unwrap_or(0), 0);
    let course_id = course["id"].as_i64().unwrap();
    let body = |months: Value| json!({ "id": course_id, "title": "Профилактика ИСМП", "description": "Курс", "dateDeadline": "2099-03-01", "userIds": [LEARNER], "articleIds": [article["id"]], "validityMonths": months });
    let updated = post_data(
        &portal,
        "/api/course/update-course",
        &admin,
        body(json!(12)),
    )
    .await;
    assert_eq!(updated["validityMonths"], 12);
    for read in [
        format!("/api/course/get-by-id-course?idCourse={course_id}"),
        format!("/api/course/get-full-course-info?idCourse={course_id}"),
    ] {
        assert_eq!(get_data(&portal, &read, &admin).await["validityMonths"], 12);
    }
    // An update from a client that predates the field keeps the validity.
    let mut without = body(json!(null));
    without.as_object_mut().unwrap().remove("validityMonths");
    let kept = post_data(&portal, "/api/course/update-course", &admin, without).await;
    assert_eq!(kept["validityMonths"], 12);
    let created = post_data(
        &portal,
        "/api/course/create-course-with-user-and-articles",
        &admin,
        json!({ "title": "СЛР", "description": "Ежегодно", "dateDeadline": "2099-01-31", "validityMonths": 24 }),
    )
    .await;
    assert_eq!(created["validityMonths"], 24);
    let all = get_data(&portal, "/api/course/get-all-courses", &admin).await;
    assert_eq!(all[1]["validityMonths"], 24);

    let (status, answer) = post_json(
        &portal,
        "/api/course/update-course",
        &admin,
        body(json!(121)),
    )
    .await;
    assert_eq!(
        error(400, status, &answer),
        "Срок действия курса должен быть от 0 до 120 месяцев"
    );
}
