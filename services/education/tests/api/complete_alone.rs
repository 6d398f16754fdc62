//! Spec §7's flow, `complete-test` alone (issue 37): where a test shows every
//! question, a hand-in with no attempt started takes a try and completes it
//! in one transaction; the tries' limit, races and idempotency keys hold as
//! for a start. Where a test draws a subset, the refusal stays
//! (`attempts.rs`).

use futures_util::future::join_all;
use portal_education::domain::attempt::MSG_NO_TRIES_LEFT;
use portal_kit::idempotency::{IDEMPOTENCY_KEY, REPLAYED_KEY};
use portal_proto::education::v1 as pb;
use tonic::{Code, Request};

use crate::helpers::*;

/// The learner's hand-in of `answers` to `test_id` without an attempt id.
fn hand_in(
    app: &TestApp,
    test_id: i64,
    answers: Vec<pb::QuestionWithAnswer>,
    key: Option<&str>,
) -> Request<pb::CompleteTestRequest> {
    let mut request = authed(
        pb::CompleteTestRequest {
            test_id,
            user_id: LEARNER_ID,
            question_with_answers: answers,
            attempt_id: 0,
        },
        &app.learner_token(),
    );
    if let Some(key) = key {
        request
            .metadata_mut()
            .insert(IDEMPOTENCY_KEY, key.parse().unwrap());
    }
    request
}

async fn results(app: &TestApp, test_id: i64) -> Vec<pb::TestResult> {
    app.client
        .clone()
        .list_user_test_results(authed(
            pb::ListUserTestResultsRequest {
                test_id,
                user_id: 0,
            },
            &app.learner_token(),
        ))
        .await
        .expect("the learner's results")
        .into_inner()
        .results
}

#[tokio::test]
async fn complete_test_alone_takes_a_try_where_the_test_shows_every_question() {
    on_each_backend(|app| async move {
        // One point to pass, both questions shown, two tries.
        let test = app.assigned([1, 2, 2], 2).await.test;
        let mut client = app.client.clone();

        let first = client
            .complete_test(hand_in(&app, test.id, answers(&test, 2), None))
            .await
            .expect("scored without a start")
            .into_inner();
        assert_eq!(
            (
                first.total_point,
                first.is_passed,
                first.total_points_possible,
                first.number_of_tries_left
            ),
            (2, true, 2, 1),
            "on {:?}",
            app.backend
        );
        let recorded = results(&app, test.id).await;
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].id, first.test_result_id);
        assert_eq!(recorded[0].total_point, 2);

        // Sent again with its idempotency key: the same answer, no try taken.
        let keyed = client
            .complete_test(hand_in(&app, test.id, answers(&test, 0), Some("hand-in-1")))
            .await
            .expect("the second try")
            .into_inner();
        assert_eq!((keyed.total_point, keyed.number_of_tries_left), (0, 0));
        let replayed = client
            .complete_test(hand_in(&app, test.id, answers(&test, 0), Some("hand-in-1")))
            .await
            .expect("replayed");
        assert_eq!(replayed.metadata().get(REPLAYED_KEY).unwrap(), "true");
        assert_eq!(replayed.into_inner(), keyed);
        assert_eq!(results(&app, test.id).await.len(), 2);

        // No try left: refused as a start is, and nothing is recorded.
        let spent = client
            .complete_test(hand_in(&app, test.id, answers(&test, 2), None))
            .await;
        assert_status(spent, Code::FailedPrecondition, MSG_NO_TRIES_LEFT);
        assert_eq!(app.learner_summary(test.id).await.number_of_tries_left, 0);
        assert_eq!(results(&app, test.id).await.len(), 2);
    })
    .await;
}

#[tokio::test]
async fn parallel_hand_ins_without_an_attempt_take_one_try_each_while_any_is_left() {
    on_each_backend(|app| async move {
        let test = app.assigned([1, 2, 3], 2).await.test;
        let client = app.client.clone();
        let outcomes = join_all((0..20).map(|_| {
            let mut client = client.clone();
            let request = hand_in(&app, test.id, answers(&test, 1), None);
            async move { client.complete_test(request).await }
        }))
        .await;
        let scored: Vec<&pb::CompleteTestResponse> = outcomes
            .iter()
            .filter_map(|outcome| outcome.as_ref().ok().map(|r| r.get_ref()))
            .collect();
        assert_eq!(scored.len(), 3, "three tries on {:?}", app.backend);
        for refused in outcomes.iter().filter_map(|outcome| outcome.as_ref().err()) {
            assert_eq!(
                (refused.code(), refused.message()),
                (Code::FailedPrecondition, MSG_NO_TRIES_LEFT)
            );
        }
        let mut ids: Vec<i64> = scored.iter().map(|r| r.test_result_id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 3, "three attempts, each completed once");
        assert_eq!(results(&app, test.id).await.len(), 3);
        assert_eq!(app.learner_summary(test.id).await.number_of_tries_left, 0);
    })
    .await;
}

#[tokio::test]
async fn an_open_attempt_is_completed_rather_than_another_try_taken() {
    on_each_backend(|app| async move {
        let test = app.assigned([1, 2, 3], 2).await.test;
        let started = app
            .client
            .clone()
            .start_attempt(authed(
                pb::StartAttemptRequest { test_id: test.id },
                &app.learner_token(),
            ))
            .await
            .expect("a start")
            .into_inner();
        let completed = app
            .client
            .clone()
            .complete_test(hand_in(&app, test.id, answers(&test, 2), None))
            .await
            .expect("the open attempt completed")
            .into_inner();
        assert_eq!(completed.test_result_id, started.attempt_id);
        assert_eq!(completed.number_of_tries_left, 2);
    })
    .await;
}
