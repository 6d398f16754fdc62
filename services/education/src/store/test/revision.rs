//! A test's revisions and a restore of one, a save of the test like any
//! other ([`super::save_test`]).
//!
//! A test's revision holds its questions and answers with their ids as JSON.
//! Restoring it edits in place those the test still has and adds the others
//! anew; attempts keep the ids of the questions they asked, the answers given
//! and their scores in rows of their own (`attempt_questions`, `attempts`),
//! which no save of a test writes, so results already scored stay as they were.

use std::collections::{HashMap, HashSet};

use portal_kit::audit::AuditContext;
use portal_kit::revisions::Restore;
use portal_kit::{ServiceError, ServiceResult};
use sqlx::{AnyConnection, FromRow};

use super::{
    AnswerRecord, FullQuestion, QuestionRecord, TestRecord, full_questions, require_test, save_test,
};
use crate::domain::revision::MSG_REVISION_NOT_FOUND;
use crate::domain::test::{AnswerDraft, QuestionDraft, TestDraft, TestSettings};
use crate::store::revision::{
    Editor, RevisionRecord, SavedAnswer, SavedQuestion, TEST, TEST_REVISIONS, WriteContext,
    insert_test_revision, revision, revisions, saved_questions,
};
use crate::store::{Store, Viewer};

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

const TEST_REVISION_FIELDS: &str = "SELECT r.title, r.description, r.total_points_required, r.number_of_questions, r.number_of_tries, r.article_id, r.questions FROM test_revisions r WHERE r.test_id = $1 AND r.id = $2";

impl Store {
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
                question: QuestionRecord {
                    id: question.id,
                    title: question.title,
                },
                answers: question
                    .answers
                    .into_iter()
                    .map(|answer| AnswerRecord {
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
        ctx: WriteContext<'_>,
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
            save_test(&mut tx, test_id, &draft, ctx, audit).await?;
            restore.mark(&mut tx).await
        }
        .await;
        tx.end(restored).await?;
        self.test(Viewer::Everything, test_id).await
    }
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
        (None, Some(created_at)) => record_test(conn, test_id, &Editor::PORTAL, created_at).await,
        _ => Ok(()),
    }
}

/// After a save: the test with its questions and answers as it now stands, a
/// revision by `editor` at `at`.
pub(super) async fn record_test(
    conn: &mut AnyConnection,
    test_id: i64,
    editor: &Editor,
    at: i64,
) -> ServiceResult<()> {
    let questions: Vec<SavedQuestion> = full_questions(conn, test_id)
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
    insert_test_revision(conn, test_id, &questions, editor, at).await
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
