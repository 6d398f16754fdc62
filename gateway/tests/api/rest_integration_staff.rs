//! Staff from HR over REST: `POST /api/integration/sync-staff`, camelCase in
//! and out, the envelope, and a 5,000-person body within the route's limit.

use crate::support::{ADMIN_PASSWORD, Post, data, post_data, start};
use serde_json::{Value, json};

fn people(count: usize) -> Vec<Value> {
    (0..count)
        .map(|n| {
            json!({
                "employeeNumber": format!("{n:06}"),
                "surname": "Сотрудникова",
                "name": "Мария",
                "lastName": "Петровна",
                "login": "",
                "email": format!("staff{n}@hospital.example"),
                "departmentCodes": [format!("D{}", n % 20)],
                "positionCodes": ["NURSE"],
                "dismissed": false
            })
        })
        .collect()
}

fn batch(dry_run: bool, count: usize) -> Value {
    json!({
        "dryRun": dry_run,
        "full": false,
        "departments": (0..20).map(|d| json!({"code": format!("D{d}"), "title": format!("Отделение №{d}")})).collect::<Vec<_>>(),
        "positions": [{"code": "NURSE", "title": "Медицинская сестра палатная"}],
        "people": people(count),
    })
}

#[tokio::test]
async fn hr_syncs_five_thousand_people_in_one_body_and_a_dry_run_changes_nothing() {
    let portal = start(&[]).await;
    let login = json!({ "login": "admin", "password": ADMIN_PASSWORD });
    let post = Post {
        json: Some(login),
        ..Post::default()
    };
    let (status, _, body) = portal.post("/api/auth/login", post).await;
    let token = data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();

    let body = batch(false, 5000);
    let size = body.to_string().len();
    assert!(size > 1_000_000, "a realistic body: {size} bytes");
    let done = post_data(&portal, "/api/integration/sync-staff", &token, body).await;
    assert_eq!(
        (
            &done["created"],
            &done["changed"],
            &done["blocked"],
            &done["unchanged"]
        ),
        (&json!(5000), &json!(0), &json!(0), &json!(0))
    );
    assert_eq!(done["errors"], json!([]));
    assert_eq!(done["people"][0]["employeeNumber"], "000000");
    assert_eq!(done["people"][0]["action"], "created");
    assert_eq!(done["departmentCounts"]["created"], 20);

    let mut changed = batch(true, 5000);
    changed["people"][7]["surname"] = json!("Новикова");
    changed["people"][8]["employeeNumber"] = json!("");
    let planned = post_data(&portal, "/api/integration/sync-staff", &token, changed).await;
    assert_eq!(planned["dryRun"], true);
    assert_eq!(
        (&planned["changed"], &planned["unchanged"]),
        (&json!(1), &json!(4998))
    );
    assert_eq!(
        planned["people"],
        json!([{"employeeNumber": "000007", "action": "changed", "changed": ["surname"], "userId": planned["people"][0]["userId"]}])
    );
    assert_eq!(
        planned["errors"],
        json!([{"section": "people", "index": 8, "key": "", "message": "Укажите табельный номер", "reason": "invalid-row"}])
    );
    let again = post_data(
        &portal,
        "/api/integration/sync-staff",
        &token,
        batch(false, 5000),
    )
    .await;
    assert_eq!(again["unchanged"], 5000, "the dry run wrote nothing");

    // Beyond the route's limit (32 MiB): refused before auth is asked.
    let huge = json!({ "people": people(40_000), "padding": "x".repeat(33 * 1024 * 1024) });
    let (status, body) =
        crate::support::post_json(&portal, "/api/integration/sync-staff", &token, huge).await;
    assert_eq!(status, 413, "{body}");

    // No token, no sync.
    let (status, _, _) = portal
        .post(
            "/api/integration/sync-staff",
            Post {
                json: Some(batch(true, 1)),
                ..Post::default()
            },
        )
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_batch_larger_than_one_message_goes_in_one_rest_call_and_everyone_comes_back_in_one_answer()
 {
    // A slow debug build under load: the call's time is not what is tested.
    let portal = start(&["--upstream-call-timeout=600"]).await;
    let token = crate::support::sign_in_admin(&portal.http, &portal.base, ADMIN_PASSWORD).await;
    // 8,000 people with names as long as allowed: more than auth's 4 MB
    // message both ways (the batch in, every person out).
    let long = |part: &str| part.repeat(100 / part.chars().count());
    let mut body = batch(false, 8_000);
    for person in body["people"].as_array_mut().unwrap() {
        person["surname"] = json!(long("Сотрудникова"));
        person["name"] = json!(long("Мария"));
        person["lastName"] = json!(long("Петровна"));
    }
    assert!(
        body.to_string().len() > 5 * 1024 * 1024,
        "larger than one message"
    );
    let done = post_data(&portal, "/api/integration/sync-staff", &token, body).await;
    assert_eq!(done["created"], 8_000);
    assert_eq!(done["errors"], json!([]));
    let everyone = crate::support::get_data(&portal, "/api/user/get-all-user", &token).await;
    assert_eq!(everyone.as_array().unwrap().len(), 8_001);
    assert!(everyone.to_string().len() > 4 * 1024 * 1024, "never a 413");
    portal.running.stop().await.unwrap();
}
