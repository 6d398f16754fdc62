//! The auth host's calls (spec §7): sign-in and session, departments, rights,
//! positions, statuses and users.

use crate::rest::route::{get, post};
use crate::upstream::Balanced;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::{Cookie, SameSite};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::forward::{forward, method};
use super::origin::OwnSite;
use super::{ApiError, AppState, Body, CallContext, Data, Endpoint, Query, cookie, docs};

pub const REFRESH_COOKIE: &str = "portal_refresh";
/// The browser's device token: it has signed in as a person before, so
/// strangers' failed guesses at that person do not lock it out.
pub const DEVICE_COOKIE: &str = "portal_device";
const AUTH_COOKIE_PATH: &str = "/api/auth";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post(
            "/api/auth/refresh-token",
            "Новый токен доступа по cookie portal_refresh",
            docs::Input::Empty,
            axum::routing::post(refresh_token),
        )
        .answers::<AccessToken>()
        .public(),
        Endpoint::post(
            "/api/auth/logout",
            "Выход: отзыв сессии",
            docs::Input::Empty,
            axum::routing::post(logout),
        )
        .answers::<SignedOut>()
        .public(),
        Endpoint::post(
            "/api/auth/request-password-reset",
            "Ссылка для восстановления пароля на почту (ответ один и тот же, есть ли такой логин)",
            docs::json::<PasswordResetRequestBody>(),
            post(forward(
                |Body(body): Body<PasswordResetRequestBody>| pb::RequestPasswordResetRequest {
                    login: body.login,
                },
                method!(client, request_password_reset),
                |reply| reply.directory_sign_in.then_some(reply),
            )),
        )
        .public(),
        Endpoint::post(
            "/api/auth/reset-password",
            "Новый пароль по ссылке для восстановления",
            docs::json::<ResetPasswordBody>(),
            post(forward(
                |Body(body): Body<ResetPasswordBody>| pb::ResetPasswordRequest {
                    token: body.token,
                    password: body.password,
                },
                method!(client, reset_password),
                |_| (),
            )),
        )
        .public(),
        Endpoint::get(
            "/api/department/get-all",
            "Все отделения",
            docs::none,
            get(forward(
                |()| pb::ListDepartmentsRequest {},
                method!(client, list_departments),
                |reply| reply.departments,
            )),
        ),
        Endpoint::get(
            "/api/department/get-all-by-user-departments",
            "Отделения по идентификаторам (только свои без права управления пользователями)",
            docs::query::<DepartmentIds>,
            get(forward(
                |Query(query): Query<DepartmentIds>| pb::ListDepartmentsByIdsRequest {
                    department_ids: query.department_ids,
                },
                method!(client, list_departments_by_ids),
                |reply| reply.departments,
            )),
        ),
        Endpoint::get(
            "/api/department/get-all-with-users",
            "Отделения с сотрудниками",
            docs::none,
            get(forward(
                |()| pb::ListDepartmentsWithUsersRequest {},
                method!(client, list_departments_with_users),
                |reply| reply.departments,
            )),
        ),
        Endpoint::get(
            "/api/department/get-by-id",
            "Отделение",
            docs::query::<DepartmentId>,
            get(forward(
                |Query(query): Query<DepartmentId>| pb::GetDepartmentRequest {
                    department_id: query.department_id,
                },
                method!(client, get_department),
                |reply| reply.department,
            )),
        ),
        Endpoint::get(
            "/api/department/get-with-users",
            "Отделение с сотрудниками",
            docs::query::<DepartmentId>,
            get(forward(
                |Query(query): Query<DepartmentId>| pb::GetDepartmentWithUsersRequest {
                    department_id: query.department_id,
                },
                method!(client, get_department_with_users),
                |reply| reply.department,
            )),
        ),
        Endpoint::post(
            "/api/department/create",
            "Создать отделение",
            docs::json::<DepartmentBody>(),
            post(forward(
                |Body(body): Body<DepartmentBody>| pb::CreateDepartmentRequest {
                    title: body.title,
                    user_ids: ids(body.users),
                },
                method!(client, create_department),
                |reply| reply.department,
            )),
        ),
        Endpoint::post(
            "/api/department/update",
            "Изменить отделение",
            docs::json::<DepartmentBody>(),
            post(forward(
                |Body(body): Body<DepartmentBody>| pb::UpdateDepartmentRequest {
                    id: body.id,
                    title: body.title,
                    user_ids: ids(body.users),
                },
                method!(client, update_department),
                |reply| reply.department,
            )),
        ),
        Endpoint::get(
            "/api/rights/get-all",
            "Все права",
            docs::none,
            get(forward(
                |()| pb::ListRightsRequest {},
                method!(client, list_rights),
                |reply| reply.rights,
            )),
        ),
        Endpoint::get(
            "/api/position/get-all",
            "Все должности",
            docs::none,
            get(forward(
                |()| pb::ListPositionsRequest {},
                method!(client, list_positions),
                |reply| reply.positions,
            )),
        ),
        Endpoint::get(
            "/api/user/get-all-statuses",
            "Все статусы сотрудников",
            docs::none,
            get(forward(
                |()| pb::ListStatusesRequest {},
                method!(client, list_statuses),
                |reply| reply.statuses,
            )),
        ),
        Endpoint::get(
            "/api/user/get-all-user",
            "Все пользователи",
            docs::none,
            get(forward(
                |()| pb::ListUsersRequest {},
                method!(client, list_users),
                |reply| {
                    reply
                        .users
                        .into_iter()
                        .map(UserJson::from)
                        .collect::<Vec<_>>()
                },
            )),
        ),
        Endpoint::get(
            "/api/user/get-user",
            "Пользователь",
            docs::query::<UserId>,
            get(forward(
                |Query(query): Query<UserId>| pb::GetUserRequest {
                    user_id: query.id_user,
                },
                method!(client, get_user),
                |reply| reply.user.map(UserDetailJson::from),
            )),
        ),
        Endpoint::get(
            "/api/user/get-me",
            "Профиль вошедшего сотрудника",
            docs::none,
            get(forward(
                |()| pb::GetMeRequest {},
                method!(client, get_me),
                |reply| reply,
            )),
        ),
        Endpoint::get(
            "/api/user/get-my-sessions",
            "Мои сеансы: устройства, на которых выполнен вход (текущий отмечен)",
            docs::none,
            get(forward(
                |()| pb::ListMySessionsRequest {},
                method!(client, list_my_sessions),
                |reply| reply.sessions,
            )),
        ),
        Endpoint::post(
            "/api/user/end-my-sessions",
            "Завершить свои сеансы: выбранные или все, кроме текущего",
            docs::Input::Message("portal.auth.v1.EndMySessionsRequest"),
            post(forward(
                |Body(body): Body<pb::EndMySessionsRequest>| body,
                method!(client, end_my_sessions),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/end-user-sessions",
            "Завершить все сеансы сотрудника на всех устройствах",
            docs::Input::Message("portal.auth.v1.EndUserSessionsRequest"),
            post(forward(
                |Body(body): Body<pb::EndUserSessionsRequest>| body,
                method!(client, end_user_sessions),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/create-user",
            "Создать пользователя",
            docs::json::<UserBody>(),
            post(forward(
                |Body(body): Body<UserBody>| pb::CreateUserRequest {
                    user: Some(body.into()),
                },
                method!(client, create_user),
                |reply| reply.user.map(UserDetailJson::from),
            )),
        ),
        Endpoint::post(
            "/api/user/update-user",
            "Изменить пользователя",
            docs::json::<UserBody>(),
            post(forward(
                |Body(body): Body<UserBody>| pb::UpdateUserRequest {
                    id: body.id,
                    user: Some(body.into()),
                },
                method!(client, update_user),
                |reply| reply.user.map(UserDetailJson::from),
            )),
        ),
    ]
}

/// Auth's answers may be as large as its lists are (every person of a large
/// hospital is several MB): an answer is never refused for its size.
pub(super) fn client(state: &AppState) -> AuthServiceClient<Balanced> {
    AuthServiceClient::new(state.upstreams.auth.channel.clone())
        .max_decoding_message_size(super::MAX_ANSWER_BYTES)
}

// --- Sign-in and session ---

docs::typed!(AccessToken, SignedOut, UserJson, UserDetailJson);

/// Whose password is forgotten; blank reaches auth as blank.
#[derive(Default, Deserialize, ToSchema)]
#[serde(default)]
struct PasswordResetRequestBody {
    login: String,
}

/// A reset link's token and the new password.
#[derive(Default, Deserialize, ToSchema)]
#[serde(default)]
struct ResetPasswordBody {
    token: String,
    password: String,
}

/// A sign-out's answer: after a session of single sign-on, where the
/// browser goes so the provider's session ends too ("" otherwise).
#[derive(Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SignedOut {
    end_session_url: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AccessToken {
    access_token: String,
    expires_in: i32,
}

fn refresh_cookie(state: &AppState, value: String, max_age: Lasting) -> HeaderValue {
    auth_cookie(state.secure_cookies, REFRESH_COOKIE, value, max_age)
}

/// Moves the refresh and device tokens of a sign-in's answer (or a
/// refresh's, which has no device token) into the cookies a browser keeps
/// them in, each for as long as auth says the token lasts: its scripts never
/// see them.
/// An answer that asks for a second step has no session yet: no cookie.
pub fn session_cookies(secure: bool, reply: &mut pb::LoginResponse) -> Vec<HeaderValue> {
    if reply.mfa_required {
        return Vec::new();
    }
    let mut cookies = vec![auth_cookie(
        secure,
        REFRESH_COOKIE,
        std::mem::take(&mut reply.refresh_token),
        Lasting::said(reply.refresh_expires_in),
    )];
    let device_token = std::mem::take(&mut reply.device_token);
    if !device_token.is_empty() {
        cookies.push(auth_cookie(
            secure,
            DEVICE_COOKIE,
            device_token,
            Lasting::said(reply.device_expires_in),
        ));
    }
    cookies
}

/// How long a browser keeps a session cookie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lasting {
    Seconds(i64),
    /// Until the browser closes: auth did not say (a release from before its
    /// replies carried lifetimes, met during a rolling upgrade), and a cookie
    /// must not be cleared for that.
    Session,
}

impl Lasting {
    /// The lifetime auth's reply says, in seconds; 0 when it says none.
    fn said(seconds: i32) -> Lasting {
        if seconds > 0 {
            Lasting::Seconds(seconds.into())
        } else {
            Lasting::Session
        }
    }
}

/// An HttpOnly, same-site cookie only the sign-in calls receive.
fn auth_cookie(secure: bool, name: &'static str, value: String, lasting: Lasting) -> HeaderValue {
    let mut cookie = Cookie::build((name, value))
        .http_only(true)
        .same_site(SameSite::Strict)
        .path(AUTH_COOKIE_PATH)
        .secure(secure);
    if let Lasting::Seconds(seconds) = lasting {
        cookie = cookie.max_age(time::Duration::seconds(seconds));
    }
    let cookie = cookie.build();
    HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn with_session(state: &AppState, reply: pb::RefreshTokenResponse) -> Response {
    let mut response = Data(AccessToken {
        access_token: reply.access_token,
        expires_in: reply.expires_in,
    })
    .into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        refresh_cookie(
            state,
            reply.refresh_token,
            Lasting::said(reply.refresh_expires_in),
        ),
    );
    response
}

fn without_session(state: &AppState, mut response: Response) -> Response {
    response.headers_mut().insert(
        header::SET_COOKIE,
        refresh_cookie(state, String::new(), Lasting::Seconds(0)),
    );
    response
}

/// The refresh cookie of a call from the portal's own pages. A call without
/// one changes nothing, so it sets no cookie either: only the user's own call
/// can clear the user's cookie.
fn refresh_cookie_of(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, REFRESH_COOKIE).filter(|v| !v.is_empty())
}

