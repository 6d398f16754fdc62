//! Training for other hospital systems (issue 21): records after a cursor,
//! the watch stream, every assignee's standing and assignments by the HR
//! system's keys, resolved by the real auth service running beside education.

use std::collections::BTreeSet;
use std::time::Duration;

use portal_kit::access::Scope;
use portal_proto::education::v1 as pb;
use tokio::time::timeout;
use tonic::Code;
use tonic::Streaming;

use crate::helpers::*;

/// How long a new result may take to reach a watcher (the second).
const DELIVERY: Duration = Duration::from_secs(1);

impl TestApp {
    fn reader_token(&self) -> String {
        self.keys.service_token(7, &[Scope::TrainingRead])
    }

    async fn records(&self, after: i64, limit: i32) -> pb::ListTrainingRecordsResponse {
        self.client
            .clone()
            .list_training_records(authed(
                pb::ListTrainingRecordsRequest { after, limit },
                &self.reader_token(),
            ))
            .await
            .expect("ListTrainingRecords")
            .into_inner()
    }

    async fn watch(&self, after: i64) -> Streaming<pb::WatchTrainingRecordsResponse> {
        self.client
            .clone()
            .watch_training_records(authed(
                pb::WatchTrainingRecordsRequest { after },
                &self.reader_token(),
            ))
            .await
            .expect("WatchTrainingRecords")
            .into_inner()
    }

    async fn assign(&self, request: pb::AssignCourseRequest) -> pb::AssignCourseResponse {
        let token = self.keys.service_token(8, &[Scope::TrainingAssign]);
        self.client
            .clone()
            .assign_course(authed(request, &token))
            .await
            .expect("AssignCourse")
            .into_inner()
    }

    async fn compliance(&self, course_id: i64) -> Vec<pb::TrainingCompliance> {
        self.client
            .clone()
            .list_training_compliance(authed(
                pb::ListTrainingComplianceRequest {
                    course_id,
                    ..Default::default()
                },
                &self.reader_token(),
            ))
            .await
            .expect("ListTrainingCompliance")
            .into_inner()
            .items
    }

    /// A test of one question (one to pass, 100 tries) in a course assigned
    /// to `learners`.
    async fn exam(&self, learners: &[i64]) -> Assigned {
        let test = self
            .create_test(test_request([1, 1, 100], questions(1)))
            .await
            .expect("create test");
        let article = self.create_article("<p>Текст</p>", test.id).await;
        let course = self
            .create_course("2099-01-31", learners, &[article.id])
            .await;
        Assigned {
            course,
            article,
            test,
        }
    }

    /// `learner` sits the test, passing it when `pass`.
    async fn sit(&self, learner: i64, test: &pb::Test, pass: bool) -> pb::CompleteTestResponse {
        let token = self.token(learner, &[]);
        self.complete(&token, test, usize::from(pass), 0)
            .await
            .expect("complete the test")
    }
}

/// The next message of a watch, within `DELIVERY`.
async fn next_batch(
    stream: &mut Streaming<pb::WatchTrainingRecordsResponse>,
) -> pb::WatchTrainingRecordsResponse {
    timeout(DELIVERY, stream.message())
        .await
        .expect("a record within a second")
        .expect("the stream goes on")
        .expect("a message")
}

fn attempt_ids(records: &[pb::TrainingRecord]) -> Vec<i64> {
    records.iter().map(|record| record.attempt_id).collect()
}

