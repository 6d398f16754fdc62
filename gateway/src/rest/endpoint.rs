//! One REST route as the router and the API document both read it.

use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::routing::MethodRouter;

use super::*;

/// One REST route: the router and the API document are both made from these.
pub struct Endpoint {
    pub method: Method,
    pub path: &'static str,
    pub summary: &'static str,
    /// Its path and query parameters, for the document.
    pub params: docs::Params,
    /// What a POST reads as its body, for the document.
    pub input: docs::Input,
    pub route: MethodRouter<AppState>,
    /// The type of a successful answer's `data`, for the document (none for a
    /// file or the OAuth token endpoint).
    pub answer: Option<docs::AnswerFn>,
    /// The media type of a successful answer that is a file, not the envelope.
    pub file: Option<&'static str>,
    /// Statuses it answers beyond every call's (`docs`), e.g. 206 for a range.
    pub also: &'static [StatusCode],
    /// Answered without a bearer token (sign-in, public pages, downloads);
    /// every other route refuses an anonymous call before it reads anything.
    pub public: bool,
    /// Answers RFC 6749's JSON instead of the envelope: the OAuth token
    /// endpoint ([`oauth`]), which standard client libraries call; these are
    /// the RFC 6749 error codes it answers, for the document.
    pub oauth: Option<&'static [&'static str]>,
    /// Answers a redirect (303 with `Location`), never the envelope: a
    /// browser's trip through single sign-on.
    pub redirect: bool,
}

impl Endpoint {
    pub fn get(
        path: &'static str,
        summary: &'static str,
        params: docs::Params,
        route: impl Into<route::Route>,
    ) -> Self {
        let route = route.into();
        Endpoint {
            method: Method::GET,
            path,
            summary,
            params,
            input: docs::Input::Empty,
            route: route.router,
            answer: route.answer,
            file: None,
            also: &[],
            public: false,
            oauth: None,
            redirect: false,
        }
    }

    /// A GET whose successful answer is a file of `media_type`; failures are
    /// the envelope as everywhere.
    pub fn download(
        path: &'static str,
        summary: &'static str,
        params: docs::Params,
        media_type: &'static str,
        route: MethodRouter<AppState>,
    ) -> Self {
        Endpoint {
            file: Some(media_type),
            answer: None,
            ..Endpoint::get(path, summary, params, route)
        }
    }

    pub fn post(
        path: &'static str,
        summary: &'static str,
        input: docs::Input,
        route: impl Into<route::Route>,
    ) -> Self {
        Endpoint {
            method: Method::POST,
            input,
            ..Endpoint::get(path, summary, docs::none, route)
        }
    }

    /// Reads `params` too (a POST's query).
    pub fn params(self, params: docs::Params) -> Self {
        Endpoint { params, ..self }
    }

    /// Its successful answer's `data` is a `T`: for a handler that makes its
    /// own `Response`, whose type [`route`] cannot read.
    pub fn answers<T: docs::Answer>(self) -> Self {
        Endpoint {
            answer: Some(docs::answer_of::<T>),
            ..self
        }
    }

    /// Answers `statuses` too, beyond every call's.
    pub fn also(self, statuses: &'static [StatusCode]) -> Self {
        Endpoint {
            also: statuses,
            ..self
        }
    }

    /// Open to anonymous callers too: the service decides what they get.
    pub fn public(self) -> Self {
        Endpoint {
            public: true,
            ..self
        }
    }

    /// Answers a redirect (303), whatever comes of it.
    pub fn redirects(self) -> Self {
        Endpoint {
            redirect: true,
            answer: None,
            ..self
        }
    }

    /// Answers RFC 6749's token and error JSON, not the envelope.
    pub fn oauth(self, errors: &'static [&'static str]) -> Self {
        Endpoint {
            oauth: Some(errors),
            ..self
        }
    }
}

/// The largest answer a service may give the gateway: lists of everyone
/// (100,000 people are about 11 MB) fit; no REST answer is a 413.
pub const MAX_ANSWER_BYTES: usize = 256 * 1024 * 1024;

/// A POST whose body carries rich text (an article, an instruction): up to the
/// services' own limit, since images travel inside it, beyond axum's 2 MB
/// default.
pub fn rich_text_write<H, T, A>(handler: H) -> route::Route
where
    H: Handler<T, AppState> + docs::Answers<A>,
    T: 'static,
{
    route::post(handler).layer(DefaultBodyLimit::max(
        portal_kit::rich_text::MAX_MESSAGE_BYTES,
    ))
}
