//! Files' audit log: an upload, a delete and each download through a link
//! leave one record, of who, from where and what (the link by whom it was
//! issued to and until when, never its text; a video never by its key); a
//! refused upload or link leaves none; only UserManagement reads the log.

use portal_kit::testing::{self, AuditLog, authed, backends};
use portal_proto::audit::v1 as audit_pb;
use portal_proto::files::v1 as pb;
use tonic::Code;

use crate::helpers::*;

#[tokio::test]
async fn only_user_managers_read_the_audit_log() {
    for backend in backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        testing::assert_audit_access(&app).await;
    }
}

#[test]
fn the_audit_matrix_covers_every_rpc_of_the_contract() {
    testing::assert_matrix_covers(testing::AUDIT_MATRIX, "portal.audit.v1", "AuditService");
}

/// A field's change as recorded: old and new as JSON text.
fn change<'r>(record: &'r audit_pb::AuditRecord, field: &str) -> (&'r str, &'r str) {
    let found = record
        .changes
        .iter()
        .find(|c| c.field == field)
        .unwrap_or_else(|| panic!("{field} not among {:?}", record.changes));
    (found.old.as_str(), found.new.as_str())
}

fn what(record: &audit_pb::AuditRecord) -> (&str, Option<i64>, &str) {
    (
        record.entity.as_str(),
        record.entity_id,
        record.action.as_str(),
    )
}

#[tokio::test]
async fn uploads_deletes_and_downloads_through_a_link_are_recorded() {
    for backend in backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        let editor = app.editor_token();
        let saved = app
            .save_document(Some(&editor), app.model, "manual.pdf", &pdf(2000))
            .await
            .expect("a document");
        let video = app
            .save_video(Some(&editor), "clip.mp4", &mp4(1000))
            .await
            .expect("a video");
        let listed = app.files(app.model).await;
        let (_, link) = listed[0].url.split_once("?link=").expect("a link");
        app.download_with_link(saved.id, link)
            .await
            .expect("read through the link");
        app.client
            .clone()
            .delete_file(authed(pb::DeleteFileRequest { id: saved.id }, &editor))
            .await
            .expect("delete");

        let all = AuditLog::all(&app).await;
        let kinds: Vec<_> = all.iter().map(what).collect();
        assert_eq!(
            kinds,
            [
                ("document", Some(saved.id), "create"),
                ("video", Some(video.id), "create"),
                ("document", Some(saved.id), "download"),
                ("document", Some(saved.id), "delete"),
            ],
            "{backend:?}"
        );
        let [uploaded, shot, read, deleted] = &all[..] else {
            unreachable!()
        };
        assert_eq!(change(uploaded, "fileName"), ("null", "\"manual.pdf\""));
        assert_eq!(change(uploaded, "sizeBytes"), ("null", "2000"));
        assert_eq!(
            uploaded.actor.as_ref().unwrap().user_id,
            Some(EDITOR_ID),
            "the uploader"
        );
        let (_, key) = video.saved_video_url.split_once("?key=").expect("a key");
        let shot_text = format!("{:?}", shot.changes);
        assert!(!shot_text.contains(key), "a video's key is never recorded");

        // The link by whom it was issued to and when it ends; never its text.
        let (issued_to, rest) = link.split_once('.').expect("a link");
        let (version, rest) = rest.split_once('.').expect("a link");
        let (expires, mac) = rest.split_once('.').expect("a link");
        assert_eq!(
            change(read, "link"),
            (
                "null",
                &*format!(
                    "{{\"expiresAt\":{expires},\"issuedTo\":{issued_to},\"version\":{version}}}"
                )
            )
        );
        assert_eq!(
            change(read, "range"),
            ("null", "{\"length\":2000,\"offset\":0}")
        );
        let actor = read.actor.as_ref().unwrap();
        assert_eq!(
            (actor.kind.as_str(), actor.user_id.map(|id| id.to_string())),
            ("person", Some(issued_to.to_owned())),
            "no token: the person the link was issued to"
        );
        assert!(
            !format!("{read:?}").contains(mac),
            "the link's MAC is a secret"
        );
        assert!(!read.address.is_empty() && !read.request_id.is_empty());

        assert_eq!(change(deleted, "title"), ("\"manual.pdf\"", "null"));
    }
}

#[tokio::test]
async fn a_refused_upload_or_link_leaves_no_record() {
    for backend in backends() {
        let app = spawn_app(backend, StoreKind::Directory, false).await;
        let editor = app.editor_token();
        let saved = app
            .save_document(Some(&editor), app.model, "manual.pdf", &pdf(100))
            .await
            .expect("a document");
        let before = AuditLog::all(&app).await.len();
        let too_large = pdf(usize::try_from(DOCUMENT_LIMIT).unwrap() + 1);
        let refused = app
            .save_document(Some(&editor), app.model, "big.pdf", &too_large)
            .await;
        assert_eq!(refused.unwrap_err().code(), Code::OutOfRange);
        let forged = app
            .links
            .issue(
                saved.id + 1,
                portal_files::app::links::Issued {
                    issued_to: LEARNER_ID,
                    version: 0,
                    expires_at: i64::MAX,
                },
            )
            .token;
        let unknown = app.download_with_link(saved.id, &forged).await;
        assert_eq!(unknown.unwrap_err().code(), Code::NotFound);
        assert_eq!(AuditLog::all(&app).await.len(), before, "{backend:?}");
    }
}
