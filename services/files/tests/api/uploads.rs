//! Uploads, lists, downloads (whole and ranged) and deletes, on every backend
//! and both object stores; what is refused, and that a refusal keeps nothing.

use std::time::Duration;

use futures_util::StreamExt;
use portal_files::app::uploads::{MSG_CHUNK_TOO_BIG, MSG_NO_METADATA, MSG_SECOND_METADATA};
use portal_files::domain::file::MSG_FILE_NOT_FOUND;
use portal_files::rpc::{MSG_MODEL_NOT_FOUND, MSG_NO_MODEL};
use portal_proto::files::v1 as pb;
use sha2::{Digest, Sha256};
use tonic::Code;

use crate::helpers::*;

#[tokio::test]
async fn a_document_is_stored_listed_downloaded_byte_exact_and_deleted() {
    on_each_setup(|app| async move {
        let model = app.model;
        let editor = app.editor_token();
        let content = pdf(DOCUMENT_LIMIT as usize - 10);
        let saved = app
            .save_document(Some(&editor), model, "Руководство ИВЛ.pdf", &content)
            .await
            .expect("save");
        assert_eq!(
            saved.url,
            format!("{PUBLIC_URL}/api/file/download/{}", saved.id)
        );

        let files = app.files(model).await;
        assert_eq!(files.len(), 1);
        let file = &files[0];
        assert_eq!(
            (file.id, file.title.as_str(), file.file_name.as_str()),
            (saved.id, "Руководство ИВЛ.pdf", "Руководство ИВЛ.pdf")
        );
        assert_eq!(
            (file.content_type.as_str(), file.inline),
            ("application/pdf", true)
        );
        assert_eq!(file.size, content.len() as i64);
        assert_eq!(file.sha256, hex::encode(Sha256::digest(&content)));
        assert_eq!((file.uploader_id, file.id_related), (EDITOR_ID, model));
        let another = app.deployed_model("Дефибриллятор", OWN_DEPARTMENT).await;
        assert!(app.files(another).await.is_empty(), "listed by idRelated");

        let (start, bytes) = app
            .download(Some(&app.learner_token()), saved.id, None)
            .await
            .expect("download");
        assert_eq!((start.offset, start.length), (0, content.len() as i64));
        assert!(bytes == content, "byte-exact");

        app.client
            .clone()
            .delete_file(with_token(
                pb::DeleteFileRequest { id: saved.id },
                Some(&editor),
            ))
            .await
            .expect("delete");
        assert!(app.files(model).await.is_empty());
        assert_eq!(app.stored_blobs().await, 0, "the blob is gone too");
        assert_status(
            app.download(Some(&editor), saved.id, None).await,
            Code::NotFound,
            MSG_FILE_NOT_FOUND,
        );
        assert_status(
            app.client
                .clone()
                .delete_file(with_token(
                    pb::DeleteFileRequest { id: saved.id },
                    Some(&editor),
                ))
                .await,
            Code::NotFound,
            MSG_FILE_NOT_FOUND,
        );
    })
    .await;
}

#[tokio::test]
async fn ranges_send_the_asked_bytes_and_one_beyond_the_end_nothing() {
    on_each_setup(|app| async move {
        let content = mp4(300_000);
        let saved = app
            .save_video(Some(&app.editor_token()), "обход.mp4", &content)
            .await
            .expect("save video");
        let range = |first: Option<i64>, last: Option<i64>, suffix: Option<i64>| {
            Some(pb::ByteRange {
                first,
                last,
                suffix_length: suffix,
            })
        };
        let cases = [
            (range(Some(0), Some(99), None), 0..100),
            (range(Some(123_456), Some(234_567), None), 123_456..234_568),
            (range(Some(299_990), None, None), 299_990..300_000),
            (range(None, None, Some(500)), 299_500..300_000),
            (range(Some(299_000), Some(999_999), None), 299_000..300_000),
        ];
        for (asked, expected) in cases {
            let (start, bytes) = app.download_video(&saved, asked).await.expect("range");
            assert_eq!(start.offset, expected.start as i64);
            assert_eq!(start.length, (expected.end - expected.start) as i64);
            assert!(!start.range_not_satisfiable);
            assert!(bytes == content[expected], "the asked slice");
        }
        let (start, bytes) = app
            .download_video(&saved, range(Some(300_000), None, None))
            .await
            .expect("unsatisfiable is an answer");
        assert!(start.range_not_satisfiable);
        assert_eq!(start.file.expect("metadata").size, 300_000);
        assert!(bytes.is_empty());
        assert_eq!(
            code(
                &app.download_video(&saved, range(Some(10), Some(5), None))
                    .await
            ),
            Code::InvalidArgument
        );
    })
    .await;
}

