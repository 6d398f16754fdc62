//! Results and statistics: completed attempts, a page at a time, and how
//! each question of a test fared.

use portal_kit::ServiceResult;
use sqlx::FromRow;

use super::Store;
use super::cycle::of_tests;
use crate::domain::statistics::{COUNT_CAP, PageMark, ResultFilter};

const RESULT_COLUMNS: &str = "SELECT a.id, a.test_id, t.title AS test_title, a.user_id, a.total_point, a.is_passed, a.completed_at, a.points_possible";
const ATTEMPTS_WITH_TESTS: &str = "attempts a JOIN tests t ON t.id = a.test_id";

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
        let only = test_id.unwrap_or(0);
        let select = format!(
            "{RESULT_COLUMNS} FROM {ATTEMPTS_WITH_TESTS} WHERE a.user_id = $1 AND a.completed_at IS NOT NULL"
        );
        let order = " ORDER BY a.completed_at, a.id";
        let mut query = sqlx::query_as(of_tests(&select, "a.test_id", only, order)).bind(user_id);
        if only != 0 {
            query = query.bind(only);
        }
        Ok(query.fetch_all(&self.pool).await?)
    }

    /// One page of completed results, newest first, the mark of the next page if
    /// there is one, and on the first page how many results match, up to
    /// `COUNT_CAP`.
    pub async fn results(&self, filter: &ResultFilter) -> ServiceResult<ResultsPage> {
        let mut matching = ResultConditions::of(filter);
        let walk = matching.walk;
        let newest_first = format!(
            "ORDER BY {} DESC, {} DESC",
            walk.completed_at(),
            walk.attempt_id()
        );
        // Counted once per filter, on its first page, along the page's own index
        // range and stopping one past the cap: the same cost at 10k results as at
        // 1M (see COUNT_CAP).
        let total = if filter.after.is_none() {
            let mut counting = matching.clone();
            let limit = counting.bind(COUNT_CAP + 1);
            let sql = format!(
                "SELECT COUNT(*) FROM (SELECT 1 FROM {} WHERE {} {newest_first} LIMIT {limit}) counted",
                walk.rows(),
                counting.sql()
            );
            let mut query = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql));
            for value in counting.binds {
                query = query.bind(value);
            }
            Some(ResultCount::of(query.fetch_one(&self.pool).await?))
        } else {
            None
        };
        if let Some(after) = filter.after {
            // A row value, which both backends read as a bound of the index range
            // (an OR of two comparisons is only a filter, and deep pages walked
            // every newer row).
            let completed_at = matching.bind(after.completed_at);
            let id = matching.bind(after.id);
            matching.conditions.push(format!(
                "({}, {}) < ({completed_at}, {id})",
                walk.completed_at(),
                walk.attempt_id()
            ));
        }
        // One more than a page tells whether another page follows.
        let limit = matching.bind(filter.page_size + 1);
        let sql = format!(
            "{RESULT_COLUMNS} FROM {} WHERE {} {newest_first} LIMIT {limit}",
            walk.rows_with_results(),
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
    pub total: Option<ResultCount>,
}

/// How many results match, exact up to `COUNT_CAP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultCount {
    /// Exact when not `capped`; the cap when it is.
    pub counted: i64,
    /// More results match than `counted`.
    pub capped: bool,
}

impl ResultCount {
    /// From a count that stopped one past the cap.
    fn of(counted: i64) -> ResultCount {
        ResultCount {
            counted: counted.min(COUNT_CAP),
            capped: counted > COUNT_CAP,
        }
    }
}

/// Which rows the page walks newest first. A department's rows carry their
/// result's completion instant and test (migration 0007), so the department
/// filter, alone or with a test or dates, is one range of an index of theirs
/// instead of a probe per attempt. With a learner, the learner's own results
/// (`attempts_by_user_completion`) are fewer than any department's, and the
/// department is checked on each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    Attempts,
    Department,
}

impl Walk {
    fn completed_at(self) -> &'static str {
        match self {
            Walk::Attempts => "a.completed_at",
            Walk::Department => "d.completed_at",
        }
    }

    fn attempt_id(self) -> &'static str {
        match self {
            Walk::Attempts => "a.id",
            Walk::Department => "d.attempt_id",
        }
    }

    fn test_id(self) -> &'static str {
        match self {
            Walk::Attempts => "a.test_id",
            Walk::Department => "d.test_id",
        }
    }

    /// The walked rows alone, enough to count: every condition is on them.
    fn rows(self) -> &'static str {
        match self {
            Walk::Attempts => "attempts a",
            Walk::Department => "attempt_departments d",
        }
    }

    /// The walked rows with what a page shows of each result.
    fn rows_with_results(self) -> String {
        match self {
            Walk::Attempts => ATTEMPTS_WITH_TESTS.to_owned(),
            Walk::Department => "attempt_departments d JOIN attempts a ON a.id = d.attempt_id JOIN tests t ON t.id = a.test_id".to_owned(),
        }
    }
}

/// The statistics filter as SQL conditions on the walked rows, with their binds.
#[derive(Clone)]
struct ResultConditions {
    walk: Walk,
    conditions: Vec<String>,
    binds: Vec<i64>,
}

impl ResultConditions {
    fn of(filter: &ResultFilter) -> ResultConditions {
        let walk = match (filter.department_id, filter.user_id) {
            (Some(_), None) => Walk::Department,
            _ => Walk::Attempts,
        };
        let completed_at = walk.completed_at();
        let mut matching = ResultConditions {
            walk,
            conditions: vec![format!("{completed_at} IS NOT NULL")],
            binds: Vec::new(),
        };
        if let Some(department_id) = filter.department_id {
            let department = matching.bind(department_id);
            matching.conditions.push(match walk {
                Walk::Department => format!("d.department_id = {department}"),
                Walk::Attempts => format!(
                    "EXISTS (SELECT 1 FROM attempt_departments d WHERE d.attempt_id = a.id AND d.department_id = {department})"
                ),
            });
        }
        if let Some(test_id) = filter.test_id {
            let test = matching.bind(test_id);
            matching
                .conditions
                .push(format!("{} = {test}", walk.test_id()));
        }
        if let Some(user_id) = filter.user_id {
            let user = matching.bind(user_id);
            matching.conditions.push(format!("a.user_id = {user}"));
        }
        if let Some(from) = filter.from_millis {
            let from = matching.bind(from);
            matching
                .conditions
                .push(format!("{completed_at} >= {from}"));
        }
        if let Some(until) = filter.until_millis {
            let until = matching.bind(until);
            matching
                .conditions
                .push(format!("{completed_at} < {until}"));
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
