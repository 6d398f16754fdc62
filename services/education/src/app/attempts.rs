//! Starting an attempt: the questions drawn for it, as its taker sees them.

use std::collections::HashMap;

use portal_kit::audit::AuditContext;
use portal_kit::{ServiceError, ServiceResult};

use crate::domain::attempt::{MSG_EMPTY_TEST, draw, shuffled};
use crate::store::{FullQuestion, OpenAttempt, Store, TestRecord, TriesUsed, Viewer};

/// An attempt started (or the open one resumed), with what its taker is shown.
pub struct Started {
    pub attempt: OpenAttempt,
    /// The attempt's questions in its order, each one's answers shuffled so
    /// their position tells nothing.
    pub questions: Vec<FullQuestion>,
    pub test: TestRecord,
    pub used: TriesUsed,
}

/// Starts an attempt of `user_id` on the test `viewer` may see, or resumes
/// their open one; CONFLICT when the test has no questions or no try is left.
pub async fn start(
    store: &Store,
    viewer: Viewer,
    test_id: i64,
    user_id: i64,
    now: i64,
    audit: &AuditContext,
) -> ServiceResult<Started> {
    let test = store.test(viewer, test_id).await?;
    let questions = store.full_questions(test.id).await?;
    if questions.is_empty() {
        return Err(ServiceError::conflict(MSG_EMPTY_TEST));
    }
    let all: Vec<i64> = questions.iter().map(|q| q.question.id).collect();
    let count = usize::try_from(test.number_of_questions).unwrap_or(usize::MAX);
    let (attempt, used) = store
        .start_attempt(
            &test,
            user_id,
            now,
            move |seen| draw(&all, seen, count),
            audit,
        )
        .await?;
    let mut by_id: HashMap<i64, FullQuestion> =
        questions.into_iter().map(|q| (q.question.id, q)).collect();
    let questions = attempt
        .question_ids
        .iter()
        .filter_map(|id| by_id.remove(id))
        .map(|q| FullQuestion {
            answers: shuffled(q.answers),
            question: q.question,
        })
        .collect();
    Ok(Started {
        attempt,
        questions,
        test,
        used,
    })
}
