//! Who may call what: the authorization matrix over every files RPC.

use portal_kit::db::Backend;
use portal_kit::testing::{
    AccessRule, access_matrix, assert_matrix_covers, caller_tokens, scope_matrix,
};
use portal_proto::files::v1 as pb;
use tonic::Code;

use crate::helpers::*;

use Code::{NotFound as HIDDEN, Ok as OK, PermissionDenied as DENIED, Unauthenticated as UNAUTH};

/// Whom the wiki shows the document's model: the learner (a unit is in their
/// department) and the editor; the other two rights' tokens name no department.
const MODEL_READERS: [Code; 5] = [UNAUTH, OK, HIDDEN, HIDDEN, OK];
const EQUIPMENT_EDITING: [Code; 5] = [UNAUTH, DENIED, DENIED, DENIED, OK];
const RICH_TEXT_EDITORS: [Code; 5] = [UNAUTH, DENIED, DENIED, OK, OK];
const ANYONE: [Code; 5] = [OK; 5];
const SIGNED_IN: [Code; 5] = [UNAUTH, OK, OK, OK, OK];

/// Every RPC of FilesService (downloads in each situation) and who may call it.
const MATRIX: &[AccessRule] = &[
    ("SaveFile", EQUIPMENT_EDITING),
    ("GetFiles", MODEL_READERS),
    ("DownloadFile/document", MODEL_READERS),
    // With the learner's download link of the document: whoever holds it.
    ("DownloadFile/document-link", ANYONE),
    // A video by its sequential id alone: only for people signed in (issue 19);
    // by the key in the URL SaveVideo returned: whoever holds it.
    ("DownloadFile/video", SIGNED_IN),
    ("DownloadFile/video-key", ANYONE),
    ("DeleteFile", EQUIPMENT_EDITING),
    ("SaveVideo", RICH_TEXT_EDITORS),
    // Anyone signed in; each finds only the documents of models they may see.
    ("Search", SIGNED_IN),
];

#[tokio::test]
async fn every_rpc_answers_each_kind_of_caller_as_the_contract_says() {
    // Access does not depend on where blobs live: the directory store suffices.
    for backend in portal_kit::testing::backends() {
        check_matrix(backend).await;
    }
}

#[test]
fn the_matrix_covers_every_rpc_of_the_contract() {
    assert_matrix_covers(MATRIX, "portal.files.v1", "FilesService");
}

/// What the calls of the matrix are made on.
struct Fixture {
    editor: String,
    document: pb::SaveFileResponse,
    video: pb::SaveVideoResponse,
    video_key: String,
    link: String,
}

async fn fixture(app: &TestApp) -> Fixture {
    let editor = app.editor_token();
    let document = app
        .save_document(Some(&editor), app.model, "a.pdf", &pdf(100))
        .await
        .expect("document");
    let video = app
        .save_video(Some(&editor), "v.mp4", &mp4(100))
        .await
        .expect("video");
    let video_key = video
        .saved_video_url
        .split_once("?key=")
        .expect("a video key")
        .1
        .to_owned();
    let listed = app.files(app.model).await;
    let link = listed[0]
        .url
        .split_once("?link=")
        .expect("a download link")
        .1
        .to_owned();
    Fixture {
        editor,
        document,
        video,
        video_key,
        link,
    }
}

async fn check_matrix(backend: Backend) {
    let app = spawn_app(backend, StoreKind::Directory, false).await;
    let mut tokens = caller_tokens(&app.keys, [0, LEARNER_ID, 20, 30, EDITOR_ID], &[]);
    tokens[1] = Some(app.learner_token());
    let fixture = fixture(&app).await;
    access_matrix(backend, MATRIX, async |rpc, who| {
        call_as(&app, &fixture, rpc, tokens[who].as_deref()).await
    })
    .await;
}

#[tokio::test]
async fn no_rpc_serves_a_service_account_whatever_its_scopes() {
    for backend in portal_kit::testing::backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        let fixture = fixture(&app).await;
        // Files are people's: no scope opens a call, not even a download by
        // a link or key that anyone else holding it may open.
        scope_matrix(backend, &app.keys, MATRIX, &[], async |rpc, token| {
            call_as(&app, &fixture, rpc, Some(token)).await
        })
        .await;
    }
}

/// Makes the call `rpc` with `token` and a request valid for a caller allowed
/// to make it, and answers its code.
async fn call_as(app: &TestApp, fixture: &Fixture, rpc: &str, token: Option<&str>) -> Code {
    let mut client = app.client.clone();
    let Fixture {
        editor,
        document,
        video,
        video_key,
        link,
    } = fixture;
    match rpc {
        "SaveFile" => code(
            &app.save_document(token, app.model, "b.pdf", &pdf(100))
                .await,
        ),
        "GetFiles" => code(
            &client
                .get_files(with_token(
                    pb::GetFilesRequest {
                        id_related: app.model,
                    },
                    token,
                ))
                .await,
        ),
        "DownloadFile/document" => code(&app.download(token, document.id, None).await),
        "DownloadFile/document-link" => {
            let request = pb::DownloadFileRequest {
                id: document.id,
                range: None,
                link: link.clone(),
                ..Default::default()
            };
            code(&client.download_file(with_token(request, token)).await)
        }
        "DownloadFile/video" => code(&app.download(token, video.id, None).await),
        "DownloadFile/video-key" => {
            let request = pb::DownloadFileRequest {
                id: video.id,
                key: video_key.clone(),
                ..Default::default()
            };
            code(&client.download_file(with_token(request, token)).await)
        }
        "DeleteFile" => {
            let victim = app
                .save_document(Some(editor), app.model, "c.pdf", &pdf(100))
                .await
                .expect("a file to delete");
            code(
                &client
                    .delete_file(with_token(pb::DeleteFileRequest { id: victim.id }, token))
                    .await,
            )
        }
        "SaveVideo" => code(&app.save_video(token, "w.mp4", &mp4(100)).await),
        #[allow(deprecated)] // held to its rule while it is served
        "Search" => code(
            &client
                .search(with_token(
                    pb::SearchRequest {
                        query: "инструкция".into(),
                        ..Default::default()
                    },
                    token,
                ))
                .await,
        ),
        other => panic!("unknown RPC {other}"),
    }
}

#[tokio::test]
async fn an_expired_or_forged_token_reads_no_document() {
    let app = spawn_app(Backend::Sqlite, StoreKind::Directory, false).await;
    let document = app
        .save_document(Some(&app.editor_token()), app.model, "a.pdf", &pdf(100))
        .await
        .expect("document");
    let result = app.download(Some("not-a-token"), document.id, None).await;
    assert_eq!(code(&result), Code::Unauthenticated);
}