#[tokio::test]
async fn records_come_in_the_order_they_were_recorded_page_by_page_with_hr_keys() {
    on_each_backend(|app| async move {
        let staff = app.hr_staff(&[("Т-001", "ХИР"), ("Т-002", "ХИР")]).await;
        let (nurse, surgeon) = (staff[0], staff[1]);
        let stranger = 9_999;
        let exam = app.exam(&[nurse, surgeon, stranger]).await;
        let empty = app.records(0, 0).await;
        assert!(empty.records.is_empty());
        assert_eq!(empty.next, 0);

        let mut done = Vec::new();
        for (learner, pass) in [
            (nurse, true),
            (surgeon, false),
            (stranger, true),
            (nurse, false),
        ] {
            done.push(app.sit(learner, &exam.test, pass).await.test_result_id);
        }

        let first = app.records(0, 3).await;
        assert_eq!(attempt_ids(&first.records), done[..3]);
        assert_eq!(first.next, first.records[2].seq);
        let seqs: Vec<i64> = first.records.iter().map(|r| r.seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        let record = &first.records[0];
        assert_eq!(
            (record.user_id, record.employee_number.as_str()),
            (nurse, "Т-001")
        );
        assert_eq!(
            (record.course_id, record.course_title.as_str()),
            (exam.course.id, exam.course.title.as_str())
        );
        assert_eq!(
            (record.test_id, record.test_title.as_str()),
            (exam.test.id, exam.test.title.as_str())
        );
        assert_eq!(
            (
                record.points,
                record.max_points,
                record.points_required,
                record.passed,
                record.try_number
            ),
            (1, 1, 1, true, 1)
        );
        assert!(record.completed_at.is_some());
        assert!(!first.records[1].passed);
        assert_eq!(
            first.records[2].employee_number, "",
            "HR does not keep them"
        );

        let rest = app.records(first.next, 3).await;
        assert_eq!(attempt_ids(&rest.records), done[3..]);
        assert_eq!(rest.records[0].try_number, 2);
        let after_all = app.records(rest.next, 3).await;
        assert!(after_all.records.is_empty());
        assert_eq!(after_all.next, rest.next, "the cursor stays where it was");

        // The same pages again: a stable order.
        assert_eq!(app.records(0, 3).await, first);

        let mut reader = app.client.clone();
        for (after, limit) in [(-1, 0), (0, 5001)] {
            let refused = reader
                .list_training_records(authed(
                    pb::ListTrainingRecordsRequest { after, limit },
                    &app.reader_token(),
                ))
                .await;
            assert_eq!(code(&refused), Code::InvalidArgument);
        }
    })
    .await;
}

#[tokio::test]
async fn a_reader_following_its_cursor_during_concurrent_completions_misses_none_and_sees_none_twice()
 {
    on_each_backend(|app| async move {
        let learners: Vec<i64> = (100..140).collect();
        let exam = app.exam(&learners).await;
        let writers = learners.iter().map(|&learner| {
            let app = &app;
            let test = exam.test.clone();
            async move {
                let mut ids = Vec::new();
                for pass in [true, false, true] {
                    ids.push(app.sit(learner, &test, pass).await.test_result_id);
                }
                ids
            }
        });
        let reader = async {
            let started = std::time::Instant::now();
            let mut seen = Vec::new();
            let mut cursor = 0;
            // Until every result is read: pages of 7 while the writers write.
            while seen.len() < learners.len() * 3 {
                let page = app.records(cursor, 7).await;
                seen.extend(page.records.iter().map(|r| (r.seq, r.attempt_id)));
                cursor = page.next;
                assert!(
                    started.elapsed() < Duration::from_secs(120),
                    "read {} of {}",
                    seen.len(),
                    learners.len() * 3
                );
                // Caught up: wait as a polling system does, within its rate
                // limit (a loaded machine's writers are slow to come).
                if page.records.is_empty() {
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
            }
            seen
        };
        let (written, seen) = tokio::join!(futures_util::future::join_all(writers), reader);
        let written: BTreeSet<i64> = written.into_iter().flatten().collect();
        let seqs: Vec<i64> = seen.iter().map(|(seq, _)| *seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order, once each");
        let read: BTreeSet<i64> = seen.iter().map(|(_, id)| *id).collect();
        assert_eq!(read.len(), seen.len(), "no attempt twice");
        assert_eq!(read, written, "every completion read");
    })
    .await;
}

#[tokio::test]
async fn the_watch_sends_what_came_before_then_each_new_result_at_once_and_resumes_from_a_cursor() {
    on_each_backend(|app| async move {
        let staff = app.hr_staff(&[("Т-101", "ТЕР")]).await;
        let nurse = staff[0];
        let exam = app.exam(&[nurse, 501, 502]).await;
        let before = app.sit(nurse, &exam.test, true).await.test_result_id;

        let mut watch = app.watch(0).await;
        let first = next_batch(&mut watch).await;
        assert_eq!(attempt_ids(&first.records), [before]);
        assert_eq!(first.records[0].employee_number, "Т-101");

        let new = app.sit(501, &exam.test, false).await.test_result_id;
        let pushed = next_batch(&mut watch).await;
        assert_eq!(attempt_ids(&pushed.records), [new]);
        assert!(pushed.next > first.next);
        let cursor = pushed.next;
        drop(watch);

        // Recorded while nobody watched, then resumed from the cursor.
        let missed = app.sit(502, &exam.test, true).await.test_result_id;
        let mut watch = app.watch(cursor).await;
        let resumed = next_batch(&mut watch).await;
        assert_eq!(attempt_ids(&resumed.records), [missed], "nothing twice");

        // Another replica's result (a second service on the same database,
        // whose bell this one cannot hear) arrives by the poll.
        let (replica, _replica_serving) = app.replica().await;
        let token = app.token(nurse, &[]);
        let start = pb::StartAttemptRequest {
            test_id: exam.test.id,
        };
        replica
            .clone()
            .start_attempt(authed(start, &token))
            .await
            .unwrap();
        let elsewhere = replica
            .clone()
            .complete_test(authed(
                pb::CompleteTestRequest {
                    test_id: exam.test.id,
                    user_id: 0,
                    question_with_answers: answers(&exam.test, 1),
                    attempt_id: 0,
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner()
            .test_result_id;
        let polled = next_batch(&mut watch).await;
        assert_eq!(attempt_ids(&polled.records), [elsewhere]);

        // The server stops: the stream ends, as a stream ends, not as an error.
        app.shutdown.cancel();
        let ended = timeout(DELIVERY, watch.message())
            .await
            .expect("ends at once");
        assert!(matches!(ended, Ok(None)), "{ended:?}");
    })
    .await;
}

#[tokio::test]
async fn a_course_is_assigned_by_employee_number_and_department_once_with_own_deadlines() {
    on_each_backend(|app| async move {
        let staff = app
            .hr_staff(&[("Т-201", "ХИР"), ("Т-202", "ХИР"), ("Т-203", "ТЕР")])
            .await;
        let exam = app.exam(&[]).await;
        let course_id = exam.course.id;

        let first = app
            .assign(pb::AssignCourseRequest {
                course_id,
                employee_numbers: vec!["Т-203".into(), "Т-999".into()],
                department_codes: vec!["ХИР".into(), "НЕТ".into()],
                user_ids: vec![],
                date_deadline: "2020-01-31".into(),
            })
            .await;
        let mut everyone = staff.clone();
        everyone.sort_unstable();
        assert_eq!(first.assigned, everyone);
        assert!(first.updated.is_empty() && first.unchanged.is_empty());
        assert_eq!(first.not_found_employee_numbers, ["Т-999"]);
        assert_eq!(first.not_found_department_codes, ["НЕТ"]);

        // Again: nothing changes; with another deadline only that changes.
        let again = app
            .assign(pb::AssignCourseRequest {
                course_id,
                department_codes: vec!["ХИР".into()],
                date_deadline: "2020-01-31".into(),
                ..Default::default()
            })
            .await;
        assert!(again.assigned.is_empty() && again.updated.is_empty());
        assert_eq!(again.unchanged, [staff[0], staff[1]]);
        let later = app
            .assign(pb::AssignCourseRequest {
                course_id,
                user_ids: vec![staff[2], 777_777],
                date_deadline: "2099-12-31".into(),
                ..Default::default()
            })
            .await;
        assert_eq!(later.updated, [staff[2]]);
        assert_eq!(later.not_found_user_ids, [777_777]);

        // The standings use each person's own deadline: the surgeons are
        // overdue, the therapist is not; the course's own deadline is 2099.
        let standings = app.compliance(course_id).await;
        let by_user: Vec<(i64, &str, bool, bool, bool)> = standings
            .iter()
            .map(|s| {
                (
                    s.user_id,
                    s.date_deadline.as_str(),
                    s.own_deadline,
                    s.is_overdue,
                    s.is_complete,
                )
            })
            .collect();
        assert_eq!(
            by_user,
            [
                (staff[0], "2020-01-31", true, true, false),
                (staff[1], "2020-01-31", true, true, false),
                (staff[2], "2099-12-31", true, false, false),
            ]
        );
        assert_eq!(standings[0].employee_number, "Т-201");

        // Passing the course makes it done whatever the deadline.
        app.sit(staff[0], &exam.test, true).await;
        let done = &app.compliance(course_id).await[0];
        assert!(done.is_complete && !done.is_overdue);
        assert_eq!((done.tests_passed, done.tests_total), (1, 1));

        // The admin's compliance page and the learner's own list agree.
        let page = app
            .client
            .clone()
            .get_course_compliance(authed(
                pb::GetCourseComplianceRequest { course_id },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner();
        let overdue: Vec<i64> = page
            .assignees
            .iter()
            .filter(|a| a.is_overdue)
            .map(|a| a.user_id)
            .collect();
        assert_eq!(overdue, [staff[1]]);
        let mine = app
            .client
            .clone()
            .list_my_tests(authed(pb::ListMyTestsRequest {}, &app.token(staff[2], &[])))
            .await
            .unwrap()
            .into_inner()
            .tests;
        assert_eq!(mine[0].date_deadline, "2099-12-31");

        // An admin's edit of the course keeps who stays with their deadline.
        app.client
            .clone()
            .update_course(authed(
                pb::UpdateCourseRequest {
                    id: course_id,
                    title: exam.course.title.clone(),
                    description: exam.course.description.clone(),
                    date_deadline: exam.course.date_deadline.clone(),
                    user_ids: vec![staff[1], staff[2]],
                    article_ids: vec![exam.article.id],
                    validity_months: Some(0),
                },
                &app.admin_token(),
            ))
            .await
            .unwrap();
        let kept: Vec<(i64, String)> = app
            .compliance(course_id)
            .await
            .into_iter()
            .map(|s| (s.user_id, s.date_deadline))
            .collect();
        assert_eq!(
            kept,
            [
                (staff[1], "2020-01-31".to_owned()),
                (staff[2], "2099-12-31".to_owned())
            ]
        );

        // Who assigned them is kept: the service account.
        assert_eq!(app.assigned_by(course_id, staff[2]).await, (None, Some(8)));
    })
    .await;
}

#[tokio::test]
async fn an_unknown_course_or_a_bad_deadline_is_refused_before_anyone_is_assigned() {
    on_each_backend(|app| async move {
        let token = app.keys.service_token(8, &[Scope::TrainingAssign]);
        let mut client = app.client.clone();
        let unknown = client
            .assign_course(authed(
                pb::AssignCourseRequest {
                    course_id: 4242,
                    user_ids: vec![LEARNER_ID],
                    ..Default::default()
                },
                &token,
            ))
            .await;
        assert_eq!(code(&unknown), Code::NotFound);
        let exam = app.exam(&[]).await;
        let bad = client
            .assign_course(authed(
                pb::AssignCourseRequest {
                    course_id: exam.course.id,
                    user_ids: vec![LEARNER_ID],
                    date_deadline: "31.12.2099".into(),
                    ..Default::default()
                },
                &token,
            ))
            .await;
        assert_eq!(code(&bad), Code::InvalidArgument);
        assert!(app.compliance(exam.course.id).await.is_empty());
    })
    .await;
}
