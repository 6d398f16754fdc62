//! Revisions of articles and tests (issue 25): each save keeps the version it
//! saved, with its author and time, in the save's own transaction; a restore
//! is one more such save. An item saved before revisions were kept first gets
//! its version of then, without an author, so its first save loses nothing.
//!
//! A test's revision holds its questions and answers with their ids as JSON.
//! Restoring it edits in place those the test still has and adds the others
//! anew; attempts keep the ids of the questions they asked, the answers given
//! and their scores in rows of their own (`attempt_questions`, `attempts`),
//! which no save of a test writes, so results already scored stay as they were.

use std::collections::{HashMap, HashSet};

use portal_kit::audit::AuditContext;
use portal_kit::day::Day;
use portal_kit::revisions::{Restore, RevisionTable};
use portal_kit::{ServiceError, ServiceResult};
use serde::{Deserialize, Serialize};
use sqlx::{AnyConnection, FromRow};

use super::article::save_article;
use super::test::{require_test, save_test};
use super::{ArticleRecord, FullQuestion, Store, TestRecord};
use crate::domain::article::{ArticleDraft, MSG_ARTICLE_NOT_FOUND};
use crate::domain::revision::{MSG_REVISION_NOT_FOUND, MSG_REVISION_WITHOUT_DEADLINE};
use crate::domain::test::{AnswerDraft, QuestionDraft, TestDraft, TestSettings};

/// Who saves an article or a test: a person, or the portal itself (its demo
/// courses), which has no id.
#[derive(Clone, Debug)]
pub struct Editor {
    pub id: Option<i64>,
    pub name: String,
}

impl Editor {
    pub const PORTAL: Editor = Editor {
        id: None,
        name: String::new(),
    };
}

/// One saved version, without its content.
#[derive(Clone, Debug, FromRow)]
pub struct RevisionRecord {
    pub id: i64,
    /// None for the version of before revisions were kept.
    pub author_id: Option<i64>,
    pub author_name: String,
    pub created_at: i64,
    /// An article's content in characters; a test's number of questions.
    pub size: i64,
    /// The revision a restore wrote this one from, and when that one was
    /// saved; none for a save of its own.
    pub restored_from_id: Option<i64>,
    pub restored_from_at: Option<i64>,
}

/// A test's questions as a revision keeps them.
#[derive(Debug, Serialize, Deserialize)]
struct SavedQuestion {
    id: i64,
    title: String,
    answers: Vec<SavedAnswer>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SavedAnswer {
    id: i64,
    title: String,
    is_correct: bool,
}

/// A test revision's row, with its questions as JSON.
#[derive(Debug, FromRow)]
struct TestRevisionRow {
    title: String,
    description: String,
    total_points_required: i64,
    number_of_questions: i64,
    number_of_tries: i64,
    article_id: Option<i64>,
    questions: String,
}

const ARTICLE_REVISIONS: &str = "SELECT r.id, r.author_id, r.author_name, r.created_at, LENGTH(r.content) AS size, r.restored_from_id, f.created_at AS restored_from_at FROM article_revisions r LEFT JOIN article_revisions f ON f.id = r.restored_from_id";
const TEST_REVISIONS: &str = "SELECT r.id, r.author_id, r.author_name, r.created_at, r.question_count AS size, r.restored_from_id, f.created_at AS restored_from_at FROM test_revisions r LEFT JOIN test_revisions f ON f.id = r.restored_from_id";
const ARTICLE_REVISION_FIELDS: &str = "SELECT r.article_id AS id, r.title, r.description, r.content, r.date_deadline, r.test_id FROM article_revisions r WHERE r.article_id = $1 AND r.id = $2";
const TEST_REVISION_FIELDS: &str = "SELECT r.title, r.description, r.total_points_required, r.number_of_questions, r.number_of_tries, r.article_id, r.questions FROM test_revisions r WHERE r.test_id = $1 AND r.id = $2";

impl Store {
    /// An article's revisions, newest first; NOT_FOUND for an unknown article.
    pub async fn article_revisions(&self, article_id: i64) -> ServiceResult<Vec<RevisionRecord>> {
        let mut conn = self.pool.acquire().await?;
        require_article(&mut conn, article_id).await?;
        revisions(&mut conn, ARTICLE_REVISIONS, "article_id", article_id).await
    }

