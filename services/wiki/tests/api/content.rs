//! The short instruction is sanitised on save (DESIGN §8): the XSS corpus goes
//! in through CreateEnvironmentModel, UpdateEnvironmentModel and
//! SaveInstruction and comes back harmless, also on the public page.

use portal_kit::rich_text::FRAME_SANDBOX;
use portal_kit::testing::{XSS_CORPUS, assert_defused, rich_text_with_photo};
use portal_proto::wiki::v1 as pb;

use crate::helpers::*;

/// Frames the wiki refuses beyond the shared corpus: from other sites, one
/// posing as the portal, and the portal's own video told to play by itself.
const FRAMES: &[&str] = &[
    "<iframe src=\"https://evil.example/embed/1\"></iframe>",
    "<iframe src=\"https://portal.example.evil.example/api/file/download/1\"></iframe>",
    "<iframe src=\"https://portal.example/api/file/download/3?autoplay=1\" allow=\"autoplay\"></iframe>",
];

/// Only the portal's own videos may stay framed.
fn assert_harmless(attack: &str, stored: &str) {
    assert_defused(attack, stored);
    let lower = stored.to_lowercase();
    assert!(
        !lower.contains("evil.example"),
        "{attack} stored as {stored}"
    );
}

#[tokio::test]
async fn the_xss_corpus_is_defused_by_every_call_that_saves_an_instruction() {
    on_each_backend(|app| async move {
        let mut client = app.client.clone();
        let token = app.editor_token();
        let model = app.create_model("Монитор", "").await;
        for attack in XSS_CORPUS.iter().chain(FRAMES) {
            let created = app.create_model("Монитор", attack).await;
            assert_harmless(attack, &created.short_instruction);

            let mut update = model_request("Монитор", attack);
            update.name = "Монитор".into();
            let updated = client
                .update_environment_model(authed(
                    pb::UpdateEnvironmentModelRequest {
                        id: model.id,
                        name: update.name,
                        brand_name: update.brand_name,
                        description: update.description,
                        short_instruction: update.short_instruction,
                        manufacturer_id: 0,
                        environment_type_id: 0,
                    },
                    &token,
                ))
                .await
                .unwrap()
                .into_inner()
                .environment_model
                .unwrap();
            assert_harmless(attack, &updated.short_instruction);

            let saved = client
                .save_instruction(authed(
                    pb::SaveInstructionRequest {
                        environment_model_id: model.id,
                        short_instruction: (*attack).into(),
                    },
                    &token,
                ))
                .await
                .unwrap()
                .into_inner()
                .short_instruction;
            assert_harmless(attack, &saved);
            let public = client
                .get_public_instruction(tonic::Request::new(pb::GetPublicInstructionRequest {
                    environment_model_id: model.id,
                }))
                .await
                .unwrap()
                .into_inner()
                .short_instruction;
            assert_eq!(public, saved, "what is shown is what was stored");
        }
    })
    .await;
}

#[tokio::test]
async fn an_image_or_frame_whose_source_is_refused_is_dropped_whole() {
    on_each_backend(|app| async move {
        let png = "data:image/png;base64,iVBORw0KGgo=";
        let html = format!(
            "<p>Панель:</p><iframe class=\"ql-video\" src=\"https://video.example/embed/1\"></iframe><p><img src=\"data:image/gif;base64,R0lGOD\" alt=\"панель\"><img src=\"{png}\"></p><iframe src=\"{PUBLIC_URL}/api/file/download/5\"></iframe>"
        );
        let saved = app.create_model("Монитор", &html).await.short_instruction;
        assert_eq!(
            saved,
            format!(
                "<p>Панель:</p><p><img src=\"{png}\"></p><iframe src=\"{PUBLIC_URL}/api/file/download/5\" sandbox=\"{FRAME_SANDBOX}\"></iframe>"
            )
        );
    })
    .await;
}

#[tokio::test]
async fn the_portals_own_video_and_safe_formatting_survive() {
    on_each_backend(|app| async move {
        let html = format!(
            "<h2>Включение</h2><p><strong>Шаг 1.</strong> <a href=\"tel:+74950000000\">Инженер</a></p><iframe class=\"ql-video\" frameborder=\"0\" allowfullscreen=\"true\" src=\"{PUBLIC_URL}/api/file/download/5\"></iframe>"
        );
        let saved = app.create_model("Монитор", &html).await.short_instruction;
        // ammonia adds `rel` to links and `sandbox` to frames; everything else
        // stays as written.
        assert_eq!(
            saved,
            html.replace("\">Инженер", "\" rel=\"noopener noreferrer\">Инженер")
                .replace(
                    "/5\"></iframe>",
                    &format!("/5\" sandbox=\"{FRAME_SANDBOX}\"></iframe>")
                )
        );
    })
    .await;
}

#[tokio::test]
async fn an_instruction_with_photos_up_to_ten_megabytes_is_saved_and_read_back() {
    on_each_backend(|app| async move {
        let limit = portal_kit::rich_text::MAX_MESSAGE_BYTES;
        let mut client = app
            .client
            .clone()
            .max_decoding_message_size(limit)
            .max_encoding_message_size(limit);
        let model = app.create_model("Монитор", "").await;
        let save = |html: String| pb::SaveInstructionRequest {
            environment_model_id: model.id,
            short_instruction: html,
        };
        let big = rich_text_with_photo(6 * 1024 * 1024);
        client
            .save_instruction(authed(save(big.clone()), &app.editor_token()))
            .await
            .unwrap();
        let read = client
            .get_public_instruction(tonic::Request::new(pb::GetPublicInstructionRequest {
                environment_model_id: model.id,
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(read.short_instruction.len(), big.len());
        let too_big = client
            .save_instruction(authed(
                save(rich_text_with_photo(10 * 1024 * 1024)),
                &app.editor_token(),
            ))
            .await;
        assert_status(
            too_big,
            tonic::Code::InvalidArgument,
            "Инструкция не должна превышать 10 МБ",
        );
    })
    .await;
}
