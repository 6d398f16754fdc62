//! Education's queries: one set for SQLite and PostgreSQL through sqlx's Any
//! driver.
//!
//! Reads run on the pool; every write that touches more than one row runs in one
//! transaction, which checks the links it writes so that an unknown id becomes a
//! Russian message rather than a foreign-key error. On SQLite write transactions
//! start with `BEGIN IMMEDIATE`, so writers queue on the busy timeout instead of
//! failing to upgrade a read lock.
//!
//! Tries: an attempt row is a try taken. It is inserted by one conditional
//! statement that numbers it after the user's attempts on the test and only
//! while that count is below `number_of_tries` and no attempt of the user on
//! the test is open; the unique `(test_id, user_id, try_number)` makes two
//! concurrent writers on PostgreSQL collide rather than both take a try. The
//! loser's transaction is run again from the start and sees the winner's row.
//! Starting looks for the open attempt inside the same write transaction
//! (`BEGIN IMMEDIATE` on SQLite), so parallel starts return one attempt.
//!
//! An attempt not completed within `ATTEMPT_TIME_LIMIT_MS` of its start has
//! expired: it is no longer anyone's open attempt and cannot be completed, and
//! its row still counts as a try. Nothing rewrites it; every read compares its
//! `started_at` with the time of the call.
//!
//! A learner's reads of tests ask only for what is assigned to them (the
//! `ASSIGNED_TEST_IDS` subquery, or one test's link), never for every test.

use std::collections::{HashMap, HashSet};

use portal_kit::db::{Backend, WriteError, retry_on_collision};
use portal_kit::rich_text;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::any::{Any, AnyArguments, AnyRow};
use sqlx::query::QueryAs;
use sqlx::{AnyConnection, AnyPool, FromRow, Transaction};

use crate::domain::article::{ArticleDraft, MSG_ARTICLE_NOT_FOUND};
use crate::domain::attempt::{
    ATTEMPT_TIME_LIMIT_MS, AnswerKey, MSG_ATTEMPT_COMPLETED, MSG_ATTEMPT_EXPIRED,
    MSG_ATTEMPT_NOT_FOUND, MSG_NO_OPEN_ATTEMPT, MSG_NO_TRIES_LEFT, Marked, REASON_NO_OPEN_ATTEMPT,
    Submission, is_expired, mark,
};
use crate::domain::course::{CourseDraft, MSG_COURSE_NOT_FOUND, unknown_article};
use crate::domain::statistics::{PageMark, ResultFilter};
use crate::domain::test::{MSG_TEST_NOT_FOUND, QuestionDraft, TestDraft};

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

/// Whose view a read is for: an education manager sees everything, anyone else
/// only what is assigned to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    Everything,
    Assignee(i64),
}

// --- Records ---

#[derive(Clone, Debug, FromRow)]
pub struct ArticleRecord {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub content: String,
    pub date_deadline: Option<String>,
    pub test_id: Option<i64>,
}

#[derive(Clone, Debug, FromRow)]
pub struct CourseRecord {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub date_creation: i64,
    pub date_deadline: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct TestRecord {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub total_points_required: i64,
    pub number_of_questions: i64,
    pub number_of_tries: i64,
    pub article_id: Option<i64>,
}

#[derive(Clone, Debug, FromRow)]
pub struct QuestionRecord {
    pub id: i64,
    pub title: String,
}

#[derive(Clone, Debug, FromRow)]
pub struct AnswerRecord {
    pub id: i64,
    pub question_id: i64,
    pub title: String,
    pub is_correct: i64,
}

/// A question with its answers, in their order.
#[derive(Clone, Debug)]
pub struct FullQuestion {
    pub question: QuestionRecord,
    pub answers: Vec<AnswerRecord>,
}

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

/// A test assigned to a learner through an article of an assigned course.
#[derive(Clone, Debug, FromRow)]
pub struct AssignedTestRecord {
    pub test_id: i64,
    pub article_id: i64,
    pub article_title: String,
    pub course_id: i64,
    /// The article's deadline, else its course's.
    pub date_deadline: String,
}

/// A user's attempts on one test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TriesUsed {
    pub started: i64,
    pub passed: i64,
}

/// An attempt that has been started and not completed.
#[derive(Clone, Debug)]
pub struct OpenAttempt {
    pub id: i64,
    pub started_at: i64,
    pub question_ids: Vec<i64>,
}

