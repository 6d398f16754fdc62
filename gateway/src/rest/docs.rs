//! `/api/openapi.json` and a readable `/api/docs` page, both made from the same
//! endpoint table as the router, so they cannot drift from what is served.

use axum::Router;
use axum::http::Method;
use axum::response::Html;
use axum::routing::get;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::{InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, Required};

use super::{AppState, Endpoint};

pub fn openapi(endpoints: &[Endpoint]) -> OpenApi {
    let mut paths = PathsBuilder::new();
    for endpoint in endpoints {
        let method = if endpoint.method == Method::POST {
            HttpMethod::Post
        } else {
            HttpMethod::Get
        };
        let success = match endpoint.file {
            Some(media_type) => ResponseBuilder::new()
                .description(format!("The file, {media_type}"))
                .content(media_type, ContentBuilder::new().build()),
            None => ResponseBuilder::new().description("Envelope {success, data, errorMessage}"),
        };
        let mut operation = OperationBuilder::new()
            .summary(Some(endpoint.summary))
            .response("200", success.build())
            .response(
                "400",
                ResponseBuilder::new().description("Invalid input").build(),
            )
            .response(
                "401",
                ResponseBuilder::new()
                    .description("No or expired token")
                    .build(),
            )
            .response(
                "403",
                ResponseBuilder::new().description("Missing right").build(),
            );
        for name in endpoint.query {
            operation = operation.parameter(
                ParameterBuilder::new()
                    .name(*name)
                    .parameter_in(ParameterIn::Query)
                    .required(Required::True)
                    .build(),
            );
        }
        paths = paths.path(endpoint.path, PathItem::new(method, operation.build()));
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Portal REST API")
                .version(env!("CARGO_PKG_VERSION"))
                .build(),
        )
        .paths(paths.build())
        .build()
}

pub fn router(document: OpenApi) -> Router<AppState> {
    let page = Html(render_page(&document));
    let json = document.to_json().unwrap_or_default();
    Router::new()
        .route(
            "/api/openapi.json",
            get(move || {
                let json = json.clone();
                async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        json,
                    )
                }
            }),
        )
        .route("/api/docs", get(move || std::future::ready(page.clone())))
}

fn render_page(document: &OpenApi) -> String {
    let mut rows = String::new();
    for (path, item) in &document.paths.paths {
        let operations = [("GET", &item.get), ("POST", &item.post)];
        for (method, operation) in operations {
            let Some(operation) = operation else { continue };
            let parameters = operation
                .parameters
                .iter()
                .flatten()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            rows.push_str(&format!(
                "<tr><td>{method}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                escape(path),
                escape(operation.summary.as_deref().unwrap_or_default()),
                escape(&parameters)
            ));
        }
    }
    format!(
        "<!doctype html><html lang=\"ru\"><head><meta charset=\"utf-8\"><title>Portal REST API</title>\
<style>body{{font-family:sans-serif;margin:2rem}}td,th{{padding:.3rem .8rem;border-bottom:1px solid #ddd;text-align:left}}</style>\
</head><body><h1>Portal REST API</h1><p>Каждый ответ: <code>{{\"success\", \"data\", \"errorMessage\"}}</code>. \
Машиночитаемое описание: <a href=\"/api/openapi.json\">/api/openapi.json</a>. gRPC: рефлексия на том же порту.</p>\
<table><tr><th>Метод</th><th>Путь</th><th>Назначение</th><th>Параметры</th></tr>{rows}</table></body></html>"
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