#[tokio::test]
async fn an_oversized_upload_is_refused_while_streaming_and_nothing_is_kept() {
    on_each_setup(|app| async move {
        let model = app.model;
        let editor = app.editor_token();
        let too_big = pdf(DOCUMENT_LIMIT as usize + 1);
        let refused = app
            .save_document(Some(&editor), model, "big.pdf", &too_big)
            .await;
        assert_status(
            refused,
            Code::OutOfRange,
            "Файл слишком большой: можно не больше 3 МБ",
        );
        let refused = app
            .save_video(Some(&editor), "big.mp4", &mp4(VIDEO_LIMIT as usize + 1))
            .await;
        assert_eq!(code(&refused), Code::OutOfRange);
        assert!(app.files(model).await.is_empty());
        assert_eq!(app.stored_blobs().await, 0);

        // Exactly at the limit is fine.
        app.save_video(Some(&editor), "ok.mp4", &mp4(VIDEO_LIMIT as usize))
            .await
            .expect("at the limit");
    })
    .await;
}

/// The gateway sends the contract's largest chunk (1 MiB): such an upload is
/// byte exact, a larger chunk is refused, and a stream that passes the limit is
/// refused there, while the client still sends (it never ends here).
#[tokio::test]
async fn uploads_in_the_largest_chunks_are_exact_and_refused_mid_stream_past_the_limit() {
    const MIB: usize = 1024 * 1024;
    on_each_setup(|app| async move {
        let model = app.model;
        let editor = app.editor_token();
        let save = |messages: Vec<pb::SaveFileRequest>| {
            let mut client = app.client.clone();
            let request = with_token(futures_util::stream::iter(messages), Some(&editor));
            async move { client.save_file(request).await.map(|r| r.into_inner()) }
        };

        let content = pdf(DOCUMENT_LIMIT as usize - 10);
        let saved = save(document_stream(model, "", "big.pdf", &content, MIB))
            .await
            .expect("saved in 1 MiB chunks");
        let (_, bytes) = app
            .download(Some(&editor), saved.id, None)
            .await
            .expect("download");
        assert!(bytes == content, "byte-exact");
        assert_eq!(
            app.files(model).await[0].sha256,
            hex::encode(Sha256::digest(&content))
        );

        assert_status(
            save(document_stream(model, "", "a.pdf", &pdf(MIB + 1), MIB + 1)).await,
            Code::InvalidArgument,
            MSG_CHUNK_TOO_BIG,
        );

        let past_the_limit =
            document_stream(model, "", "a.pdf", &pdf(DOCUMENT_LIMIT as usize + MIB), MIB);
        let endless =
            futures_util::stream::iter(past_the_limit).chain(futures_util::stream::pending());
        let refused = tokio::time::timeout(
            Duration::from_secs(30),
            app.client
                .clone()
                .save_file(with_token(endless, Some(&editor))),
        )
        .await
        .expect("refused before the stream ends");
        assert_status(
            refused.map(|r| r.into_inner()),
            Code::OutOfRange,
            "Файл слишком большой: можно не больше 3 МБ",
        );
        assert_eq!(app.files(model).await.len(), 1, "only the first upload");
        assert_eq!(app.stored_blobs().await, 1, "nothing of the refused ones");
    })
    .await;
}

