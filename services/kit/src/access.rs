//! Who is calling and what they may do. Every RPC asks its `Caller` itself; the
//! interceptor only establishes identity.
//!
//! Callers are people (rights) or other hospital systems' service accounts
//! (scopes). A service account never holds a person's rights: every check that
//! needs a person ([`Caller::claims`] and all built on it) refuses it, so an RPC
//! is closed to systems unless it asks for a scope ([`Caller::require_scope`],
//! [`Caller::require_right_or_scope`]).

use std::sync::Arc;

use tonic::Request;

use crate::claims::{Claims, MSG_SESSION_EXPIRED, ServiceAccountClaims};
use crate::error::{MSG_NO_RIGHTS, MSG_NOT_SIGNED_IN, ServiceError, ServiceResult};
pub use crate::rights::{Right, Scope};

/// The reason of a refusal for a missing scope, or of a person-only RPC called
/// by a service account.
pub const REASON_SCOPE_MISSING: &str = "scope-missing";
pub const MSG_SCOPE_MISSING: &str = "Внешней системе не разрешена эта операция";

/// Who acts in a call open to people and systems alike, for checks and for
/// recording the author of a write.
#[derive(Clone, Copy, Debug)]
pub enum Actor<'a> {
    Person(&'a Claims),
    ServiceAccount(&'a ServiceAccountClaims),
}

impl Actor<'_> {
    /// The person's user id; `None` for a service account.
    pub fn user_id(&self) -> Option<i64> {
        match self {
            Actor::Person(claims) => Some(claims.user_id),
            Actor::ServiceAccount(_) => None,
        }
    }

    /// The service account's id; `None` for a person.
    pub fn service_account_id(&self) -> Option<i64> {
        match self {
            Actor::Person(_) => None,
            Actor::ServiceAccount(claims) => Some(claims.account_id),
        }
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
    /// Another hospital system, by a token of the client-credentials grant.
    ServiceAccount(Arc<ServiceAccountClaims>),
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

    /// The signed-in person; a service account is refused (no RPC that needs
    /// a person serves a system).
    pub fn claims(&self) -> ServiceResult<&Claims> {
        match self {
            Caller::SignedIn(claims) => Ok(claims),
            Caller::ServiceAccount(_) => Err(scope_missing()),
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
            Caller::Anonymous
            | Caller::InvalidToken
            | Caller::Revoked
            | Caller::ServiceAccount(_) => false,
        }
    }

    /// A service account granted `scope`; people hold no scopes.
    pub fn has_scope(&self, scope: Scope) -> bool {
        match self {
            Caller::ServiceAccount(claims) => claims.has(scope),
            _ => false,
        }
    }

    /// A service account granted `scope`.
    pub fn require_scope(&self, scope: Scope) -> ServiceResult<&ServiceAccountClaims> {
        match self {
            Caller::ServiceAccount(claims) if claims.has(scope) => Ok(claims),
            Caller::ServiceAccount(_) => Err(scope_missing()),
            _ => self
                .claims()
                .and(Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()))),
        }
    }

    /// A person holding `right`, or a service account granted `scope`.
    pub fn require_right_or_scope(&self, right: Right, scope: Scope) -> ServiceResult<Actor<'_>> {
        match self {
            Caller::ServiceAccount(claims) if claims.has(scope) => {
                Ok(Actor::ServiceAccount(claims))
            }
            Caller::ServiceAccount(_) => Err(scope_missing()),
            _ => self.require(right).map(Actor::Person),
        }
    }

    /// For calls open to anyone (a public page, a download link): a service
    /// account is still refused, as on every call that names none of its
    /// scopes; people and anonymous callers pass.
    pub fn refuse_service_account(&self) -> ServiceResult<()> {
        match self {
            Caller::ServiceAccount(_) => Err(scope_missing()),
            _ => Ok(()),
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

fn scope_missing() -> ServiceError {
    ServiceError::PermissionDenied(MSG_SCOPE_MISSING.into()).because(REASON_SCOPE_MISSING)
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

    fn system(scopes: &[Scope]) -> Caller {
        Caller::ServiceAccount(Arc::new(ServiceAccountClaims::for_test(5, scopes)))
    }

    #[test]
    fn a_service_account_holds_no_persons_rights() {
        let system = system(&Scope::ALL);
        for right in Right::ALL {
            let refused = system.require(right).unwrap_err();
            assert_eq!(refused.reason(), Some(REASON_SCOPE_MISSING));
        }
        assert!(system.claims().is_err());
        assert!(system.user_id().is_err());
        assert!(!system.is_admin_type());
        assert!(system.require_self_or(5, Right::UserManagement).is_err());
        let refused = system.refuse_service_account().unwrap_err();
        assert_eq!(refused.reason(), Some(REASON_SCOPE_MISSING));
        assert!(Caller::anonymous().refuse_service_account().is_ok());
        assert!(learner().refuse_service_account().is_ok());
    }

    #[test]
    fn a_service_account_is_allowed_only_its_scopes() {
        let reader = system(&[Scope::TrainingRead]);
        assert!(reader.require_scope(Scope::TrainingRead).is_ok());
        let refused = reader.require_scope(Scope::TrainingAssign).unwrap_err();
        assert_eq!(refused.reason(), Some(REASON_SCOPE_MISSING));
        assert!(matches!(
            reader.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead),
            Ok(Actor::ServiceAccount(claims)) if claims.account_id == 5
        ));
        assert!(
            reader
                .require_right_or_scope(Right::EducationManagement, Scope::StaffRead)
                .is_err()
        );
    }

    #[test]
    fn people_hold_no_scopes_but_their_rights_serve_where_a_right_is_named() {
        let educator = Caller::signed_in(Claims::for_test(1, &[Right::EducationManagement]));
        assert!(matches!(
            educator.require_scope(Scope::TrainingRead),
            Err(ServiceError::PermissionDenied(_))
        ));
        assert!(matches!(
            Caller::anonymous().require_scope(Scope::TrainingRead),
            Err(ServiceError::Unauthenticated(_))
        ));
        assert!(matches!(
            educator.require_right_or_scope(Right::EducationManagement, Scope::TrainingRead),
            Ok(Actor::Person(claims)) if claims.user_id == 1
        ));
        assert!(
            learner()
                .require_right_or_scope(Right::EducationManagement, Scope::TrainingRead)
                .is_err()
        );
    }

    #[test]
    fn a_right_holder_may_act_for_others() {
        let admin = Caller::signed_in(Claims::for_test(1, &[Right::EducationManagement]));
        assert!(admin.require_self_or(8, Right::EducationManagement).is_ok());
        assert!(admin.require(Right::UserManagement).is_err());
    }
}
