//! Taking tests: drawing, scoring, tries (also under concurrent submissions),
//! and the spec §5 rules for writing a test.

use std::collections::HashSet;

use futures_util::future::join_all;
use portal_education::domain::attempt::{
    ATTEMPT_TIME_LIMIT_MS, MSG_ATTEMPT_EXPIRED, MSG_DUPLICATE_ANSWER, MSG_FOREIGN_QUESTION,
    MSG_NO_OPEN_ATTEMPT, MSG_NO_TRIES_LEFT, REASON_NO_OPEN_ATTEMPT,
};
use portal_education::domain::test::{
    MSG_DRAWN_EXCEED_QUESTIONS, MSG_MUST_BE_POSITIVE, MSG_ONE_CORRECT, MSG_POINTS_EXCEED_QUESTIONS,
};
use portal_kit::error::REASON_KEY;
use portal_proto::education::v1 as pb;
use tonic::Code;

use crate::helpers::*;

async fn start(app: &TestApp, test_id: i64) -> pb::StartAttemptResponse {
    app.client
        .clone()
        .start_attempt(authed(
            pb::StartAttemptRequest { test_id },
            &app.learner_token(),
        ))
        .await
        .expect("start attempt")
        .into_inner()
}

/// Answers every drawn question, the first `correct` of them right.
fn answer_drawn(
    test: &pb::Test,
    drawn: &[pb::DrawnQuestion],
    correct: usize,
) -> Vec<pb::QuestionWithAnswer> {
    drawn
        .iter()
        .enumerate()
        .map(|(i, question)| {
            let full = test.questions.iter().find(|q| q.id == question.id).unwrap();
            let answer = full
                .answers
                .iter()
                .find(|a| a.is_correct == (i < correct))
                .unwrap();
            pb::QuestionWithAnswer {
                question_id: question.id,
                answer_id: answer.id,
            }
        })
        .collect()
}

#[tokio::test]
async fn a_learner_takes_a_test_scored_on_the_server_without_seeing_correctness() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([2, 3, 2], 5).await;
        let started = start(&app, assigned.test.id).await;
        assert_eq!(started.questions.len(), 3);
        assert_eq!(started.number_of_tries_left, 1);
        let json = serde_json::to_string(&started).unwrap();
        assert!(!json.contains("isCorrect"), "{json}");
        let again = start(&app, assigned.test.id).await;
        assert_eq!(
            again.attempt_id, started.attempt_id,
            "a reload costs no try"
        );
        assert_eq!(again.number_of_tries_left, 1);

        let request = pb::CompleteTestRequest {
            test_id: assigned.test.id,
            user_id: LEARNER_ID,
            question_with_answers: answer_drawn(&assigned.test, &started.questions, 2),
            attempt_id: started.attempt_id,
        };
        let mut client = app.client.clone();
        let done = client
            .complete_test(authed(request.clone(), &app.learner_token()))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            (done.total_point, done.is_passed, done.total_points_possible),
            (2, true, 3)
        );
        assert_eq!(done.number_of_tries_left, 1);
        let twice = client
            .complete_test(authed(request, &app.learner_token()))
            .await;
        assert_eq!(code(&twice), Code::FailedPrecondition);

        let summary = app.learner_summary(assigned.test.id).await;
        assert_eq!(
            (summary.number_of_tries, summary.number_of_tries_left),
            (2, 1)
        );
        let results = client
            .list_user_test_results(authed(
                pb::ListUserTestResultsRequest {
                    test_id: assigned.test.id,
                    user_id: 0,
                },
                &app.learner_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .results;
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].total_point, 2);
        assert!(results[0].is_passed && results[0].date_completion.is_some());
    })
    .await;
}

#[tokio::test]
async fn questions_not_seen_before_are_drawn_first() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 2, 2], 4).await;
        let first = start(&app, assigned.test.id).await;
        let answers = answer_drawn(&assigned.test, &first.questions, 0);
        let request = pb::CompleteTestRequest {
            test_id: assigned.test.id,
            user_id: 0,
            question_with_answers: answers,
            attempt_id: first.attempt_id,
        };
        app.client
            .clone()
            .complete_test(authed(request, &app.learner_token()))
            .await
            .unwrap();
        let second = start(&app, assigned.test.id).await;
        let seen: HashSet<i64> = first.questions.iter().map(|q| q.id).collect();
        assert!(second.questions.iter().all(|q| !seen.contains(&q.id)));
    })
    .await;
}

