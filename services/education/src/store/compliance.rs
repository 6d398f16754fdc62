//! What a course's compliance is counted from: its tests, and which of them
//! each assignee has passed; and the same for every assignment at once, paged
//! for other systems.

use std::collections::{HashMap, HashSet};

use portal_kit::ServiceResult;
use sqlx::FromRow;

use super::Store;

/// One assignment with what its standing is counted from.
#[derive(Clone, Debug, FromRow)]
pub struct ComplianceRow {
    pub course_id: i64,
    pub course_title: String,
    pub user_id: i64,
    pub own_deadline: Option<String>,
    pub course_deadline: String,
    pub tests_passed: i64,
    pub tests_total: i64,
}

/// The tests of the course `cu.course_id` (the assignment's).
pub(super) const COURSE_TESTS: &str = "SELECT t.id FROM course_articles ca JOIN articles a ON a.id = ca.article_id JOIN tests t ON t.id = a.test_id OR t.article_id = a.id WHERE ca.course_id = cu.course_id";

impl Store {
    /// The tests of a course's articles.
    pub async fn course_test_ids(&self, course_id: i64) -> ServiceResult<HashSet<i64>> {
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT DISTINCT t.id FROM course_articles ca JOIN articles a ON a.id = ca.article_id JOIN tests t ON t.id = a.test_id OR t.article_id = a.id WHERE ca.course_id = $1",
        )
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(ids.into_iter().collect())
    }

    /// For each assignee of the course, the tests they have passed.
    pub async fn passed_by_assignees(
        &self,
        course_id: i64,
    ) -> ServiceResult<HashMap<i64, HashSet<i64>>> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT DISTINCT a.user_id, a.test_id FROM attempts a JOIN course_users cu ON cu.user_id = a.user_id WHERE cu.course_id = $1 AND a.is_passed = 1",
        )
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?;
        let mut passed: HashMap<i64, HashSet<i64>> = HashMap::new();
        for (user_id, test_id) in rows {
            passed.entry(user_id).or_default().insert(test_id);
        }
        Ok(passed)
    }

    /// Up to `limit` assignments after (`after_course`, `after_user`) by
    /// course id then user id, of course `course_id` only unless it is 0, each
    /// with the course's tests counted and those the assignee passed.
    pub async fn compliance_rows(
        &self,
        course_id: i64,
        (after_course, after_user): (i64, i64),
        limit: i64,
    ) -> ServiceResult<Vec<ComplianceRow>> {
        let sql = format!(
            "SELECT cu.course_id, c.title AS course_title, cu.user_id, cu.date_deadline AS own_deadline, c.date_deadline AS course_deadline, \
             (SELECT COUNT(DISTINCT r.test_id) FROM attempts r WHERE r.user_id = cu.user_id AND r.is_passed = 1 AND r.test_id IN ({COURSE_TESTS})) AS tests_passed, \
             (SELECT COUNT(DISTINCT ct.id) FROM ({COURSE_TESTS}) ct) AS tests_total \
             FROM course_users cu JOIN courses c ON c.id = cu.course_id \
             WHERE ($1 = 0 OR cu.course_id = $2) AND (cu.course_id > $3 OR (cu.course_id = $4 AND cu.user_id > $5)) \
             ORDER BY cu.course_id, cu.user_id LIMIT $6"
        );
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(course_id)
            .bind(course_id)
            .bind(after_course)
            .bind(after_course)
            .bind(after_user)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?)
    }
}
