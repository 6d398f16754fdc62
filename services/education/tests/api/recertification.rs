//! Recertification (issue 24): a course's passes expire after its validity;
//! the course is then due again with a renewal deadline and fresh tries,
//! while earlier cycles stay in the history. Time is moved by dating a
//! person's attempts in the past.

use portal_kit::access::Scope;
use portal_kit::day::Day;
use portal_proto::education::v1 as pb;

use crate::helpers::*;

impl TestApp {
    /// A course valid `months` months with one article whose test has one
    /// question and two tries, assigned to `user_ids`.
    async fn expiring_course(&self, months: i32, user_ids: &[i64]) -> Assigned {
        let test = self
            .create_test(test_request([1, 1, 2], questions(1)))
            .await
            .expect("create test");
        let article = self.create_article("<p>Текст</p>", test.id).await;
        let request = pb::CreateCourseRequest {
            title: "Базовая сердечно-лёгочная реанимация".into(),
            description: "Ежегодная переаттестация".into(),
            date_deadline: Day::today().plus_days(30).to_string(),
            user_ids: user_ids.to_vec(),
            article_ids: vec![article.id],
            validity_months: months,
        };
        let course = self
            .client
            .clone()
            .create_course(authed(request, &self.admin_token()))
            .await
            .expect("create course")
            .into_inner()
            .course
            .expect("created course");
        Assigned {
            course,
            article,
            test,
        }
    }

    async fn my_test(&self, token: &str) -> pb::AssignedTest {
        self.client
            .clone()
            .list_my_tests(authed(pb::ListMyTestsRequest {}, token))
            .await
            .expect("ListMyTests")
            .into_inner()
            .tests
            .pop()
            .expect("one assigned test")
    }

    async fn course_compliance(&self, course_id: i64) -> Vec<pb::AssigneeCompliance> {
        self.client
            .clone()
            .get_course_compliance(authed(
                pb::GetCourseComplianceRequest { course_id },
                &self.admin_token(),
            ))
            .await
            .expect("GetCourseCompliance")
            .into_inner()
            .assignees
    }
}

/// The renewal deadline of a pass valid through `until` of a course created
/// today with a deadline 30 days on: its lead time is 30 days.
fn renewal(until: &str) -> String {
    Day::parse(until).unwrap().plus_days(30).to_string()
}

#[tokio::test]
async fn an_expired_pass_makes_the_course_due_again_with_fresh_tries_and_keeps_the_history() {
    on_each_backend(|app| async move {
        let course = app.expiring_course(12, &[LEARNER_ID]).await;
        let learner = app.learner_token();
        app.complete(&learner, &course.test, 0, 0).await.unwrap();
        app.complete(&learner, &course.test, 1, 0).await.unwrap();
        let passed = app.my_test(&learner).await;
        assert!(passed.is_passed && !passed.is_expired && !passed.is_expiring);
        assert_eq!(passed.summary.unwrap().number_of_tries_left, 0);
        assert!(!passed.valid_until.is_empty());

        // Thirteen months later the pass has lapsed.
        app.backdate_attempts_of(LEARNER_ID, 400).await;
        let due = app.my_test(&learner).await;
        assert!(!due.is_passed && due.is_expired);
        assert_eq!(due.summary.unwrap().number_of_tries_left, 2);
        assert_eq!(due.date_deadline, renewal(&due.valid_until));
        assert!(Day::parse(&due.valid_until).unwrap() < Day::today());
        let [standing] = &app.course_compliance(course.course.id).await[..] else {
            panic!("one assignee");
        };
        assert!(standing.is_expired && !standing.is_complete);
        assert_eq!(standing.tests_passed, 0);
        assert_eq!(standing.date_deadline, due.date_deadline);

        // A new cycle: its first try fails, the second passes.
        app.complete(&learner, &course.test, 0, 0).await.unwrap();
        let renewed = app.complete(&learner, &course.test, 1, 0).await.unwrap();
        assert!(renewed.is_passed);
        assert_eq!(renewed.number_of_tries_left, 0);
        let current = app.my_test(&learner).await;
        assert!(current.is_passed && !current.is_expired);
        assert!(Day::parse(&current.valid_until).unwrap() > Day::today().plus_days(300));

        // Both cycles' results stay listed for the learner.
        let history = app
            .client
            .clone()
            .list_user_test_results(authed(
                pb::ListUserTestResultsRequest {
                    test_id: course.test.id,
                    user_id: 0,
                },
                &learner,
            ))
            .await
            .unwrap()
            .into_inner()
            .results;
        assert_eq!(history.len(), 4);
        assert_eq!(history.iter().filter(|result| result.is_passed).count(), 2);
    })
    .await;
}

