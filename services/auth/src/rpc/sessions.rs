//! A person's own signed-in devices, and an administrator ending all of
//! someone's (issue 39.5): ListMySessions and EndMySessions any signed-in
//! person, for their own sessions only; EndUserSessions UserManagement.

use portal_kit::audit::{AuditContext, client_address};
use portal_kit::db::{now_millis, timestamp_from_millis};
use portal_kit::net::{CLIENT_USER_AGENT, TrustedProxies};
use portal_kit::{Caller, Right, ServiceError};
use portal_proto::auth::v1 as pb;
use tonic::Request;

use super::{AuthRpc, RpcResult, reply};
use crate::domain::user::MSG_USER_NOT_FOUND;
use crate::domain::user_agent;
use crate::store::session::{Ending, SessionRow, UsedFrom};

/// Where a call comes from, for the session it starts or renews: the
/// browser's user agent (the gateway's REST routes pass it on as
/// [`CLIENT_USER_AGENT`], grpc-web calls carry their own) and client address.
pub(super) fn used_from<T>(request: &Request<T>, proxies: &TrustedProxies) -> UsedFrom {
    let metadata = request.metadata();
    let user_agent = metadata
        .get(CLIENT_USER_AGENT)
        .or_else(|| metadata.get("user-agent"))
        .and_then(|value| value.to_str().ok())
        .and_then(user_agent::kept);
    UsedFrom {
        user_agent,
        address: client_address(proxies, request).map(|address| address.to_string()),
    }
}

impl AuthRpc {
    pub(super) async fn own_sessions(
        &self,
        request: Request<pb::ListMySessionsRequest>,
    ) -> RpcResult<pb::ListMySessionsResponse> {
        let caller = Caller::of(&request);
        let claims = caller.claims()?;
        let sessions = self.store.sessions_of(claims.user_id, now_millis()).await?;
        let current = claims.sid;
        reply(pb::ListMySessionsResponse {
            sessions: sessions
                .into_iter()
                .map(|row| session(row, current))
                .collect(),
        })
    }

    pub(super) async fn end_own_sessions(
        &self,
        request: Request<pb::EndMySessionsRequest>,
    ) -> RpcResult<pb::EndMySessionsResponse> {
        let claims = Caller::of(&request).claims()?.clone();
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let asked = request.into_inner();
        let ending = if asked.all_others {
            Ending::AllBut(claims.sid)
        } else {
            Ending::Named(asked.session_ids)
        };
        let ended = self.end(&context, claims.user_id, &ending).await?;
        tracing::info!(user_id = claims.user_id, ended, "own sessions ended");
        reply(pb::EndMySessionsResponse { ended })
    }

    pub(super) async fn end_persons_sessions(
        &self,
        request: Request<pb::EndUserSessionsRequest>,
    ) -> RpcResult<pb::EndUserSessionsResponse> {
        let admin = Caller::of(&request).require(Right::UserManagement)?.user_id;
        let context = AuditContext::of(&request, &self.trusted_proxies);
        let user_id = request.into_inner().user_id;
        if self.store.subject(user_id).await?.is_none() {
            return Err(ServiceError::not_found(MSG_USER_NOT_FOUND).into());
        }
        let ended = self.end(&context, user_id, &Ending::AllBut(None)).await?;
        tracing::info!(by = admin, user_id, ended, "a person's sessions ended");
        reply(pb::EndUserSessionsResponse { ended })
    }

    /// Ends the sessions and refuses the person's access tokens here at once,
    /// in the other services within a second (as a sign-out does).
    pub(super) async fn end(
        &self,
        context: &AuditContext,
        user_id: i64,
        ending: &Ending,
    ) -> Result<i32, ServiceError> {
        let (ended, version) = self
            .store
            .end_sessions(context, user_id, ending, now_millis())
            .await?;
        if let Some(version) = version {
            self.versions.raise([(user_id, version)]);
        }
        Ok(i32::try_from(ended).unwrap_or(i32::MAX))
    }
}

fn session(row: SessionRow, current: Option<i64>) -> pb::Session {
    pb::Session {
        id: row.id,
        device: row
            .used_from
            .user_agent
            .as_deref()
            .map(user_agent::describe)
            .unwrap_or_default(),
        address: row.used_from.address.unwrap_or_default(),
        created_at: Some(timestamp_from_millis(row.created_at)),
        last_seen_at: Some(timestamp_from_millis(row.last_seen_at)),
        current: Some(row.id) == current,
    }
}
