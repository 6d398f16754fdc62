//! Other hospital systems as clients (issue 21) through the gateway: the
//! admin's `/api/service-account/…` routes, the OAuth token endpoint as RFC
//! 6749 says (Basic and body credentials, every error it can meet), the token
//! used on another service over gRPC, and refused there once the account is
//! disabled.

use std::time::{Duration, Instant};

use crate::support::{ADMIN_PASSWORD, Portal, Post, data, get_data, post_data, post_json, start};
use base64::Engine as _;
use portal_kit::error::{REASON_ACCESS_REVOKED, REASON_KEY};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::service_account_service_client::ServiceAccountServiceClient;
use portal_proto::wiki::v1::ListEnvironmentModelsRequest;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tonic::Code;

const FORM: &str = "application/x-www-form-urlencoded";

async fn admin_token(portal: &Portal) -> String {
    let post = Post {
        json: Some(json!({ "login": "admin", "password": ADMIN_PASSWORD })),
        ..Post::default()
    };
    let (status, _, body) = portal.post("/api/auth/login", post).await;
    data(status, &body)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A registered system's id and credentials.
struct System {
    id: i64,
    client_id: String,
    secret: String,
}

async fn register(portal: &Portal, admin: &str, name: &str, scopes: &[&str]) -> System {
    let created = post_data(
        portal,
        "/api/service-account/create",
        admin,
        json!({ "name": name, "description": "Интеграция", "scopes": scopes }),
    )
    .await;
    let mut keys: Vec<&str> = created
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["clientId", "clientSecret", "id"], "{created}");
    System {
        id: created["id"].as_i64().unwrap(),
        client_id: created["clientId"].as_str().unwrap().to_owned(),
        secret: created["clientSecret"].as_str().unwrap().to_owned(),
    }
}

/// A token request: the form `body`, and HTTP Basic `basic` if any.
async fn token_request(
    portal: &Portal,
    body: &str,
    basic: Option<(&str, &str)>,
    content_type: &str,
) -> (u16, HeaderMap, Value) {
    let mut request = portal
        .http
        .post(format!("{}/api/oauth/token", portal.base))
        .header("content-type", content_type)
        .body(body.to_owned());
    if let Some((id, secret)) = basic {
        let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
        request = request.header("authorization", format!("Basic {encoded}"));
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (status, headers, json)
}

/// A token by client credentials in the body; panics unless one is issued.
async fn token(portal: &Portal, system: &System, scope: &str) -> Value {
    let body = form(&[
        ("grant_type", "client_credentials"),
        ("client_id", &system.client_id),
        ("client_secret", &system.secret),
        ("scope", scope),
    ]);
    let (status, _, json) = token_request(portal, &body, None, FORM).await;
    assert_eq!(status, 200, "{json}");
    json
}

fn form(fields: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish()
}

/// The RFC 6749 error of a refused token request, after checking its status
/// and that it is no envelope.
fn rfc_error(expected: u16, (status, _, json): &(u16, HeaderMap, Value)) -> String {
    assert_eq!(*status, expected, "{json}");
    assert!(json.get("success").is_none(), "not the envelope: {json}");
    assert!(json["error_description"].is_string(), "{json}");
    json["error"].as_str().unwrap().to_owned()
}

fn account(list: &Value, id: i64) -> &Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("account {id} in {list}"))
}

