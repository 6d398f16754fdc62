//! Article content is sanitised on save (DESIGN §8): the XSS corpus goes in
//! through CreateArticle and comes back harmless. Photos travel inside it, up
//! to its 10 MB.

use portal_education::domain::article::MSG_CONTENT_TOO_LARGE;
use portal_proto::education::v1 as pb;
use tonic::Code;

use portal_kit::testing::{XSS_CORPUS, assert_defused, rich_text_with_photo};

use crate::helpers::*;

#[tokio::test]
async fn the_xss_corpus_is_defused_on_save() {
    on_each_backend(|app| async move {
        for attack in XSS_CORPUS {
            assert_defused(attack, &app.create_article(attack, 0).await.content);
        }
        let kept = app
            .create_article(
                "<p><strong>Гигиена</strong> <a href=\"https://who.int/\">ВОЗ</a></p>",
                0,
            )
            .await;
        assert!(
            kept.content.contains("<strong>Гигиена</strong>"),
            "{}",
            kept.content
        );
        assert!(
            kept.content.contains("href=\"https://who.int/\""),
            "{}",
            kept.content
        );
    })
    .await;
}

#[tokio::test]
async fn an_article_with_a_photo_up_to_ten_megabytes_is_saved_and_a_larger_one_refused() {
    on_each_backend(|app| async move {
        let limit = portal_kit::rich_text::MAX_MESSAGE_BYTES;
        let mut client = app
            .client
            .clone()
            .max_decoding_message_size(limit)
            .max_encoding_message_size(limit);
        let article = |content: String| pb::CreateArticleRequest {
            title: "Схема отделения".into(),
            description: "С фотографией".into(),
            content,
            date_deadline: "2030-01-31".into(),
            test_id: 0,
        };
        // Over the transport's 4 MB default, within the promised 10 MB.
        let content = rich_text_with_photo(9 * 1000 * 1000);
        let saved = client
            .create_article(authed(article(content.clone()), &app.admin_token()))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(saved.article.unwrap().content, content);
        assert_status(
            client
                .create_article(authed(
                    article(rich_text_with_photo(11 * 1000 * 1000)),
                    &app.admin_token(),
                ))
                .await,
            Code::InvalidArgument,
            MSG_CONTENT_TOO_LARGE,
        );
    })
    .await;
}
