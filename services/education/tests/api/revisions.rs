//! Revisions of articles and tests (issue 25): each save keeps its version
//! with its author and time, a restore is a new save, only education
//! managers read or restore them, and no save of a test rewrites a result
//! already scored.

use portal_kit::Right;
use portal_proto::education::v1 as pb;
use tonic::Code;

use crate::helpers::*;

const EDITOR_ID: i64 = 30;

fn editor(app: &TestApp) -> String {
    app.token(EDITOR_ID, &[Right::EducationManagement])
}

async fn update_article(app: &TestApp, token: &str, article: &pb::Article, content: &str) {
    app.client
        .clone()
        .update_article(authed(
            pb::UpdateArticleRequest {
                id: article.id,
                title: article.title.clone(),
                description: article.description.clone(),
                content: content.into(),
                date_deadline: article.date_deadline.clone(),
                test_id: article.test_id,
            },
            token,
        ))
        .await
        .expect("update article");
}

async fn article_revision(app: &TestApp, article_id: i64, revision_id: i64) -> pb::Article {
    app.client
        .clone()
        .get_article_revision(authed(
            pb::GetArticleRevisionRequest {
                article_id,
                revision_id,
            },
            &app.admin_token(),
        ))
        .await
        .expect("get article revision")
        .into_inner()
        .article
        .expect("the revision's article")
}

async fn database(app: &TestApp) -> sqlx::AnyPool {
    sqlx::AnyPool::connect(&app.database.url)
        .await
        .expect("connect to the test database")
}

#[tokio::test]
async fn each_save_of_an_article_is_a_revision_and_a_restore_is_one_more() {
    on_each_backend(|app| async move {
        let article = app.create_article("<p>Мойте руки водой</p>", 0).await;
        update_article(&app, &editor(&app), &article, "<p>Мойте руки с мылом</p>").await;
        update_article(
            &app,
            &editor(&app),
            &article,
            "<p>Обрабатывайте руки антисептиком</p>",
        )
        .await;

        let revisions = app.article_revisions(article.id).await;
        let authors: Vec<(i64, &str)> = revisions
            .iter()
            .map(|r| (r.author_id, r.author_name.as_str()))
            .collect();
        assert_eq!(authors.len(), 3, "{revisions:?}");
        assert_eq!(authors[0].0, EDITOR_ID);
        assert_eq!(authors[1].0, EDITOR_ID);
        assert_eq!(authors[2].0, ADMIN_ID);
        assert!(revisions.iter().all(|r| !r.author_name.is_empty()));
        assert!(revisions.windows(2).all(|w| w[0].id > w[1].id));
        let time = |r: &pb::Revision| r.created_at.expect("a time").seconds;
        assert!(revisions.windows(2).all(|w| time(&w[0]) >= time(&w[1])));
        let first = revisions.last().expect("the first revision");
        assert_eq!(first.size, "<p>Мойте руки водой</p>".chars().count() as i64);
        assert_eq!(
            article_revision(&app, article.id, first.id).await.content,
            "<p>Мойте руки водой</p>"
        );

        let restored = app
            .client
            .clone()
            .restore_article_revision(authed(
                pb::RestoreArticleRevisionRequest {
                    article_id: article.id,
                    revision_id: first.id,
                },
                &editor(&app),
            ))
            .await
            .expect("restore")
            .into_inner()
            .article
            .expect("the restored article");
        assert_eq!(restored.content, "<p>Мойте руки водой</p>");
        let after = app.article_revisions(article.id).await;
        assert_eq!(after.len(), 4);
        assert_eq!(after[0].author_id, EDITOR_ID);
        // It says which version it restored, and of when (issue 37).
        assert_eq!(after[0].restored_from_id, first.id);
        assert_eq!(after[0].restored_from_created_at, first.created_at);
        assert!(after[1..].iter().all(|r| r.restored_from_id == 0));
        assert!(
            after[1..]
                .iter()
                .all(|r| r.restored_from_created_at.is_none())
        );
        assert_eq!(
            article_revision(&app, article.id, after[0].id)
                .await
                .content,
            "<p>Мойте руки водой</p>"
        );
        // The older revisions are kept as they were.
        assert_eq!(&after[1..], &revisions[..]);

        // A revision of another article is not this article's.
        let other = app.create_article("<p>Другая</p>", 0).await;
        let foreign = app.article_revisions(other.id).await[0].id;
        let status = app
            .client
            .clone()
            .get_article_revision(authed(
                pb::GetArticleRevisionRequest {
                    article_id: article.id,
                    revision_id: foreign,
                },
                &app.admin_token(),
            ))
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::NotFound);
    })
    .await;
}

