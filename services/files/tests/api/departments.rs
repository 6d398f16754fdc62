//! Documents follow their equipment model: a reader lists and downloads those
//! of the models the wiki shows them (a unit in one of their departments), an
//! editor every one; a hidden model's documents are NOT_FOUND, exactly like an
//! unknown one's. Videos stay public.

use portal_files::domain::file::MSG_FILE_NOT_FOUND;
use portal_proto::files::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;

async fn list(app: &TestApp, token: &str, id_related: i64) -> Result<Vec<i64>, Status> {
    let files = app
        .client
        .clone()
        .get_files(with_token(pb::GetFilesRequest { id_related }, Some(token)))
        .await?
        .into_inner()
        .files;
    Ok(files.iter().map(|file| file.id).collect())
}

#[tokio::test]
async fn a_document_is_read_only_by_whom_the_wiki_shows_its_model() {
    // Access does not depend on where blobs live: the directory store suffices.
    for backend in portal_kit::testing::backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        let editor = app.editor_token();
        let learner = app.learner_token();
        let elsewhere = app
            .deployed_model("Монитор пациента", OTHER_DEPARTMENT)
            .await;
        let own = app
            .save_document(Some(&editor), app.model, "own.pdf", &pdf(100))
            .await
            .expect("own department's document");
        let foreign = app
            .save_document(Some(&editor), elsewhere, "foreign.pdf", &pdf(200))
            .await
            .expect("other department's document");

        assert_eq!(
            list(&app, &learner, app.model).await.expect("own"),
            [own.id]
        );
        let (_, bytes) = app
            .download(Some(&learner), own.id, None)
            .await
            .expect("download own");
        assert!(bytes == pdf(100));

        // As if the model and its documents did not exist.
        let unknown_model = elsewhere + 1000;
        for model in [elsewhere, unknown_model] {
            assert_status(
                list(&app, &learner, model).await,
                Code::NotFound,
                MSG_FILE_NOT_FOUND,
            );
        }
        for id in [foreign.id, foreign.id + 1000] {
            assert_status(
                app.download(Some(&learner), id, None).await,
                Code::NotFound,
                MSG_FILE_NOT_FOUND,
            );
        }
        // A range request is no way around it.
        let first_bytes = Some(pb::ByteRange {
            first: Some(0),
            last: Some(9),
            suffix_length: None,
        });
        assert_status(
            app.download(Some(&learner), foreign.id, first_bytes).await,
            Code::NotFound,
            MSG_FILE_NOT_FOUND,
        );

        assert_eq!(
            list(&app, &editor, app.model).await.expect("editor, own"),
            [own.id]
        );
        assert_eq!(
            list(&app, &editor, elsewhere).await.expect("editor, other"),
            [foreign.id]
        );
        for (id, content) in [(own.id, pdf(100)), (foreign.id, pdf(200))] {
            let (_, bytes) = app
                .download(Some(&editor), id, None)
                .await
                .expect("the editor downloads every document");
            assert!(bytes == content);
        }

        let video = app
            .save_video(Some(&editor), "обработка.mp4", &mp4(1000))
            .await
            .expect("video");
        let (_, bytes) = app
            .download_video(&video, None)
            .await
            .expect("a video needs no sign-in, only its key");
        assert!(bytes == mp4(1000));
    }
}
