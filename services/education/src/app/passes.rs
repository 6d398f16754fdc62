//! Passes of courses with how long each counts: the store's latest passes,
//! each given its expiry by the one rule of [`pass_valid_until`]; and whose
//! passes a caller may read.

use std::collections::HashSet;

use futures_util::future::try_join_all;
use portal_kit::error::MSG_NO_RIGHTS;
use portal_kit::{Caller, Right, ServiceError, ServiceResult};

use crate::app::staff::{OnBehalf, Staff};
use crate::domain::pass::{PassQuery, pass_valid_until};
use crate::store::Store;

/// Refuses the caller the passes of `user_ids` unless each is theirs to read:
/// their own always; anyone's with EducationManagement (its statistics show
/// everyone's results, and auth lists it every department's members); with
/// EquipmentEditing, the members of the caller's own departments as auth
/// lists them to the caller — an editor clears the people they work with to
/// operate equipment, and learns nothing of anyone else's training.
pub async fn require_readable(
    staff: &Staff,
    caller: &Caller,
    on_behalf: OnBehalf<'_>,
    user_ids: &[i64],
) -> ServiceResult<()> {
    let claims = caller.claims()?;
    let others: HashSet<i64> = user_ids
        .iter()
        .copied()
        .filter(|id| *id != claims.user_id)
        .collect();
    if others.is_empty() || caller.has(Right::EducationManagement) {
        return Ok(());
    }
    let denied = || ServiceError::PermissionDenied(MSG_NO_RIGHTS.into());
    if !caller.has(Right::EquipmentEditing) {
        return Err(denied());
    }
    // The token's departments are current (a change of them revokes it);
    // their members are auth's to say.
    let members: HashSet<i64> = try_join_all(
        claims
            .departments
            .iter()
            .map(|department| staff.department_members(on_behalf, *department)),
    )
    .await?
    .into_iter()
    .flatten()
    .collect();
    if others.is_subset(&members) {
        Ok(())
    } else {
        Err(denied())
    }
}

/// A person's latest pass of a course and until when it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pass {
    pub user_id: i64,
    pub course_id: i64,
    pub passed_at: i64,
    /// `None`: never expires.
    pub valid_until: Option<i64>,
}

/// The courses of the query that exist (id, title), and the passes of its
/// people of them.
pub async fn course_passes(
    store: &Store,
    query: &PassQuery,
) -> ServiceResult<(Vec<(i64, String)>, Vec<Pass>)> {
    let courses = store.course_titles(&query.course_ids).await?;
    let passes = store
        .course_passes(&query.user_ids, &query.course_ids)
        .await?
        .into_iter()
        .map(|row| Pass {
            user_id: row.user_id,
            course_id: row.course_id,
            passed_at: row.passed_at,
            valid_until: pass_valid_until(row.passed_at, row.validity_months),
        })
        .collect();
    Ok((courses, passes))
}
