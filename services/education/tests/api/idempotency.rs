//! Idempotency keys (issue 21, `portal_kit::idempotency`) on a write of
//! education: CreateCourse retried, or sent many times at once, with one key
//! creates one course.

use futures_util::future::join_all;
use portal_kit::error::reason_of;
use portal_kit::idempotency::{IDEMPOTENCY_KEY, REPLAYED_KEY};
use portal_proto::education::v1 as pb;
use tonic::{Code, Request};

use crate::helpers::*;

fn keyed(title: &str, token: &str, key: &str) -> Request<pb::CreateCourseRequest> {
    let mut request = authed(
        pb::CreateCourseRequest {
            title: title.into(),
            description: "Обязательный курс".into(),
            date_deadline: "2031-01-31".into(),
            user_ids: vec![LEARNER_ID],
            article_ids: vec![],
            validity_months: 0,
        },
        token,
    );
    request
        .metadata_mut()
        .insert(IDEMPOTENCY_KEY, key.parse().unwrap());
    request
}

async fn courses(app: &TestApp) -> usize {
    app.client
        .clone()
        .list_courses(authed(pb::ListCoursesRequest {}, &app.admin_token()))
        .await
        .unwrap()
        .into_inner()
        .courses
        .len()
}

#[tokio::test]
async fn a_course_created_again_with_its_key_is_created_once() {
    on_each_backend(|app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        let first = client
            .create_course(keyed("Гигиена рук", &token, "course-1"))
            .await
            .unwrap()
            .into_inner()
            .course
            .unwrap();
        let again = client
            .create_course(keyed("Гигиена рук", &token, "course-1"))
            .await
            .unwrap();
        assert_eq!(again.metadata().get(REPLAYED_KEY).unwrap(), "true");
        assert_eq!(again.into_inner().course.unwrap(), first);
        assert_eq!(courses(&app).await, 1);

        let reused = client
            .create_course(keyed("Гигиена рук, часть 2", &token, "course-1"))
            .await
            .unwrap_err();
        assert_eq!(reused.code(), Code::FailedPrecondition);
        assert_eq!(reason_of(&reused), "IDEMPOTENCY_KEY_REUSED");
        assert_eq!(courses(&app).await, 1);
    })
    .await;
}

#[tokio::test]
async fn simultaneous_calls_with_one_key_create_one_course() {
    on_each_backend(|app| async move {
        let token = app.admin_token();
        let calls = (0..12).map(|_| {
            let mut client = app.client.clone();
            let request = keyed("Сердечно-лёгочная реанимация", &token, "burst");
            async move { client.create_course(request).await }
        });
        let mut created = Vec::new();
        for answer in join_all(calls).await {
            match answer {
                Ok(reply) => created.push(reply.into_inner().course.unwrap().id),
                Err(status) => {
                    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
                    assert_eq!(reason_of(&status), "IDEMPOTENCY_KEY_IN_PROGRESS");
                }
            }
        }
        created.dedup();
        assert_eq!(
            created.len(),
            1,
            "one course, answered to every caller that got one"
        );
        assert_eq!(courses(&app).await, 1);
    })
    .await;
}
