//! A call one service makes to another on behalf of its caller, with the
//! caller's own token (so the other service applies its own rule to them):
//! what the other's refusal means for the caller here. The wiki asks
//! education and auth so, education asks auth and the wiki, and files asks
//! the wiki.

use tonic::metadata::MetadataMap;
use tonic::{Code, Request, Status};

use crate::ServiceError;
use crate::deadline::Deadline;
use crate::error::{REASON_ACCESS_REVOKED, REASON_KEY};
use crate::token::MSG_SESSION_EXPIRED;

/// The metadata such a call carries on: only the caller's credentials.
pub const AUTHORIZATION: &str = "authorization";

/// The caller on whose behalf another service is asked: their metadata (the
/// token) and the deadline their answer is due by.
#[derive(Clone, Copy)]
pub struct OnBehalf<'a> {
    pub metadata: &'a MetadataMap,
    pub deadline: Deadline,
}

impl<'a> OnBehalf<'a> {
    /// The caller of `request`, due by its own deadline (read now: call it
    /// first thing in the call).
    pub fn of<T>(request: &'a Request<T>) -> OnBehalf<'a> {
        OnBehalf {
            metadata: request.metadata(),
            deadline: Deadline::of_call(request.metadata()),
        }
    }

    /// `message` as a request to another service on the caller's behalf:
    /// their token, and what is left of their call as its limit.
    pub fn request<T>(self, message: T) -> Request<T> {
        let mut request = Request::new(message);
        self.deadline.bound(&mut request);
        if let Some(token) = self.metadata.get(AUTHORIZATION) {
            request.metadata_mut().insert(AUTHORIZATION, token.clone());
        }
        request
    }
}

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
