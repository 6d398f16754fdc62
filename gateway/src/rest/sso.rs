//! Single sign-on by OpenID Connect (issue 39.2), the browser's side: the
//! sign-in page asks whether it is on; `start` sends the browser to the
//! provider, keeping the flow's state in the cookie `portal_sso` (lax: the
//! provider's redirect back is a top-level navigation from its site);
//! `callback` checks that cookie against the state brought back, then sets
//! the session's cookies as a sign-in does and sends the browser to the
//! sign-in page (`?sso=signed-in&next=…`), which takes its access token with
//! the refresh cookie and opens the page asked for. Every
//! outcome of those two is a redirect: a refusal goes to the sign-in page
//! with its reason code (`/login?sso-error=NOT_IN_PORTAL`), which the page
//! says in Russian; a second step to `/login/code` with its token in the
//! fragment (never sent to a server). The provider's back-channel logout
//! posts its token here.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::{Cookie, SameSite};
use portal_proto::auth::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::{DEVICE_COOKIE, client, session_cookies};
use super::forward::{forward, method};
use super::route::get;
use super::{ApiError, AppState, CallContext, Data, Endpoint, Query, cookie, docs};

/// The flow's state, between `start` and `callback`.
pub const SSO_COOKIE: &str = "portal_sso";
const SSO_COOKIE_PATH: &str = "/api/auth/oidc";
/// As long as auth keeps a flow.
const SSO_COOKIE_SECONDS: i64 = 600;
const SIGN_IN_PAGE: &str = "/login";
const SECOND_STEP_PAGE: &str = "/login/code";

pub const BACKCHANNEL_FIELDS: &[docs::FormField] = &[docs::FormField::required("logout_token")];

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/auth/sign-in-options",
            "Способы входа: имя службы единого входа (пусто, если она не настроена)",
            docs::none,
            get(forward(
                |()| pb::GetSignInOptionsRequest {},
                method!(client, get_sign_in_options),
                |reply| reply,
            )),
        )
        .public(),
        Endpoint::get(
            "/api/auth/oidc/start",
            "Вход через единую учётную запись: переход к службе единого входа (303)",
            docs::query::<StartQuery>,
            axum::routing::get(start),
        )
        .redirects()
        .public(),
        Endpoint::get(
            "/api/auth/oidc/callback",
            "Возврат от службы единого входа: сессия и переход на портал (303; отказ — на страницу входа с кодом причины)",
            docs::query::<CallbackQuery>,
            axum::routing::get(callback),
        )
        .redirects()
        .public(),
        Endpoint::post(
            "/api/auth/oidc/backchannel-logout",
            "OpenID Connect Back-Channel Logout: служба единого входа завершила сеанс сотрудника",
            docs::Input::UrlEncoded(BACKCHANNEL_FIELDS),
            axum::routing::post(backchannel_logout),
        )
        .answers::<Ended>()
        .public(),
    ]
}

#[derive(Default, Deserialize, IntoParams)]
#[serde(default, rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct StartQuery {
    /// The portal's page to open after signing in (`/education/3`).
    return_to: String,
}

/// What the provider's redirect brings back.
#[derive(Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
struct CallbackQuery {
    code: String,
    state: String,
    /// The provider's refusal (`access_denied`), if any.
    error: String,
}

/// How many of the portal's sessions the provider's logout ended.
#[derive(Serialize, ToSchema)]
struct Ended {
    ended: i32,
}

docs::typed!(Ended);

async fn start(
    State(state): State<AppState>,
    caller: CallContext,
    Query(query): Query<StartQuery>,
) -> Response {
    let request = pb::StartSsoRequest {
        return_to: query.return_to,
    };
    match client(&state).start_sso(caller.request(request)).await {
        Ok(reply) => {
            let reply = reply.into_inner();
            let mut response = see_other(&reply.authorization_url);
            let cookie = flow_cookie(state.secure_cookies, reply.state, SSO_COOKIE_SECONDS);
            response.headers_mut().append(header::SET_COOKIE, cookie);
            response
        }
        Err(status) => refused(&status),
    }
}