#[tokio::test]
async fn an_article_saved_before_revisions_keeps_its_version_of_then() {
    on_each_backend(|app| async move {
        let article = app.create_article("<p>Старый текст</p>", 0).await;
        // As if written before migration 0012: no revision at all.
        let pool = database(&app).await;
        sqlx::query("DELETE FROM article_revisions")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;

        update_article(&app, &editor(&app), &article, "<p>Новый текст</p>").await;
        let revisions = app.article_revisions(article.id).await;
        assert_eq!(revisions.len(), 2);
        assert_eq!(revisions[0].author_id, EDITOR_ID);
        assert_eq!(
            (revisions[1].author_id, revisions[1].author_name.as_str()),
            (0, "")
        );
        assert_eq!(
            article_revision(&app, article.id, revisions[1].id)
                .await
                .content,
            "<p>Старый текст</p>"
        );
    })
    .await;
}

#[tokio::test]
async fn a_learner_may_not_read_or_restore_revisions() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 1, 1], 1).await;
        let learner = app.learner_token();
        let article_revision = app.article_revisions(assigned.article.id).await[0].id;
        let test_revision = app.test_revisions(assigned.test.id).await[0].id;
        let mut client = app.client.clone();
        let codes = [
            client
                .list_article_revisions(authed(
                    pb::ListArticleRevisionsRequest {
                        article_id: assigned.article.id,
                    },
                    &learner,
                ))
                .await
                .map(|_| ()),
            client
                .restore_article_revision(authed(
                    pb::RestoreArticleRevisionRequest {
                        article_id: assigned.article.id,
                        revision_id: article_revision,
                    },
                    &learner,
                ))
                .await
                .map(|_| ()),
            client
                .get_test_revision(authed(
                    pb::GetTestRevisionRequest {
                        test_id: assigned.test.id,
                        revision_id: test_revision,
                    },
                    &learner,
                ))
                .await
                .map(|_| ()),
            client
                .restore_test_revision(authed(
                    pb::RestoreTestRevisionRequest {
                        test_id: assigned.test.id,
                        revision_id: test_revision,
                    },
                    &learner,
                ))
                .await
                .map(|_| ()),
        ]
        .map(|outcome| outcome.unwrap_err().code());
        assert_eq!(codes, [Code::PermissionDenied; 4]);
        assert_eq!(app.article_revisions(assigned.article.id).await.len(), 1);
        assert_eq!(app.test_revisions(assigned.test.id).await.len(), 1);
    })
    .await;
}