async fn refresh_token(
    State(state): State<AppState>,
    _: OwnSite,
    caller: CallContext,
    headers: HeaderMap,
) -> Response {
    let Some(refresh_token) = refresh_cookie_of(&headers) else {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            portal_kit::token::MSG_SESSION_EXPIRED,
        )
        .into_response();
    };
    let request = pb::RefreshTokenRequest {
        refresh_token: refresh_token.to_owned(),
    };
    match client(&state).refresh_token(caller.request(request)).await {
        Ok(reply) => with_session(&state, reply.into_inner()),
        // The session is over (expired, revoked, reused): the dead cookie goes.
        Err(status) if status.code() == tonic::Code::Unauthenticated => {
            without_session(&state, ApiError::from(status).into_response())
        }
        // Auth could not answer: the cookie may still be good.
        Err(status) => ApiError::from(status).into_response(),
    }
}

async fn logout(
    State(state): State<AppState>,
    _: OwnSite,
    caller: CallContext,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(refresh_token) = refresh_cookie_of(&headers) else {
        return Ok(Data(SignedOut::default()).into_response());
    };
    let request = pb::LogoutRequest {
        refresh_token: refresh_token.to_owned(),
    };
    let reply = client(&state)
        .logout(caller.request(request))
        .await?
        .into_inner();
    let answer = SignedOut {
        end_session_url: reply.end_session_url,
    };
    Ok(without_session(&state, Data(answer).into_response()))
}