/// Which attempt answers are handed in for.
#[derive(Clone, Copy, Debug)]
pub enum AttemptChoice {
    /// An attempt from StartAttempt.
    Started(i64),
    /// The caller's open attempt; CONFLICT (`no-open-attempt`) without one.
    Open,
}

/// A scored attempt.
#[derive(Clone, Copy, Debug)]
pub struct Completed {
    pub attempt_id: i64,
    pub total_point: i64,
    pub points_possible: i64,
    pub is_passed: bool,
}

/// How one question fared.
#[derive(Clone, Debug, FromRow)]
pub struct QuestionStats {
    pub id: i64,
    pub title: String,
    pub answered: i64,
    pub correct: i64,
}

const ARTICLE_COLUMNS: &str =
    "SELECT a.id, a.title, a.description, a.content, a.date_deadline, a.test_id FROM articles a";
const COURSE_COLUMNS: &str =
    "SELECT c.id, c.title, c.description, c.date_creation, c.date_deadline FROM courses c";
const TEST_COLUMNS: &str = "SELECT t.id, t.title, t.description, t.total_points_required, t.number_of_questions, t.number_of_tries, t.article_id FROM tests t";
const RESULT_COLUMNS: &str = "SELECT a.id, a.test_id, t.title AS test_title, a.user_id, a.total_point, a.is_passed, a.completed_at, a.points_possible FROM attempts a JOIN tests t ON t.id = a.test_id";

/// Articles in a course assigned to the user `$1`.
const ASSIGNED_ARTICLE_IDS: &str = "SELECT ca.article_id FROM course_articles ca JOIN course_users cu ON cu.course_id = ca.course_id WHERE cu.user_id = $1";

/// Tests linked (either way) to an article in a course assigned to `$1`, with
/// that article and course; in course and article order.
const ASSIGNED_TESTS: &str = "SELECT t.id AS test_id, a.id AS article_id, a.title AS article_title, c.id AS course_id, COALESCE(NULLIF(a.date_deadline, ''), c.date_deadline) AS date_deadline FROM course_users cu JOIN courses c ON c.id = cu.course_id JOIN course_articles ca ON ca.course_id = cu.course_id JOIN articles a ON a.id = ca.article_id JOIN tests t ON t.id = a.test_id OR t.article_id = a.id WHERE cu.user_id = $1 ORDER BY c.id, ca.position, t.id";

/// Ids of the tests linked (either way) to an article in a course assigned to
/// `$1` (bound twice, as `$1` and `$2`).
const ASSIGNED_TEST_IDS: &str = "SELECT a.test_id FROM course_users cu JOIN course_articles ca ON ca.course_id = cu.course_id JOIN articles a ON a.id = ca.article_id WHERE cu.user_id = $1 AND a.test_id IS NOT NULL UNION SELECT t.id FROM course_users cu JOIN course_articles ca ON ca.course_id = cu.course_id JOIN tests t ON t.article_id = ca.article_id WHERE cu.user_id = $2";

/// A kind of content a learner sees only where a course assigned to them
/// leads to it: its columns, its id column and the ids assigned to user `$1`
/// (bound `user_binds` times, as `$1`, `$2`, …).
struct Assignable {
    columns: &'static str,
    id: &'static str,
    assigned_ids: &'static str,
    user_binds: usize,
}

const ARTICLES: Assignable = Assignable {
    columns: ARTICLE_COLUMNS,
    id: "a.id",
    assigned_ids: ASSIGNED_ARTICLE_IDS,
    user_binds: 1,
};

const COURSES: Assignable = Assignable {
    columns: COURSE_COLUMNS,
    id: "c.id",
    assigned_ids: "SELECT cu.course_id FROM course_users cu WHERE cu.user_id = $1",
    user_binds: 1,
};

const TESTS: Assignable = Assignable {
    columns: TEST_COLUMNS,
    id: "t.id",
    assigned_ids: ASSIGNED_TEST_IDS,
    user_binds: 2,
};

