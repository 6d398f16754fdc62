//! Who may call what: the authorization matrix over every files RPC.

use portal_kit::Right;
use portal_kit::db::Backend;
use portal_proto::files::v1 as pb;
use tonic::Code;

use crate::helpers::*;

use Code::{Ok as OK, PermissionDenied as DENIED, Unauthenticated as UNAUTH};

const CALLERS: [&str; 5] = [
    "anonymous",
    "learner",
    "UserManagement",
    "EducationManagement",
    "EquipmentEditing",
];
const SIGNED_IN: [Code; 5] = [UNAUTH, OK, OK, OK, OK];
const EQUIPMENT_EDITING: [Code; 5] = [UNAUTH, DENIED, DENIED, DENIED, OK];
const RICH_TEXT_EDITORS: [Code; 5] = [UNAUTH, DENIED, DENIED, OK, OK];
const ANYONE: [Code; 5] = [OK; 5];

/// Every RPC of FilesService (downloads in both situations) and who may call it.
const MATRIX: &[(&str, [Code; 5])] = &[
    ("SaveFile", EQUIPMENT_EDITING),
    ("GetFiles", SIGNED_IN),
    ("DownloadFile/document", SIGNED_IN),
    ("DownloadFile/video", ANYONE),
    ("DeleteFile", EQUIPMENT_EDITING),
    ("SaveVideo", RICH_TEXT_EDITORS),
];

#[tokio::test]
async fn every_rpc_answers_each_kind_of_caller_as_the_contract_says() {
    // Access does not depend on where blobs live: the directory store suffices.
    for backend in portal_kit::testing::backends() {
        check_matrix(backend).await;
    }
}

async fn check_matrix(backend: Backend) {
    let app = spawn_app(backend, StoreKind::Directory).await;
    let editor = app.editor_token();
    let tokens = [
        None,
        Some(app.learner_token()),
        Some(app.keys.token(20, &[Right::UserManagement], &[])),
        Some(app.keys.token(30, &[Right::EducationManagement], &[])),
        Some(editor.clone()),
    ];
    let document = app
        .save_document(Some(&editor), 7, "a.pdf", &pdf(100))
        .await
        .expect("document");
    let video = app
        .save_video(Some(&editor), "v.mp4", &mp4(100))
        .await
        .expect("video");
    let mut failures = Vec::new();
    for (rpc, expected) in MATRIX {
        for (i, token) in tokens.iter().enumerate() {
            let token = token.as_deref();
            let mut client = app.client.clone();
            let got = match *rpc {
                "SaveFile" => code(&app.save_document(token, 7, "b.pdf", &pdf(100)).await),
                "GetFiles" => code(
                    &client
                        .get_files(authed(pb::GetFilesRequest { id_related: 7 }, token))
                        .await,
                ),
                "DownloadFile/document" => code(&app.download(token, document.id, None).await),
                "DownloadFile/video" => code(&app.download(token, video.id, None).await),
                "DeleteFile" => {
                    let victim = app
                        .save_document(Some(&editor), 8, "c.pdf", &pdf(100))
                        .await
                        .expect("a file to delete");
                    code(
                        &client
                            .delete_file(authed(pb::DeleteFileRequest { id: victim.id }, token))
                            .await,
                    )
                }
                "SaveVideo" => code(&app.save_video(token, "w.mp4", &mp4(100)).await),
                other => panic!("unknown RPC {other}"),
            };
            if got != expected[i] {
                failures.push(format!(
                    "{rpc} as {}: expected {:?}, got {got:?}",
                    CALLERS[i], expected[i]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "on {backend:?}:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn an_expired_or_forged_token_reads_no_document() {
    let app = spawn_app(Backend::Sqlite, StoreKind::Directory).await;
    let document = app
        .save_document(Some(&app.editor_token()), 7, "a.pdf", &pdf(100))
        .await
        .expect("document");
    let result = app.download(Some("not-a-token"), document.id, None).await;
    assert_eq!(code(&result), Code::Unauthenticated);
}