#[tokio::test]
async fn an_attempt_left_unfinished_expires_and_stays_a_try() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 2, 2], 4).await;
        let first = start(&app, assigned.test.id).await;
        let (started, expires) = (
            first.started_at.unwrap().seconds,
            first.expires_at.unwrap().seconds,
        );
        assert_eq!((expires - started) * 1000, ATTEMPT_TIME_LIMIT_MS);

        app.backdate_attempts(ATTEMPT_TIME_LIMIT_MS).await;
        let late = pb::CompleteTestRequest {
            test_id: assigned.test.id,
            user_id: 0,
            question_with_answers: answer_drawn(&assigned.test, &first.questions, 2),
            attempt_id: first.attempt_id,
        };
        let mut client = app.client.clone();
        assert_status(
            client
                .complete_test(authed(late, &app.learner_token()))
                .await,
            Code::FailedPrecondition,
            MSG_ATTEMPT_EXPIRED,
        );

        let second = start(&app, assigned.test.id).await;
        assert_ne!(
            second.attempt_id, first.attempt_id,
            "an expired attempt is not resumed"
        );
        assert_eq!(
            second.number_of_tries_left, 0,
            "the expired attempt was a try"
        );
        let in_time = pb::CompleteTestRequest {
            test_id: assigned.test.id,
            user_id: 0,
            question_with_answers: answer_drawn(&assigned.test, &second.questions, 2),
            attempt_id: second.attempt_id,
        };
        let done = client
            .complete_test(authed(in_time, &app.learner_token()))
            .await
            .expect("complete the attempt in time")
            .into_inner();
        assert_eq!((done.total_point, done.number_of_tries_left), (2, 0));
        let results = client
            .list_user_test_results(authed(
                pb::ListUserTestResultsRequest {
                    test_id: assigned.test.id,
                    user_id: 0,
                },
                &app.learner_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .results;
        assert_eq!(results.len(), 1, "an expired attempt has no result");
    })
    .await;
}