    /// One revision of an article with the article's fields as it saved them.
    pub async fn article_revision(
        &self,
        article_id: i64,
        revision_id: i64,
    ) -> ServiceResult<(RevisionRecord, ArticleRecord)> {
        let mut conn = self.pool.acquire().await?;
        require_article(&mut conn, article_id).await?;
        let revision = revision(
            &mut conn,
            ARTICLE_REVISIONS,
            "article_id",
            article_id,
            revision_id,
        )
        .await?;
        let fields = article_fields(&mut conn, article_id, revision_id).await?;
        Ok((revision, fields))
    }

    /// Saves a revision's fields as the article again: a new revision.
    pub async fn restore_article(
        &self,
        article_id: i64,
        revision_id: i64,
        (editor, now): (&Editor, i64),
        audit: &AuditContext,
    ) -> ServiceResult<ArticleRecord> {
        let mut tx = self.write().await?;
        let restored = async {
            let fields = article_fields(&mut tx, article_id, revision_id).await?;
            let draft = ArticleDraft {
                title: fields.title,
                description: fields.description,
                content: fields.content,
                deadline: stored_day(fields.date_deadline.as_deref())?,
                test_id: fields.test_id,
            };
            let restore = Restore::begin(&mut tx, ARTICLE, article_id, revision_id).await?;
            let saved = save_article(&mut tx, article_id, &draft, (editor, now), audit).await?;
            restore.mark(&mut tx).await?;
            Ok(saved)
        }
        .await;
        tx.end(restored).await
    }

    /// A test's revisions, newest first; NOT_FOUND for an unknown test.
    pub async fn test_revisions(&self, test_id: i64) -> ServiceResult<Vec<RevisionRecord>> {
        let mut conn = self.pool.acquire().await?;
        require_test(&mut conn, test_id).await?;
        revisions(&mut conn, TEST_REVISIONS, "test_id", test_id).await
    }

    /// One revision of a test with its fields, questions and answers as it
    /// saved them (the questions' ids as they were then).
    pub async fn test_revision(
        &self,
        test_id: i64,
        revision_id: i64,
    ) -> ServiceResult<(RevisionRecord, TestRecord, Vec<FullQuestion>)> {
        let mut conn = self.pool.acquire().await?;
        require_test(&mut conn, test_id).await?;
        let revision = revision(&mut conn, TEST_REVISIONS, "test_id", test_id, revision_id).await?;
        let row = test_fields(&mut conn, test_id, revision_id).await?;
        let questions = saved_questions(&row.questions)?
            .into_iter()
            .map(|question| FullQuestion {
                question: super::QuestionRecord {
                    id: question.id,
                    title: question.title,
                },
                answers: question
                    .answers
                    .into_iter()
                    .map(|answer| super::AnswerRecord {
                        id: answer.id,
                        question_id: question.id,
                        title: answer.title,
                        is_correct: i64::from(answer.is_correct),
                    })
                    .collect(),
            })
            .collect();
        let test = TestRecord {
            id: test_id,
            title: row.title,
            description: row.description,
            total_points_required: row.total_points_required,
            number_of_questions: row.number_of_questions,
            number_of_tries: row.number_of_tries,
            article_id: row.article_id,
        };
        Ok((revision, test, questions))
    }

