//! A route and what its successful answer's `data` is, for the document:
//! [`get`] and [`post`] take a handler that answers [`super::ApiResult`] and
//! read its `data` type off it; a route made otherwise (a handler that answers
//! a `Response` of its own) says it with [`super::Endpoint::answers`].

use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::routing::MethodRouter;

use super::AppState;
use super::docs::{AnswerFn, Answers};

pub struct Route {
    pub router: MethodRouter<AppState>,
    pub answer: Option<AnswerFn>,
}

impl Route {
    /// The route with its body limited (or not) as `limit` says.
    pub fn layer(self, limit: DefaultBodyLimit) -> Self {
        Route {
            router: self.router.layer(limit),
            ..self
        }
    }
}

impl From<MethodRouter<AppState>> for Route {
    fn from(router: MethodRouter<AppState>) -> Self {
        Route {
            router,
            answer: None,
        }
    }
}

pub fn get<H, X, A>(handler: H) -> Route
where
    H: Handler<X, AppState> + Answers<A>,
    X: 'static,
{
    answering::<H, A>(axum::routing::get(handler))
}

pub fn post<H, X, A>(handler: H) -> Route
where
    H: Handler<X, AppState> + Answers<A>,
    X: 'static,
{
    answering::<H, A>(axum::routing::post(handler))
}

/// `router`, whose handler `H` answers what `H` says.
fn answering<H: Answers<A>, A>(router: MethodRouter<AppState>) -> Route {
    Route {
        router,
        answer: Some(H::answer),
    }
}