impl Assignable {
    /// The rows `viewer` sees (only the row `one`, if given): the user's binds
    /// come first, then `one` as the next `$n`.
    fn query<'q, T>(&self, viewer: Viewer, one: Option<i64>) -> QueryAs<'q, Any, T, AnyArguments>
    where
        T: for<'r> FromRow<'r, AnyRow>,
    {
        let Assignable {
            columns,
            id,
            assigned_ids,
            user_binds,
        } = self;
        let (mut conditions, users) = match viewer {
            Viewer::Everything => (Vec::new(), 0),
            Viewer::Assignee(_) => (vec![format!("{id} IN ({assigned_ids})")], *user_binds),
        };
        if one.is_some() {
            conditions.push(format!("{id} = ${}", users + 1));
        }
        let filter = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{columns}{filter} ORDER BY {id}"
        )));
        if let Viewer::Assignee(user_id) = viewer {
            for _ in 0..users {
                query = query.bind(user_id);
            }
        }
        match one {
            Some(one) => query.bind(one),
            None => query,
        }
    }
}

impl Store {
    pub fn new(pool: AnyPool, backend: Backend) -> Store {
        Store { pool, backend }
    }

    async fn visible_rows<T>(&self, kind: &Assignable, viewer: Viewer) -> ServiceResult<Vec<T>>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        Ok(kind.query(viewer, None).fetch_all(&self.pool).await?)
    }

    async fn visible_row<T>(
        &self,
        kind: &Assignable,
        viewer: Viewer,
        id: i64,
    ) -> ServiceResult<Option<T>>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        Ok(kind
            .query(viewer, Some(id))
            .fetch_optional(&self.pool)
            .await?)
    }

    async fn write(&self) -> ServiceResult<Transaction<'static, Any>> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }

    // --- Articles ---

    pub async fn articles(&self, viewer: Viewer) -> ServiceResult<Vec<ArticleRecord>> {
        self.visible_rows(&ARTICLES, viewer).await
    }

    /// The article, if it exists and `viewer` may see it.
    pub async fn article(&self, viewer: Viewer, id: i64) -> ServiceResult<Option<ArticleRecord>> {
        self.visible_row(&ARTICLES, viewer, id).await
    }

    pub async fn course_articles(&self, course_id: i64) -> ServiceResult<Vec<ArticleRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{ARTICLE_COLUMNS} JOIN course_articles ca ON ca.article_id = a.id WHERE ca.course_id = $1 ORDER BY ca.position"
        )))
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_article(
        &self,
        draft: &ArticleDraft,
        now: i64,
    ) -> ServiceResult<ArticleRecord> {
        let mut tx = self.write().await?;
        check_test(&mut tx, draft.test_id).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO articles (title, description, content, date_deadline, test_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(&draft.content)
        .bind(draft.deadline.to_string())
        .bind(draft.test_id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        self.article(Viewer::Everything, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_ARTICLE_NOT_FOUND))
    }

    /// Cleans every article's content again with `clean`; answers how many
    /// changed.
    pub async fn reclean_articles(&self, clean: impl Fn(&str) -> String) -> ServiceResult<usize> {
        rich_text::clean_stored(&self.pool, "articles", "content", clean).await
    }

    pub async fn update_article(
        &self,
        id: i64,
        draft: &ArticleDraft,
    ) -> ServiceResult<ArticleRecord> {
        let mut tx = self.write().await?;
        check_test(&mut tx, draft.test_id).await?;
        let updated = sqlx::query(
            "UPDATE articles SET title = $1, description = $2, content = $3, date_deadline = $4, test_id = $5 WHERE id = $6",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(&draft.content)
        .bind(draft.deadline.to_string())
        .bind(draft.test_id)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_ARTICLE_NOT_FOUND));
        }
        tx.commit().await?;
        self.article(Viewer::Everything, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_ARTICLE_NOT_FOUND))
    }

    // --- Courses ---

    pub async fn courses(&self, viewer: Viewer) -> ServiceResult<Vec<CourseRecord>> {
        self.visible_rows(&COURSES, viewer).await
    }

    /// The course, if it exists and `viewer` may see it.
    pub async fn course(&self, viewer: Viewer, id: i64) -> ServiceResult<Option<CourseRecord>> {
        self.visible_row(&COURSES, viewer, id).await
    }

    pub async fn course_assignees(&self, course_id: i64) -> ServiceResult<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT user_id FROM course_users WHERE course_id = $1 ORDER BY user_id",
        )
        .bind(course_id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn create_course(
        &self,
        draft: &CourseDraft,
        now: i64,
    ) -> ServiceResult<CourseRecord> {
        let mut tx = self.write().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO courses (title, description, date_creation, date_deadline) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(now)
        .bind(draft.deadline.to_string())
        .fetch_one(&mut *tx)
        .await?;
        write_course_links(&mut tx, id, draft).await?;
        tx.commit().await?;
        self.course(Viewer::Everything, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_COURSE_NOT_FOUND))
    }

    pub async fn update_course(&self, id: i64, draft: &CourseDraft) -> ServiceResult<CourseRecord> {
        let mut tx = self.write().await?;
        let updated = sqlx::query(
            "UPDATE courses SET title = $1, description = $2, date_deadline = $3 WHERE id = $4",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(draft.deadline.to_string())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_COURSE_NOT_FOUND));
        }
        sqlx::query("DELETE FROM course_users WHERE course_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM course_articles WHERE course_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        write_course_links(&mut tx, id, draft).await?;
        tx.commit().await?;
        self.course(Viewer::Everything, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_COURSE_NOT_FOUND))
    }

    // --- Tests ---

    pub async fn tests(&self, viewer: Viewer) -> ServiceResult<Vec<TestRecord>> {
        self.visible_rows(&TESTS, viewer).await
    }

    /// The test, if it exists and `viewer` may see it.
    pub async fn test(&self, viewer: Viewer, id: i64) -> ServiceResult<Option<TestRecord>> {
        self.visible_row(&TESTS, viewer, id).await
    }

    /// The test `viewer` may see, else NOT_FOUND.
    pub async fn visible_test(&self, viewer: Viewer, id: i64) -> ServiceResult<TestRecord> {
        self.test(viewer, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(MSG_TEST_NOT_FOUND))
    }

    /// The article's `test_id` and every test made for the article.
    pub async fn tests_of_article(
        &self,
        article: &ArticleRecord,
    ) -> ServiceResult<Vec<TestRecord>> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{TEST_COLUMNS} WHERE t.id = $1 OR t.article_id = $2 ORDER BY t.id"
        )))
        .bind(article.test_id.unwrap_or(0))
        .bind(article.id)
        .fetch_all(&self.pool)
        .await?)
    }

    pub async fn assigned_tests(&self, user_id: i64) -> ServiceResult<Vec<AssignedTestRecord>> {
        Ok(sqlx::query_as(ASSIGNED_TESTS)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?)
    }

    pub async fn full_questions(&self, test_id: i64) -> ServiceResult<Vec<FullQuestion>> {
        let mut conn = self.pool.acquire().await?;
        full_questions(&mut conn, test_id).await
    }

    pub async fn create_test(&self, draft: &TestDraft, now: i64) -> ServiceResult<TestRecord> {
        let mut tx = self.write().await?;
        check_article(&mut tx, draft.article_id).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO tests (title, description, total_points_required, number_of_questions, number_of_tries, article_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(draft.settings.total_points_required)
        .bind(draft.settings.number_of_questions)
        .bind(draft.settings.number_of_tries)
        .bind(draft.article_id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        write_questions(&mut tx, id, &draft.questions).await?;
        link_article(&mut tx, draft.article_id, id).await?;
        tx.commit().await?;
        self.visible_test(Viewer::Everything, id).await
    }

    pub async fn update_test(&self, id: i64, draft: &TestDraft) -> ServiceResult<TestRecord> {
        let mut tx = self.write().await?;
        check_article(&mut tx, draft.article_id).await?;
        let updated = sqlx::query(
            "UPDATE tests SET title = $1, description = $2, total_points_required = $3, number_of_questions = $4, number_of_tries = $5, article_id = $6 WHERE id = $7",
        )
        .bind(&draft.title)
        .bind(&draft.description)
        .bind(draft.settings.total_points_required)
        .bind(draft.settings.number_of_questions)
        .bind(draft.settings.number_of_tries)
        .bind(draft.article_id)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(ServiceError::not_found(MSG_TEST_NOT_FOUND));
        }
        write_questions(&mut tx, id, &draft.questions).await?;
        link_article(&mut tx, draft.article_id, id).await?;
        tx.commit().await?;
        self.visible_test(Viewer::Everything, id).await
    }

    // --- Attempts ---

    /// How many attempts `user_id` started on the test and how many passed.
    pub async fn tries_used(&self, test_id: i64, user_id: i64) -> ServiceResult<TriesUsed> {
        let (started, passed): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COUNT(CASE WHEN is_passed = 1 THEN 1 END) FROM attempts WHERE test_id = $1 AND user_id = $2",
        )
        .bind(test_id)
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(TriesUsed { started, passed })
    }

    /// A user's attempts per test.
    pub async fn tries_by_test(&self, user_id: i64) -> ServiceResult<HashMap<i64, TriesUsed>> {
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT test_id, COUNT(*), COUNT(CASE WHEN is_passed = 1 THEN 1 END) FROM attempts WHERE user_id = $1 GROUP BY test_id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(test, started, passed)| (test, TriesUsed { started, passed }))
            .collect())
    }

    pub async fn question_ids(&self, test_id: i64) -> ServiceResult<Vec<i64>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM questions WHERE test_id = $1 ORDER BY position, id")
                .bind(test_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// The user's open attempt on the test, or else a try taken now with the
    /// questions `draw` picks given those the user saw before; CONFLICT when no
    /// try is left. One write transaction decides, so parallel starts by one
    /// user open one attempt and use one try.
    pub async fn start_attempt(
        &self,
        test: &TestRecord,
        user_id: i64,
        now: i64,
        draw: impl Fn(&HashSet<i64>) -> Vec<i64>,
    ) -> ServiceResult<OpenAttempt> {
        let draw = &draw;
        retry_on_collision(|| async move {
            let mut tx = self.write().await?;
            let open = match open_attempt(&mut tx, test.id, user_id, now).await? {
                Some(open) => open,
                None => {
                    let drawn = draw(&seen_questions(&mut tx, test.id, user_id).await?);
                    match take_try(&mut tx, test, user_id, now, drawn.len()).await? {
                        Some(id) => {
                            insert_attempt_questions(&mut tx, id, &drawn).await?;
                            OpenAttempt {
                                id,
                                started_at: now,
                                question_ids: drawn,
                            }
                        }
                        // Either no try is left or, on PostgreSQL, a parallel start
                        // committed its attempt after this transaction looked.
                        None => open_attempt(&mut tx, test.id, user_id, now)
                            .await?
                            .ok_or_else(|| ServiceError::conflict(MSG_NO_TRIES_LEFT))?,
                    }
                }
            };
            tx.commit().await?;
            Ok(open)
        })
        .await
    }

    /// Scores `submission` for the chosen attempt and records the result, all in
    /// one transaction; an attempt is completed once only.
    pub async fn complete_attempt(
        &self,
        test: &TestRecord,
        user_id: i64,
        choice: AttemptChoice,
        submission: &Submission,
        departments: &[i64],
        now: i64,
    ) -> ServiceResult<Completed> {
        retry_on_collision(|| async move {
            let mut tx = self.write().await?;
            let completed =
                complete(&mut tx, test, user_id, choice, submission, departments, now).await?;
            tx.commit().await?;
            Ok(completed)
        })
        .await
    }

    // --- Results and statistics ---

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

    pub async fn question_stats(&self, test_id: i64) -> ServiceResult<Vec<QuestionStats>> {
        Ok(sqlx::query_as(
            "SELECT q.id, q.title, COUNT(aq.answer_id) AS answered, COUNT(CASE WHEN aq.is_correct = 1 THEN 1 END) AS correct FROM questions q LEFT JOIN attempt_questions aq ON aq.question_id = q.id AND aq.answer_id IS NOT NULL WHERE q.test_id = $1 GROUP BY q.id, q.title, q.position ORDER BY q.position, q.id",
        )
        .bind(test_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Whether anything is stored yet (demo data goes only into an empty database).
    pub async fn is_empty(&self) -> ServiceResult<bool> {
        let courses: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM courses")
            .fetch_one(&self.pool)
            .await?;
        let tests: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tests")
            .fetch_one(&self.pool)
            .await?;
        Ok(courses == 0 && tests == 0)
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

async fn check_test(conn: &mut AnyConnection, test_id: Option<i64>) -> ServiceResult<()> {
    let Some(test_id) = test_id else {
        return Ok(());
    };
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM tests WHERE id = $1")
        .bind(test_id)
        .fetch_optional(&mut *conn)
        .await?;
    found.map(|_| ()).ok_or_else(|| {
        ServiceError::invalid(format!("Тест с идентификатором {test_id} не существует"))
    })
}

async fn check_article(conn: &mut AnyConnection, article_id: Option<i64>) -> ServiceResult<()> {
    let Some(article_id) = article_id else {
        return Ok(());
    };
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM articles WHERE id = $1")
        .bind(article_id)
        .fetch_optional(&mut *conn)
        .await?;
    found.map(|_| ()).ok_or_else(|| unknown_article(article_id))
}

/// A test made for an article becomes the article's test when it has none.
async fn link_article(
    conn: &mut AnyConnection,
    article_id: Option<i64>,
    test_id: i64,
) -> ServiceResult<()> {
    if let Some(article_id) = article_id {
        sqlx::query("UPDATE articles SET test_id = $1 WHERE id = $2 AND test_id IS NULL")
            .bind(test_id)
            .bind(article_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn write_course_links(
    conn: &mut AnyConnection,
    course_id: i64,
    draft: &CourseDraft,
) -> ServiceResult<()> {
    for user_id in &draft.assignees {
        sqlx::query("INSERT INTO course_users (course_id, user_id) VALUES ($1, $2)")
            .bind(course_id)
            .bind(*user_id)
            .execute(&mut *conn)
            .await?;
    }
    for (position, article_id) in (0_i64..).zip(&draft.articles) {
        check_article(conn, Some(*article_id)).await?;
        sqlx::query(
            "INSERT INTO course_articles (course_id, article_id, position) VALUES ($1, $2, $3)",
        )
        .bind(course_id)
        .bind(*article_id)
        .bind(position)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Writes the complete question list of a test: id 0 is new, an existing id of
/// this test is edited in place (its answers likewise), and the test's
/// questions and answers left out are deleted.
async fn write_questions(
    conn: &mut AnyConnection,
    test_id: i64,
    questions: &[QuestionDraft],
) -> ServiceResult<()> {
    let existing: HashSet<i64> =
        sqlx::query_scalar::<_, i64>("SELECT id FROM questions WHERE test_id = $1")
            .bind(test_id)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .collect();
    let mut kept = HashSet::new();
    for (position, question) in (0_i64..).zip(questions) {
        let question_id =
            if question.id != 0 && existing.contains(&question.id) && kept.insert(question.id) {
                sqlx::query("UPDATE questions SET title = $1, position = $2 WHERE id = $3")
                    .bind(&question.title)
                    .bind(position)
                    .bind(question.id)
                    .execute(&mut *conn)
                    .await?;
                question.id
            } else if question.id == 0 {
                let id: i64 = sqlx::query_scalar(
                "INSERT INTO questions (test_id, position, title) VALUES ($1, $2, $3) RETURNING id",
            )
            .bind(test_id)
            .bind(position)
            .bind(&question.title)
            .fetch_one(&mut *conn)
            .await?;
                kept.insert(id);
                id
            } else {
                return Err(ServiceError::invalid(format!(
                    "Вопрос с идентификатором {} не относится к этому тесту",
                    question.id
                )));
            };
        write_answers(conn, question_id, question).await?;
    }
    for gone in existing.difference(&kept) {
        sqlx::query("DELETE FROM questions WHERE id = $1")
            .bind(*gone)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn write_answers(
    conn: &mut AnyConnection,
    question_id: i64,
    question: &QuestionDraft,
) -> ServiceResult<()> {
    let existing: HashSet<i64> =
        sqlx::query_scalar::<_, i64>("SELECT id FROM answers WHERE question_id = $1")
            .bind(question_id)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .collect();
    let mut kept = HashSet::new();
    for (position, answer) in (0_i64..).zip(&question.answers) {
        let is_correct = i64::from(answer.is_correct);
        if answer.id != 0 && existing.contains(&answer.id) && kept.insert(answer.id) {
            sqlx::query(
                "UPDATE answers SET title = $1, position = $2, is_correct = $3 WHERE id = $4",
            )
            .bind(&answer.title)
            .bind(position)
            .bind(is_correct)
            .bind(answer.id)
            .execute(&mut *conn)
            .await?;
        } else if answer.id == 0 {
            sqlx::query("INSERT INTO answers (question_id, position, title, is_correct) VALUES ($1, $2, $3, $4)")
                .bind(question_id)
                .bind(position)
                .bind(&answer.title)
                .bind(is_correct)
                .execute(&mut *conn)
                .await?;
        } else {
            return Err(ServiceError::invalid(format!(
                "Ответ с идентификатором {} не относится к этому вопросу",
                answer.id
            )));
        }
    }
    for gone in existing.difference(&kept) {
        sqlx::query("DELETE FROM answers WHERE id = $1")
            .bind(*gone)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn full_questions(
    conn: &mut AnyConnection,
    test_id: i64,
) -> ServiceResult<Vec<FullQuestion>> {
    let questions: Vec<QuestionRecord> =
        sqlx::query_as("SELECT id, title FROM questions WHERE test_id = $1 ORDER BY position, id")
            .bind(test_id)
            .fetch_all(&mut *conn)
            .await?;
    let answers: Vec<AnswerRecord> = sqlx::query_as(
        "SELECT an.id, an.question_id, an.title, an.is_correct FROM answers an JOIN questions q ON q.id = an.question_id WHERE q.test_id = $1 ORDER BY an.position, an.id",
    )
    .bind(test_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_question: HashMap<i64, Vec<AnswerRecord>> = HashMap::new();
    for answer in answers {
        by_question
            .entry(answer.question_id)
            .or_default()
            .push(answer);
    }
    Ok(questions
        .into_iter()
        .map(|question| FullQuestion {
            answers: by_question.remove(&question.id).unwrap_or_default(),
            question,
        })
        .collect())
}

async fn open_attempt(
    conn: &mut AnyConnection,
    test_id: i64,
    user_id: i64,
    now: i64,
) -> ServiceResult<Option<OpenAttempt>> {
    let found: Option<(i64, i64)> = sqlx::query_as(
        "SELECT id, started_at FROM attempts WHERE test_id = $1 AND user_id = $2 AND completed_at IS NULL AND started_at > $3 ORDER BY id DESC LIMIT 1",
    )
    .bind(test_id)
    .bind(user_id)
    .bind(now.saturating_sub(ATTEMPT_TIME_LIMIT_MS))
    .fetch_optional(&mut *conn)
    .await?;
    let Some((id, started_at)) = found else {
        return Ok(None);
    };
    Ok(Some(OpenAttempt {
        id,
        started_at,
        question_ids: attempt_question_ids(conn, id).await?,
    }))
}

/// Question ids of the test the user was shown in earlier attempts.
async fn seen_questions(
    conn: &mut AnyConnection,
    test_id: i64,
    user_id: i64,
) -> ServiceResult<HashSet<i64>> {
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT aq.question_id FROM attempt_questions aq JOIN attempts a ON a.id = aq.attempt_id WHERE a.test_id = $1 AND a.user_id = $2",
    )
    .bind(test_id)
    .bind(user_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(ids.into_iter().collect())
}

async fn attempt_question_ids(
    conn: &mut AnyConnection,
    attempt_id: i64,
) -> ServiceResult<Vec<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT question_id FROM attempt_questions WHERE attempt_id = $1 ORDER BY position",
    )
    .bind(attempt_id)
    .fetch_all(&mut *conn)
    .await?)
}

/// Inserts the next try of `user_id` on `test` if one is left and no attempt
/// of theirs is open: one statement that checks, counts and inserts, so no
/// read-then-write gap. `None` when it inserted nothing.
async fn take_try(
    conn: &mut AnyConnection,
    test: &TestRecord,
    user_id: i64,
    now: i64,
    points_possible: usize,
) -> Result<Option<i64>, WriteError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO attempts (test_id, user_id, try_number, started_at, points_possible) \
         SELECT t.id, $1, COUNT(a.id) + 1, $2, $3 FROM tests t \
         LEFT JOIN attempts a ON a.test_id = t.id AND a.user_id = $4 \
         WHERE t.id = $5 AND NOT EXISTS (SELECT 1 FROM attempts o WHERE o.test_id = $6 \
         AND o.user_id = $7 AND o.completed_at IS NULL AND o.started_at > $8) \
         GROUP BY t.id, t.number_of_tries \
         HAVING COUNT(a.id) < t.number_of_tries RETURNING id",
    )
    .bind(user_id)
    .bind(now)
    .bind(i64::try_from(points_possible).unwrap_or(i64::MAX))
    .bind(user_id)
    .bind(test.id)
    .bind(test.id)
    .bind(user_id)
    .bind(now.saturating_sub(ATTEMPT_TIME_LIMIT_MS))
    .fetch_optional(&mut *conn)
    .await?)
}

async fn insert_attempt_questions(
    conn: &mut AnyConnection,
    attempt_id: i64,
    question_ids: &[i64],
) -> ServiceResult<()> {
    for (position, question_id) in (0_i64..).zip(question_ids) {
        sqlx::query(
            "INSERT INTO attempt_questions (attempt_id, question_id, position) VALUES ($1, $2, $3)",
        )
        .bind(attempt_id)
        .bind(*question_id)
        .bind(position)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

async fn complete(
    conn: &mut AnyConnection,
    test: &TestRecord,
    user_id: i64,
    choice: AttemptChoice,
    submission: &Submission,
    departments: &[i64],
    now: i64,
) -> Result<Completed, WriteError> {
    let (attempt_id, asked) = match choice {
        AttemptChoice::Started(attempt_id) => {
            let owner: Option<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
                "SELECT test_id, user_id, started_at, completed_at FROM attempts WHERE id = $1",
            )
            .bind(attempt_id)
            .fetch_optional(&mut *conn)
            .await?;
            match owner {
                Some((test_id, owner, _, _)) if test_id != test.id || owner != user_id => {
                    return Err(ServiceError::not_found(MSG_ATTEMPT_NOT_FOUND).into());
                }
                None => return Err(ServiceError::not_found(MSG_ATTEMPT_NOT_FOUND).into()),
                Some((_, _, _, Some(_))) => {
                    return Err(ServiceError::conflict(MSG_ATTEMPT_COMPLETED).into());
                }
                Some((_, _, started_at, None)) if is_expired(started_at, now) => {
                    return Err(ServiceError::conflict(MSG_ATTEMPT_EXPIRED).into());
                }
                Some((_, _, _, None)) => {
                    (attempt_id, attempt_question_ids(conn, attempt_id).await?)
                }
            }
        }
        AttemptChoice::Open => match open_attempt(conn, test.id, user_id, now).await? {
            Some(open) => (open.id, open.question_ids),
            None => {
                return Err(ServiceError::conflict(MSG_NO_OPEN_ATTEMPT)
                    .because(REASON_NO_OPEN_ATTEMPT)
                    .into());
            }
        },
    };
    let key = answer_key(conn, test.id).await?;
    let marked = mark(&asked, &key, submission)?;
    let total_point = i64::try_from(marked.iter().filter(|m| m.is_correct).count()).unwrap_or(0);
    let is_passed = total_point >= test.total_points_required;
    record_answers(conn, attempt_id, &marked).await?;
    let completed = sqlx::query(
        "UPDATE attempts SET completed_at = $1, total_point = $2, is_passed = $3 WHERE id = $4 AND completed_at IS NULL",
    )
    .bind(now)
    .bind(total_point)
    .bind(i64::from(is_passed))
    .bind(attempt_id)
    .execute(&mut *conn)
    .await?;
    if completed.rows_affected() == 0 {
        return Err(ServiceError::conflict(MSG_ATTEMPT_COMPLETED).into());
    }
    for department_id in departments.iter().collect::<HashSet<_>>() {
        sqlx::query("INSERT INTO attempt_departments (attempt_id, department_id) VALUES ($1, $2)")
            .bind(attempt_id)
            .bind(*department_id)
            .execute(&mut *conn)
            .await?;
    }
    let points_possible: i64 =
        sqlx::query_scalar("SELECT points_possible FROM attempts WHERE id = $1")
            .bind(attempt_id)
            .fetch_one(&mut *conn)
            .await?;
    Ok(Completed {
        attempt_id,
        total_point,
        points_possible,
        is_passed,
    })
}

async fn answer_key(conn: &mut AnyConnection, test_id: i64) -> ServiceResult<AnswerKey> {
    let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT an.question_id, an.id, an.is_correct FROM answers an JOIN questions q ON q.id = an.question_id WHERE q.test_id = $1",
    )
    .bind(test_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut key = AnswerKey::new();
    for (question_id, answer_id, is_correct) in rows {
        let entry = key.entry(question_id).or_insert_with(|| (Vec::new(), 0));
        entry.0.push(answer_id);
        if is_correct == 1 {
            entry.1 = answer_id;
        }
    }
    Ok(key)
}

async fn record_answers(
    conn: &mut AnyConnection,
    attempt_id: i64,
    marked: &[Marked],
) -> ServiceResult<()> {
    for answer in marked {
        sqlx::query(
            "UPDATE attempt_questions SET answer_id = $1, is_correct = $2 WHERE attempt_id = $3 AND question_id = $4",
        )
        .bind(answer.answer_id)
        .bind(i64::from(answer.is_correct))
        .bind(attempt_id)
        .bind(answer.question_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
