//! Whose equipment a caller reads: an equipment editor every department's,
//! anyone else signed in the departments of their token; a service account
//! only where a call grants it a scope, then every department's.
//!
//! Department membership is auth's; its access token carries the caller's
//! department ids (`departments` claim), so the wiki asks no other service. A
//! membership change reaches the wiki with the next token (15 minutes at most).

use portal_kit::access::Scope as Grant;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Everything,
    Departments(Vec<i64>),
}

impl Scope {
    /// The scope of a signed-in caller; anonymous callers are refused.
    pub fn of(caller: &Caller) -> ServiceResult<Scope> {
        let claims = caller.claims()?;
        Ok(if caller.has(Right::EquipmentEditing) {
            Scope::Everything
        } else {
            Scope::Departments(claims.departments.clone())
        })
    }

    /// [`of`](Self::of), and a service account granted `grant` reads every
    /// department's, as an editor does (a register keeps them all).
    pub fn of_or_granted(caller: &Caller, grant: Grant) -> ServiceResult<Scope> {
        if caller.has_scope(grant) {
            Ok(Scope::Everything)
        } else {
            Scope::of(caller)
        }
    }

    pub fn sees(&self, department_id: i64) -> bool {
        match self {
            Scope::Everything => true,
            Scope::Departments(ids) => ids.contains(&department_id),
        }
    }

    /// A department the caller reads; another one is PERMISSION_DENIED.
    pub fn require(&self, department_id: i64) -> ServiceResult<()> {
        if self.sees(department_id) {
            Ok(())
        } else {
            Err(ServiceError::PermissionDenied(MSG_NO_RIGHTS.into()))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use portal_kit::access::REASON_SCOPE_MISSING;
    use portal_kit::token::{Claims, ServiceAccountClaims};

    use super::*;

    #[test]
    fn editors_see_every_department_and_staff_their_own() {
        let editor = Caller::signed_in(Claims::for_test(1, &[Right::EquipmentEditing]));
        assert_eq!(Scope::of(&editor).unwrap(), Scope::Everything);
        let mut claims = Claims::for_test(2, &[Right::EducationManagement]);
        claims.departments = vec![3];
        let nurse = Scope::of(&Caller::signed_in(claims)).unwrap();
        assert!(nurse.sees(3));
        assert!(matches!(
            nurse.require(4),
            Err(ServiceError::PermissionDenied(_))
        ));
        assert!(matches!(
            Scope::of(&Caller::anonymous()),
            Err(ServiceError::Unauthenticated(_))
        ));
    }

    #[test]
    fn a_service_account_reads_everything_only_where_its_scope_is_granted() {
        let system = |scopes: &[Grant]| {
            Caller::ServiceAccount(Arc::new(ServiceAccountClaims::for_test(9, scopes)))
        };
        let reader = system(&[Grant::EquipmentRead]);
        assert_eq!(
            Scope::of_or_granted(&reader, Grant::EquipmentRead).unwrap(),
            Scope::Everything
        );
        assert!(Scope::of(&reader).is_err(), "no other read opens to it");
        let other = system(&[Grant::EquipmentWrite]);
        let refused = Scope::of_or_granted(&other, Grant::EquipmentRead).unwrap_err();
        assert_eq!(refused.reason(), Some(REASON_SCOPE_MISSING));
    }
}