#[tokio::test]
async fn the_type_comes_from_the_content_not_the_name() {
    on_each_setup(|app| async move {
        let model = app.model;
        let editor = app.editor_token();
        let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0>\0 payload".to_vec();
        let html = b"<!DOCTYPE html><html><script>alert(1)</script></html>".to_vec();
        for forged in [&elf, &html] {
            let refused = app
                .save_document(Some(&editor), model, "manual.pdf", forged)
                .await;
            assert_eq!(code(&refused), Code::InvalidArgument, "{refused:?}");
        }
        let refused = app.save_video(Some(&editor), "clip.mp4", &pdf(1000)).await;
        assert_eq!(code(&refused), Code::InvalidArgument);
        assert_eq!(app.stored_blobs().await, 0);

        // A PNG named .pdf is stored as the PNG it is.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend([0u8; 100]);
        app.save_document(Some(&editor), model, "scheme.pdf", &png)
            .await
            .expect("a real image");
        let file = &app.files(model).await[0];
        assert_eq!(
            (file.content_type.as_str(), file.file_name.as_str()),
            ("image/png", "scheme.pdf.png")
        );
    })
    .await;
}

#[tokio::test]
async fn odd_names_become_safe_names() {
    on_each_setup(|app| async move {
        let model = app.model;
        let editor = app.editor_token();
        let long = format!("{}.pdf", "Инструкция".repeat(30));
        let cases = [
            ("../../etc/passwd", "passwd.pdf"),
            ("C:\\Temp\\Паспорт изделия.pdf", "Паспорт изделия.pdf"),
            ("", "файл.pdf"),
        ];
        for (offered, stored) in cases {
            app.save_document(Some(&editor), model, offered, &pdf(100))
                .await
                .expect("stored under a safe name");
            let files = app.files(model).await;
            assert_eq!(files.last().expect("listed").file_name, stored);
        }
        app.save_document(Some(&editor), model, &long, &pdf(100))
            .await
            .expect("a long name is shortened");
        let name = app
            .files(model)
            .await
            .last()
            .expect("listed")
            .file_name
            .clone();
        assert!(
            name.chars().count() <= 120 && name.ends_with(".pdf"),
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_broken_upload_stream_is_refused() {
    on_each_setup(|app| async move {
        let model = app.model;
        let editor = app.editor_token();
        let assert_refused = |result: Result<pb::SaveFileResponse, tonic::Status>,
                              message: &str| {
            assert_status(result, Code::InvalidArgument, message);
        };
        assert_refused(
            app.save_document(Some(&editor), model, "a.pdf", b"").await,
            "Файл пуст",
        );
        assert_refused(
            app.save_document(Some(&editor), 0, "a.pdf", &pdf(10)).await,
            MSG_NO_MODEL,
        );

        let mut messages = document_stream(model, "", "a.pdf", &pdf(100), 10);
        let first = messages.remove(0);
        let chunks_first: Vec<_> = messages.iter().cloned().chain([first.clone()]).collect();
        let twice: Vec<_> = [first.clone()]
            .into_iter()
            .chain([first])
            .chain(messages)
            .collect();
        for (stream, message) in [
            (chunks_first, MSG_NO_METADATA),
            (twice, MSG_SECOND_METADATA),
        ] {
            let result = app
                .client
                .clone()
                .save_file(with_token(
                    futures_util::stream::iter(stream),
                    Some(&editor),
                ))
                .await;
            assert_refused(result.map(|r| r.into_inner()), message);
        }
        assert_eq!(app.stored_blobs().await, 0);
    })
    .await;
}

#[tokio::test]
async fn a_document_of_a_model_the_wiki_does_not_know_is_refused_and_nothing_is_kept() {
    on_each_setup(|app| async move {
        let editor = app.editor_token();
        let unknown = app.model + 1000;
        let refused = app
            .save_document(Some(&editor), unknown, "manual.pdf", &pdf(1024 * 1024))
            .await;
        assert_status(refused, Code::NotFound, MSG_MODEL_NOT_FOUND);
        assert_eq!(app.stored_blobs().await, 0, "no blob, not even a part");
        sqlx::any::install_default_drivers();
        let database = sqlx::AnyPool::connect(&app.database.url)
            .await
            .expect("the files database");
        let records: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM files")
            .fetch_one(&database)
            .await
            .expect("count");
        assert_eq!(records, 0, "no record");
        database.close().await;
    })
    .await;
}