// --- Departments ---

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct DepartmentId {
    department_id: i64,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct DepartmentIds {
    #[serde(default)]
    department_ids: Vec<i64>,
}

/// Spec §7 sends members as `users`; ids, or objects with an `id`, are accepted.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct DepartmentBody {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    title: String,
    #[serde(default, alias = "userIds")]
    users: Vec<IdOrObject>,
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
enum IdOrObject {
    Id(i64),
    Object { id: i64 },
}

fn ids(links: Vec<IdOrObject>) -> Vec<i64> {
    links
        .into_iter()
        .map(|link| match link {
            IdOrObject::Id(id) | IdOrObject::Object { id } => id,
        })
        .collect()
}

// --- Reference data ---

// --- Users ---

#[derive(Serialize, Deserialize, Default, ToSchema)]
struct IdRef {
    id: i64,
}

/// A user as spec §3 shows one: `status` an object, links as id lists.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct UserJson {
    id: i64,
    name: String,
    surname: String,
    last_name: String,
    login: String,
    email: String,
    status: Option<IdRef>,
    departments: Vec<i64>,
    positions: Vec<i64>,
    rights: Vec<i64>,
    /// The HR system's employee number (табельный номер); empty when none.
    employee_number: String,
}

impl From<pb::User> for UserJson {
    fn from(user: pb::User) -> Self {
        UserJson {
            id: user.id,
            name: user.name,
            surname: user.surname,
            last_name: user.last_name,
            login: user.login,
            email: user.email,
            status: (user.status_id != 0).then_some(IdRef { id: user.status_id }),
            departments: user.department_ids,
            positions: user.position_ids,
            rights: user.right_ids,
            employee_number: user.employee_number,
        }
    }
}

