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

/// Frames only from the portal and `PORTAL_FRAME_HOSTS`, sandboxed; links to
/// other sites in a new tab; an article stored before these rules loses its
/// foreign frame when the service starts.
#[tokio::test]
async fn articles_frame_only_the_portal_and_the_allowed_hosts_also_when_stored_before() {
    on_each_backend(|app| async move {
        let foreign = r#"<iframe src="https://evil.example/"></iframe>"#;
        let allowed = format!(
            r#"<iframe class="ql-video" src="https://{FRAME_HOST}/play/embed/1"></iframe>"#
        );
        let own =
            format!(r#"<iframe class="ql-video" src="{PORTAL}/api/file/download/3"></iframe>"#);
        let link = r#"<a href="https://who.int/">ВОЗ</a>"#;
        let created = app
            .create_article(&format!("<p>Видео</p>{foreign}{allowed}{own}{link}"), 0)
            .await;
        let saved = created.content;
        assert!(!saved.contains("evil.example"), "{saved}");
        assert_eq!(
            saved
                .matches(r#"sandbox="allow-scripts allow-same-origin allow-presentation""#)
                .count(),
            2,
            "{saved}"
        );
        assert!(
            saved.contains(&format!("https://{FRAME_HOST}/play/embed/1")),
            "{saved}"
        );
        assert!(saved.contains("/api/file/download/3"), "{saved}");
        assert!(
            saved.contains(
                r#"<a href="https://who.int/" rel="noopener noreferrer" target="_blank">"#
            ),
            "{saved}"
        );

        // Stored under the old rules, behind the service's back.
        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        sqlx::query("UPDATE articles SET content = $1")
            .bind(format!("<p>Старое</p>{foreign}"))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        portal_education::routes(app.settings())
            .await
            .expect("a restart");
        let article = app
            .client
            .clone()
            .get_article(authed(
                pb::GetArticleRequest {
                    article_id: created.id,
                },
                &app.admin_token(),
            ))
            .await
            .unwrap()
            .into_inner()
            .article
            .unwrap();
        assert_eq!(article.content, "<p>Старое</p>", "on {:?}", app.backend);
        // The portal's own rewrite, recorded as the portal's.
        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        let (actor, entity, id, changes): (String, String, i64, String) = sqlx::query_as(
            "SELECT actor_kind, entity, entity_id, changes FROM audit_records ORDER BY id DESC LIMIT 1",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        pool.close().await;
        assert_eq!((actor.as_str(), entity.as_str(), id), ("system", "article", created.id));
        assert!(changes.contains("\"field\":\"content\""), "{changes}");
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
            date_deadline: "2099-01-31".into(),
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
