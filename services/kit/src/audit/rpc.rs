//! `portal.audit.v1.AuditService`, which every service serves over its own records.

use super::*;
use crate::access::{Caller, Right};
use crate::db::timestamp_from_millis;
use crate::{ServiceError, ServiceResult};
use portal_proto::audit::v1 as pb;
use sqlx::AnyPool;
use tonic::{Request, Response, Status};

pub const MSG_PERIOD_REVERSED: &str = "Конец периода раньше его начала";

/// A ListAuditRecords request as a service reads it.
pub(super) fn parse(request: pb::ListAuditRecordsRequest) -> ServiceResult<(Filter, Window)> {
    let millis = |timestamp: Option<prost_types::Timestamp>| {
        timestamp.map(|t| {
            t.seconds
                .saturating_mul(1000)
                .saturating_add(i64::from(t.nanos) / 1_000_000)
        })
    };
    let text = |value: String| {
        let value = value.trim().to_owned();
        (!value.is_empty()).then_some(value)
    };
    let filter = Filter {
        entity: text(request.entity),
        entity_id: request.entity_id,
        actor_user_id: request.user_id,
        action: text(request.action),
        from: millis(request.from),
        to: millis(request.to),
    };
    if let (Some(from), Some(to)) = (filter.from, filter.to)
        && to < from
    {
        return Err(ServiceError::invalid(MSG_PERIOD_REVERSED));
    }
    let limit = match request.limit {
        0 => DEFAULT_LIMIT,
        limit => i64::from(limit).clamp(1, MAX_LIMIT),
    };
    let window = Window {
        limit,
        before_id: request.before_id,
        count: !request.skip_total,
    };
    Ok((filter, window))
}

/// A stored record as the contract's message.
pub fn to_message(record: AuditRecord) -> pb::AuditRecord {
    let actor = match record.actor {
        AuditActor::Person(user_id) => pb::AuditActor {
            kind: "person".into(),
            user_id: Some(user_id),
            ..Default::default()
        },
        AuditActor::ServiceAccount(client_id) => pb::AuditActor {
            kind: "service-account".into(),
            client_id,
            ..Default::default()
        },
        AuditActor::Anonymous { login } => pb::AuditActor {
            kind: "anonymous".into(),
            login: login.unwrap_or_default(),
            ..Default::default()
        },
        AuditActor::System => pb::AuditActor {
            kind: "system".into(),
            ..Default::default()
        },
    };
    pb::AuditRecord {
        id: record.id,
        time: Some(timestamp_from_millis(record.at)),
        actor: Some(actor),
        address: record.address.unwrap_or_default(),
        request_id: record.request_id.unwrap_or_default(),
        entity: record.entity,
        entity_id: record.entity_id,
        action: record.action,
        changes: record
            .changes
            .into_iter()
            .map(|change| pb::AuditChange {
                field: change.field,
                old: change.old.to_string(),
                new: change.new.to_string(),
            })
            .collect(),
        reason: record.reason.unwrap_or_default(),
    }
}

/// `portal.audit.v1.AuditService` over a service's own records: every
/// service serves it as it is (`AuditServiceServer::new(AuditRpc::new(pool))`
/// behind its token interceptor).
#[derive(Clone)]
pub struct AuditRpc {
    pool: AnyPool,
}

impl AuditRpc {
    pub fn new(pool: AnyPool) -> AuditRpc {
        AuditRpc { pool }
    }
}

#[tonic::async_trait]
impl pb::audit_service_server::AuditService for AuditRpc {
    async fn list_audit_records(
        &self,
        request: Request<pb::ListAuditRecordsRequest>,
    ) -> Result<Response<pb::ListAuditRecordsResponse>, Status> {
        Caller::of(&request).require(Right::UserManagement)?;
        let (filter, window) = parse(request.into_inner())?;
        let page = list(&self.pool, &filter, window)
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::ListAuditRecordsResponse {
            records: page.records.into_iter().map(to_message).collect(),
            total: page.total.unwrap_or(0),
        }))
    }
}
