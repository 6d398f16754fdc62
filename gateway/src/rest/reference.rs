//! The wiki host's reference data (spec §7 names the resources
//! `/api/country`, `/api/manufacturer`, `/api/environment-type` and
//! `/api/common-document` and leaves their calls open): each reads every entry
//! with `get-all` and adds one with `create`, the verbs of the spec's other
//! resources. Request bodies are the contract's messages.

use crate::rest::route::{get, post};
use portal_proto::wiki::v1 as pb;

use super::forward::{forward, method};
use super::wiki::client;
use super::{Body, Endpoint, docs};

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/country/get-all",
            "Страны",
            docs::none,
            get(forward(
                |()| pb::ListCountriesRequest {},
                method!(client, list_countries),
                |reply| reply.countries,
            )),
        ),
        Endpoint::post(
            "/api/country/create",
            "Добавить страну",
            docs::Input::Message("portal.wiki.v1.CreateCountryRequest"),
            post(forward(
                |Body(body): Body<pb::CreateCountryRequest>| body,
                method!(client, create_country),
                |reply| reply.country,
            )),
        ),
        Endpoint::get(
            "/api/manufacturer/get-all",
            "Производители оборудования",
            docs::none,
            get(forward(
                |()| pb::ListManufacturersRequest {},
                method!(client, list_manufacturers),
                |reply| reply.manufacturers,
            )),
        ),
        Endpoint::post(
            "/api/manufacturer/create",
            "Добавить производителя",
            docs::Input::Message("portal.wiki.v1.CreateManufacturerRequest"),
            post(forward(
                |Body(body): Body<pb::CreateManufacturerRequest>| body,
                method!(client, create_manufacturer),
                |reply| reply.manufacturer,
            )),
        ),
        Endpoint::get(
            "/api/environment-type/get-all",
            "Типы оборудования",
            docs::none,
            get(forward(
                |()| pb::ListEnvironmentTypesRequest {},
                method!(client, list_environment_types),
                |reply| reply.environment_types,
            )),
        ),
        Endpoint::post(
            "/api/environment-type/create",
            "Добавить тип оборудования",
            docs::Input::Message("portal.wiki.v1.CreateEnvironmentTypeRequest"),
            post(forward(
                |Body(body): Body<pb::CreateEnvironmentTypeRequest>| body,
                method!(client, create_environment_type),
                |reply| reply.environment_type,
            )),
        ),
        Endpoint::get(
            "/api/common-document/get-all",
            "Общие документы (не привязанные к модели)",
            docs::none,
            get(forward(
                |()| pb::ListCommonDocumentsRequest {},
                method!(client, list_common_documents),
                |reply| reply.common_documents,
            )),
        ),
        Endpoint::post(
            "/api/common-document/create",
            "Добавить общий документ",
            docs::Input::Message("portal.wiki.v1.CreateCommonDocumentRequest"),
            post(forward(
                |Body(body): Body<pb::CreateCommonDocumentRequest>| body,
                method!(client, create_common_document),
                |reply| reply.common_document,
            )),
        ),
    ]
}
