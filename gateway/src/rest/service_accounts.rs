//! Other hospital systems' accounts (issue 21), for the admin's «Внешние
//! системы» tab: `/api/service-account/…`. Bodies are the contract's messages
//! themselves; every write answers the account as it is now, but creating one
//! answers its credentials and rotating a secret the new secret (each shown
//! only then). The token endpoint systems call is [`super::oauth`].

use crate::rest::route::{get, post};
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::service_account_service_client::ServiceAccountServiceClient;
use serde::Serialize;
use utoipa::ToSchema;

use super::forward::{forward, method};
use super::{AppState, Body, Endpoint, docs};
use crate::upstream::Balanced;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/service-account/get-all",
            "Внешние системы: владелец, области доступа, секреты и последнее использование",
            docs::none,
            get(forward(
                |()| pb::ListServiceAccountsRequest {},
                method!(client, list_service_accounts),
                |reply| reply.service_accounts,
            )),
        ),
        Endpoint::post(
            "/api/service-account/create",
            "Зарегистрировать внешнюю систему (секрет клиента показывается один раз)",
            docs::Input::Message("portal.auth.v1.CreateServiceAccountRequest"),
            post(forward(
                |Body(body): Body<pb::CreateServiceAccountRequest>| body,
                method!(client, create_service_account),
                |reply| Created {
                    id: reply.id,
                    client_id: reply.client_id,
                    client_secret: reply.client_secret,
                },
            )),
        ),
        Endpoint::post(
            "/api/service-account/update",
            "Изменить внешнюю систему",
            docs::Input::Message("portal.auth.v1.UpdateServiceAccountRequest"),
            post(forward(
                |Body(body): Body<pb::UpdateServiceAccountRequest>| body,
                method!(client, update_service_account),
                |reply| reply.service_account,
            )),
        ),
        Endpoint::post(
            "/api/service-account/rotate-secret",
            "Новый секрет клиента (показывается один раз; живых секретов не больше двух)",
            docs::Input::Message("portal.auth.v1.RotateServiceAccountSecretRequest"),
            post(forward(
                |Body(body): Body<pb::RotateServiceAccountSecretRequest>| body,
                method!(client, rotate_service_account_secret),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/service-account/revoke-secret",
            "Отозвать секрет клиента",
            docs::Input::Message("portal.auth.v1.RevokeServiceAccountSecretRequest"),
            post(forward(
                |Body(body): Body<pb::RevokeServiceAccountSecretRequest>| body,
                method!(client, revoke_service_account_secret),
                |reply| reply.service_account,
            )),
        ),
        Endpoint::post(
            "/api/service-account/set-public-key",
            "Открытый ключ для подписанных утверждений клиента (пустой — убрать)",
            docs::Input::Message("portal.auth.v1.SetServiceAccountPublicKeyRequest"),
            post(forward(
                |Body(body): Body<pb::SetServiceAccountPublicKeyRequest>| body,
                method!(client, set_service_account_public_key),
                |reply| reply.service_account,
            )),
        ),
        Endpoint::post(
            "/api/service-account/disable",
            "Отключить внешнюю систему (её токены перестают приниматься)",
            docs::Input::Message("portal.auth.v1.DisableServiceAccountRequest"),
            post(forward(
                |Body(body): Body<pb::DisableServiceAccountRequest>| body,
                method!(client, disable_service_account),
                |reply| reply.service_account,
            )),
        ),
        Endpoint::post(
            "/api/service-account/enable",
            "Включить внешнюю систему",
            docs::Input::Message("portal.auth.v1.EnableServiceAccountRequest"),
            post(forward(
                |Body(body): Body<pb::EnableServiceAccountRequest>| body,
                method!(client, enable_service_account),
                |reply| reply.service_account,
            )),
        ),
    ]
}

pub(super) fn client(state: &AppState) -> ServiceAccountServiceClient<Balanced> {
    ServiceAccountServiceClient::new(state.upstreams.auth.channel.clone())
}

/// A new account's credentials: the client secret is shown only here.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Created {
    id: i64,
    client_id: String,
    client_secret: String,
}

docs::typed!(Created);
