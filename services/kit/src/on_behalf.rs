//! A call one service makes to another on behalf of its caller, with the
//! caller's own token (so the other service applies its own rule to them):
//! what the other's refusal means for the caller here. The wiki asks
//! education and auth so, and education asks auth and the wiki.

use tonic::{Code, Status};

use crate::ServiceError;
use crate::error::{REASON_ACCESS_REVOKED, REASON_KEY};
use crate::token::MSG_SESSION_EXPIRED;

/// The metadata such a call carries on: only the caller's credentials.
pub const AUTHORIZATION: &str = "authorization";

/// The refusal `status` of another service, asked on the caller's behalf, as
/// this service's answer to the caller; `unavailable` names the service
/// that did not answer, in Russian.
pub fn refusal(status: &Status, unavailable: &str) -> ServiceError {
    match status.code() {
        // The other service learned of a block or a change of rights before
        // this one did: the caller's token is as stale here.
        Code::Unauthenticated
            if status
                .metadata()
                .get(REASON_KEY)
                .is_some_and(|reason| reason.as_bytes() == REASON_ACCESS_REVOKED.as_bytes()) =>
        {
            ServiceError::AccessRevoked
        }
        // The token expired between this service's check and theirs.
        Code::Unauthenticated => ServiceError::Unauthenticated(MSG_SESSION_EXPIRED.into()),
        // Their own rule refused the caller, or they know no such thing:
        // their Russian message stands.
        Code::PermissionDenied => ServiceError::PermissionDenied(status.message().into()),
        Code::NotFound => ServiceError::NotFound(status.message().into()),
        _ => {
            tracing::warn!(%status, "another service did not answer a call made on its caller's behalf");
            ServiceError::Unavailable(unavailable.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_keeps_its_kind_and_message_and_anything_else_is_unavailable() {
        let mut revoked = Status::unauthenticated("stale");
        revoked
            .metadata_mut()
            .insert(REASON_KEY, REASON_ACCESS_REVOKED.parse().unwrap());
        assert!(matches!(
            refusal(&revoked, "x"),
            ServiceError::AccessRevoked
        ));
        assert!(matches!(
            refusal(&Status::unauthenticated("expired"), "x"),
            ServiceError::Unauthenticated(m) if m == MSG_SESSION_EXPIRED
        ));
        assert!(matches!(
            refusal(&Status::permission_denied("Нет доступа"), "x"),
            ServiceError::PermissionDenied(m) if m == "Нет доступа"
        ));
        assert!(matches!(
            refusal(&Status::not_found("Не найдено"), "x"),
            ServiceError::NotFound(m) if m == "Не найдено"
        ));
        assert!(matches!(
            refusal(&Status::internal("boom"), "Сервис недоступен"),
            ServiceError::Unavailable(m) if m == "Сервис недоступен"
        ));
    }
}