#[tokio::test]
async fn an_admin_registers_a_system_that_gets_tokens_by_basic_or_body_credentials() {
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;
    let (status, _, _) = portal.get("/api/service-account/get-all", None).await;
    assert_eq!(status, 401);

    let system = register(
        &portal,
        &admin,
        "МИС больницы",
        &["training.read", "staff.read"],
    )
    .await;
    assert!(system.client_id.starts_with("svc-"), "{}", system.client_id);
    assert_eq!(system.secret.len(), 43, "256 bits in base64url");
    let listed = get_data(&portal, "/api/service-account/get-all", &admin).await;
    let shown = account(&listed, system.id);
    assert_eq!(shown["clientId"], system.client_id.as_str());
    assert_eq!(shown["name"], "МИС больницы");
    assert_eq!(shown["description"], "Интеграция");
    assert_eq!(shown["ownerId"], 1, "the admin who registered it");
    assert!(shown["ownerName"].is_string());
    assert_eq!(shown["scopes"], json!(["staff.read", "training.read"]));
    assert_eq!(shown["active"], true);
    assert_eq!(shown["hasPublicKey"], false);
    assert!(shown["lastUsedAt"].is_null() && shown["lastUsedFrom"] == "");
    assert!(shown["createdAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(shown["secrets"].as_array().unwrap().len(), 1);
    assert!(shown["secrets"][0]["lastUsedAt"].is_null());
    assert!(
        !listed.to_string().contains(&system.secret),
        "never shown again"
    );

    // HTTP Basic, every granted scope.
    let body = "grant_type=client_credentials";
    let basic = Some((system.client_id.as_str(), system.secret.as_str()));
    let (status, headers, issued) = token_request(&portal, body, basic, FORM).await;
    assert_eq!(status, 200, "{issued}");
    assert_eq!(issued["token_type"], "Bearer");
    assert_eq!(issued["expires_in"], 600);
    assert_eq!(issued["scope"], "staff.read training.read");
    assert!(issued["access_token"].as_str().unwrap().len() > 100);
    assert!(
        issued.get("success").is_none(),
        "not the envelope: {issued}"
    );
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["pragma"], "no-cache");

    // Body credentials, a subset of the scopes.
    let narrow = token(&portal, &system, "training.read").await;
    assert_eq!(narrow["scope"], "training.read");

    let listed = get_data(&portal, "/api/service-account/get-all", &admin).await;
    let used = account(&listed, system.id);
    assert!(used["lastUsedAt"].is_string(), "{used}");
    assert_eq!(used["lastUsedFrom"], "127.0.0.1");
    assert!(used["secrets"][0]["lastUsedAt"].is_string(), "{used}");

    // Rotation: the new secret and the old one both work; a second rotation
    // drops the oldest.
    let rotated = post_data(
        &portal,
        "/api/service-account/rotate-secret",
        &admin,
        json!({ "id": system.id }),
    )
    .await;
    let second = System {
        secret: rotated["clientSecret"].as_str().unwrap().to_owned(),
        client_id: system.client_id.clone(),
        id: system.id,
    };
    assert!(rotated["secretId"].as_i64().is_some(), "{rotated}");
    token(&portal, &system, "").await;
    token(&portal, &second, "").await;
    post_data(
        &portal,
        "/api/service-account/rotate-secret",
        &admin,
        json!({ "id": system.id }),
    )
    .await;
    let refused = token_request(&portal, body, basic, FORM).await;
    assert_eq!(rfc_error(401, &refused), "invalid_client");
    token(&portal, &second, "").await;

    // Revoking a secret stops it at once.
    let revoked = post_data(
        &portal,
        "/api/service-account/revoke-secret",
        &admin,
        json!({ "id": system.id, "secretId": rotated["secretId"] }),
    )
    .await;
    assert_eq!(revoked["secrets"].as_array().unwrap().len(), 1, "{revoked}");
    let second_basic = Some((second.client_id.as_str(), second.secret.as_str()));
    let refused = token_request(&portal, body, second_basic, FORM).await;
    assert_eq!(rfc_error(401, &refused), "invalid_client");

    // Update, key, disable and enable answer the account.
    let updated = post_data(
        &portal,
        "/api/service-account/update",
        &admin,
        json!({ "id": system.id, "name": "МИС", "description": "", "scopes": ["equipment.read"], "ownerId": 1 }),
    )
    .await;
    assert_eq!(updated["scopes"], json!(["equipment.read"]));
    let (status, body_text) = post_json(
        &portal,
        "/api/service-account/set-public-key",
        &admin,
        json!({ "id": system.id, "publicKey": "not a key" }),
    )
    .await;
    assert_eq!(status, 400, "{body_text}");
    let disabled = post_data(
        &portal,
        "/api/service-account/disable",
        &admin,
        json!({ "id": system.id }),
    )
    .await;
    assert_eq!(disabled["active"], false);
    let enabled = post_data(
        &portal,
        "/api/service-account/enable",
        &admin,
        json!({ "id": system.id }),
    )
    .await;
    assert_eq!(enabled["active"], true);

    portal.running.stop().await.unwrap();
}

#[tokio::test]
async fn the_token_endpoint_answers_each_rfc_6749_error() {
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;
    let system = register(&portal, &admin, "Кадровая система", &["staff.read"]).await;
    let basic = Some((system.client_id.as_str(), system.secret.as_str()));
    let grant = "grant_type=client_credentials";

    // invalid_request: not a form, no grant type, a repeated parameter, two
    // ways of client authentication.
    let json_body = token_request(&portal, "{}", basic, "application/json").await;
    assert_eq!(rfc_error(400, &json_body), "invalid_request");
    let no_grant = token_request(&portal, "scope=staff.read", basic, FORM).await;
    assert_eq!(rfc_error(400, &no_grant), "invalid_request");
    let repeated = format!("{grant}&scope=staff.read&scope=staff.read");
    let twice = token_request(&portal, &repeated, basic, FORM).await;
    assert_eq!(rfc_error(400, &twice), "invalid_request");
    let both = format!("{grant}&client_secret={}", system.secret);
    let both = token_request(&portal, &both, basic, FORM).await;
    assert_eq!(rfc_error(400, &both), "invalid_request");

    // unsupported_grant_type.
    let password = token_request(&portal, "grant_type=password", basic, FORM).await;
    assert_eq!(rfc_error(400, &password), "unsupported_grant_type");

    // invalid_scope: not granted, or unknown.
    for scope in ["staff.write", "everything"] {
        let asked = format!("{grant}&scope={scope}");
        let refused = token_request(&portal, &asked, basic, FORM).await;
        assert_eq!(rfc_error(400, &refused), "invalid_scope", "{scope}");
    }

    // invalid_client: a wrong secret by Basic names the scheme to retry with;
    // by the body it does not; an unknown client reads the same.
    let wrong = Some((system.client_id.as_str(), "wrong-secret"));
    let refused = token_request(&portal, grant, wrong, FORM).await;
    assert_eq!(rfc_error(401, &refused), "invalid_client");
    assert_eq!(refused.1["www-authenticate"], "Basic realm=\"portal\"");
    let in_body = form(&[
        ("grant_type", "client_credentials"),
        ("client_id", &system.client_id),
        ("client_secret", "wrong-secret"),
    ]);
    let refused = token_request(&portal, &in_body, None, FORM).await;
    assert_eq!(rfc_error(401, &refused), "invalid_client");
    assert!(refused.1.get("www-authenticate").is_none());
    let unknown = Some(("svc-0000000000000000", "wrong-secret"));
    let unknown = token_request(&portal, grant, unknown, FORM).await;
    assert_eq!(
        unknown.2["error_description"],
        refused.2["error_description"]
    );
    let anonymous = token_request(&portal, grant, None, FORM).await;
    assert_eq!(rfc_error(401, &anonymous), "invalid_client");

    // After all that, the right secret still gets its token.
    let (status, _, issued) = token_request(&portal, grant, basic, FORM).await;
    assert_eq!(status, 200, "{issued}");

    portal.running.stop().await.unwrap();
}

/// An RFC 7523 assertion of `client_id`, signed by `key` (PKCS#8 PEM), for
/// the portal, good for a minute.
fn assertion(key: &str, client_id: &str, jti: &str) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({
        "iss": client_id, "sub": client_id, "aud": "http://127.0.0.1:8080/api/oauth/token",
        "exp": now + 60, "jti": jti,
    });
    let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA);
    let key = jsonwebtoken::EncodingKey::from_ed_pem(key.as_bytes()).unwrap();
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

