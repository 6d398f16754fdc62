//! Required training and clearance over REST (issue 24): the spec-style
//! routes under `/api/environment-model`, on the demo data of every service —
//! the ventilator requires basic CPR, which the demo nurse passed and the
//! demo doctor and реанимация nurse did not.

use crate::support::{Portal, data, error, get_data, post_json, start};
use portal_kit::Right;
use serde_json::{Value, json};

const NURSE: i64 = 2;
const SENIOR_NURSE: i64 = 5;
const DOCTOR: i64 = 3;
const ENGINEER: i64 = 6;
/// The реанимация nurse who passed nothing (auth's demo `icu-nurse`).
const ICU_NURSE: i64 = 8;
const ICU: i64 = 1;
const CARDIOLOGY: i64 = 3;
const HYGIENE_COURSE: i64 = 1;
const CPR_COURSE: i64 = 2;

async fn ventilator(portal: &Portal, engineer: &str) -> Value {
    get_data(portal, "/api/environment-model/get-all", engineer)
        .await
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("Аппарат ИВЛ"))
        .cloned()
        .expect("the demo ventilator")
}

#[tokio::test]
async fn clearance_routes_answer_the_spec_s_fields() {
    let portal = start(&["--seed-demo=true"]).await;
    let engineer = portal.token_in(ENGINEER, &[Right::EquipmentEditing], &[ICU]);
    let nurse = portal.token_in(NURSE, &[], &[ICU, 2]);
    let doctor = portal.token_in(DOCTOR, &[], &[ICU]);
    let model = ventilator(&portal, &engineer).await;
    assert_eq!(model["requiredCourseIds"], json!([CPR_COURSE]));
    let id = model["id"].as_i64().unwrap();
    let clearance = format!("/api/environment-model/get-clearance?environmentModelId={id}");

    // The demo's CPR is valid 12 months; the nurse passed it 358 days ago.
    let cleared = get_data(&portal, &clearance, &nurse).await;
    assert_eq!(cleared["cleared"], true);
    assert_eq!(cleared["missingCourses"], json!([]));
    let until = cleared["validUntil"].as_str().expect("an RFC 3339 instant");
    let in_a_week = portal_kit::day::Day::today().plus_days(7).to_string();
    let in_eight_days = portal_kit::day::Day::today().plus_days(8).to_string();
    assert!(
        until.starts_with(&in_a_week) || until.starts_with(&in_eight_days),
        "lapses next week: {until}"
    );
    let refused = get_data(&portal, &clearance, &doctor).await;
    assert_eq!(refused["cleared"], false);
    assert_eq!(
        refused["missingCourses"],
        json!([{"id": CPR_COURSE, "title": "Базовая сердечно-лёгочная реанимация"}])
    );

    let department = get_data(
        &portal,
        &format!(
            "/api/environment-model/get-department-clearance?environmentModelId={id}&departmentId={ICU}"
        ),
        &engineer,
    )
    .await;
    assert_eq!(department["requiredCourses"][0]["id"], CPR_COURSE);
    let person = |user: i64| {
        department["people"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["userId"] == user)
            .cloned()
            .unwrap_or_else(|| panic!("{user} in {department}"))
    };
    assert_eq!(person(NURSE)["cleared"], true);
    assert_eq!(person(NURSE)["lapsing"], true);
    assert_eq!(person(SENIOR_NURSE)["lapsing"], false);
    assert_eq!(person(DOCTOR)["cleared"], false);
    assert_eq!(person(DOCTOR)["missingCourses"][0]["id"], CPR_COURSE);
    assert_eq!(person(ICU_NURSE)["cleared"], false);
    assert_eq!(person(ICU_NURSE)["missingCourses"][0]["id"], CPR_COURSE);

    let body = json!({"environmentModelId": id, "courseIds": [CPR_COURSE, HYGIENE_COURSE]});
    let (status, answer) = post_json(
        &portal,
        "/api/environment-model/set-required-courses",
        &engineer,
        body.clone(),
    )
    .await;
    assert_eq!(
        data(status, &answer),
        json!({"courseIds": [HYGIENE_COURSE, CPR_COURSE]})
    );
    assert_eq!(
        ventilator(&portal, &engineer).await["requiredCourseIds"],
        json!([HYGIENE_COURSE, CPR_COURSE])
    );
}

