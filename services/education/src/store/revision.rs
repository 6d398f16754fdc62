//! Revisions of articles and tests (issue 25): each save keeps the version it
//! saved, with its author and time, in the save's own transaction; a restore
//! is one more such save, written beside the save it makes (`article.rs`,
//! `test/revision.rs`). An item saved before revisions were kept first gets
//! its version of then, without an author, so its first save loses nothing.
//!
//! This module holds the revision rows themselves: what the saves of both
//! write and what their histories list.

use portal_kit::revisions::RevisionTable;
use portal_kit::{ServiceError, ServiceResult};
use serde::{Deserialize, Serialize};
use sqlx::{AnyConnection, FromRow};

use crate::domain::revision::MSG_REVISION_NOT_FOUND;

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

/// Who saves an article or a test and when (Unix ms): what its revision
/// keeps.
#[derive(Clone, Copy, Debug)]
pub struct WriteContext<'a> {
    pub editor: &'a Editor,
    pub now: i64,
}

impl WriteContext<'static> {
    /// The portal's own save (its demo courses) at `now`.
    pub fn portal(now: i64) -> WriteContext<'static> {
        static PORTAL: Editor = Editor::PORTAL;
        WriteContext {
            editor: &PORTAL,
            now,
        }
    }
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
pub(super) struct SavedQuestion {
    pub id: i64,
    pub title: String,
    pub answers: Vec<SavedAnswer>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SavedAnswer {
    pub id: i64,
    pub title: String,
    pub is_correct: bool,
}

pub(super) const ARTICLE_REVISIONS: &str = "SELECT r.id, r.author_id, r.author_name, r.created_at, LENGTH(r.content) AS size, r.restored_from_id, f.created_at AS restored_from_at FROM article_revisions r LEFT JOIN article_revisions f ON f.id = r.restored_from_id";
pub(super) const TEST_REVISIONS: &str = "SELECT r.id, r.author_id, r.author_name, r.created_at, r.question_count AS size, r.restored_from_id, f.created_at AS restored_from_at FROM test_revisions r LEFT JOIN test_revisions f ON f.id = r.restored_from_id";

pub(super) const ARTICLE: RevisionTable = RevisionTable {
    table: "article_revisions",
    item: "article_id",
};
pub(super) const TEST: RevisionTable = RevisionTable {
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

/// Test `test_id` as it now stands with `questions`, a revision by `editor`
/// at `at`.
pub(super) async fn insert_test_revision(
    conn: &mut AnyConnection,
    test_id: i64,
    questions: &[SavedQuestion],
    editor: &Editor,
    at: i64,
) -> ServiceResult<()> {
    let count = i64::try_from(questions.len()).unwrap_or(i64::MAX);
    let json = serde_json::to_string(questions)
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

pub(super) async fn revisions(
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

pub(super) async fn revision(
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

pub(super) fn saved_questions(json: &str) -> ServiceResult<Vec<SavedQuestion>> {
    serde_json::from_str(json)
        .map_err(|e| ServiceError::internal(format!("test revision unreadable: {e}")))
}
