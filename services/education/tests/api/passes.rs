//! ListCoursePasses: a person's latest pass of a course (every test of it
//! passed), what clearance to operate equipment is decided from.

use portal_kit::Right;
use portal_proto::education::v1 as pb;
use tonic::Code;

use crate::helpers::*;

async fn passes(
    app: &TestApp,
    token: &str,
    user_ids: &[i64],
    course_ids: &[i64],
) -> Result<pb::ListCoursePassesResponse, tonic::Status> {
    app.client
        .clone()
        .list_course_passes(authed(
            pb::ListCoursePassesRequest {
                user_ids: user_ids.to_vec(),
                course_ids: course_ids.to_vec(),
            },
            token,
        ))
        .await
        .map(|r| r.into_inner())
}

#[tokio::test]
async fn a_course_is_passed_once_every_test_of_it_is_and_never_expires_yet() {
    on_each_backend(|app| async move {
        let first = app
            .create_test(test_request([1, 3, 100], questions(3)))
            .await
            .unwrap();
        let second = app
            .create_test(test_request([1, 3, 100], questions(3)))
            .await
            .unwrap();
        let a = app.create_article("<p>Один</p>", first.id).await;
        let b = app.create_article("<p>Два</p>", second.id).await;
        let course = app
            .create_course("2099-01-31", &[LEARNER_ID], &[a.id, b.id])
            .await;
        let without_tests = app.create_article("<p>Без теста</p>", 0).await;
        let empty = app
            .create_course("2099-01-31", &[LEARNER_ID], &[without_tests.id])
            .await;
        let learner = app.learner_token();
        let asked = [course.id, empty.id, 9999];

        app.complete(&learner, &first, 3, 0)
            .await
            .expect("first passed");
        app.complete(&learner, &second, 0, 0)
            .await
            .expect("second failed");
        let answer = passes(&app, &learner, &[LEARNER_ID], &asked).await.unwrap();
        assert!(answer.passes.is_empty(), "one test of two is not a pass");
        let known: Vec<i64> = answer.courses.iter().map(|c| c.id).collect();
        assert_eq!(known, [course.id, empty.id], "unknown ids are left out");

        app.complete(&learner, &second, 3, 0)
            .await
            .expect("second passed");
        let answer = passes(&app, &learner, &[LEARNER_ID], &asked).await.unwrap();
        let [pass] = &answer.passes[..] else {
            panic!("one pass: {:?}", answer.passes);
        };
        assert_eq!((pass.user_id, pass.course_id), (LEARNER_ID, course.id));
        assert!(pass.passed_at.is_some());
        assert_eq!(pass.valid_until, None, "courses have no validity yet");
    })
    .await;
}

#[tokio::test]
async fn only_the_person_and_education_managers_read_anyone_s_passes() {
    on_each_backend(|app| async move {
        let course = app.assigned([1, 3, 100], 3).await.course;
        let ids = [course.id];
        let colleague = app.token(LEARNER_ID + 1, &[]);
        let refused = passes(&app, &colleague, &[LEARNER_ID], &ids).await;
        assert_eq!(code(&refused), Code::PermissionDenied);
        // Only the courses, for no one: anyone signed in.
        assert!(passes(&app, &colleague, &[], &ids).await.is_ok());
        let manager = app.token(1, &[Right::EducationManagement]);
        assert!(passes(&app, &manager, &[LEARNER_ID], &ids).await.is_ok());
        let courses: Vec<i64> = (1..=51).collect();
        let refused = passes(&app, &app.admin_token(), &[LEARNER_ID], &courses).await;
        assert_eq!(code(&refused), Code::InvalidArgument);
    })
    .await;
}

#[tokio::test]
async fn an_equipment_editor_reads_the_passes_of_their_own_departments_only() {
    on_each_backend(|app| async move {
        let people = app
            .hr_staff(&[("T-1001", "ICU"), ("T-1002", "ICU"), ("T-2001", "SURG")])
            .await;
        let [editor, colleague, stranger] = people[..] else {
            panic!("three people: {people:?}");
        };
        let departments = app.departments_of(&people).await;
        let (icu, surgery) = (departments[&editor], departments[&stranger]);
        // The colleague has passed a course; so has the stranger.
        let test = app
            .create_test(test_request([1, 3, 100], questions(3)))
            .await
            .unwrap();
        let article = app.create_article("<p>Допуск</p>", test.id).await;
        let course = app
            .create_course("2099-01-31", &[colleague, stranger], &[article.id])
            .await;
        for person in [colleague, stranger] {
            app.complete(&app.token(person, &[]), &test, 3, 0)
                .await
                .expect("passed");
        }
        let ids = [course.id];

        let token = app.keys.token(editor, &[Right::EquipmentEditing], &[icu]);
        let answer = passes(&app, &token, &[editor, colleague], &ids)
            .await
            .expect("their own department is answered");
        let whose: Vec<i64> = answer.passes.iter().map(|pass| pass.user_id).collect();
        assert_eq!(whose, [colleague]);
        // Anyone outside is refused, alone or beside a colleague.
        for asked in [vec![stranger], vec![colleague, stranger]] {
            let refused = passes(&app, &token, &asked, &ids).await;
            assert_eq!(code(&refused), Code::PermissionDenied, "{asked:?}");
        }
        // A token naming a department the editor is not in: auth's rule refuses it.
        let claiming = app
            .keys
            .token(editor, &[Right::EquipmentEditing], &[icu, surgery]);
        let refused = passes(&app, &claiming, &[colleague], &ids).await;
        assert_eq!(code(&refused), Code::PermissionDenied);
        // An editor of no department reads only their own.
        let nowhere = app.token(editor, &[Right::EquipmentEditing]);
        assert!(passes(&app, &nowhere, &[editor], &ids).await.is_ok());
        let refused = passes(&app, &nowhere, &[colleague], &ids).await;
        assert_eq!(code(&refused), Code::PermissionDenied);
        // An education manager reads anyone's, as its statistics do.
        let manager = app
            .keys
            .token(editor, &[Right::EducationManagement], &[icu]);
        let answer = passes(&app, &manager, &[stranger], &ids).await.unwrap();
        assert_eq!(answer.passes.len(), 1);
    })
    .await;
}
