//! Who may call what: the authorization matrix over every RPC, and what a
//! learner gets to see.

use portal_kit::access::Scope;
use portal_kit::testing::{AccessRule, ScopeRule, caller_tokens, scope_matrix, with_token};
use portal_proto::education::v1 as pb;
use tonic::Code;

use crate::helpers::*;

/// The callers' user ids; the fixture's course is assigned to all of them.
const IDS: [i64; 5] = [0, LEARNER_ID, 20, 30, 40];
const OTHER_USER: i64 = 99;

use Code::{
    NotFound as MISSING, Ok as OK, PermissionDenied as DENIED, Unauthenticated as UNAUTH,
    Unavailable as AWAY,
};

const SIGNED_IN: [Code; 5] = [UNAUTH, OK, OK, OK, OK];
const EDUCATION_MANAGEMENT: [Code; 5] = [UNAUTH, DENIED, DENIED, OK, DENIED];
/// Something assigned to nobody: only education managers see it exists.
const UNASSIGNED: [Code; 5] = [UNAUTH, MISSING, MISSING, OK, MISSING];
/// Passes of a member of the caller's department: what clears them to
/// operate equipment.
const EDUCATION_OR_EQUIPMENT: [Code; 5] = [UNAUTH, DENIED, DENIED, OK, OK];
const NOBODY: [Code; 5] = [UNAUTH, DENIED, DENIED, DENIED, DENIED];
/// Past education's own checks the wiki is asked, and it does not run here.
const WIKI_AWAY: [Code; 5] = [UNAUTH, AWAY, AWAY, AWAY, AWAY];

/// Every RPC of EducationService (some in two situations) and who may call it.
const MATRIX: &[AccessRule] = &[
    ("ListArticles", SIGNED_IN),
    ("GetArticle/assigned", SIGNED_IN),
    ("GetArticle/unassigned", UNASSIGNED),
    ("ListArticlesByCourse/assigned", SIGNED_IN),
    ("ListArticlesByCourse/unassigned", UNASSIGNED),
    ("CreateArticle", EDUCATION_MANAGEMENT),
    ("UpdateArticle", EDUCATION_MANAGEMENT),
    ("ListCourses", SIGNED_IN),
    ("GetCourse/assigned", SIGNED_IN),
    ("GetCourse/unassigned", UNASSIGNED),
    ("GetFullCourseInfo", EDUCATION_MANAGEMENT),
    ("ListCoursesByUser/themself", SIGNED_IN),
    ("ListCoursesByUser/another user", EDUCATION_MANAGEMENT),
    ("CreateCourse", EDUCATION_MANAGEMENT),
    ("UpdateCourse", EDUCATION_MANAGEMENT),
    ("ListCoursePasses/themself", SIGNED_IN),
    ("ListCoursePasses/another user", EDUCATION_MANAGEMENT),
    ("ListCoursePasses/a colleague", EDUCATION_OR_EQUIPMENT),
    // A course already theirs answers at once; another asks the wiki, which
    // does not run here (UNAVAILABLE): the wiki's tests/api/clearance.rs
    // runs it for what it decides.
    ("EnrollForClearance/assigned", SIGNED_IN),
    ("EnrollForClearance/unassigned", WIKI_AWAY),
    ("ListTests", SIGNED_IN),
    ("GetTest/assigned", SIGNED_IN),
    ("GetTest/unassigned", UNASSIGNED),
    ("ListTestsByArticle/assigned", SIGNED_IN),
    ("ListTestsByArticle/unassigned", UNASSIGNED),
    ("GetTestSummary/themself", SIGNED_IN),
    ("GetTestSummary/another user", EDUCATION_MANAGEMENT),
    ("ListUserTestResults/themself", SIGNED_IN),
    ("ListUserTestResults/another user", EDUCATION_MANAGEMENT),
    ("ListMyTests", SIGNED_IN),
    ("StartAttempt/assigned", SIGNED_IN),
    ("StartAttempt/unassigned", UNASSIGNED),
    ("CompleteTest/themself", SIGNED_IN),
    ("CompleteTest/another user", NOBODY),
    ("CompleteTest/unassigned", UNASSIGNED),
    ("GetFullTest", EDUCATION_MANAGEMENT),
    ("ListAllTestResults", EDUCATION_MANAGEMENT),
    ("GetCourseCompliance", EDUCATION_MANAGEMENT),
    ("GetQuestionAnalysis", EDUCATION_MANAGEMENT),
    ("CreateTest", EDUCATION_MANAGEMENT),
    ("UpdateTest", EDUCATION_MANAGEMENT),
    ("ListArticleRevisions", EDUCATION_MANAGEMENT),
    ("GetArticleRevision", EDUCATION_MANAGEMENT),
    ("RestoreArticleRevision", EDUCATION_MANAGEMENT),
    ("ListTestRevisions", EDUCATION_MANAGEMENT),
    ("GetTestRevision", EDUCATION_MANAGEMENT),
    ("RestoreTestRevision", EDUCATION_MANAGEMENT),
    ("ListTrainingRecords", EDUCATION_MANAGEMENT),
    ("WatchTrainingRecords", EDUCATION_MANAGEMENT),
    ("ListTrainingCompliance", EDUCATION_MANAGEMENT),
    ("AssignCourse", EDUCATION_MANAGEMENT),
    // Anyone signed in; each finds only what they may open.
    ("Search", SIGNED_IN),
];

