//! Statistics filtered and paged on the server, the compliance view and the
//! per-question analysis.

use portal_kit::Right;
use portal_proto::education::v1 as pb;

use crate::helpers::*;

async fn results(
    app: &TestApp,
    request: pb::ListAllTestResultsRequest,
) -> pb::ListAllTestResultsResponse {
    app.client
        .clone()
        .list_all_test_results(authed(request, &app.admin_token()))
        .await
        .expect("list results")
        .into_inner()
}

#[tokio::test]
async fn results_filter_by_test_department_user_and_date_page_newest_first_and_count_on_the_first_page()
 {
    on_each_backend(|app| async move {
        let first = app.assigned([1, 1, 10], 1).await;
        let second = app.assigned([1, 1, 10], 1).await;
        let learner = app.learner_token();
        let elsewhere = app
            .keys
            .token(OTHER_LEARNER_ID, &[], &[LEARNER_DEPARTMENT + 1]);
        app.create_course("2099-01-31", &[OTHER_LEARNER_ID], &[first.article.id])
            .await;
        for _ in 0..3 {
            app.complete(&learner, &first.test, 1, 0).await.unwrap();
        }
        app.complete(&learner, &second.test, 0, 0).await.unwrap();
        app.complete(&elsewhere, &first.test, 1, 0).await.unwrap();

        let all = results(&app, pb::ListAllTestResultsRequest::default()).await;
        assert_eq!(all.results.len(), 5);
        assert_eq!(all.total_count, 5);
        assert!(all.next_page_token.is_empty());
        let newest_first: Vec<i64> = all.results.iter().map(|r| r.id).collect();
        let mut sorted = newest_first.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(newest_first, sorted);

        let by_test = results(
            &app,
            pb::ListAllTestResultsRequest {
                test_id: second.test.id,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(by_test.results.len(), 1);
        assert!(!by_test.results[0].is_passed);
        let by_department = results(
            &app,
            pb::ListAllTestResultsRequest {
                department_id: LEARNER_DEPARTMENT + 1,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(
            by_department
                .results
                .iter()
                .map(|r| r.user_id)
                .collect::<Vec<_>>(),
            [OTHER_LEARNER_ID]
        );
        let by_user = results(
            &app,
            pb::ListAllTestResultsRequest {
                user_id: LEARNER_ID,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(by_user.results.len(), 4);
        assert_eq!(by_user.total_count, 4);
        let long_ago = results(
            &app,
            pb::ListAllTestResultsRequest {
                date_to: "2001-01-01".into(),
                ..Default::default()
            },
        )
        .await;
        assert!(long_ago.results.is_empty());
        let recent = results(
            &app,
            pb::ListAllTestResultsRequest {
                date_from: "2001-01-01".into(),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(recent.results.len(), 5);

        let mut paged = Vec::new();
        let mut token = String::new();
        loop {
            let first_page = token.is_empty();
            let page = results(
                &app,
                pb::ListAllTestResultsRequest {
                    page_size: 2,
                    page_token: token,
                    ..Default::default()
                },
            )
            .await;
            assert!(page.results.len() <= 2);
            // Counted once, on the first page: the deeper pages cost no count.
            let expected_total = if first_page { 5 } else { 0 };
            assert_eq!(page.total_count, expected_total);
            paged.extend(page.results.iter().map(|r| r.id));
            if page.next_page_token.is_empty() {
                break;
            }
            token = page.next_page_token;
        }
        assert_eq!(paged, newest_first);
    })
    .await;
}

#[tokio::test]
async fn compliance_shows_who_is_overdue_due_soon_or_done() {
    on_each_backend(|app| async move {
        let late = app.assigned([1, 1, 5], 1).await;
        let (done_id, pending_id) = (LEARNER_ID, OTHER_LEARNER_ID);
        app.client
            .clone()
            .update_course(authed(
                pb::UpdateCourseRequest {
                    id: late.course.id,
                    title: "Курс".into(),
                    description: "Описание".into(),
                    date_deadline: "2001-01-01".into(),
                    user_ids: vec![done_id, pending_id],
                    article_ids: vec![late.article.id],
                    validity_months: Some(0),
                },
                &app.admin_token(),
            ))
            .await
            .unwrap();
        app.complete(&app.learner_token(), &late.test, 1, 0)
            .await
            .unwrap();
        let other = app.keys.token(pending_id, &[], &[]);
        app.complete(&other, &late.test, 0, 0).await.unwrap();

        let educator = app.token(2, &[Right::EducationManagement]);
        let compliance = app
            .client
            .clone()
            .get_course_compliance(authed(
                pb::GetCourseComplianceRequest {
                    course_id: late.course.id,
                },
                &educator,
            ))
            .await
            .unwrap()
            .into_inner();
        let statuses: Vec<(i64, bool, bool, i32)> = compliance
            .assignees
            .iter()
            .map(|a| (a.user_id, a.is_overdue, a.is_complete, a.tests_passed))
            .collect();
        assert_eq!(
            statuses,
            [(pending_id, true, false, 0), (done_id, false, true, 1)]
        );

        let today = compliance.today;
        let soon = app.assigned([1, 1, 5], 1).await;
        let deadline = portal_education::domain::date::Day::parse(&today)
            .unwrap()
            .plus_days(3)
            .to_string();
        let due = app
            .create_course(&deadline, &[pending_id], &[soon.article.id])
            .await;
        let compliance = app
            .client
            .clone()
            .get_course_compliance(authed(
                pb::GetCourseComplianceRequest { course_id: due.id },
                &educator,
            ))
            .await
            .unwrap()
            .into_inner();
        let due_soon = &compliance.assignees[0];
        assert!(due_soon.is_due_soon && !due_soon.is_overdue && !due_soon.is_complete);
    })
    .await;
}

#[tokio::test]
async fn question_analysis_counts_answers_and_right_answers() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 2, 5], 2).await;
        let token = app.learner_token();
        app.complete(&token, &assigned.test, 2, 0).await.unwrap();
        app.complete(&token, &assigned.test, 1, 0).await.unwrap();
        let analysis = app
            .client
            .clone()
            .get_question_analysis(authed(
                pb::GetQuestionAnalysisRequest {
                    test_id: assigned.test.id,
                },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .questions;
        let counts: Vec<(i32, i32)> = analysis
            .iter()
            .map(|q| (q.times_answered, q.times_correct))
            .collect();
        assert_eq!(counts, [(2, 2), (2, 1)]);
    })
    .await;
}

/// Results written straight into the database as a long history would have left
/// them: `count` completed attempts of `test_id`, one per learner from
/// `first_user`, each in `department`, the department rows written as an older
/// release writes them (without the completion instant and the test, which the
/// schema's triggers fill).
async fn written_history(
    app: &TestApp,
    test_id: i64,
    first_user: i64,
    count: i64,
    department: i64,
) {
    let pool = sqlx::AnyPool::connect(&app.database.url)
        .await
        .expect("connect to the test database");
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT CAST(0 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $1)
         INSERT INTO attempts (test_id, user_id, try_number, started_at, points_possible, completed_at, total_point, is_passed)
         SELECT $2, $3 + i, 1, 1000 + i, 1, 2000 + i, 1, 1 FROM n",
    )
    .bind(count)
    .bind(test_id)
    .bind(first_user)
    .execute(&pool)
    .await
    .expect("write attempts");
    sqlx::query(
        "INSERT INTO attempt_departments (attempt_id, department_id)
         SELECT id, $1 FROM attempts WHERE user_id >= $2",
    )
    .bind(department)
    .bind(first_user)
    .execute(&pool)
    .await
    .expect("write departments");
    pool.close().await;
}

#[tokio::test]
async fn department_and_test_filters_are_exact_on_their_own_rows_and_the_count_stops_at_its_cap() {
    on_each_backend(|app| async move {
        let first = app.assigned([1, 1, 10], 1).await;
        let second = app.assigned([1, 1, 10], 1).await;
        let (here, there) = (LEARNER_DEPARTMENT, LEARNER_DEPARTMENT + 1);
        // In two departments at once, as a nurse on two wards is.
        let both = app.keys.token(LEARNER_ID, &[], &[here, there]);
        let elsewhere = app.keys.token(OTHER_LEARNER_ID, &[], &[there]);
        app.create_course(
            "2099-01-31",
            &[LEARNER_ID, OTHER_LEARNER_ID],
            &[first.article.id, second.article.id],
        )
        .await;
        for _ in 0..3 {
            app.complete(&both, &first.test, 1, 0).await.unwrap();
        }
        app.complete(&both, &second.test, 1, 0).await.unwrap();
        for _ in 0..2 {
            app.complete(&elsewhere, &second.test, 0, 0).await.unwrap();
        }
        let by = |test_id: i64, department_id: i64, user_id: i64| pb::ListAllTestResultsRequest {
            test_id,
            department_id,
            user_id,
            page_size: 2,
            ..Default::default()
        };
        // Every page of a filter, newest first, and the first page's count.
        let walk = |request: pb::ListAllTestResultsRequest| {
            let app = &app;
            async move {
                let first_page = results(app, request.clone()).await;
                assert!(!first_page.total_count_capped);
                let mut ids: Vec<i64> = first_page.results.iter().map(|r| r.id).collect();
                let mut token = first_page.next_page_token;
                while !token.is_empty() {
                    let page = results(
                        app,
                        pb::ListAllTestResultsRequest {
                            page_token: token,
                            ..request.clone()
                        },
                    )
                    .await;
                    ids.extend(page.results.iter().map(|r| r.id));
                    token = page.next_page_token;
                }
                (first_page.total_count, ids)
            }
        };
        let (total, everything) = walk(by(0, 0, 0)).await;
        assert_eq!((total, everything.len()), (6, 6));
        let mut newest_first = everything.clone();
        newest_first.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(everything, newest_first);
        let only = |wanted: &dyn Fn(usize) -> bool| -> Vec<i64> {
            everything
                .iter()
                .enumerate()
                .filter(|(index, _)| wanted(*index))
                .map(|(_, id)| *id)
                .collect()
        };
        // Newest first: the other learner's two, then the learner's second test,
        // then the learner's three tries of the first.
        assert_eq!(walk(by(0, here, 0)).await, (4, only(&|i| i >= 2)));
        assert_eq!(walk(by(0, there, 0)).await, (6, everything.clone()));
        assert_eq!(
            walk(by(first.test.id, there, 0)).await,
            (3, only(&|i| i >= 3))
        );
        assert_eq!(
            walk(by(second.test.id, here, 0)).await,
            (1, only(&|i| i == 2))
        );
        assert_eq!(
            walk(by(second.test.id, there, OTHER_LEARNER_ID)).await,
            (2, only(&|i| i < 2))
        );
        assert_eq!(walk(by(0, LEARNER_DEPARTMENT + 2, 0)).await, (0, vec![]));

        // A long history: the count stops at its cap and says so; a narrower
        // filter of the same history is exact again.
        let cap = 10_000;
        written_history(&app, first.test.id, 100_000, cap + 5, here).await;
        for request in [by(0, 0, 0), by(0, here, 0), by(first.test.id, here, 0)] {
            let page = results(&app, request).await;
            assert_eq!((page.total_count, page.total_count_capped), (cap, true));
            assert_eq!(page.results.len(), 2);
        }
        let (total, ids) = walk(by(0, there, 0)).await;
        assert_eq!((total, ids), (6, everything));
        let written_first = results(
            &app,
            pb::ListAllTestResultsRequest {
                department_id: here,
                date_to: "1970-01-01".into(),
                page_size: 1,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(
            (written_first.total_count, written_first.total_count_capped),
            (cap, true)
        );
        assert_eq!(written_first.results[0].user_id, 100_000 + cap + 4);
    })
    .await;
}

#[tokio::test]
async fn a_hand_in_writes_its_departments_with_its_completion_and_test() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 1, 10], 1).await;
        let handed_in = app
            .complete(&app.learner_token(), &assigned.test, 1, 0)
            .await
            .expect("hand in");
        let pool = sqlx::AnyPool::connect(&app.database.url)
            .await
            .expect("connect to the test database");
        // The row as the writer left it: no trigger carries the completion
        // from the attempt any more (migration 0008).
        // (department, its completed_at, its test, the attempt's completed_at)
        type Written = (i64, Option<i64>, Option<i64>, Option<i64>);
        let written: Vec<Written> = sqlx::query_as(
            "SELECT d.department_id, d.completed_at, d.test_id, a.completed_at FROM attempt_departments d JOIN attempts a ON a.id = d.attempt_id WHERE d.attempt_id = $1",
        )
        .bind(handed_in.test_result_id)
        .fetch_all(&pool)
        .await
        .expect("departments");
        pool.close().await;
        let completed_at = written.first().and_then(|row| row.3);
        assert!(completed_at.is_some(), "on {:?}", app.backend);
        assert_eq!(
            written,
            vec![(
                LEARNER_DEPARTMENT,
                completed_at,
                Some(assigned.test.id),
                completed_at
            )],
            "on {:?}",
            app.backend
        );
        let found = results(
            &app,
            pb::ListAllTestResultsRequest {
                department_id: LEARNER_DEPARTMENT,
                test_id: assigned.test.id,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(found.total_count, 1);
        assert_eq!(found.results[0].id, handed_in.test_result_id);
    })
    .await;
}
