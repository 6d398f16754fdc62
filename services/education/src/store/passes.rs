//! Who has passed which courses, and when: what clearance to operate
//! equipment is decided from (the wiki asks).

use portal_kit::ServiceResult;
use portal_kit::db::placeholders;
use sqlx::FromRow;

use super::Store;

/// A person's latest pass of a course.
#[derive(Clone, Debug, FromRow)]
pub struct PassRow {
    pub user_id: i64,
    pub course_id: i64,
    /// Of each test of the course, the person's latest passing completion; of
    /// those, the earliest (Unix ms): the pass is as old as its oldest part.
    pub passed_at: i64,
    /// The course's validity period in months; 0: a pass never expires.
    pub validity_months: i64,
}

/// The tests of a course's articles (linked either way), from `course_articles ca`.
const COURSE_TEST_JOIN: &str = "FROM course_articles ca JOIN articles ar ON ar.id = ca.article_id JOIN tests t ON t.id = ar.test_id OR t.article_id = ar.id";

impl Store {
    /// The courses of `ids` that exist (id, title), by id.
    pub async fn course_titles(&self, ids: &[i64]) -> ServiceResult<Vec<(i64, String)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT id, title FROM courses WHERE id IN {} ORDER BY id",
            placeholders(1, ids.len())
        );
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(*id);
        }
        Ok(query.fetch_all(&self.pool).await?)
    }

    /// Of `user_ids` and `course_ids`, each person's latest pass of each
    /// course they have passed every test of (a course without tests is
    /// never passed), by user then course.
    pub async fn course_passes(
        &self,
        user_ids: &[i64],
        course_ids: &[i64],
    ) -> ServiceResult<Vec<PassRow>> {
        if user_ids.is_empty() || course_ids.is_empty() {
            return Ok(Vec::new());
        }
        let courses = placeholders(1, course_ids.len());
        let users = placeholders(course_ids.len() + 1, user_ids.len());
        let tests_of_named = format!(
            "SELECT DISTINCT ca.course_id, t.id AS test_id {COURSE_TEST_JOIN} WHERE ca.course_id IN {courses}"
        );
        let sql = format!(
            "SELECT p.user_id, p.course_id, MIN(p.last_pass) AS passed_at, \
             (SELECT c.validity_months FROM courses c WHERE c.id = p.course_id) AS validity_months FROM (\
             SELECT a.user_id, ct.course_id, ct.test_id, MAX(a.completed_at) AS last_pass \
             FROM ({tests_of_named}) ct JOIN attempts a ON a.test_id = ct.test_id \
             WHERE a.is_passed = 1 AND a.completed_at IS NOT NULL AND a.user_id IN {users} \
             GROUP BY a.user_id, ct.course_id, ct.test_id) p \
             GROUP BY p.user_id, p.course_id \
             HAVING COUNT(*) = (SELECT COUNT(DISTINCT t.id) {COURSE_TEST_JOIN} WHERE ca.course_id = p.course_id) \
             ORDER BY p.user_id, p.course_id"
        );
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in course_ids.iter().chain(user_ids) {
            query = query.bind(*id);
        }
        Ok(query.fetch_all(&self.pool).await?)
    }
}
