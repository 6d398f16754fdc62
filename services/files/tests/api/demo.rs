//! The demo documentation (`PORTAL_SEED_DEMO=true`), on every backend and both
//! object stores.

use portal_files::demo::MANUAL;
use portal_kit::testing::backends;
use sha2::{Digest, Sha256};

use crate::helpers::*;

/// The wiki demo's patient monitor, whose manual the demo stores.
const MONITOR: i64 = 1;

#[tokio::test]
async fn the_demo_manual_is_listed_downloads_byte_exact_and_is_stored_once() {
    for backend in backends() {
        for store in [StoreKind::Directory, StoreKind::S3] {
            eprintln!("--- on {backend:?} with a {store:?} store");
            let mut app = spawn_app(backend, store, true).await;
            let files = app.files(MONITOR).await;
            assert_eq!(files.len(), 1, "{files:?}");
            let manual = &files[0];
            assert_eq!(
                (manual.title.as_str(), manual.file_name.as_str()),
                (
                    "Руководство по эксплуатации",
                    "Руководство по эксплуатации.pdf"
                )
            );
            assert_eq!(
                (manual.content_type.as_str(), manual.inline),
                ("application/pdf", true),
                "a PDF the browser shows in place"
            );
            assert_eq!(manual.size, MANUAL.len() as i64);
            assert_eq!(manual.sha256, hex::encode(Sha256::digest(MANUAL)));
            assert_eq!(manual.uploader_id, 6, "auth's demo engineer");

            let (start, bytes) = app
                .download(Some(&app.learner_token()), manual.id, None)
                .await
                .expect("download");
            assert_eq!(start.length, MANUAL.len() as i64);
            assert!(bytes == MANUAL, "byte-exact");

            app.restart().await;
            let again = app.files(MONITOR).await;
            assert_eq!(
                again.iter().map(|f| f.id).collect::<Vec<_>>(),
                [manual.id],
                "a second start keeps the one manual"
            );
            assert_eq!(app.stored_blobs().await, 1, "and its one blob");
        }
    }
}

#[tokio::test]
async fn without_the_demo_nothing_is_stored() {
    let app = spawn_app(portal_kit::db::Backend::Sqlite, StoreKind::Directory, false).await;
    assert!(app.files(MONITOR).await.is_empty());
    assert_eq!(app.stored_blobs().await, 0);
}