    /// Saves a revision's fields, questions and answers as the test again: a
    /// new revision. Questions and answers the test still has are edited in
    /// place, the others come back as new ones.
    pub async fn restore_test(
        &self,
        test_id: i64,
        revision_id: i64,
        (editor, now): (&Editor, i64),
        audit: &AuditContext,
    ) -> ServiceResult<TestRecord> {
        let mut tx = self.write().await?;
        let restored = async {
            let row = test_fields(&mut tx, test_id, revision_id).await?;
            let restore = Restore::begin(&mut tx, TEST, test_id, revision_id).await?;
            let current = current_ids(&mut tx, test_id).await?;
            let draft = TestDraft {
                title: row.title,
                description: row.description,
                settings: TestSettings {
                    total_points_required: row.total_points_required,
                    number_of_questions: row.number_of_questions,
                    number_of_tries: row.number_of_tries,
                },
                article_id: row.article_id,
                questions: saved_questions(&row.questions)?
                    .into_iter()
                    .map(|question| restored_question(question, &current))
                    .collect(),
            };
            save_test(&mut tx, test_id, &draft, (editor, now), audit).await?;
            restore.mark(&mut tx).await
        }
        .await;
        tx.end(restored).await?;
        self.test(super::Viewer::Everything, test_id).await
    }
}

const ARTICLE: RevisionTable = RevisionTable {
    table: "article_revisions",
    item: "article_id",
};
const TEST: RevisionTable = RevisionTable {
    table: "test_revisions",
    item: "test_id",
};

/// Before the first save of an article that has no revision yet: its
/// version as it is, without an author, as of its creation.
pub(super) async fn keep_article_of_before(
    conn: &mut AnyConnection,
    article_id: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "INSERT INTO article_revisions (article_id, title, description, content, date_deadline, test_id, author_id, author_name, created_at) \
         SELECT a.id, a.title, a.description, a.content, a.date_deadline, a.test_id, NULL, '', a.created_at FROM articles a \
         WHERE a.id = $1 AND NOT EXISTS (SELECT 1 FROM article_revisions r WHERE r.article_id = a.id)",
    )
    .bind(article_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// After a save: the article as it now stands, a revision by `editor`.
pub(super) async fn record_article(
    conn: &mut AnyConnection,
    article_id: i64,
    editor: &Editor,
    now: i64,
) -> ServiceResult<()> {
    sqlx::query(
        "INSERT INTO article_revisions (article_id, title, description, content, date_deadline, test_id, author_id, author_name, created_at) \
         SELECT a.id, a.title, a.description, a.content, a.date_deadline, a.test_id, $2, $3, $4 FROM articles a WHERE a.id = $1",
    )
    .bind(article_id)
    .bind(editor.id)
    .bind(&editor.name)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Before the first save of a test that has no revision yet: its version as
/// it is, without an author, as of its creation.
pub(super) async fn keep_test_of_before(
    conn: &mut AnyConnection,
    test_id: i64,
) -> ServiceResult<()> {
    let kept: Option<i64> =
        sqlx::query_scalar("SELECT id FROM test_revisions WHERE test_id = $1 LIMIT 1")
            .bind(test_id)
            .fetch_optional(&mut *conn)
            .await?;
    let created_at: Option<i64> = sqlx::query_scalar("SELECT created_at FROM tests WHERE id = $1")
        .bind(test_id)
        .fetch_optional(&mut *conn)
        .await?;
    match (kept, created_at) {
        (None, Some(created_at)) => {
            insert_test_revision(conn, test_id, &Editor::PORTAL, created_at).await
        }
        _ => Ok(()),
    }
}

/// After a save: the test with its questions and answers as it now stands, a
/// revision by `editor`.
pub(super) async fn record_test(
    conn: &mut AnyConnection,
    test_id: i64,
    editor: &Editor,
    now: i64,
) -> ServiceResult<()> {
    insert_test_revision(conn, test_id, editor, now).await
}

async fn insert_test_revision(
    conn: &mut AnyConnection,
    test_id: i64,
    editor: &Editor,
    at: i64,
) -> ServiceResult<()> {
    let questions: Vec<SavedQuestion> = super::test::full_questions(conn, test_id)
        .await?
        .into_iter()
        .map(|full| SavedQuestion {
            id: full.question.id,
            title: full.question.title,
            answers: full
                .answers
                .into_iter()
                .map(|answer| SavedAnswer {
                    id: answer.id,
                    title: answer.title,
                    is_correct: answer.is_correct == 1,
                })
                .collect(),
        })
        .collect();
    let count = i64::try_from(questions.len()).unwrap_or(i64::MAX);
    let json = serde_json::to_string(&questions)
        .map_err(|e| ServiceError::internal(format!("test revision not written: {e}")))?;
    sqlx::query(
        "INSERT INTO test_revisions (test_id, title, description, total_points_required, number_of_questions, number_of_tries, article_id, questions, question_count, author_id, author_name, created_at) \
         SELECT t.id, t.title, t.description, t.total_points_required, t.number_of_questions, t.number_of_tries, t.article_id, $2, $3, $4, $5, $6 FROM tests t WHERE t.id = $1",
    )
    .bind(test_id)
    .bind(json)
    .bind(count)
    .bind(editor.id)
    .bind(&editor.name)
    .bind(at)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

async fn require_article(conn: &mut AnyConnection, article_id: i64) -> ServiceResult<()> {
    let found: Option<i64> = sqlx::query_scalar("SELECT id FROM articles WHERE id = $1")
        .bind(article_id)
        .fetch_optional(&mut *conn)
        .await?;
    found
        .map(|_| ())
        .ok_or_else(|| ServiceError::not_found(MSG_ARTICLE_NOT_FOUND))
}

async fn revisions(
    conn: &mut AnyConnection,
    columns: &str,
    item_column: &str,
    item_id: i64,
) -> ServiceResult<Vec<RevisionRecord>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{columns} WHERE r.{item_column} = $1 ORDER BY r.id DESC"
    )))
    .bind(item_id)
    .fetch_all(&mut *conn)
    .await?)
}

