//! Results and statistics: completed attempts, a page at a time, and how
//! each question of a test fared.

use portal_kit::ServiceResult;
use sqlx::FromRow;

use super::Store;
use crate::domain::statistics::{PageMark, ResultFilter};

const RESULT_COLUMNS: &str = "SELECT a.id, a.test_id, t.title AS test_title, a.user_id, a.total_point, a.is_passed, a.completed_at, a.points_possible FROM attempts a JOIN tests t ON t.id = a.test_id";

#[derive(Clone, Debug, FromRow)]
pub struct ResultRecord {
    pub id: i64,
    pub test_id: i64,
    pub test_title: String,
    pub user_id: i64,
    pub total_point: i64,
    pub is_passed: i64,
    pub completed_at: i64,
    pub points_possible: i64,
}

/// How one question fared.
#[derive(Clone, Debug, FromRow)]
pub struct QuestionStats {
    pub id: i64,
    pub title: String,
    pub answered: i64,
    pub correct: i64,
}

impl Store {
    /// A user's completed results, oldest first; on one test or all.
    pub async fn user_results(
        &self,
        user_id: i64,
        test_id: Option<i64>,
    ) -> ServiceResult<Vec<ResultRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{RESULT_COLUMNS} WHERE a.user_id = $1 AND a.completed_at IS NOT NULL AND ($2 = 0 OR a.test_id = $3) ORDER BY a.completed_at, a.id"
        )))
        .bind(user_id)
        .bind(test_id.unwrap_or(0))
        .bind(test_id.unwrap_or(0))
        .fetch_all(&self.pool)
        .await?)
    }

    /// One page of completed results, newest first, the mark of the next page if
    /// there is one, and on the first page how many results match in all.
    pub async fn results(&self, filter: &ResultFilter) -> ServiceResult<ResultsPage> {
        let mut matching = ResultConditions::of(filter);
        // Counted once per filter, on its first page; the count's index walk is
        // the same as the page's, without the join and the sort.
        let total = if filter.after.is_none() {
            let sql = format!("SELECT COUNT(*) FROM attempts a WHERE {}", matching.sql());
            let mut query = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql));
            for value in &matching.binds {
                query = query.bind(*value);
            }
            Some(query.fetch_one(&self.pool).await?)
        } else {
            None
        };
        if let Some(after) = filter.after {
            let before = matching.bind(after.completed_at);
            let same = matching.bind(after.completed_at);
            let id = matching.bind(after.id);
            matching.conditions.push(format!(
                "(a.completed_at < {before} OR (a.completed_at = {same} AND a.id < {id}))"
            ));
        }
        // One more than a page tells whether another page follows.
        let limit = matching.bind(filter.page_size + 1);
        let sql = format!(
            "{RESULT_COLUMNS} WHERE {} ORDER BY a.completed_at DESC, a.id DESC LIMIT {limit}",
            matching.sql()
        );
        let mut query = sqlx::query_as::<_, ResultRecord>(sqlx::AssertSqlSafe(sql));
        for value in matching.binds {
            query = query.bind(value);
        }
        let mut rows = query.fetch_all(&self.pool).await?;
        let page = usize::try_from(filter.page_size).unwrap_or(usize::MAX);
        let next = if rows.len() > page {
            rows.truncate(page);
            rows.last().map(|last| PageMark {
                completed_at: last.completed_at,
                id: last.id,
            })
        } else {
            None
        };
        Ok(ResultsPage { rows, next, total })
    }

    pub async fn question_stats(&self, test_id: i64) -> ServiceResult<Vec<QuestionStats>> {
        Ok(sqlx::query_as(
            "SELECT q.id, q.title, COUNT(aq.answer_id) AS answered, COUNT(CASE WHEN aq.is_correct = 1 THEN 1 END) AS correct FROM questions q LEFT JOIN attempt_questions aq ON aq.question_id = q.id AND aq.answer_id IS NOT NULL WHERE q.test_id = $1 GROUP BY q.id, q.title, q.position ORDER BY q.position, q.id",
        )
        .bind(test_id)
        .fetch_all(&self.pool)
        .await?)
    }
}

/// One page of the statistics.
pub struct ResultsPage {
    pub rows: Vec<ResultRecord>,
    pub next: Option<PageMark>,
    /// Results matching the filter; counted on the first page only.
    pub total: Option<i64>,
}

/// The statistics filter as SQL conditions on `attempts a`, with their binds.
struct ResultConditions {
    conditions: Vec<String>,
    binds: Vec<i64>,
}

impl ResultConditions {
    fn of(filter: &ResultFilter) -> ResultConditions {
        let mut matching = ResultConditions {
            conditions: vec!["a.completed_at IS NOT NULL".to_owned()],
            binds: Vec::new(),
        };
        if let Some(test_id) = filter.test_id {
            let test = matching.bind(test_id);
            matching.conditions.push(format!("a.test_id = {test}"));
        }
        if let Some(user_id) = filter.user_id {
            let user = matching.bind(user_id);
            matching.conditions.push(format!("a.user_id = {user}"));
        }
        if let Some(from) = filter.from_millis {
            let from = matching.bind(from);
            matching
                .conditions
                .push(format!("a.completed_at >= {from}"));
        }
        if let Some(until) = filter.until_millis {
            let until = matching.bind(until);
            matching
                .conditions
                .push(format!("a.completed_at < {until}"));
        }
        if let Some(department_id) = filter.department_id {
            let department = matching.bind(department_id);
            matching.conditions.push(format!(
                "EXISTS (SELECT 1 FROM attempt_departments d WHERE d.attempt_id = a.id AND d.department_id = {department})"
            ));
        }
        matching
    }

    /// Adds a bind and returns its placeholder.
    fn bind(&mut self, value: i64) -> String {
        self.binds.push(value);
        format!("${}", self.binds.len())
    }

    fn sql(&self) -> String {
        self.conditions.join(" AND ")
    }
}