/// The rows other systems may call, and the scope that opens each; every
/// other row refuses every service account.
const SCOPES: &[ScopeRule] = &[
    ("ListTrainingRecords", Scope::TrainingRead),
    ("WatchTrainingRecords", Scope::TrainingRead),
    ("ListTrainingCompliance", Scope::TrainingRead),
    ("AssignCourse", Scope::TrainingAssign),
];

#[tokio::test]
async fn service_accounts_call_only_what_their_scopes_open() {
    on_each_backend(|app| async move {
        let fixture = fixture(&app).await;
        scope_matrix(
            app.backend,
            &app.keys,
            MATRIX,
            SCOPES,
            async |rpc, token| call_as(&app, &fixture, rpc, Some(token), LEARNER_ID).await,
        )
        .await;
    })
    .await;
}

portal_kit::access_matrix_tests!("portal.education.v1", "EducationService");

struct Fixture {
    tokens: [Option<String>; 5],
    /// People auth keeps, one per caller, with that caller's rights, all in
    /// one department with `colleague`: for the rows about "a colleague".
    department_tokens: [Option<String>; 5],
    colleague: i64,
    assigned: Assigned,
    unassigned: Assigned,
}

async fn fixture(app: &TestApp) -> Fixture {
    let assigned = app.assigned([1, 3, 100], 3).await;
    app.client
        .clone()
        .update_course(authed(
            pb::UpdateCourseRequest {
                id: assigned.course.id,
                title: assigned.course.title.clone(),
                description: assigned.course.description.clone(),
                date_deadline: assigned.course.date_deadline.clone(),
                user_ids: IDS[1..].to_vec(),
                article_ids: vec![assigned.article.id],
                validity_months: Some(0),
            },
            &app.admin_token(),
        ))
        .await
        .expect("assign everyone");
    let test = app
        .create_test(test_request([1, 3, 100], questions(3)))
        .await
        .unwrap();
    let article = app.create_article("<p>Другое</p>", test.id).await;
    let course = app.create_course("2099-01-31", &[], &[article.id]).await;
    let staff = app
        .hr_staff(&[
            ("A-1", "WARD"),
            ("A-2", "WARD"),
            ("A-3", "WARD"),
            ("A-4", "WARD"),
            ("A-5", "WARD"),
        ])
        .await;
    let ward = app.departments_of(&staff).await[&staff[0]];
    let callers = [0, staff[1], staff[2], staff[3], staff[4]];
    Fixture {
        tokens: caller_tokens(&app.keys, IDS, &[]),
        department_tokens: caller_tokens(&app.keys, callers, &[ward]),
        colleague: staff[0],
        assigned,
        unassigned: Assigned {
            course,
            article,
            test,
        },
    }
}