async fn revision(
    conn: &mut AnyConnection,
    columns: &str,
    item_column: &str,
    item_id: i64,
    revision_id: i64,
) -> ServiceResult<RevisionRecord> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{columns} WHERE r.{item_column} = $1 AND r.id = $2"
    )))
    .bind(item_id)
    .bind(revision_id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| ServiceError::not_found(MSG_REVISION_NOT_FOUND))
}

async fn article_fields(
    conn: &mut AnyConnection,
    article_id: i64,
    revision_id: i64,
) -> ServiceResult<ArticleRecord> {
    sqlx::query_as(ARTICLE_REVISION_FIELDS)
        .bind(article_id)
        .bind(revision_id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_REVISION_NOT_FOUND))
}

async fn test_fields(
    conn: &mut AnyConnection,
    test_id: i64,
    revision_id: i64,
) -> ServiceResult<TestRevisionRow> {
    sqlx::query_as(TEST_REVISION_FIELDS)
        .bind(test_id)
        .bind(revision_id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| ServiceError::not_found(MSG_REVISION_NOT_FOUND))
}

fn saved_questions(json: &str) -> ServiceResult<Vec<SavedQuestion>> {
    serde_json::from_str(json)
        .map_err(|e| ServiceError::internal(format!("test revision unreadable: {e}")))
}

/// A stored deadline; articles written before deadlines were required may
/// have none, and a save needs one: such a revision cannot be restored.
fn stored_day(text: Option<&str>) -> ServiceResult<Day> {
    text.and_then(Day::stored)
        .ok_or_else(|| ServiceError::invalid(MSG_REVISION_WITHOUT_DEADLINE))
}

/// The test's questions now, each with its answers' ids.
async fn current_ids(
    conn: &mut AnyConnection,
    test_id: i64,
) -> ServiceResult<HashMap<i64, HashSet<i64>>> {
    let rows: Vec<(i64, Option<i64>)> = sqlx::query_as(
        "SELECT q.id, an.id FROM questions q LEFT JOIN answers an ON an.question_id = q.id WHERE q.test_id = $1",
    )
    .bind(test_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut current: HashMap<i64, HashSet<i64>> = HashMap::new();
    for (question_id, answer_id) in rows {
        let answers = current.entry(question_id).or_default();
        answers.extend(answer_id);
    }
    Ok(current)
}

/// A saved question as a draft on the test as it is now: what it still has
/// keeps its id (edited in place), what it lost is new (id 0).
fn restored_question(
    question: SavedQuestion,
    current: &HashMap<i64, HashSet<i64>>,
) -> QuestionDraft {
    let answers_now = current.get(&question.id);
    QuestionDraft {
        id: if answers_now.is_some() {
            question.id
        } else {
            0
        },
        title: question.title,
        answers: question
            .answers
            .into_iter()
            .map(|answer| AnswerDraft {
                id: match answers_now {
                    Some(ids) if ids.contains(&answer.id) => answer.id,
                    _ => 0,
                },
                title: answer.title,
                is_correct: answer.is_correct,
            })
            .collect(),
    }
}
