//! Serving the document, and the readable page made from it.

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use utoipa::openapi::OpenApi;

use crate::rest::AppState;

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
