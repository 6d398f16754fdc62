//! Article content is sanitised on save (DESIGN §8): the XSS corpus goes in
//! through CreateArticle and comes back harmless.

use crate::helpers::*;

/// Attacks from the OWASP XSS filter evasion cheat sheet, and the ones a rich
/// text editor's HTML invites.
const CORPUS: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<img src=\"javascript:alert(1)\">",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"&#106;avascript:alert(1)\">x</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<body onload=alert(1)>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<form action=\"javascript:alert(1)\"><input type=submit></form>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<p onclick=\"alert(1)\">x</p>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<img src=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\">",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<iframe src=\"https://video.example/embed/1?autoplay=1\" allow=\"autoplay\"></iframe>",
];

const FORBIDDEN: &[&str] = &[
    "<script",
    "onerror",
    "onload",
    "onclick",
    "javascript:",
    "<svg",
    "srcdoc",
    "<object",
    "<embed",
    "<form",
    "<meta",
    "<link",
    "style=",
    "data:text",
    "data:image/svg",
    "autoplay",
];

#[tokio::test]
async fn the_xss_corpus_is_defused_on_save() {
    on_each_backend(|app| async move {
        for attack in CORPUS {
            let stored = app.create_article(attack, 0).await.content.to_lowercase();
            for forbidden in FORBIDDEN {
                assert!(!stored.contains(forbidden), "{attack} stored as {stored}");
            }
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
