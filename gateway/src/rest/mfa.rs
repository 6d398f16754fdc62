//! Sign-in's answer and two-step sign-in (issue 39.4): `POST /api/auth/login`
//! answers a session or, for a person with a second factor on an untrusted
//! device, `mfaRequired` with `mfaToken`, which `POST /api/auth/login-mfa`
//! with a code turns into the same session (cookies included). The person's
//! own factor under `/api/user/mfa/…`; an administrator's reset.

use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use portal_proto::auth::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{DEVICE_COOKIE, client, session_cookies};
use super::forward::{forward, method};
use super::route::{get, post};
use super::{ApiError, AppState, Body, CallContext, Data, Endpoint, cookie, docs};

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post(
            "/api/auth/login",
            "Вход по логину и паролю (или первый шаг двухэтапного входа: mfaRequired)",
            docs::json::<LoginBody>(),
            axum::routing::post(login),
        )
        .answers::<SignInAnswer>()
        .public(),
        Endpoint::post(
            "/api/auth/login-mfa",
            "Второй шаг входа: код из приложения или код восстановления",
            docs::json::<LoginMfaBody>(),
            axum::routing::post(login_mfa),
        )
        .answers::<SignInAnswer>()
        .public(),
        Endpoint::get(
            "/api/user/mfa",
            "Мой двухэтапный вход: включён ли, обязателен ли, сколько кодов восстановления осталось",
            docs::none,
            get(forward(
                |()| pb::GetMyMfaRequest {},
                method!(client, get_my_mfa),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/mfa/enrol",
            "Подключить приложение-аутентификатор: секрет и ссылка otpauth для QR-кода",
            docs::Input::Empty,
            post(forward(
                |()| pb::EnrolMfaRequest {},
                method!(client, enrol_mfa),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/mfa/confirm",
            "Подтвердить приложение кодом: двухэтапный вход включён, 10 кодов восстановления",
            docs::Input::Message("portal.auth.v1.ConfirmMfaRequest"),
            post(forward(
                |Body(body): Body<pb::ConfirmMfaRequest>| body,
                method!(client, confirm_mfa),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/mfa/disable",
            "Отключить двухэтапный вход (нужен текущий код)",
            docs::Input::Message("portal.auth.v1.DisableMfaRequest"),
            post(forward(
                |Body(body): Body<pb::DisableMfaRequest>| body,
                method!(client, disable_mfa),
                |_| (),
            )),
        ),
        Endpoint::post(
            "/api/user/mfa/recovery-codes",
            "Новые коды восстановления (нужен текущий код); прежние перестают действовать",
            docs::Input::Message("portal.auth.v1.RegenerateRecoveryCodesRequest"),
            post(forward(
                |Body(body): Body<pb::RegenerateRecoveryCodesRequest>| body,
                method!(client, regenerate_recovery_codes),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/reset-user-mfa",
            "Сбросить второй фактор сотрудника (потерян телефон)",
            docs::Input::Message("portal.auth.v1.ResetUserMfaRequest"),
            post(forward(
                |Body(body): Body<pb::ResetUserMfaRequest>| body,
                method!(client, reset_user_mfa),
                |reply| reply,
            )),
        ),
    ]
}

/// A missing field reaches auth as blank, which names what to fill in.
#[derive(Default, Deserialize, ToSchema)]
#[serde(default)]
pub(super) struct LoginBody {
    login: String,
    password: String,
}

/// The second step: the first step's `mfaToken` and the code typed.
#[derive(Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
struct LoginMfaBody {
    mfa_token: String,
    code: String,
}

/// A sign-in's answer: the access token (the refresh and device tokens go
/// to cookies), or, with `mfaRequired`, no token yet and the `mfaToken` of
/// the second step.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct SignInAnswer {
    access_token: String,
    expires_in: i32,
    mfa_required: bool,
    mfa_token: String,
}

docs::typed!(SignInAnswer);

fn device_token(headers: &HeaderMap) -> String {
    cookie(headers, DEVICE_COOKIE)
        .unwrap_or_default()
        .to_owned()
}

/// The session of a sign-in's answer, its tokens moved into cookies.
fn signed_in(state: &AppState, mut reply: pb::LoginResponse) -> Response {
    let cookies = session_cookies(state.secure_cookies, &mut reply);
    let mut response = Data(SignInAnswer {
        access_token: reply.access_token,
        expires_in: reply.expires_in,
        mfa_required: reply.mfa_required,
        mfa_token: reply.mfa_token,
    })
    .into_response();
    for cookie in cookies {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

pub(super) async fn login(
    State(state): State<AppState>,
    caller: CallContext,
    headers: HeaderMap,
    Body(body): Body<LoginBody>,
) -> Result<Response, ApiError> {
    let request = pb::LoginRequest {
        login: body.login,
        password: body.password,
        device_token: device_token(&headers),
    };
    let reply = client(&state)
        .login(caller.request(request))
        .await?
        .into_inner();
    Ok(signed_in(&state, reply))
}

async fn login_mfa(
    State(state): State<AppState>,
    caller: CallContext,
    headers: HeaderMap,
    Body(body): Body<LoginMfaBody>,
) -> Result<Response, ApiError> {
    let request = pb::LoginMfaRequest {
        mfa_token: body.mfa_token,
        code: body.code,
        device_token: device_token(&headers),
    };
    let reply = client(&state)
        .login_mfa(caller.request(request))
        .await?
        .into_inner();
    Ok(signed_in(&state, as_login(reply)))
}

/// The second step's answer is a sign-in's, field for field.
fn as_login(reply: pb::LoginMfaResponse) -> pb::LoginResponse {
    pb::LoginResponse {
        access_token: reply.access_token,
        refresh_token: reply.refresh_token,
        expires_in: reply.expires_in,
        device_token: reply.device_token,
        refresh_expires_in: reply.refresh_expires_in,
        device_expires_in: reply.device_expires_in,
        mfa_required: false,
        mfa_token: String::new(),
    }
}
