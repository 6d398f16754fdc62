//! What a course's compliance is counted from: its tests, and which of them
//! each assignee has passed.

use std::collections::{HashMap, HashSet};

use portal_kit::ServiceResult;

use super::Store;

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
}
