//! Tests with their questions and answers, and which tests reach a learner.
//! Their revisions and a restore of one: [`revision`].

mod revision;

use std::collections::HashSet;

use portal_kit::audit::{self, AuditContext, Changes, Event, action, entity};
use portal_kit::{ServiceError, ServiceResult};
use serde::Serialize;
use sqlx::{AnyConnection, FromRow};

use self::revision::{keep_test_of_before, record_test};
use super::article::{ArticleRecord, check_article};
use super::revision::WriteContext;
use super::search;
use super::{Store, TESTS, Viewer, record_change};
use crate::domain::test::{MSG_TEST_NOT_FOUND, QuestionDraft, TestDraft};

pub(super) const TEST_COLUMNS: &str = "SELECT t.id, t.title, t.description, t.total_points_required, t.number_of_questions, t.number_of_tries, t.article_id FROM tests t";

/// Tests linked (either way) to an article in a course assigned to `$1`, with
/// that article and course; in course and article order.
const ASSIGNED_TESTS: &str = "SELECT t.id AS test_id, a.id AS article_id, a.title AS article_title, c.id AS course_id, COALESCE(cu.date_deadline, NULLIF(a.date_deadline, ''), c.date_deadline) AS date_deadline, c.date_creation AS course_created, c.date_deadline AS course_deadline FROM course_users cu JOIN courses c ON c.id = cu.course_id JOIN course_articles ca ON ca.course_id = cu.course_id JOIN articles a ON a.id = ca.article_id JOIN tests t ON t.id = a.test_id OR t.article_id = a.id WHERE cu.user_id = $1 ORDER BY c.id, ca.position, t.id";

/// Serialized: its fields as the audit log compares them.
#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestRecord {
    #[serde(skip)]
    pub id: i64,
    pub title: String,
    pub description: String,
    pub total_points_required: i64,
    pub number_of_questions: i64,
    pub number_of_tries: i64,
    pub article_id: Option<i64>,
}

#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionRecord {
    pub id: i64,
    pub title: String,
}

#[derive(Clone, Debug, FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerRecord {
    pub id: i64,
    #[serde(skip)]
    pub question_id: i64,
    pub title: String,
    pub is_correct: i64,
}

/// A question with its answers, in their order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FullQuestion {
    #[serde(flatten)]
    pub question: QuestionRecord,
    pub answers: Vec<AnswerRecord>,
}

/// A test assigned to a learner through an article of an assigned course.
#[derive(Clone, Debug, FromRow)]
pub struct AssignedTestRecord {
    pub test_id: i64,
    pub article_id: i64,
    pub article_title: String,
    pub course_id: i64,
    /// The assignee's own deadline in the course (AssignCourse), else the
    /// article's, else the course's.
    pub date_deadline: String,
    /// The course's creation and deadline: its lead time for a renewal.
    pub course_created: i64,
    pub course_deadline: String,
}

/// A test as the audit log compares it: its fields and its questions with
/// their answers (which are correct included), in order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuditedTest {
    #[serde(flatten)]
    test: TestRecord,
    questions: Vec<FullQuestion>,
}

impl AuditedTest {
    /// Test `id` as `conn`'s transaction sees it.
    async fn read(conn: &mut AnyConnection, id: i64) -> ServiceResult<AuditedTest> {
        Ok(AuditedTest {
            test: Store::row_in(conn, &TESTS, id).await?,
            questions: full_questions(conn, id).await?,
        })
    }
}

impl Store {
    pub async fn tests(&self, viewer: Viewer) -> ServiceResult<Vec<TestRecord>> {
        self.visible_rows(&TESTS, viewer).await
    }

