//! The shape most REST routes share: the query or body becomes one request, the
//! request one RPC on the owning service with the caller's token and time-out,
//! and a part of the reply the envelope's `data`. A failed call is the status
//! mapped as everywhere (`ApiError: From<Status>`).
//!
//! A route of that shape is one expression:
//!
//! ```ignore
//! get(forward(
//!     |Query(query): Query<IdArticle>| pb::GetArticleRequest { article_id: query.id_article },
//!     method!(client, get_article),
//!     |reply| reply.article,
//! ))
//! ```

use std::future::Future;

use axum::extract::{FromRequest, State};
use axum::handler::Handler;
use serde::Serialize;

use super::docs::{Answer, Answers};
use super::{ApiResult, AppState, CallContext, Data};

/// A handler that makes its request from `input` (`Query<_>`, `Body<_>`, or
/// `()` for none), calls `rpc` (see [`method!`]) on behalf of the caller within
/// the call time-out, and answers `data` of the reply.
pub fn forward<I, M, Req, F, Fut, Rep, T>(
    make: fn(I) -> Req,
    rpc: F,
    data: fn(Rep) -> T,
) -> impl Handler<(M, State<AppState>, CallContext, I), AppState>
+ Answers<(State<AppState>, CallContext, I)>
where
    I: FromRequest<AppState, M> + Send + 'static,
    M: 'static,
    Req: Send + 'static,
    F: Fn(&AppState, tonic::Request<Req>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<tonic::Response<Rep>, tonic::Status>> + Send,
    Rep: 'static,
    T: Serialize + Answer + 'static,
{
    move |State(state): State<AppState>, caller: CallContext, input: I| async move {
        let reply = rpc(&state, caller.request(make(input))).await?;
        ApiResult::Ok(Data(data(reply.into_inner())))
    }
}

/// One method of a generated client, for [`forward`]: `method!(client,
/// get_article)` calls `get_article` on `client(&state)`, the module's client
/// of its upstream.
macro_rules! method {
    ($client:path, $method:ident) => {
        |state: &$crate::rest::AppState, request| {
            let mut client = $client(state);
            async move { client.$method(request).await }
        }
    };
}

pub(crate) use method;
