//! Download links: GetFiles puts on each document's URL a link that reads that
//! document without a token until it expires; nothing else passes for one.

use portal_files::app::links::MSG_LINK_EXPIRED;
use portal_files::domain::file::MSG_FILE_NOT_FOUND;
use portal_kit::db::{Backend, now_millis};
use portal_proto::files::v1 as pb;
use tonic::Code;

use crate::helpers::*;

/// The `link` of a URL GetFiles gave.
fn link_of(file: &pb::File) -> &str {
    let (address, link) = file.url.split_once("?link=").expect("a URL with a link");
    assert_eq!(
        address,
        format!("{PUBLIC_URL}/api/file/download/{}", file.id)
    );
    link
}

#[tokio::test]
async fn a_listed_documents_link_reads_it_without_a_token_until_it_expires() {
    // Links do not depend on where blobs live: the directory store suffices.
    for backend in portal_kit::testing::backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        let editor = app.editor_token();
        let content = pdf(300 * 1024);
        let manual = app
            .save_document(Some(&editor), app.model, "manual.pdf", &content)
            .await
            .expect("manual");
        let leaflet = app
            .save_document(Some(&editor), app.model, "leaflet.pdf", &pdf(100))
            .await
            .expect("leaflet");

        let before = now_millis() / 1000;
        let files = app.files(app.model).await;
        let after = now_millis() / 1000;
        assert_eq!(
            files.iter().map(|f| f.id).collect::<Vec<_>>(),
            [manual.id, leaflet.id]
        );
        let expires = files[0].url_expires_at.expect("when the link ends").seconds;
        let lifetime = LINK_LIFETIME.as_secs() as i64;
        assert!((before + lifetime..=after + lifetime).contains(&expires));
        let link = link_of(&files[0]);
        // Whom, of which access version (the tests' tokens are of the
        // highest), until when.
        assert!(
            link.starts_with(&format!("{LEARNER_ID}.{}.{expires}.", i64::MAX)),
            "{link}"
        );

        let (start, bytes) = app
            .download_with_link(manual.id, link)
            .await
            .expect("the link reads the document");
        assert!(bytes == content, "byte-exact");
        assert_eq!(start.file.expect("metadata").id, manual.id);
        assert_eq!(start.download_name, "manual.pdf");

        // Another file's link, a changed one, one the service did not sign.
        let other = link_of(&files[1]);
        let (user, rest) = link.split_once('.').expect("user");
        let (_, mac) = rest.split_once('.').expect("expiry");
        let later = format!("{user}.{}.{mac}", expires + 3600);
        let forged = app.links.issue(
            manual.id,
            portal_files::app::links::Issued {
                issued_to: EDITOR_ID,
                version: 0,
                expires_at: expires,
            },
        );
        let mut tampered = forged.token.clone().into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).expect("ASCII");
        for refused in [other, &later, &tampered, "1.1.AAAA", "ссылка"] {
            assert_status(
                app.download_with_link(manual.id, refused).await,
                Code::NotFound,
                MSG_FILE_NOT_FOUND,
            );
        }
        // A link to a file that is gone, and a link to no file at all.
        for id in [leaflet.id + 1000, 0] {
            let link = app
                .links
                .issue(
                    id,
                    portal_files::app::links::Issued {
                        issued_to: LEARNER_ID,
                        version: 0,
                        expires_at: expires,
                    },
                )
                .token;
            assert_status(
                app.download_with_link(id, &link).await,
                Code::NotFound,
                MSG_FILE_NOT_FOUND,
            );
        }
        // Genuine (the service's key) but past its time.
        let expired = app
            .links
            .issue(
                manual.id,
                portal_files::app::links::Issued {
                    issued_to: LEARNER_ID,
                    version: 0,
                    expires_at: before - 1,
                },
            )
            .token;
        assert_status(
            app.download_with_link(manual.id, &expired).await,
            Code::Unauthenticated,
            MSG_LINK_EXPIRED,
        );
        // A link decides alone: a token beside it does not save a bad one.
        let request = pb::DownloadFileRequest {
            id: manual.id,
            range: None,
            link: expired,
            ..Default::default()
        };
        let result = app
            .client
            .clone()
            .download_file(with_token(request, Some(&editor)))
            .await;
        assert_eq!(code(&result), Code::Unauthenticated);

        // Without a link, the token as before.
        let (_, bytes) = app
            .download(Some(&app.learner_token()), manual.id, None)
            .await
            .expect("the bearer path");
        assert!(bytes == content);
        assert_eq!(
            code(&app.download(None, manual.id, None).await),
            Code::Unauthenticated
        );
    }
}

#[tokio::test]
async fn whoever_may_not_see_the_model_gets_no_link() {
    for backend in portal_kit::testing::backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        let editor = app.editor_token();
        let elsewhere = app
            .deployed_model("Монитор пациента", OTHER_DEPARTMENT)
            .await;
        let foreign = app
            .save_document(Some(&editor), elsewhere, "foreign.pdf", &pdf(200))
            .await
            .expect("other department's document");
        let asked = app
            .client
            .clone()
            .get_files(with_token(
                pb::GetFilesRequest {
                    id_related: elsewhere,
                },
                Some(&app.learner_token()),
            ))
            .await;
        assert_status(asked, Code::NotFound, MSG_FILE_NOT_FOUND);
        let asked = app
            .client
            .clone()
            .get_files(pb::GetFilesRequest {
                id_related: elsewhere,
            })
            .await;
        assert_eq!(code(&asked), Code::Unauthenticated);

        // The editor's link is theirs to hand on: it reads just that document.
        let listed = app
            .client
            .clone()
            .get_files(with_token(
                pb::GetFilesRequest {
                    id_related: elsewhere,
                },
                Some(&editor),
            ))
            .await
            .expect("the editor sees every model")
            .into_inner()
            .files;
        let link = link_of(&listed[0]);
        assert!(link.starts_with(&format!("{EDITOR_ID}.")), "{link}");
        let (_, bytes) = app
            .download_with_link(foreign.id, link)
            .await
            .expect("the editor's link");
        assert!(bytes == pdf(200));
    }
}

#[tokio::test]
async fn a_document_is_saved_under_its_title() {
    let app = spawn_app(Backend::Sqlite, StoreKind::Directory, false).await;
    let messages = document_stream(app.model, "Паспорт «ИВЛ» 1/2", "scan.PDF", &pdf(100), 64);
    let saved = app
        .client
        .clone()
        .save_file(with_token(
            futures_util::stream::iter(messages),
            Some(&app.editor_token()),
        ))
        .await
        .expect("saved")
        .into_inner();
    let (start, _) = app
        .download(Some(&app.learner_token()), saved.id, None)
        .await
        .expect("download");
    assert_eq!(start.download_name, "Паспорт «ИВЛ» 1_2.PDF");
    assert_eq!(start.file.expect("metadata").file_name, "scan.PDF");
}
