//! Who is calling and what they may do. Every RPC asks its `Caller` itself; the
//! interceptor only establishes identity.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tonic::Request;

use crate::error::{MSG_NO_RIGHTS, MSG_NOT_SIGNED_IN, ServiceError, ServiceResult};
use crate::token::{Claims, MSG_SESSION_EXPIRED};

/// The three rights of DESIGN §6; each also counts as an admin-type right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Right {
    UserManagement,
    EducationManagement,
    EquipmentEditing,
}

impl Right {
    pub const ALL: [Right; 3] = [
        Right::UserManagement,
        Right::EducationManagement,
        Right::EquipmentEditing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Right::UserManagement => "UserManagement",
            Right::EducationManagement => "EducationManagement",
            Right::EquipmentEditing => "EquipmentEditing",
        }
    }

    pub fn parse(name: &str) -> Option<Right> {
        Right::ALL.into_iter().find(|right| right.as_str() == name)
    }
}

/// The identity the access-token interceptor put on a request.
///
/// A request with an invalid or expired token is not refused by the interceptor:
/// public calls (sign-in, refresh, the public instruction) must work whatever a
/// browser still holds. Any call that needs a caller refuses it as expired.
#[derive(Clone, Debug, Default)]
pub enum Caller {
    #[default]
    Anonymous,
    InvalidToken,
    /// A genuine token signed before its person was blocked or their rights or
    /// departments changed ([`crate::revocation`]).
    Revoked,
    /// Shared with the token cache: every request of a token holds the same claims.
    SignedIn(Arc<Claims>),
}

impl Caller {
    pub fn anonymous() -> Self {
        Caller::Anonymous
    }

    pub fn signed_in(claims: impl Into<Arc<Claims>>) -> Self {
        Caller::SignedIn(claims.into())
    }

    /// The caller of a request; a request that skipped the interceptor is anonymous.
    pub fn of<T>(request: &Request<T>) -> Caller {
        request
            .extensions()
            .get::<Caller>()
            .cloned()
            .unwrap_or_default()
    }

    pub fn claims(&self) -> ServiceResult<&Claims> {
        match self {
            Caller::SignedIn(claims) => Ok(claims),
            Caller::Anonymous => Err(ServiceError::Unauthenticated(MSG_NOT_SIGNED_IN.into())),
            Caller::InvalidToken => Err(ServiceError::Unauthenticated(MSG_SESSION_EXPIRED.into())),
            Caller::Revoked => Err(ServiceError::AccessRevoked),
        }
    }

    pub fn user_id(&self) -> ServiceResult<i64> {
        self.claims().map(|claims| claims.user_id)
    }

    pub fn has(&self, right: Right) -> bool {
        match self {
            Caller::SignedIn(claims) => claims.rights.iter().any(|r| r == right.as_str()),
            Caller::Anonymous | Caller::InvalidToken | Caller::Revoked => false,
        }
    }

    /// Signed in and holding `right`.
    pub fn require(&self, right: Right) -> ServiceResult<&Claims> {
        let claims = self.claims()?;
        if self.has(right) {
            Ok(claims)
        } else {
            Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()))
        }
    }

    /// Holds any admin-type right (DESIGN §6: any of the three).
    pub fn is_admin_type(&self) -> bool {
        Right::ALL.into_iter().any(|right| self.has(right))
    }

    /// Signed in and holding any admin-type right.
    pub fn require_admin_type(&self) -> ServiceResult<&Claims> {
        let claims = self.claims()?;
        if self.is_admin_type() {
            Ok(claims)
        } else {
            Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()))
        }
    }

    /// Acting for `user_id` is allowed to that user and to holders of `right`.
    pub fn require_self_or(&self, user_id: i64, right: Right) -> ServiceResult<&Claims> {
        let claims = self.claims()?;
        if claims.user_id == user_id || self.has(right) {
            Ok(claims)
        } else {
            Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learner() -> Caller {
        Caller::signed_in(Claims::for_test(7, &[]))
    }

    #[test]
    fn an_anonymous_caller_is_unauthenticated() {
        assert!(matches!(
            Caller::anonymous().require(Right::UserManagement),
            Err(ServiceError::Unauthenticated(_))
        ));
    }

    #[test]
    fn a_learner_lacks_admin_rights_but_may_act_for_themselves() {
        assert!(matches!(
            learner().require(Right::EducationManagement),
            Err(ServiceError::PermissionDenied(_))
        ));
        assert!(
            learner()
                .require_self_or(7, Right::EducationManagement)
                .is_ok()
        );
        assert!(matches!(
            learner().require_self_or(8, Right::EducationManagement),
            Err(ServiceError::PermissionDenied(_))
        ));
    }

    #[test]
    fn an_invalid_token_is_refused_as_expired_only_where_a_caller_is_needed() {
        let caller = Caller::InvalidToken;
        match caller.claims() {
            Err(ServiceError::Unauthenticated(message)) => assert_eq!(message, MSG_SESSION_EXPIRED),
            other => panic!("{other:?}"),
        }
        assert!(!caller.has(Right::UserManagement));
    }

    #[test]
    fn every_right_is_admin_type_and_a_learner_none() {
        for right in Right::ALL {
            assert!(
                Caller::signed_in(Claims::for_test(1, &[right]))
                    .require_admin_type()
                    .is_ok()
            );
        }
        assert!(matches!(
            learner().require_admin_type(),
            Err(ServiceError::PermissionDenied(_))
        ));
        assert!(matches!(
            Caller::anonymous().require_admin_type(),
            Err(ServiceError::Unauthenticated(_))
        ));
    }

    #[test]
    fn a_right_holder_may_act_for_others() {
        let admin = Caller::signed_in(Claims::for_test(1, &[Right::EducationManagement]));
        assert!(admin.require_self_or(8, Right::EducationManagement).is_ok());
        assert!(admin.require(Right::UserManagement).is_err());
    }
}