async fn callback(
    State(state): State<AppState>,
    caller: CallContext,
    headers: HeaderMap,
    Query(query): Query<CallbackQuery>,
) -> Response {
    // The state must come back to the browser that started the flow: a
    // callback link planted in another's browser signs nobody in there.
    let kept = cookie(&headers, SSO_COOKIE).unwrap_or_default();
    let state_of_flow = if !kept.is_empty() && kept == query.state {
        query.state
    } else {
        String::new()
    };
    let request = pb::FinishSsoRequest {
        code: query.code,
        state: state_of_flow,
        error: query.error,
        device_token: cookie(&headers, DEVICE_COOKIE)
            .unwrap_or_default()
            .to_owned(),
    };
    let mut response = match client(&state).finish_sso(caller.request(request)).await {
        Ok(reply) => signed_in(&state, reply.into_inner()),
        Err(status) => refused(&status),
    };
    // Used once, whatever came of it.
    let spent = flow_cookie(state.secure_cookies, String::new(), 0);
    response.headers_mut().append(header::SET_COOKIE, spent);
    response
}

/// The session's cookies, and on to the page asked for (or to the second step).
fn signed_in(state: &AppState, reply: pb::FinishSsoResponse) -> Response {
    let Some(mut sign_in) = reply.sign_in else {
        return see_other(&format!("{SIGN_IN_PAGE}?sso-error=INTERNAL"));
    };
    if sign_in.mfa_required {
        let next = utf8_percent(&reply.return_to);
        let token = utf8_percent(&sign_in.mfa_token);
        return see_other(&format!("{SECOND_STEP_PAGE}#mfa={token}&next={next}"));
    }
    let cookies = session_cookies(state.secure_cookies, &mut sign_in);
    // The page's scripts hold no access token yet: the sign-in page gets one
    // with the refresh cookie just set, says so, and opens the page asked for.
    let next = utf8_percent(&reply.return_to);
    let mut response = see_other(&format!("{SIGN_IN_PAGE}?sso=signed-in&next={next}"));
    for cookie in cookies {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// Back to the sign-in page, which says the reason in Russian.
fn refused(status: &tonic::Status) -> Response {
    let reason = portal_kit::error::reason_of(status);
    tracing::info!(reason, message = status.message(), "single sign-on refused");
    see_other(&format!(
        "{SIGN_IN_PAGE}?sso-error={}",
        utf8_percent(&reason)
    ))
}

async fn backchannel_logout(
    State(state): State<AppState>,
    caller: CallContext,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    // A missing or repeated field reaches auth as no token, which it refuses.
    let mut tokens = form_urlencoded::parse(&body).filter(|(name, _)| name == "logout_token");
    let logout_token = match (tokens.next(), tokens.next()) {
        (Some((_, token)), None) => token.into_owned(),
        _ => String::new(),
    };
    let request = pb::BackchannelLogoutRequest { logout_token };
    let reply = client(&state)
        .backchannel_logout(caller.without_authorization().request(request))
        .await?
        .into_inner();
    let mut response = Data(Ended { ended: reply.ended }).into_response();
    // Section 2.8: the answer is never cached.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

fn see_other(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(location) => (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response(),
        Err(_) => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, HeaderValue::from_static(SIGN_IN_PAGE))],
        )
            .into_response(),
    }
}

/// The flow's cookie: HttpOnly, lax (sent on the provider's redirect back,
/// a top-level GET from its site), only to the OIDC routes.
fn flow_cookie(secure: bool, value: String, seconds: i64) -> HeaderValue {
    let cookie = Cookie::build((SSO_COOKIE, value))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path(SSO_COOKIE_PATH)
        .secure(secure)
        .max_age(time::Duration::seconds(seconds))
        .build();
    HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// `text` for a URL's query or fragment.
fn utf8_percent(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