/// The detail form of spec §3: the user plus `userDepartmentsDto[].departmentDto.id`,
/// `userPositionsDto[].positionDto.id` and `userRightsDto[].rightDto.id`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct UserDetailJson {
    #[serde(flatten)]
    user: UserJson,
    user_departments_dto: Vec<DepartmentLink>,
    user_positions_dto: Vec<PositionLink>,
    user_rights_dto: Vec<RightLink>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct DepartmentLink {
    department_dto: IdRef,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PositionLink {
    position_dto: IdRef,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RightLink {
    right_dto: IdRef,
}

impl From<pb::User> for UserDetailJson {
    fn from(user: pb::User) -> Self {
        let links = |ids: &[i64]| ids.iter().map(|&id| IdRef { id }).collect::<Vec<_>>();
        UserDetailJson {
            user_departments_dto: links(&user.department_ids)
                .into_iter()
                .map(|department_dto| DepartmentLink { department_dto })
                .collect(),
            user_positions_dto: links(&user.position_ids)
                .into_iter()
                .map(|position_dto| PositionLink { position_dto })
                .collect(),
            user_rights_dto: links(&user.right_ids)
                .into_iter()
                .map(|right_dto| RightLink { right_dto })
                .collect(),
            user: user.into(),
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
struct UserId {
    id_user: i64,
}

/// Create and update share one body; `status` is `{ "id": … }`, links are ids
/// (or objects with an `id`).
#[derive(Deserialize, Default, ToSchema)]
#[serde(rename_all = "camelCase", default)]
struct UserBody {
    id: i64,
    name: String,
    surname: String,
    last_name: String,
    login: String,
    password: String,
    email: String,
    status: Option<IdRef>,
    #[serde(alias = "departmentIds")]
    departments: Vec<IdOrObject>,
    #[serde(alias = "positionIds")]
    positions: Vec<IdOrObject>,
    #[serde(alias = "rightIds")]
    rights: Vec<IdOrObject>,
    /// The HR system's employee number an administrator links the person
    /// to; absent: none on create, unchanged on update; empty: unlinked.
    employee_number: Option<String>,
}

impl From<UserBody> for pb::UserDraft {
    fn from(body: UserBody) -> Self {
        pb::UserDraft {
            name: body.name,
            surname: body.surname,
            last_name: body.last_name,
            login: body.login,
            password: body.password,
            email: body.email,
            status_id: body.status.map_or(0, |s| s.id),
            department_ids: ids(body.departments),
            position_ids: ids(body.positions),
            right_ids: ids(body.rights),
            employee_number: body.employee_number,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_lasts_as_auth_says_and_never_ends_because_it_did_not_say() {
        let mut reply = pb::LoginResponse {
            refresh_token: "r".into(),
            device_token: "d".into(),
            refresh_expires_in: 1_209_600,
            device_expires_in: 0,
            ..Default::default()
        };
        let cookies = session_cookies(true, &mut reply);
        let [refresh, device] = [&cookies[0], &cookies[1]].map(|c| c.to_str().unwrap());
        assert!(refresh.contains("Max-Age=1209600"), "{refresh}");
        assert!(!device.contains("Max-Age"), "a session cookie: {device}");
        assert!(reply.refresh_token.is_empty() && reply.device_token.is_empty());
    }
}
