//! The equipment register of other hospital systems (issue 21) under
//! `/api/integration`: every unit paged out by id, and a batch of units
//! upserted by inventory number. Service accounts call them with their
//! `equipment.read` / `equipment.write` tokens, equipment editors with
//! theirs; the wiki checks either. Bodies and answers are the contract's
//! messages.

use crate::rest::route::{Route, get, post};
use axum::extract::DefaultBodyLimit;
use portal_kit::rich_text::MAX_MESSAGE_BYTES;
use portal_proto::wiki::v1 as pb;
use serde::Deserialize;
use utoipa::IntoParams;

use super::super::forward::{forward, method};
use super::super::{AppState, Body, Endpoint, Query, docs};
use super::client;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/integration/equipment-units",
            "Реестр оборудования: все единицы (и списанные) по возрастанию id, страницами; следующая страница — after=next",
            docs::query::<RegisterPage>,
            get(forward(
                |Query(query): Query<RegisterPage>| pb::ListEquipmentUnitsRequest {
                    after: query.after,
                    limit: query.limit,
                },
                method!(client, list_equipment_units),
                |reply| reply,
            )),
        ),
        Endpoint::post(
            "/api/integration/upsert-equipment-units",
            "Сверка реестра оборудования по инвентарным номерам: создать, изменить или оставить как есть (dryRun — без записи)",
            docs::Input::Message("portal.wiki.v1.UpsertEquipmentUnitsRequest"),
            batch_write(forward(
                |Body(body): Body<pb::UpsertEquipmentUnitsRequest>| body,
                method!(client, upsert_equipment_units),
                |reply| reply,
            )),
        ),
    ]
}

/// A POST of a whole register (5,000 units of long numbers run to a few
/// megabytes): up to what the wiki takes, beyond axum's 2 MB default.
fn batch_write<H, T, A>(handler: H) -> Route
where
    H: axum::handler::Handler<T, AppState> + crate::rest::docs::Answers<A>,
    T: 'static,
{
    post(handler).layer(DefaultBodyLimit::max(MAX_MESSAGE_BYTES))
}

/// A page of the register: units with an id above `after` (0: the first
/// page), at most `limit` (0: 500; at most 5000).
#[derive(Deserialize, Default, IntoParams)]
#[serde(rename_all = "camelCase", default)]
struct RegisterPage {
    after: i64,
    limit: i32,
}