/// Makes the call `rpc` as caller `who` of the matrix.
async fn call(app: &TestApp, fixture: &Fixture, rpc: &str, who: usize) -> Code {
    let tokens = if rpc.ends_with("/a colleague") {
        &fixture.department_tokens
    } else {
        &fixture.tokens
    };
    call_as(app, fixture, rpc, tokens[who].as_deref(), IDS[who]).await
}

/// Makes the call `rpc` with `token` (user `caller_id`'s, where a call is
/// about "themself") with a request valid for a caller allowed to make it,
/// and answers its code.
async fn call_as(
    app: &TestApp,
    fixture: &Fixture,
    rpc: &str,
    token: Option<&str>,
    caller_id: i64,
) -> Code {
    let mut client = app.client.clone();
    let (name, situation) = rpc.split_once('/').unwrap_or((rpc, ""));
    let target = if situation == "unassigned" {
        &fixture.unassigned
    } else {
        &fixture.assigned
    };
    let user_id = match situation {
        "another user" => OTHER_USER,
        "a colleague" => fixture.colleague,
        _ => caller_id,
    };
    let (course_id, article_id, test_id) = (target.course.id, target.article.id, target.test.id);
    macro_rules! done {
        ($call:ident, $message:expr) => {
            code(&client.$call(with_token($message, token)).await)
        };
    }
    let article_request = || pb::CreateArticleRequest {
        title: "Статья".into(),
        description: "Описание".into(),
        content: "<p>x</p>".into(),
        date_deadline: "2099-01-01".into(),
        test_id: 0,
    };
    match name {
        "ListArticles" => done!(list_articles, pb::ListArticlesRequest {}),
        "GetArticle" => done!(get_article, pb::GetArticleRequest { article_id }),
        "ListArticlesByCourse" => done!(
            list_articles_by_course,
            pb::ListArticlesByCourseRequest { course_id }
        ),
        "CreateArticle" => done!(create_article, article_request()),
        "UpdateArticle" => {
            let a = article_request();
            done!(
                update_article,
                pb::UpdateArticleRequest {
                    id: article_id,
                    title: a.title,
                    description: a.description,
                    content: a.content,
                    date_deadline: a.date_deadline,
                    test_id,
                }
            )
        }
        "ListCourses" => done!(list_courses, pb::ListCoursesRequest {}),
        "GetCourse" => done!(get_course, pb::GetCourseRequest { course_id }),
        "GetFullCourseInfo" => done!(
            get_full_course_info,
            pb::GetFullCourseInfoRequest { course_id }
        ),
        "ListCoursesByUser" => done!(
            list_courses_by_user,
            pb::ListCoursesByUserRequest { user_id }
        ),
        "CreateCourse" => done!(
            create_course,
            pb::CreateCourseRequest {
                title: "Курс".into(),
                description: "Описание".into(),
                date_deadline: "2099-01-01".into(),
                user_ids: vec![LEARNER_ID],
                article_ids: vec![article_id],
                validity_months: 0,
            }
        ),
        "UpdateCourse" => done!(
            update_course,
            pb::UpdateCourseRequest {
                id: course_id,
                title: "Курс".into(),
                description: "Описание".into(),
                date_deadline: "2099-01-01".into(),
                user_ids: IDS[1..].to_vec(),
                article_ids: vec![article_id],
                validity_months: Some(0),
            }
        ),
        "ListCoursePasses" => done!(
            list_course_passes,
            pb::ListCoursePassesRequest {
                user_ids: vec![user_id],
                course_ids: vec![course_id],
            }
        ),
        "EnrollForClearance" => done!(
            enroll_for_clearance,
            pb::EnrollForClearanceRequest { course_id }
        ),
        "ListTests" => done!(list_tests, pb::ListTestsRequest {}),
        "GetTest" => done!(get_test, pb::GetTestRequest { test_id }),
        "ListTestsByArticle" => done!(
            list_tests_by_article,
            pb::ListTestsByArticleRequest { article_id }
        ),
        "GetTestSummary" => done!(
            get_test_summary,
            pb::GetTestSummaryRequest { test_id, user_id }
        ),
        "ListUserTestResults" => done!(
            list_user_test_results,
            pb::ListUserTestResultsRequest { test_id, user_id }
        ),
        "ListMyTests" => done!(list_my_tests, pb::ListMyTestsRequest {}),
        "StartAttempt" => done!(start_attempt, pb::StartAttemptRequest { test_id }),
        "CompleteTest" => done!(
            complete_test,
            pb::CompleteTestRequest {
                test_id,
                user_id,
                question_with_answers: answers(&target.test, 1),
                attempt_id: 0,
            }
        ),
        "GetFullTest" => done!(get_full_test, pb::GetFullTestRequest { test_id }),
        "ListAllTestResults" => done!(
            list_all_test_results,
            pb::ListAllTestResultsRequest::default()
        ),
        "GetCourseCompliance" => done!(
            get_course_compliance,
            pb::GetCourseComplianceRequest { course_id }
        ),
        "GetQuestionAnalysis" => done!(
            get_question_analysis,
            pb::GetQuestionAnalysisRequest { test_id }
        ),
        "CreateTest" => done!(create_test, test_request([1, 1, 1], questions(1))),
        "UpdateTest" => {
            let t = test_request([1, 3, 100], questions(3));
            done!(
                update_test,
                pb::UpdateTestRequest {
                    id: test_id,
                    title: t.title,
                    description: t.description,
                    total_points_required: t.total_points_required,
                    number_of_questions: t.number_of_questions,
                    number_of_tries: t.number_of_tries,
                    article_id: 0,
                    questions: t.questions,
                }
            )
        }
        "ListArticleRevisions" => done!(
            list_article_revisions,
            pb::ListArticleRevisionsRequest { article_id }
        ),
        "GetArticleRevision" => {
            let revision_id = app.article_revisions(article_id).await[0].id;
            done!(
                get_article_revision,
                pb::GetArticleRevisionRequest {
                    article_id,
                    revision_id
                }
            )
        }
        "RestoreArticleRevision" => {
            let revision_id = app.article_revisions(article_id).await[0].id;
            done!(
                restore_article_revision,
                pb::RestoreArticleRevisionRequest {
                    article_id,
                    revision_id
                }
            )
        }
        "ListTestRevisions" => done!(
            list_test_revisions,
            pb::ListTestRevisionsRequest { test_id }
        ),
        "GetTestRevision" => {
            let revision_id = app.test_revisions(test_id).await[0].id;
            done!(
                get_test_revision,
                pb::GetTestRevisionRequest {
                    test_id,
                    revision_id
                }
            )
        }
        "RestoreTestRevision" => {
            let revision_id = app.test_revisions(test_id).await[0].id;
            done!(
                restore_test_revision,
                pb::RestoreTestRevisionRequest {
                    test_id,
                    revision_id
                }
            )
        }
        "ListTrainingRecords" => done!(
            list_training_records,
            pb::ListTrainingRecordsRequest { after: 0, limit: 0 }
        ),
        "WatchTrainingRecords" => done!(
            watch_training_records,
            pb::WatchTrainingRecordsRequest { after: 0 }
        ),
        "ListTrainingCompliance" => done!(
            list_training_compliance,
            pb::ListTrainingComplianceRequest::default()
        ),
        "AssignCourse" => done!(
            assign_course,
            pb::AssignCourseRequest {
                course_id,
                user_ids: vec![LEARNER_ID],
                date_deadline: "2099-06-30".into(),
                ..Default::default()
            }
        ),
        #[allow(deprecated)] // held to its rule while it is served
        "Search" => done!(
            search,
            pb::SearchRequest {
                query: "курс".into(),
                ..Default::default()
            }
        ),
        other => panic!("the matrix names an unknown call {other}"),
    }
}