    /// The test if it exists and `viewer` may see it, else NOT_FOUND.
    pub async fn test(&self, viewer: Viewer, id: i64) -> ServiceResult<TestRecord> {
        self.visible_row(&TESTS, viewer, id).await
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

    pub async fn create_test(
        &self,
        draft: &TestDraft,
        ctx: WriteContext<'_>,
        audit: &AuditContext,
    ) -> ServiceResult<TestRecord> {
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
        .bind(ctx.now)
        .fetch_one(&mut *tx)
        .await?;
        write_questions(&mut tx, id, &draft.questions).await?;
        let created = AuditedTest::read(&mut tx, id).await?;
        record_change(&mut tx, audit, (entity::TEST, id), None, Some(&created)).await?;
        link_article(&mut tx, draft.article_id, id, audit).await?;
        record_test(&mut tx, id, ctx.editor, ctx.now).await?;
        search::index(&mut tx, search::TEST, id).await?;
        tx.commit().await?;
        Ok(created.test)
    }

    pub async fn update_test(
        &self,
        id: i64,
        draft: &TestDraft,
        ctx: WriteContext<'_>,
        audit: &AuditContext,
    ) -> ServiceResult<TestRecord> {
        let mut tx = self.write().await?;
        let saved = save_test(&mut tx, id, draft, ctx, audit).await;
        tx.end(saved).await?;
        self.test(Viewer::Everything, id).await
    }
}

/// Replaces test `id`'s fields, questions and answers with `draft` in
/// `conn`'s write transaction, with its revision and search entry; NOT_FOUND
/// for an unknown test. Attempts keep their own rows: no result changes.
pub(super) async fn save_test(
    conn: &mut AnyConnection,
    id: i64,
    draft: &TestDraft,
    ctx: WriteContext<'_>,
    audit: &AuditContext,
) -> ServiceResult<()> {
    check_article(conn, draft.article_id).await?;
    let old = AuditedTest::read(conn, id).await?;
    keep_test_of_before(conn, id).await?;
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
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() == 0 {
        return Err(ServiceError::not_found(MSG_TEST_NOT_FOUND));
    }
    write_questions(conn, id, &draft.questions).await?;
    let new = AuditedTest::read(conn, id).await?;
    record_change(conn, audit, (entity::TEST, id), Some(&old), Some(&new)).await?;
    link_article(conn, draft.article_id, id, audit).await?;
    record_test(conn, id, ctx.editor, ctx.now).await?;
    search::index(conn, search::TEST, id).await
}

/// NOT_FOUND unless test `test_id` exists.
pub(super) async fn require_test(conn: &mut AnyConnection, test_id: i64) -> ServiceResult<()> {
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM tests WHERE id = $1")
        .bind(test_id)
        .fetch_optional(&mut *conn)
        .await?;
    found
        .map(|_| ())
        .ok_or_else(|| ServiceError::not_found(MSG_TEST_NOT_FOUND))
}

/// A test made for an article becomes the article's test when it has none
/// (a change of the article, recorded as one).
async fn link_article(
    conn: &mut AnyConnection,
    article_id: Option<i64>,
    test_id: i64,
    audit: &AuditContext,
) -> ServiceResult<()> {
    let Some(article_id) = article_id else {
        return Ok(());
    };
    let linked = sqlx::query("UPDATE articles SET test_id = $1 WHERE id = $2 AND test_id IS NULL")
        .bind(test_id)
        .bind(article_id)
        .execute(&mut *conn)
        .await?;
    if linked.rows_affected() > 0 {
        let changes = Changes::new().field("testId", None::<i64>, test_id);
        let event = Event::new(entity::ARTICLE, article_id, action::UPDATE).changes(changes);
        audit::record(conn, audit, event).await?;
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

pub(super) async fn full_questions(
    conn: &mut AnyConnection,
    test_id: i64,
) -> ServiceResult<Vec<FullQuestion>> {
    // One read for the questions and their answers: a question without answers
    // comes once with NULLs.
    type Row = (i64, String, Option<i64>, Option<String>, Option<i64>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT q.id, q.title, an.id, an.title, an.is_correct FROM questions q \
         LEFT JOIN answers an ON an.question_id = q.id WHERE q.test_id = $1 \
         ORDER BY q.position, q.id, an.position, an.id",
    )
    .bind(test_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut questions: Vec<FullQuestion> = Vec::new();
    for (question_id, question_title, answer_id, answer_title, is_correct) in rows {
        if questions.last().map(|q| q.question.id) != Some(question_id) {
            questions.push(FullQuestion {
                question: QuestionRecord {
                    id: question_id,
                    title: question_title,
                },
                answers: Vec::new(),
            });
        }
        if let (Some(question), Some(id), Some(title), Some(is_correct)) =
            (questions.last_mut(), answer_id, answer_title, is_correct)
        {
            question.answers.push(AnswerRecord {
                id,
                question_id,
                title,
                is_correct,
            });
        }
    }
    Ok(questions)
}