#[tokio::test]
async fn complete_test_without_an_attempt_id_scores_only_the_open_attempts_drawn_questions() {
    on_each_backend(|app| async move {
        // Two points to pass, two of three questions drawn, two tries.
        let assigned = app.assigned([2, 2, 2], 3).await;
        let other = app.assigned([1, 1, 2], 1).await;
        let token = app.learner_token();
        let test = &assigned.test;
        let client = app.client.clone();
        let send = |answers: Vec<pb::QuestionWithAnswer>| {
            let request = pb::CompleteTestRequest {
                test_id: test.id,
                user_id: 0,
                question_with_answers: answers,
                attempt_id: 0,
            };
            let token = token.clone();
            let mut client = client.clone();
            async move {
                client
                    .complete_test(authed(request, &token))
                    .await
                    .map(|r| r.into_inner())
            }
        };
        let pair = |q: &pb::Question, correct: bool| pb::QuestionWithAnswer {
            question_id: q.id,
            answer_id: q
                .answers
                .iter()
                .find(|a| a.is_correct == correct)
                .unwrap()
                .id,
        };
        let no_open_attempt = |outcome: Result<pb::CompleteTestResponse, tonic::Status>| {
            let status = outcome.expect_err("refused without an open attempt");
            assert_eq!(
                (status.code(), status.message()),
                (Code::FailedPrecondition, MSG_NO_OPEN_ATTEMPT),
                "on {:?}",
                app.backend
            );
            assert_eq!(
                status.metadata().get(REASON_KEY).unwrap(),
                REASON_NO_OPEN_ATTEMPT
            );
        };
        let q = &test.questions;

        // Nothing started: the learner cannot choose questions to be scored on.
        no_open_attempt(send(vec![pair(&q[0], true), pair(&q[1], true)]).await);

        let started = start(&app, test.id).await;
        assert_eq!(started.number_of_tries_left, 1);
        let drawn: HashSet<i64> = started.questions.iter().map(|q| q.id).collect();
        let (asked, undrawn): (Vec<&pb::Question>, Vec<&pb::Question>) =
            q.iter().partition(|q| drawn.contains(&q.id));
        assert_eq!((asked.len(), undrawn.len()), (2, 1));
        assert_status(
            send(vec![pair(undrawn[0], true), pair(asked[0], true)]).await,
            Code::InvalidArgument,
            MSG_FOREIGN_QUESTION,
        );
        assert_status(
            send(vec![pair(undrawn[0], true)]).await,
            Code::InvalidArgument,
            MSG_FOREIGN_QUESTION,
        );
        assert_status(
            send(vec![pair(asked[0], true), pair(asked[0], false)]).await,
            Code::InvalidArgument,
            MSG_DUPLICATE_ANSWER,
        );
        assert_status(
            send(vec![
                pair(asked[0], true),
                pair(&other.test.questions[0], true),
            ])
            .await,
            Code::InvalidArgument,
            MSG_FOREIGN_QUESTION,
        );

        let scored = send(asked.iter().map(|q| pair(q, true)).collect())
            .await
            .unwrap();
        assert_eq!(
            (
                scored.total_point,
                scored.is_passed,
                scored.total_points_possible,
                scored.number_of_tries_left
            ),
            (2, true, 2, 1)
        );
        no_open_attempt(send(vec![pair(asked[0], true)]).await);

        let last = start(&app, test.id).await;
        assert_eq!(last.number_of_tries_left, 0);
        send(answer_drawn(test, &last.questions, 0)).await.unwrap();
        let spent = client
            .clone()
            .start_attempt(authed(pb::StartAttemptRequest { test_id: test.id }, &token))
            .await;
        assert_status(spent, Code::FailedPrecondition, MSG_NO_TRIES_LEFT);

        let for_another = pb::CompleteTestRequest {
            test_id: test.id,
            user_id: OTHER_LEARNER_ID,
            question_with_answers: vec![],
            attempt_id: 0,
        };
        let refused = client
            .clone()
            .complete_test(authed(for_another, &app.admin_token()))
            .await;
        assert_eq!(code(&refused), Code::PermissionDenied);
    })
    .await;
}

#[tokio::test]
async fn fifty_parallel_starts_by_one_learner_open_one_attempt_and_use_one_try() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 2, 3], 3).await;
        let starts = (0..50).map(|_| start(&app, assigned.test.id));
        let started = join_all(starts).await;
        let attempts: HashSet<i64> = started.iter().map(|s| s.attempt_id).collect();
        let drawn: HashSet<Vec<i64>> = started
            .iter()
            .map(|s| s.questions.iter().map(|q| q.id).collect())
            .collect();
        assert_eq!(
            (attempts.len(), drawn.len()),
            (1, 1),
            "on {:?}",
            app.backend
        );

        let summary = app.learner_summary(assigned.test.id).await;
        assert_eq!(summary.number_of_tries_left, 2, "on {:?}", app.backend);
    })
    .await;
}