#[tokio::test]
async fn a_learner_lists_only_what_is_assigned_to_them() {
    on_each_backend(|app| async move {
        let mine = app.assigned([1, 1, 3], 1).await;
        let test = app
            .create_test(test_request([1, 1, 3], questions(1)))
            .await
            .unwrap();
        let theirs = app.create_article("<p>x</p>", test.id).await;
        app.create_course("2099-01-31", &[OTHER_LEARNER_ID], &[theirs.id])
            .await;
        let mut client = app.client.clone();
        let token = app.learner_token();
        let courses = client
            .list_courses(authed(pb::ListCoursesRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .courses;
        assert_eq!(
            courses.iter().map(|c| c.id).collect::<Vec<_>>(),
            [mine.course.id]
        );
        let articles = client
            .list_articles(authed(pb::ListArticlesRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .articles;
        assert_eq!(
            articles.iter().map(|a| a.id).collect::<Vec<_>>(),
            [mine.article.id]
        );
        let tests = client
            .list_tests(authed(pb::ListTestsRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .tests;
        assert_eq!(
            tests.iter().map(|t| t.id).collect::<Vec<_>>(),
            [mine.test.id]
        );
        let my_tests = client
            .list_my_tests(authed(pb::ListMyTestsRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .tests;
        assert_eq!(my_tests.len(), 1);
        assert_eq!(
            my_tests[0].summary.as_ref().unwrap().number_of_tries_left,
            3
        );
        assert_eq!(my_tests[0].article_id, mine.article.id);
    })
    .await;
}

#[tokio::test]
async fn a_learner_reads_tests_linked_either_way_due_by_the_earliest_deadline() {
    on_each_backend(|app| async move {
        let mine = app.assigned([1, 1, 3], 1).await;
        // A test made for the assigned article, which keeps its own test.
        let mut made_for = test_request([1, 1, 3], questions(1));
        made_for.article_id = mine.article.id;
        let made_for = app.create_test(made_for).await.unwrap();
        // The first test is also linked from an article due earlier, in another course.
        let earlier = pb::CreateArticleRequest {
            title: "Обработка рук".into(),
            description: "Повторение".into(),
            content: "<p>Текст</p>".into(),
            date_deadline: "2098-06-01".into(),
            test_id: mine.test.id,
        };
        let mut client = app.client.clone();
        let earlier = client
            .create_article(authed(earlier, &app.admin_token()))
            .await
            .unwrap()
            .into_inner()
            .article
            .unwrap();
        app.create_course("2099-01-31", &[LEARNER_ID], &[earlier.id])
            .await;

        let learner = app.learner_token();
        let get = |test_id: i64, token: String| {
            let mut client = app.client.clone();
            async move {
                client
                    .get_test(authed(pb::GetTestRequest { test_id }, &token))
                    .await
            }
        };
        assert_eq!(code(&get(made_for.id, learner.clone()).await), Code::Ok);
        let stranger = app.token(OTHER_LEARNER_ID, &[]);
        assert_eq!(code(&get(made_for.id, stranger).await), Code::NotFound);

        let my_tests = client
            .list_my_tests(authed(pb::ListMyTestsRequest {}, &learner))
            .await
            .unwrap()
            .into_inner()
            .tests;
        let listed: Vec<(i64, i64, i64, &str)> = my_tests
            .iter()
            .map(|t| {
                (
                    t.summary.as_ref().unwrap().id,
                    t.course_id,
                    t.article_id,
                    t.date_deadline.as_str(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (mine.test.id, mine.course.id, mine.article.id, "2098-06-01"),
                (made_for.id, mine.course.id, mine.article.id, "2099-01-31"),
            ]
        );
    })
    .await;
}
