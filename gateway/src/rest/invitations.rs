//! A first sign-in without an administrator typing a password (issue 39.3),
//! on the auth host: an invitation by e-mail for one person or a whole
//! department, a printed first sign-in code, and the code's use. An
//! invitation's link is taken by `/api/auth/reset-password` (its token is a
//! one-time token as a reset link's is).

use portal_proto::auth::v1 as pb;

use super::auth::client;
use super::forward::{forward, method};
use super::route::post;
use super::{Body, Endpoint, docs};

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post(
            "/api/user/send-invitation",
            "Отправить сотруднику без пароля приглашение на почту (ссылка на 72 часа)",
            docs::Input::Message("portal.auth.v1.SendInvitationRequest"),
            post(forward(
                |Body(body): Body<pb::SendInvitationRequest>| body,
                method!(client, send_invitation),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/invite-department",
            "Пригласить всех сотрудников отделения без пароля: кому отправлено и кто пропущен и почему",
            docs::Input::Message("portal.auth.v1.InviteDepartmentRequest"),
            post(forward(
                |Body(body): Body<pb::InviteDepartmentRequest>| body,
                method!(client, invite_department),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/user/make-first-sign-in-code",
            "Код для первого входа: одноразовый, на 72 часа, для печати",
            docs::Input::Message("portal.auth.v1.MakeFirstSignInCodeRequest"),
            post(forward(
                |Body(body): Body<pb::MakeFirstSignInCodeRequest>| body,
                method!(client, make_first_sign_in_code),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/auth/first-sign-in",
            "Первый вход по коду: логин, код и новый пароль",
            docs::Input::Message("portal.auth.v1.FirstSignInRequest"),
            post(forward(
                |Body(body): Body<pb::FirstSignInRequest>| body,
                method!(client, first_sign_in),
                |_| (),
            )),
        )
        .public(),
    ]
}