#[tokio::test]
async fn a_system_with_a_registered_key_gets_tokens_by_signed_assertions() {
    use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
    use ed25519_dalek::pkcs8::{EncodePrivateKey, EncodePublicKey};
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;
    let system = register(&portal, &admin, "Реестр оборудования", &["equipment.read"]).await;
    let signing = ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng);
    let private = signing.to_pkcs8_pem(LineEnding::LF).unwrap();
    let public = signing
        .verifying_key()
        .to_public_key_pem(LineEnding::LF)
        .unwrap();
    let keyed = post_data(
        &portal,
        "/api/service-account/set-public-key",
        &admin,
        json!({ "id": system.id, "publicKey": public }),
    )
    .await;
    assert_eq!(keyed["hasPublicKey"], true);

    let signed = assertion(&private, &system.client_id, "first");
    let body = form(&[
        ("grant_type", "client_credentials"),
        (
            "client_assertion_type",
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        ),
        ("client_assertion", &signed),
    ]);
    let (status, _, issued) = token_request(&portal, &body, None, FORM).await;
    assert_eq!(status, 200, "{issued}");
    assert_eq!(issued["scope"], "equipment.read");
    // The same assertion again is refused: each is good for one token.
    let replayed = token_request(&portal, &body, None, FORM).await;
    assert_eq!(rfc_error(401, &replayed), "invalid_client");

    portal.running.stop().await.unwrap();
}

