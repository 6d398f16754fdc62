//! What a course's compliance is counted from: its tests, and when each
//! assignee last passed each of them; and the same for every assignment at
//! once, paged for other systems. Whether a pass still holds is the domain's
//! question (`domain::compliance`), asked of these instants.

use std::collections::{BTreeMap, HashMap};

use portal_kit::ServiceResult;
use portal_kit::db::placeholders;
use sqlx::FromRow;

use super::Store;

/// One assignment with the course terms its standing is counted from.
#[derive(Clone, Debug, FromRow)]
pub struct ComplianceRow {
    pub course_id: i64,
    pub course_title: String,
    pub user_id: i64,
    pub own_deadline: Option<String>,
    pub course_deadline: String,
    pub course_created: i64,
    pub validity_months: i64,
}

/// When each person last passed each test: (user id, test id) → Unix ms.
#[derive(Clone, Debug, Default)]
pub struct LatestPasses(HashMap<(i64, i64), i64>);

impl LatestPasses {
    /// When `user_id` last passed each of `tests` (`None`: never), in their order.
    pub fn of(&self, user_id: i64, tests: &[i64]) -> Vec<Option<i64>> {
        tests
            .iter()
            .map(|test_id| self.0.get(&(user_id, *test_id)).copied())
            .collect()
    }
}

impl FromIterator<(i64, i64, i64)> for LatestPasses {
    fn from_iter<I: IntoIterator<Item = (i64, i64, i64)>>(rows: I) -> Self {
        LatestPasses(
            rows.into_iter()
                .map(|(user_id, test_id, passed_at)| ((user_id, test_id), passed_at))
                .collect(),
        )
    }
}

/// Ids per query: far below either backend's limit on binds.
const CHUNK: usize = 1000;
/// Assignments with the course terms their standing is counted from
/// ([`ComplianceRow`]); the caller adds the condition.
const COMPLIANCE_ROWS: &str = "SELECT cu.course_id, c.title AS course_title, cu.user_id, cu.date_deadline AS own_deadline, c.date_deadline AS course_deadline, \
     c.date_creation AS course_created, c.validity_months \
     FROM course_users cu JOIN courses c ON c.id = cu.course_id";

impl Store {
    /// The tests of each course's articles, each once, ascending.
    pub async fn tests_of_courses(
        &self,
        course_ids: &[i64],
    ) -> ServiceResult<BTreeMap<i64, Vec<i64>>> {
        let mut tests: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
        for chunk in course_ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT DISTINCT ca.course_id, t.id FROM course_articles ca JOIN articles a ON a.id = ca.article_id JOIN tests t ON t.id = a.test_id OR t.article_id = a.id WHERE ca.course_id IN {} ORDER BY ca.course_id, t.id",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                query = query.bind(*id);
            }
            for (course_id, test_id) in query.fetch_all(&self.pool).await? {
                tests.entry(course_id).or_default().push(test_id);
            }
        }
        Ok(tests)
    }

    /// When each assignee of the course last passed each test they passed.
    pub async fn latest_passes_in_course(&self, course_id: i64) -> ServiceResult<LatestPasses> {
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT a.user_id, a.test_id, MAX(a.completed_at) FROM attempts a JOIN course_users cu ON cu.user_id = a.user_id WHERE cu.course_id = $1 AND a.is_passed = 1 GROUP BY a.user_id, a.test_id",
        )
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().collect())
    }

    /// When each of `user_ids` last passed each test they passed.
    pub async fn latest_passes_of(&self, user_ids: &[i64]) -> ServiceResult<LatestPasses> {
        let mut rows: Vec<(i64, i64, i64)> = Vec::new();
        for chunk in user_ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT user_id, test_id, MAX(completed_at) FROM attempts WHERE is_passed = 1 AND user_id IN {} GROUP BY user_id, test_id",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_as::<_, (i64, i64, i64)>(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                query = query.bind(*id);
            }
            rows.extend(query.fetch_all(&self.pool).await?);
        }
        Ok(rows.into_iter().collect())
    }

    /// Up to `limit` assignments after (`after_course`, `after_user`) by
    /// course id then user id, of course `course_id` only unless it is 0.
    pub async fn compliance_rows(
        &self,
        course_id: i64,
        (after_course, after_user): (i64, i64),
        limit: i64,
    ) -> ServiceResult<Vec<ComplianceRow>> {
        let sql = format!(
            "{COMPLIANCE_ROWS} WHERE ($1 = 0 OR cu.course_id = $2) AND (cu.course_id > $3 OR (cu.course_id = $4 AND cu.user_id > $5)) \
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

    /// Every course assigned to `user_id`, by course id.
    pub async fn compliance_rows_of(&self, user_id: i64) -> ServiceResult<Vec<ComplianceRow>> {
        let sql = format!("{COMPLIANCE_ROWS} WHERE cu.user_id = $1 ORDER BY cu.course_id");
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?)
    }
}