#[tokio::test]
async fn clearance_routes_refuse_the_wrong_callers() {
    let portal = start(&["--seed-demo=true"]).await;
    let engineer = portal.token_in(ENGINEER, &[Right::EquipmentEditing], &[ICU]);
    let nurse = portal.token_in(NURSE, &[], &[ICU, 2]);
    let id = ventilator(&portal, &engineer).await["id"].as_i64().unwrap();

    let (status, body) = post_json(
        &portal,
        "/api/environment-model/set-required-courses",
        &nurse,
        json!({"environmentModelId": id, "courseIds": [HYGIENE_COURSE]}),
    )
    .await;
    error(403, status, &body);
    let (status, body) = post_json(
        &portal,
        "/api/environment-model/set-required-courses",
        &engineer,
        json!({"environmentModelId": id, "courseIds": [9999]}),
    )
    .await;
    assert_eq!(error(400, status, &body), "Курс не найден: 9999");

    let (status, _, body) = portal
        .get(
            &format!("/api/environment-model/get-department-clearance?environmentModelId={id}&departmentId={ICU}"),
            Some(&nurse),
        )
        .await;
    error(403, status, &body);
    let (status, _, body) = portal
        .get(
            &format!("/api/environment-model/get-clearance?environmentModelId={id}"),
            None,
        )
        .await;
    error(401, status, &body);

    // Another department's model is not found, as get-by-id answers it
    // (issue 37): a cardiology nurse learns nothing of реанимация's ventilator.
    let elsewhere = portal.token_in(NURSE, &[], &[CARDIOLOGY]);
    for path in [
        format!("/api/environment-model/get-clearance?environmentModelId={id}"),
        format!("/api/environment-model/get-by-id?environmentModelId={id}"),
    ] {
        let (status, _, body) = portal.get(&path, Some(&elsewhere)).await;
        assert_eq!(
            error(404, status, &body),
            "Модель оборудования не найдена",
            "{path}"
        );
    }
}

/// The реанимация nurse nobody assigned basic CPR, which her ventilator
/// requires, enrols in it herself (issue 37): the course is then hers to
/// read; hand hygiene, which no equipment requires, is not offered.
#[tokio::test]
async fn a_nurse_enrols_over_rest_in_the_course_her_ventilator_requires() {
    let portal = start(&["--seed-demo=true"]).await;
    let icu_nurse = portal.token_in(ICU_NURSE, &[], &[ICU]);
    let course = format!("/api/course/get-by-id-course?idCourse={CPR_COURSE}");
    let (status, _, body) = portal.get(&course, Some(&icu_nurse)).await;
    error(404, status, &body);

    let enroll = |course_id: i64| {
        post_json(
            &portal,
            "/api/course/enroll-for-clearance",
            &icu_nurse,
            json!({ "courseId": course_id }),
        )
    };
    let (status, body) = enroll(CPR_COURSE).await;
    let enrolled = data(status, &body);
    assert_eq!(enrolled["enrolled"], true);
    assert_eq!(
        enrolled["course"]["title"],
        "Базовая сердечно-лёгочная реанимация"
    );
    assert_eq!(
        get_data(&portal, &course, &icu_nurse).await["id"],
        CPR_COURSE
    );
    let (status, body) = enroll(CPR_COURSE).await;
    assert_eq!(data(status, &body)["enrolled"], false);

    let (status, body) = enroll(HYGIENE_COURSE).await;
    assert_eq!(error(404, status, &body), "Курс не найден");
}
