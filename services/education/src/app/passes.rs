//! Passes of courses with how long each counts: the store's latest passes,
//! each given its expiry by the one rule of [`pass_valid_until`].

use portal_kit::ServiceResult;

use crate::domain::pass::{PassQuery, pass_valid_until};
use crate::store::Store;

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