#[tokio::test]
async fn compliance_tells_current_expiring_expired_and_never_done_apart() {
    on_each_backend(|app| async move {
        let [current, expiring, expired, never] = [20, 21, 22, 23];
        let course = app
            .expiring_course(12, &[current, expiring, expired, never])
            .await;
        for (user_id, days_ago) in [(current, 10), (expiring, 350), (expired, 370)] {
            let token = app.token(user_id, &[]);
            app.complete(&token, &course.test, 1, 0).await.unwrap();
            app.backdate_attempts_of(user_id, days_ago).await;
        }
        let standings = app.course_compliance(course.course.id).await;
        let of = |user_id| {
            standings
                .iter()
                .find(|standing| standing.user_id == user_id)
                .unwrap()
        };
        let current_until = Day::parse(&of(current).valid_until).unwrap();
        assert!(of(current).is_complete && !of(current).is_expiring);
        assert!(current_until > Day::today().plus_days(30));
        assert!(of(expiring).is_complete && of(expiring).is_expiring);
        assert!(!of(expired).is_complete && of(expired).is_expired);
        assert_eq!(of(expired).date_deadline, renewal(&of(expired).valid_until));
        let never_done = of(never);
        assert!(!never_done.is_complete && !never_done.is_expired);
        assert!(never_done.valid_until.is_empty());
        assert_eq!(never_done.date_deadline, course.course.date_deadline);

        // Other systems read the same standings, and each pass's end.
        let reader = app.keys.service_token(7, &[Scope::TrainingRead]);
        let items = app
            .client
            .clone()
            .list_training_compliance(authed(
                pb::ListTrainingComplianceRequest {
                    course_id: course.course.id,
                    ..Default::default()
                },
                &reader,
            ))
            .await
            .expect("ListTrainingCompliance")
            .into_inner()
            .items;
        for item in &items {
            let standing = of(item.user_id);
            assert_eq!(
                (
                    item.is_complete,
                    item.is_expiring,
                    item.is_expired,
                    &item.valid_until,
                    &item.date_deadline
                ),
                (
                    standing.is_complete,
                    standing.is_expiring,
                    standing.is_expired,
                    &standing.valid_until,
                    &standing.date_deadline
                ),
            );
        }
        assert_eq!(items.len(), 4);
        let records = app
            .client
            .clone()
            .list_training_records(authed(
                pb::ListTrainingRecordsRequest { after: 0, limit: 0 },
                &reader,
            ))
            .await
            .expect("ListTrainingRecords")
            .into_inner()
            .records;
        let until_of = |user_id| {
            records
                .iter()
                .find(|record| record.user_id == user_id)
                .map(|record| record.valid_until.clone())
                .unwrap()
        };
        assert_eq!(until_of(current), of(current).valid_until);
        assert_eq!(until_of(expired), of(expired).valid_until);
    })
    .await;
}

#[tokio::test]
async fn a_course_that_never_expires_keeps_its_pass_and_its_tries_spent() {
    on_each_backend(|app| async move {
        let course = app.expiring_course(0, &[LEARNER_ID]).await;
        let learner = app.learner_token();
        app.complete(&learner, &course.test, 1, 0).await.unwrap();
        app.backdate_attempts_of(LEARNER_ID, 3650).await;
        let mine = app.my_test(&learner).await;
        assert!(mine.is_passed && !mine.is_expired && mine.valid_until.is_empty());
        assert_eq!(mine.summary.unwrap().number_of_tries_left, 1);
        assert_eq!(course.course.validity_months, 0);
    })
    .await;
}

#[tokio::test]
async fn validity_months_round_trip_and_are_bounded() {
    on_each_backend(|app| async move {
        let course = app.expiring_course(12, &[]).await;
        assert_eq!(course.course.validity_months, 12);
        let update = |validity_months| pb::UpdateCourseRequest {
            id: course.course.id,
            title: course.course.title.clone(),
            description: course.course.description.clone(),
            date_deadline: course.course.date_deadline.clone(),
            user_ids: vec![],
            article_ids: vec![course.article.id],
            validity_months,
        };
        let mut client = app.client.clone();
        let updated = client
            .update_course(authed(update(Some(24)), &app.admin_token()))
            .await
            .unwrap()
            .into_inner()
            .course
            .unwrap();
        assert_eq!(updated.validity_months, 24);
        let read = client
            .get_course(authed(
                pb::GetCourseRequest {
                    course_id: course.course.id,
                },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .course
            .unwrap();
        assert_eq!(read.validity_months, 24);
        // A client that predates the field leaves the validity as it is.
        let kept = client
            .update_course(authed(update(None), &app.admin_token()))
            .await
            .unwrap()
            .into_inner()
            .course
            .unwrap();
        assert_eq!(kept.validity_months, 24);
        for bad in [-1, 121] {
            let refused = client
                .update_course(authed(update(Some(bad)), &app.admin_token()))
                .await;
            assert_status(
                refused,
                tonic::Code::InvalidArgument,
                "Срок действия курса должен быть от 0 до 120 месяцев",
            );
        }
    })
    .await;
}
