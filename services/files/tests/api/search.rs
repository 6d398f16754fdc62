//! Documents in search (issue 25): a PDF found by a word of its text, by
//! those who see its equipment model only; a PDF that cannot be read found
//! by its title; PDFs stored before texts were read, read at a start.

use std::time::{Duration, Instant};

use portal_files::demo::MANUAL;
use portal_kit::testing::{self, backends};
use portal_proto::search::v1::SearchHit;
use sqlx::Connection;

use crate::helpers::*;

/// The hits of `query`, which the deprecated Search must answer alike.
#[allow(deprecated)]
async fn search(app: &TestApp, token: &str, query: &str) -> Vec<SearchHit> {
    let mut client = app.client.clone();
    let answer = testing::search_as(app, token, query, async |r| client.search(r).await).await;
    answer.expect("search").hits
}

/// The hits of `query` from the shared search alone: while a text is read
/// in the background, two calls may find it differently.
async fn search_while_reading(app: &TestApp, token: &str, query: &str) -> Vec<SearchHit> {
    let answer = testing::shared_search(app, token, query).await;
    answer.expect("search").hits
}

fn ids(hits: &[SearchHit]) -> Vec<i64> {
    hits.iter().map(|hit| hit.id).collect()
}

#[tokio::test]
async fn a_pdf_is_found_by_a_word_of_its_text_by_whoever_sees_its_model_only() {
    on_each_setup(|app| async move {
        let editor = app.editor_token();
        let learner = app.learner_token();
        let hidden_model = app.deployed_model("Монитор", OTHER_DEPARTMENT).await;
        let seen = app
            .save_document(Some(&editor), app.model, "Памятка.pdf", MANUAL)
            .await
            .expect("upload")
            .id;
        let hidden = app
            .save_document(Some(&editor), hidden_model, "Памятка.pdf", MANUAL)
            .await
            .expect("upload")
            .id;
        // The manual says «самотестирования» and «дезинфицирующим»; its
        // title is its file's name, «Памятка.pdf».
        let hits = search(&app, &learner, "самотестирование").await;
        assert_eq!(ids(&hits), [seen]);
        assert_eq!(hits[0].title, "Памятка.pdf");
        assert!(
            hits[0].snippet.contains("<mark>самотестирования</mark>"),
            "{}",
            hits[0].snippet
        );
        let phrase = "дезинфицирующими средствами";
        assert_eq!(ids(&search(&app, &learner, phrase).await), [seen]);
        let mut both = ids(&search(&app, &editor, phrase).await);
        both.sort_unstable();
        assert_eq!(both, [seen, hidden]);

        // A "PDF" that is no PDF is stored all the same, found by its title.
        let broken = app
            .save_document(Some(&editor), app.model, "Сломанный.pdf", &pdf(2_000))
            .await
            .expect("a PDF without readable text is stored")
            .id;
        assert_eq!(ids(&search(&app, &learner, "сломанный").await), [broken]);
    })
    .await;
}

#[tokio::test]
async fn a_pdf_stored_before_texts_were_read_is_read_at_the_next_start() {
    for backend in backends() {
        eprintln!("--- on {backend:?}");
        let mut app = spawn_app(backend, StoreKind::Directory, false).await;
        let editor = app.editor_token();
        let id = app
            .save_document(Some(&editor), app.model, "Памятка.pdf", MANUAL)
            .await
            .expect("upload")
            .id;
        // As an earlier release left it: no text, no entry.
        let mut db = sqlx::AnyConnection::connect(&app.database.url)
            .await
            .expect("the service's database");
        for statement in [
            "UPDATE files SET extracted_text = NULL",
            "DELETE FROM search_entries",
        ] {
            sqlx::query(statement)
                .execute(&mut db)
                .await
                .expect(statement);
        }
        assert!(search(&app, &editor, "Памятка").await.is_empty());

        app.restart().await;
        assert_eq!(
            ids(&search_while_reading(&app, &editor, "Памятка").await),
            [id],
            "the missing entry is written at start"
        );
        // The text is read in the background.
        let deadline = Instant::now() + Duration::from_secs(30);
        while search_while_reading(&app, &editor, "самотестирование")
            .await
            .is_empty()
        {
            assert!(Instant::now() < deadline, "the text was not read in 30 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let text: String = sqlx::query_scalar("SELECT extracted_text FROM files WHERE id = $1")
            .bind(id)
            .fetch_one(&mut db)
            .await
            .expect("the kept text");
        assert!(text.contains("Плановое ТО"), "{text}");
    }
}

#[tokio::test]
async fn anyone_signed_in_searches_and_no_service_account() {
    for backend in backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        testing::assert_search_access(&app).await;
    }
}

#[test]
fn the_search_matrix_covers_every_rpc_of_the_contract() {
    testing::assert_matrix_covers(testing::SEARCH_MATRIX, "portal.search.v1", "SearchService");
}