/// Each attempt's asked questions, answers given and their marks.
async fn asked(app: &TestApp) -> Vec<(i64, i64, i64, Option<i64>, Option<i64>)> {
    let pool = database(app).await;
    let rows = sqlx::query_as(
        "SELECT attempt_id, question_id, position, answer_id, is_correct FROM attempt_questions ORDER BY attempt_id, position",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    rows
}

async fn results(app: &TestApp, test_id: i64) -> Vec<pb::TestResult> {
    app.client
        .clone()
        .list_user_test_results(authed(
            pb::ListUserTestResultsRequest {
                test_id,
                user_id: LEARNER_ID,
            },
            &app.admin_token(),
        ))
        .await
        .expect("results")
        .into_inner()
        .results
}

#[tokio::test]
async fn changing_or_restoring_a_test_never_rewrites_a_scored_result() {
    on_each_backend(|app| async move {
        let assigned = app.assigned([1, 2, 100], 2).await;
        let test = assigned.test.clone();
        let scored = app
            .complete(&app.learner_token(), &test, 1, 0)
            .await
            .expect("complete");
        let results_before = results(&app, test.id).await;
        let asked_before = asked(&app).await;
        assert_eq!(results_before.len(), 1);
        assert_eq!(results_before[0].total_point, 1);
        assert!(results_before[0].is_passed);
        assert_eq!(asked_before.len(), 2);
        let created = app.test_revisions(test.id).await[0].id;

        // The first question reworded with its marks swapped, the second
        // deleted, two new ones, and a pass now needs both points.
        let mut first = test.questions[0].clone();
        first.title = "Вопрос 1, иначе".into();
        for answer in &mut first.answers {
            answer.is_correct = !answer.is_correct;
        }
        let mut questions = vec![first];
        questions.extend(
            crate::helpers::questions(4)
                .into_iter()
                .skip(2)
                .map(|mut q| {
                    q.title = format!("Новый {}", q.title);
                    q
                }),
        );
        app.client
            .clone()
            .update_test(authed(
                pb::UpdateTestRequest {
                    id: test.id,
                    title: test.title.clone(),
                    description: test.description.clone(),
                    total_points_required: 2,
                    number_of_questions: 2,
                    number_of_tries: test.number_of_tries,
                    article_id: test.article_id,
                    questions,
                },
                &editor(&app),
            ))
            .await
            .expect("change the questions");
        assert_eq!(results(&app, test.id).await, results_before);
        assert_eq!(asked(&app).await, asked_before);

        let restored = app
            .client
            .clone()
            .restore_test_revision(authed(
                pb::RestoreTestRevisionRequest {
                    test_id: test.id,
                    revision_id: created,
                },
                &editor(&app),
            ))
            .await
            .expect("restore")
            .into_inner()
            .test
            .expect("the restored test");
        assert_eq!(results(&app, test.id).await, results_before);
        assert_eq!(asked(&app).await, asked_before);
        assert_eq!(scored.total_point, results_before[0].total_point);

        // The test is as created: the first question kept its id, the deleted
        // one came back as a new one.
        let titles: Vec<&str> = restored
            .questions
            .iter()
            .map(|q| q.title.as_str())
            .collect();
        assert_eq!(titles, ["Вопрос 1", "Вопрос 2"]);
        assert_eq!(restored.total_points_required, 1);
        assert_eq!(restored.questions[0].id, test.questions[0].id);
        assert_ne!(restored.questions[1].id, test.questions[1].id);
        assert!(restored.questions[0].answers[0].is_correct);
        let revisions = app.test_revisions(test.id).await;
        assert_eq!(revisions.len(), 3);
        assert_eq!(revisions[0].author_id, EDITOR_ID);
        assert_eq!(revisions[0].size, 2);
        assert_eq!(revisions[0].restored_from_id, created);
        assert_eq!(
            revisions[0].restored_from_created_at,
            revisions[2].created_at
        );
        assert_eq!(revisions[1].restored_from_id, 0);
        let kept = app
            .client
            .clone()
            .get_test_revision(authed(
                pb::GetTestRevisionRequest {
                    test_id: test.id,
                    revision_id: revisions[1].id,
                },
                &app.admin_token(),
            ))
            .await
            .expect("get test revision")
            .into_inner()
            .test
            .expect("the revision's test");
        assert_eq!(kept.questions.len(), 3);
        assert_eq!(kept.questions[0].title, "Вопрос 1, иначе");
        assert_eq!(kept.total_points_required, 2);

        // The learner's next try is drawn from the restored questions.
        let next = app
            .complete(&app.learner_token(), &restored, 2, 0)
            .await
            .expect("a new try");
        assert_eq!(next.total_point, 2);
    })
    .await;
}