#[tokio::test]
async fn concurrent_submissions_complete_an_attempt_once() {
    on_each_backend(|app| async move {
        // Two of three questions drawn: a hand-in after the attempt's
        // completion cannot take a new try by itself (complete_alone.rs).
        let assigned = app.assigned([1, 2, 3], 3).await;
        let token = app.learner_token();
        let started = start(&app, assigned.test.id).await;
        let answers = answer_drawn(&assigned.test, &started.questions, 1);
        let submissions = (0..30).map(|_| {
            let request = pb::CompleteTestRequest {
                test_id: assigned.test.id,
                user_id: 0,
                question_with_answers: answers.clone(),
                attempt_id: 0,
            };
            let mut client = app.client.clone();
            let token = token.clone();
            async move { client.complete_test(authed(request, &token)).await }
        });
        let outcomes = join_all(submissions).await;
        let accepted = outcomes.iter().filter(|o| o.is_ok()).count();
        let refused = outcomes
            .iter()
            .filter(|o| matches!(o, Err(s) if s.code() == Code::FailedPrecondition))
            .count();
        assert_eq!(
            (accepted, refused),
            (1, 29),
            "on {:?}: {outcomes:?}",
            app.backend
        );

        let results = app
            .client
            .clone()
            .list_user_test_results(authed(
                pb::ListUserTestResultsRequest {
                    test_id: assigned.test.id,
                    user_id: 0,
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner()
            .results;
        assert_eq!(results.len(), 1);
    })
    .await;
}

#[tokio::test]
async fn writing_a_test_follows_the_spec_rules_and_messages() {
    on_each_backend(|app| async move {
        let refused = |settings, questions| app.create_test(test_request(settings, questions));
        assert_status(
            refused([0, 1, 1], questions(1)).await,
            Code::InvalidArgument,
            MSG_MUST_BE_POSITIVE,
        );
        assert_status(
            refused([3, 2, 1], questions(2)).await,
            Code::InvalidArgument,
            MSG_POINTS_EXCEED_QUESTIONS,
        );
        assert_status(
            refused([1, 3, 1], questions(2)).await,
            Code::InvalidArgument,
            MSG_DRAWN_EXCEED_QUESTIONS,
        );
        let mut two_correct = questions(1);
        two_correct[0].answers[1].is_correct = true;
        assert_status(
            refused([1, 1, 1], two_correct).await,
            Code::InvalidArgument,
            MSG_ONE_CORRECT,
        );

        // Editing keeps the ids it is given, adds id 0 and drops what is left out.
        let test = app
            .create_test(test_request([1, 2, 1], questions(3)))
            .await
            .unwrap();
        let mut edited = test.questions.clone();
        edited.remove(0);
        edited[0].title = "Изменённый вопрос".into();
        edited.extend(questions(1));
        let updated = app
            .client
            .clone()
            .update_test(authed(
                pb::UpdateTestRequest {
                    id: test.id,
                    title: "Гигиена рук".into(),
                    description: "Пять моментов".into(),
                    total_points_required: 1,
                    number_of_questions: 2,
                    number_of_tries: 1,
                    article_id: 0,
                    questions: edited,
                },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .test
            .unwrap();
        let ids: Vec<i64> = updated.questions.iter().map(|q| q.id).collect();
        assert_eq!(ids[..2], [test.questions[1].id, test.questions[2].id]);
        assert!(!ids.contains(&test.questions[0].id));
        assert_eq!(updated.questions[0].title, "Изменённый вопрос");
        assert_eq!(updated.questions.len(), 3);
    })
    .await;
}

/// A reload of the test's page reads the summary again: it tells the attempt
/// in progress and until when, so the page offers to go on with it rather
/// than saying nothing was tried (issue 37); a completed or expired attempt
/// is in progress no more.
#[tokio::test]
async fn the_summary_tells_the_attempt_in_progress_until_it_ends() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 1, 3], 2).await;
        let test = &assigned.test;
        assert_eq!(app.learner_summary(test.id).await.attempt_in_progress, None);

        let started = start(&app, test.id).await;
        let summary = app.learner_summary(test.id).await;
        let ongoing = summary.attempt_in_progress.expect("in progress");
        assert_eq!(ongoing.attempt_id, started.attempt_id);
        assert_eq!(ongoing.started_at, started.started_at);
        assert_eq!(ongoing.expires_at, started.expires_at);
        assert_eq!(summary.number_of_tries_left, 2, "its try already taken");

        app.client
            .clone()
            .complete_test(authed(
                pb::CompleteTestRequest {
                    test_id: test.id,
                    user_id: 0,
                    question_with_answers: answer_drawn(test, &started.questions, 1),
                    attempt_id: started.attempt_id,
                },
                &app.learner_token(),
            ))
            .await
            .expect("completed");
        assert_eq!(app.learner_summary(test.id).await.attempt_in_progress, None);

        start(&app, test.id).await;
        assert!(
            app.learner_summary(test.id)
                .await
                .attempt_in_progress
                .is_some()
        );
        app.backdate_attempts(ATTEMPT_TIME_LIMIT_MS).await;
        assert_eq!(
            app.learner_summary(test.id).await.attempt_in_progress,
            None,
            "expired on {:?}",
            app.backend
        );
    })
    .await;
}
