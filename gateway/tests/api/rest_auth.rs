//! Every auth-host call of spec §7 over REST: paths, query names, camelCase
//! fields, the envelope, statuses and the refresh cookie.

use crate::support::{ADMIN_PASSWORD, Portal, Post, data, get_data, post_data, start};
use reqwest::header::{HeaderMap, SET_COOKIE};
use serde_json::{Value, json};

const SESSION_EXPIRED: &str = "Сессия истекла. Пожалуйста, войдите снова.";

/// The `portal_refresh` cookie a response sets, as (value, attributes).
fn refresh_cookie(headers: &HeaderMap) -> (String, String) {
    set_cookie(headers, "portal_refresh")
}

/// The cookie `name` a response sets, as (value, attributes).
fn set_cookie(headers: &HeaderMap, name: &str) -> (String, String) {
    let prefix = format!("{name}=");
    let cookie = headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {name} cookie in {headers:?}"))
        .to_owned();
    let (pair, attributes) = cookie.split_once(';').unwrap_or((&cookie, ""));
    let value = pair.trim_start_matches(&prefix).to_owned();
    (value, attributes.to_owned())
}

/// The `errorMessage` of a failed answer, after checking the status.
fn error(expected: u16, (status, _, body): (u16, HeaderMap, String)) -> String {
    crate::support::error(expected, status, &body)
}

async fn sign_in(portal: &Portal, login: &str, password: &str) -> (u16, HeaderMap, String) {
    let body = json!({ "login": login, "password": password });
    portal
        .post(
            "/api/auth/login",
            Post {
                json: Some(body),
                ..Post::default()
            },
        )
        .await
}

async fn refresh(portal: &Portal, cookie: Option<&str>) -> (u16, HeaderMap, String) {
    let post = Post {
        refresh_cookie: cookie,
        ..Post::default()
    };
    portal.post("/api/auth/refresh-token", post).await
}