fn reason(status: &tonic::Status) -> Option<&str> {
    status
        .metadata()
        .get(REASON_KEY)
        .and_then(|value| value.to_str().ok())
}

/// Lists equipment models on the wiki over the gateway's gRPC with `token`.
async fn wiki_call(portal: &Portal, token: &str) -> tonic::Status {
    let mut wiki = WikiServiceClient::new(portal.grpc_channel().await);
    let request = portal_kit::testing::authed(ListEnvironmentModelsRequest {}, token);
    match wiki.list_environment_models(request).await {
        Ok(_) => panic!("a system with no equipment scope lists equipment"),
        Err(status) => status,
    }
}

#[tokio::test]
async fn a_systems_token_is_verified_by_another_service_and_refused_there_once_disabled() {
    let portal = start(&[]).await;
    let admin = admin_token(&portal).await;
    let system = register(
        &portal,
        &admin,
        "Отчёты отдела качества",
        &["training.read"],
    )
    .await;

    // Over gRPC through the gateway, like AuthService.
    let mut accounts = ServiceAccountServiceClient::new(portal.grpc_channel().await);
    let issued = accounts
        .issue_service_token(pb::IssueServiceTokenRequest {
            client_id: system.client_id.clone(),
            client_secret: system.secret.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(issued.scope, "training.read");
    let listed = accounts
        .list_service_accounts(portal_kit::testing::authed(
            pb::ListServiceAccountsRequest {},
            &admin,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.service_accounts.len(), 1);

    // The wiki verifies the token as the system's: the call is refused for
    // its scope, not for its token. A token that is not genuine is refused
    // as such.
    let refused = wiki_call(&portal, &issued.access_token).await;
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    assert_eq!(reason(&refused), Some("scope-missing"));
    let forged = wiki_call(&portal, "not.a.token").await;
    assert_eq!(forged.code(), Code::Unauthenticated, "{forged:?}");

    // Disabled: new tokens stop at once, and the wiki refuses the old one
    // within about a second.
    post_data(
        &portal,
        "/api/service-account/disable",
        &admin,
        json!({ "id": system.id }),
    )
    .await;
    let since = Instant::now();
    loop {
        let status = wiki_call(&portal, &issued.access_token).await;
        if status.code() == Code::Unauthenticated {
            assert_eq!(reason(&status), Some(REASON_ACCESS_REVOKED), "{status:?}");
            break;
        }
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "still accepted after 10 s: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "a disabled system's token refused by the wiki within {} ms",
        since.elapsed().as_millis()
    );
    let basic = Some((system.client_id.as_str(), system.secret.as_str()));
    let refused = token_request(&portal, "grant_type=client_credentials", basic, FORM).await;
    assert_eq!(rfc_error(401, &refused), "invalid_client");

    portal.running.stop().await.unwrap();
}
