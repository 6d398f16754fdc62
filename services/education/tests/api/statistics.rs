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
        app.create_course("2030-01-31", &[OTHER_LEARNER_ID], &[first.article.id])
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