/// Signs the bootstrap admin in and returns the access token.
async fn admin_token(portal: &Portal) -> String {
    let (status, _, body) = sign_in(portal, "admin", ADMIN_PASSWORD).await;
    data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn ids(list: &Value) -> Vec<i64> {
    let mut ids: Vec<i64> = list
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|item| item["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    ids
}

#[tokio::test]
async fn sign_in_sets_the_cookie_refresh_rotates_it_and_logout_kills_it() {
    let portal = start(&[]).await;

    let wrong = sign_in(&portal, "admin", "not-the-password").await;
    assert_eq!(error(401, wrong), "Неверный логин или пароль");
    let no_password = Post {
        json: Some(json!({ "login": "admin" })),
        ..Post::default()
    };
    let refused = portal.post("/api/auth/login", no_password).await;
    assert_eq!(error(400, refused), "Введите логин и пароль");

    let (status, headers, body) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    let session = data(status, &body);
    assert!(
        session["accessToken"]
            .as_str()
            .is_some_and(|t| t.len() > 20)
    );
    assert!(session["expiresIn"].as_i64().is_some_and(|s| s > 0));
    assert!(
        session.get("refreshToken").is_none(),
        "never shown to the page"
    );
    let (first, attributes) = refresh_cookie(&headers);
    assert_eq!(first.len(), 43);
    for attribute in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/api/auth",
        "Max-Age=1209600",
    ] {
        assert!(
            attributes.contains(attribute),
            "{attribute} in {attributes}"
        );
    }

    // No body: the cookie is the credential; the answer carries data.accessToken.
    let (status, headers, body) = refresh(&portal, Some(&first)).await;
    assert!(data(status, &body)["accessToken"].is_string());
    let (second, _) = refresh_cookie(&headers);
    assert_ne!(second, first, "rotated on every use");

    // The rotated cookie again is theft: the family ends, the successor with it.
    let (status, headers, body) = refresh(&portal, Some(&first)).await;
    assert_eq!(error(401, (status, headers.clone(), body)), SESSION_EXPIRED);
    assert!(refresh_cookie(&headers).1.contains("Max-Age=0"));
    assert_eq!(
        error(401, refresh(&portal, Some(&second)).await),
        SESSION_EXPIRED
    );
    assert_eq!(error(401, refresh(&portal, None).await), SESSION_EXPIRED);

    // Logout revokes the session and clears the cookie.
    let (_, headers, _) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    let (third, _) = refresh_cookie(&headers);
    let post = Post {
        refresh_cookie: Some(&third),
        ..Post::default()
    };
    let (status, headers, body) = portal.post("/api/auth/logout", post).await;
    data(status, &body);
    let (cleared, attributes) = refresh_cookie(&headers);
    assert!(cleared.is_empty() && attributes.contains("Max-Age=0"));
    assert_eq!(
        error(401, refresh(&portal, Some(&third)).await),
        SESSION_EXPIRED
    );
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn department_calls_answer_with_the_spec_fields() {
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;

    let blank = Post {
        json: Some(json!({ "title": "  ", "users": [] })),
        token: Some(&admin),
        ..Post::default()
    };
    let refused = portal.post("/api/department/create", blank).await;
    assert_eq!(error(400, refused), "Введите название отделения");

    let created = post_data(
        &portal,
        "/api/department/create",
        &admin,
        json!({ "title": "Хирургическое отделение", "users": [1] }),
    )
    .await;
    let surgery = created["id"].as_i64().unwrap();
    assert_eq!(created["title"], "Хирургическое отделение");
    assert_eq!(
        created["users"],
        json!([{ "id": 1, "name": "Администратор", "surname": "Системный", "lastName": "" }])
    );
    let intensive = post_data(
        &portal,
        "/api/department/create",
        &admin,
        json!({ "title": "Отделение реанимации", "users": [{ "id": 1 }] }),
    )
    .await["id"]
        .as_i64()
        .unwrap();

    let twin = Post {
        json: Some(json!({ "title": "хирургическое  отделение", "users": [] })),
        token: Some(&admin),
        ..Post::default()
    };
    let refused = portal.post("/api/department/create", twin).await;
    assert_eq!(
        error(409, refused),
        "Отделение с таким названием уже существует"
    );
    let oversized = Post {
        json: Some(json!({ "title": "Ж".repeat(3 << 20), "users": [] })),
        token: Some(&admin),
        ..Post::default()
    };
    let refused = portal.post("/api/department/create", oversized).await;
    assert_eq!(error(413, refused), "Слишком большой запрос");

    let all = get_data(&portal, "/api/department/get-all", &admin).await;
    assert_eq!(ids(&all), [surgery, intensive]);
    let surgery_json = json!({ "id": surgery, "title": "Хирургическое отделение" });
    assert!(all.as_array().unwrap().contains(&surgery_json), "{all}");

    let by_ids = format!(
        "/api/department/get-all-by-user-departments?departmentIds={surgery}&departmentIds={intensive}"
    );
    assert_eq!(
        ids(&get_data(&portal, &by_ids, &admin).await),
        [surgery, intensive]
    );

    let with_users = get_data(&portal, "/api/department/get-all-with-users", &admin).await;
    assert_eq!(with_users[0]["users"][0]["id"], 1);

    let one = format!("/api/department/get-by-id?departmentId={surgery}");
    assert_eq!(
        get_data(&portal, &one, &admin).await,
        json!({ "id": surgery, "title": "Хирургическое отделение" })
    );
    let one_with_users = format!("/api/department/get-with-users?departmentId={surgery}");
    assert_eq!(
        get_data(&portal, &one_with_users, &admin).await["users"][0]["surname"],
        "Системный"
    );

    let updated = post_data(
        &portal,
        "/api/department/update",
        &admin,
        json!({ "id": surgery, "title": "Хирургия", "users": [] }),
    )
    .await;
    assert_eq!(
        updated,
        json!({ "id": surgery, "title": "Хирургия", "users": [] })
    );
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn reference_lists_answer_with_the_spec_fields() {
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;
    let rights = get_data(&portal, "/api/rights/get-all", &admin).await;
    assert_eq!(
        rights,
        json!([
            { "id": 1, "name": "UserManagement" },
            { "id": 2, "name": "EducationManagement" },
            { "id": 3, "name": "EquipmentEditing" },
        ])
    );
    let positions = get_data(&portal, "/api/position/get-all", &admin).await;
    assert!(
        positions[0]["id"].is_i64() && positions[0]["title"].is_string(),
        "{positions}"
    );
    let statuses = get_data(&portal, "/api/user/get-all-statuses", &admin).await;
    let names: Vec<&str> = statuses
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        names.contains(&"Работает") && names.contains(&"Уволен"),
        "{statuses}"
    );
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn user_calls_answer_with_the_spec_fields() {
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;
    let department = post_data(
        &portal,
        "/api/department/create",
        &admin,
        json!({ "title": "Кардиологическое отделение", "users": [] }),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let statuses = get_data(&portal, "/api/user/get-all-statuses", &admin).await;
    let working = statuses
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Работает")
        .map(|s| s["id"].as_i64().unwrap())
        .unwrap();
    let position = get_data(&portal, "/api/position/get-all", &admin).await[0]["id"]
        .as_i64()
        .unwrap();

    let created = post_data(
        &portal,
        "/api/user/create-user",
        &admin,
        json!({
            "name": "Елена", "surname": "Морозова", "lastName": "Андреевна",
            "login": "morozova", "password": "morozova-password",
            "email": "morozova@hospital.example", "status": { "id": working },
            "departments": [department], "positions": [position], "rights": [2, 3],
        }),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["lastName"], "Андреевна");
    assert_eq!(created["status"], json!({ "id": working }));
    assert_eq!(
        created["userDepartmentsDto"],
        json!([{ "departmentDto": { "id": department } }])
    );
    assert_eq!(
        created["userPositionsDto"],
        json!([{ "positionDto": { "id": position } }])
    );
    assert_eq!(
        created["userRightsDto"],
        json!([{ "rightDto": { "id": 2 } }, { "rightDto": { "id": 3 } }])
    );
    assert!(created.get("password").is_none(), "{created}");

    let all = get_data(&portal, "/api/User/get-all-user", &admin).await;
    let listed = all
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == id)
        .cloned()
        .unwrap();
    assert_eq!(listed["login"], "morozova");
    assert_eq!(listed["departments"], json!([department]));
    assert_eq!(listed["rights"], json!([2, 3]));

    let detail = get_data(&portal, &format!("/api/user/get-user?idUser={id}"), &admin).await;
    assert_eq!(
        detail["userDepartmentsDto"][0]["departmentDto"]["id"],
        department
    );

    // A blank password leaves it as it was; the rest is replaced.
    let edit = json!({
        "id": id, "name": "Елена", "surname": "Морозова-Лебедева", "lastName": "Андреевна",
        "login": "morozova", "password": "", "email": "", "status": { "id": working },
        "departments": [], "positions": [], "rights": [],
    });
    let updated = post_data(&portal, "/api/user/update-user", &admin, edit).await;
    assert_eq!(updated["surname"], "Морозова-Лебедева");
    assert_eq!(updated["userRightsDto"], json!([]));
    let (status, _, body) = sign_in(&portal, "morozova", "morozova-password").await;
    let own_token = data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();

    let me = get_data(&portal, "/api/user/get-me", &own_token).await;
    assert_eq!(me["user"]["id"], id);
    assert_eq!(me["status"]["name"], "Работает");
    assert_eq!(me["rights"], json!([]));

    // Without UserManagement the user list and other users stay closed.
    let closed = portal.get("/api/user/get-all-user", Some(&own_token)).await;
    assert_eq!(error(403, closed), "У вас нет доступа к данному ресурсу");
    let other = portal
        .get("/api/user/get-user?idUser=1", Some(&own_token))
        .await;
    assert_eq!(error(403, other), "У вас нет доступа к данному ресурсу");
    let taken = Post {
        json: Some(json!({ "login": "MOROZOVA", "password": "another-password" })),
        token: Some(&admin),
        ..Post::default()
    };
    let conflict = portal.post("/api/user/create-user", taken).await;
    assert_eq!(
        error(409, conflict),
        "Пользователь с таким логином уже существует"
    );
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_admins_own_browser_signs_in_while_guesses_limit_new_devices() {
    let portal = start(&[]).await;
    let (status, headers, body) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    data(status, &body);
    let (device, attributes) = set_cookie(&headers, "portal_device");
    assert_eq!(device.len(), 43);
    for attribute in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/api/auth",
        "Max-Age=31536000",
    ] {
        assert!(attributes.contains(attribute), "{attributes}");
    }
    for _ in 0..20 {
        let _ = sign_in(&portal, "admin", "a-guess").await;
    }
    let new_device = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    assert_eq!(
        error(429, new_device),
        "Слишком много неудачных попыток входа. Попробуйте позже."
    );
    let own_browser = Post {
        json: Some(json!({ "login": "admin", "password": ADMIN_PASSWORD })),
        device_cookie: Some(&device),
        ..Post::default()
    };
    let (status, headers, body) = portal.post("/api/auth/login", own_browser).await;
    data(status, &body);
    assert_eq!(set_cookie(&headers, "portal_device").0, device);
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn too_many_failed_sign_ins_answer_429_with_retry_after() {
    let portal = start(&[]).await;
    for _ in 0..5 {
        let wrong = sign_in(&portal, "admin", "not-the-password").await;
        assert_eq!(error(401, wrong), "Неверный логин или пароль");
    }
    let (status, headers, body) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    let retry_after: u64 = headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no Retry-After in {headers:?}"));
    // The address waits 15 s before its next try at the login, not the window.
    assert!((1..=15).contains(&retry_after), "{retry_after}");
    assert_eq!(
        error(429, (status, headers, body)),
        "Слишком много неудачных попыток входа. Попробуйте позже."
    );
    portal.running.stop().await.unwrap();
}

/// Whether an answer sets any cookie at all.
fn sets_a_cookie(headers: &HeaderMap) -> bool {
    headers.contains_key(SET_COOKIE)
}

#[tokio::test]
async fn a_cross_site_logout_or_refresh_is_refused_and_leaves_the_cookie_alone() {
    let portal = start(&[]).await;
    let (_, headers, _) = sign_in(&portal, "admin", ADMIN_PASSWORD).await;
    let (cookie, _) = refresh_cookie(&headers);
    let from = |origin| Post {
        refresh_cookie: Some(&cookie),
        origin: Some(origin),
        ..Post::default()
    };

    for path in ["/api/auth/logout", "/api/auth/refresh-token"] {
        for origin in ["https://evil.example", "null"] {
            let (status, headers, body) = portal.post(path, from(origin)).await;
            assert!(
                !sets_a_cookie(&headers),
                "{path} from {origin}: {headers:?}"
            );
            assert_eq!(
                error(403, (status, headers, body)),
                "Запрос отклонён: он отправлен с другого сайта"
            );
        }
    }
    let site = reqwest::Client::new()
        .post(format!("{}/api/auth/logout", portal.base))
        .header("cookie", format!("portal_refresh={cookie}"))
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(site.status().as_u16(), 403);
    assert!(!sets_a_cookie(site.headers()));

    // The session survived: the portal's own page renews it and then signs out.
    let own_origin = portal.base.clone();
    let (status, headers, body) = portal
        .post("/api/auth/refresh-token", from(&own_origin))
        .await;
    assert!(data(status, &body)["accessToken"].is_string());
    let (renewed, _) = refresh_cookie(&headers);
    let own = Post {
        refresh_cookie: Some(&renewed),
        origin: Some(&own_origin),
        ..Post::default()
    };
    let (status, headers, body) = portal.post("/api/auth/logout", own).await;
    data(status, &body);
    let (cleared, attributes) = refresh_cookie(&headers);
    assert!(cleared.is_empty() && attributes.contains("Max-Age=0"));
    assert_eq!(
        error(401, refresh(&portal, Some(&renewed)).await),
        SESSION_EXPIRED
    );
    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn a_call_without_the_cookie_clears_nothing() {
    let portal = start(&[]).await;
    let (status, headers, body) = refresh(&portal, None).await;
    assert!(!sets_a_cookie(&headers), "{headers:?}");
    assert_eq!(error(401, (status, headers, body)), SESSION_EXPIRED);
    let (status, headers, body) = portal.post("/api/auth/logout", Post::default()).await;
    data(status, &body);
    assert!(!sets_a_cookie(&headers), "{headers:?}");
    portal.running.stop().await.unwrap();
}

/// Issue 19: an anonymous call is 401 before its parameters or body are
/// judged, so it learns nothing of a route but that it needs a sign-in; the
/// public routes still judge them.
#[tokio::test]
async fn an_anonymous_call_is_401_before_its_parameters_are_judged() {
    let portal = start(&[]).await;
    for path in [
        "/api/file/get-files?idRelated=x",
        "/api/file/get-files",
        "/api/user/get-user?idUser=abc",
        "/api/test/get-by-id-test",
    ] {
        let (status, _, body) = portal.get(path, None).await;
        assert_eq!(
            crate::support::error(401, status, &body),
            "Требуется вход в систему",
            "{path}"
        );
    }
    for path in ["/api/course/create-article", "/api/file/save"] {
        let response = portal
            .http
            .post(format!("{}{path}", portal.base))
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 401, "{path}");
    }
    // Public routes answer anonymous callers and judge their parameters.
    let (status, _, _) = portal
        .get(
            "/api/environment-model/get-public-instruction?environmentModelId=x",
            None,
        )
        .await;
    assert_eq!(status, 400);
    let (status, _, _) = portal.get("/api/file/download/abc", None).await;
    assert_eq!(status, 400);
    let (status, _, _) = portal.post("/api/auth/login", Post::default()).await;
    assert_eq!(status, 400);
    // With a token the parameters are judged as ever.
    let token = portal.token(1, &[]);
    let (status, _, _) = portal
        .get("/api/file/get-files?idRelated=x", Some(&token))
        .await;
    assert_eq!(status, 400);
    portal.running.stop().await.unwrap();
}

/// A grpc-web call of `method` on the auth service with `request`: the
/// answer's headers and its first message.
async fn grpc_web<Q: prost::Message, R: prost::Message + Default>(
    portal: &Portal,
    method: &str,
    request: Q,
) -> (HeaderMap, Option<R>) {
    let message = request.encode_to_vec();
    let mut frame = vec![0u8];
    frame.extend_from_slice(&(message.len() as u32).to_be_bytes());
    frame.extend_from_slice(&message);
    let response = portal
        .http
        .post(format!(
            "{}/portal.auth.v1.AuthService/{method}",
            portal.base
        ))
        .header("content-type", "application/grpc-web+proto")
        .header("x-grpc-web", "1")
        .body(frame)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap();
    let reply = (body.len() >= 5 && body[0] == 0).then(|| {
        let length = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
        R::decode(&body[5..5 + length]).unwrap()
    });
    (headers, reply)
}

/// Issue 19: a grpc-web sign-in comes from a browser, whose scripts must
/// never see the refresh and device tokens: they come as the cookies REST
/// sets, and the refresh cookie works. Native gRPC clients still get them.
#[tokio::test]
async fn a_grpc_web_sign_in_sets_its_tokens_as_cookies_not_in_the_answer() {
    use portal_proto::auth::v1 as pb;
    let portal = start(&[]).await;
    let login = pb::LoginRequest {
        login: "admin".into(),
        password: ADMIN_PASSWORD.into(),
        device_token: String::new(),
    };
    let (headers, reply) = grpc_web::<_, pb::LoginResponse>(&portal, "Login", login.clone()).await;
    let reply = reply.expect("a LoginResponse");
    assert!(!reply.access_token.is_empty());
    assert!(reply.expires_in > 0);
    assert_eq!(reply.refresh_token, "");
    assert_eq!(reply.device_token, "");
    let (first, attributes) = refresh_cookie(&headers);
    assert!(attributes.contains("HttpOnly"), "{attributes}");
    let (device, _) = set_cookie(&headers, "portal_device");
    assert!(!first.is_empty() && !device.is_empty());

    let (headers, reply) = grpc_web::<_, pb::RefreshTokenResponse>(
        &portal,
        "RefreshToken",
        pb::RefreshTokenRequest {
            refresh_token: first.clone(),
        },
    )
    .await;
    let reply = reply.expect("a RefreshTokenResponse");
    assert!(!reply.access_token.is_empty());
    assert_eq!(reply.refresh_token, "");
    let (rotated, _) = refresh_cookie(&headers);
    assert!(!rotated.is_empty() && rotated != first);
    let (status, _, body) = refresh(&portal, Some(&rotated)).await;
    assert!(data(status, &body)["accessToken"].is_string());

    let mut auth = portal_proto::auth::v1::auth_service_client::AuthServiceClient::new(
        portal.grpc_channel().await,
    );
    let native = auth.login(login).await.unwrap().into_inner();
    assert!(!native.refresh_token.is_empty() && !native.device_token.is_empty());
    portal.running.stop().await.unwrap();
}
