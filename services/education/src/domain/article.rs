//! Articles (статьи): a title, a description, rich content and a deadline.
//!
//! The content is HTML from the web client's editor. It is cleaned with ammonia
//! before it is stored (DESIGN §8), so whatever reaches the database can be
//! shown as HTML: links only http, https, mailto, tel and sms; images only PNG
//! or JPEG data or http(s); video frames only from http(s), without autoplay.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};
use portal_kit::ServiceError;

use super::date::Day;
use super::text::{MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS, required};

pub const MSG_TITLE_REQUIRED: &str = "Введите название статьи";
pub const MSG_TITLE_TOO_LONG: &str = "Название статьи не должно превышать 300 символов";
pub const MSG_DESCRIPTION_REQUIRED: &str = "Введите описание статьи";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Описание статьи не должно превышать 5000 символов";
pub const MSG_DEADLINE_REQUIRED: &str = "Укажите срок прохождения статьи";
pub const MSG_CONTENT_TOO_LARGE: &str = "Содержимое статьи не должно превышать 10 МБ";
pub const MSG_ARTICLE_NOT_FOUND: &str = "Статья не найдена";

/// Images travel inside the content as data URLs, so it may be large.
pub const MAX_CONTENT_BYTES: usize = 10 * 1024 * 1024;

/// What creating or updating an article writes.
#[derive(Clone, Debug)]
pub struct ArticleDraft {
    pub title: String,
    pub description: String,
    pub content: String,
    pub deadline: Day,
    /// The linked test, if any; whether it exists is the store's question.
    pub test_id: Option<i64>,
}

impl ArticleDraft {
    pub fn parse(
        title: &str,
        description: &str,
        content: &str,
        deadline: &str,
        test_id: i64,
    ) -> Result<ArticleDraft, ServiceError> {
        let title = required(
            title,
            MAX_TITLE_CHARS,
            MSG_TITLE_REQUIRED,
            MSG_TITLE_TOO_LONG,
        )?;
        let description = required(
            description,
            MAX_DESCRIPTION_CHARS,
            MSG_DESCRIPTION_REQUIRED,
            MSG_DESCRIPTION_TOO_LONG,
        )?;
        let deadline = Day::required(deadline, MSG_DEADLINE_REQUIRED)?;
        if content.len() > MAX_CONTENT_BYTES {
            return Err(ServiceError::invalid(MSG_CONTENT_TOO_LARGE));
        }
        Ok(ArticleDraft {
            title,
            description,
            content: sanitize(content),
            deadline,
            test_id: (test_id > 0).then_some(test_id),
        })
    }
}

static CLEANER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut builder = Builder::default();
    builder
        .add_tags(["iframe"])
        .add_tag_attributes("iframe", ["src", "frameborder", "allowfullscreen"])
        .add_tag_attributes("img", ["src", "alt", "width", "height"])
        .url_schemes(HashSet::from([
            "http", "https", "mailto", "tel", "sms", "data",
        ]))
        .url_relative(UrlRelative::Deny)
        .allowed_classes(HashMap::from_iter(
            ["p", "h1", "h2", "h3", "li", "span"]
                .into_iter()
                .map(|tag| (tag, HashSet::from(ALIGN_CLASSES)))
                .chain([("iframe", HashSet::from(["ql-video"]))]),
        ))
        .attribute_filter(|element, attribute, value| match (element, attribute) {
            ("img", "src") => image_source(value).then_some(value.into()),
            ("iframe", "src") => video_source(value).map(Into::into),
            (_, "href" | "src" | "cite") if is_data(value) => None,
            _ => Some(value.into()),
        });
    builder
});

/// The editor's alignment classes.
const ALIGN_CLASSES: [&str; 3] = ["ql-align-center", "ql-align-right", "ql-align-justify"];

fn is_data(url: &str) -> bool {
    url.trim_start()
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

fn is_web(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// PNG or JPEG data, or an image on the web.
fn image_source(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    is_web(url)
        || lower.starts_with("data:image/png;base64,")
        || lower.starts_with("data:image/jpeg;base64,")
}

/// A frame's source on the web, with any `autoplay` parameter removed.
fn video_source(url: &str) -> Option<String> {
    if !is_web(url) {
        return None;
    }
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, query),
        None => return Some(url.to_owned()),
    };
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            !name.eq_ignore_ascii_case("autoplay")
        })
        .collect();
    let mut cleaned = base.to_owned();
    if !kept.is_empty() {
        cleaned.push('?');
        cleaned.push_str(&kept.join("&"));
    }
    if let Some(fragment) = fragment {
        cleaned.push('#');
        cleaned.push_str(fragment);
    }
    Some(cleaned)
}

/// Rich content made safe to show as HTML.
pub fn sanitize(html: &str) -> String {
    CLEANER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_formatting_survives() {
        let html = r#"<h2 class="ql-align-center">Гигиена рук</h2><p><strong>Шаг 1.</strong> <em>Намочите</em> руки</p><ol><li>Мыло</li></ol><a href="https://who.int/">ВОЗ</a>"#;
        let clean = sanitize(html);
        assert!(
            clean.contains(r#"<h2 class="ql-align-center">Гигиена рук</h2>"#),
            "{clean}"
        );
        assert!(clean.contains("<strong>Шаг 1.</strong>"), "{clean}");
        assert!(clean.contains(r#"href="https://who.int/""#), "{clean}");
    }

    #[test]
    fn only_safe_link_schemes_stay() {
        for kept in [
            "http://a.example/",
            "https://a.example/",
            "mailto:a@b.example",
            "tel:+70000000000",
            "sms:+70000000000",
        ] {
            let clean = sanitize(&format!(r#"<a href="{kept}">x</a>"#));
            assert!(clean.contains(&format!(r#"href="{kept}""#)), "{clean}");
        }
        for dropped in [
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:x",
            "/relative",
            "file:///etc/passwd",
        ] {
            let clean = sanitize(&format!(r#"<a href="{dropped}">x</a>"#));
            assert!(!clean.contains("href"), "{dropped}: {clean}");
        }
    }

    #[test]
    fn images_are_png_or_jpeg_data_or_web_images() {
        for kept in [
            "data:image/png;base64,iVBORw0KGgo=",
            "data:image/jpeg;base64,/9j/4AAQ",
            "https://a.example/x.png",
        ] {
            assert!(sanitize(&format!(r#"<img src="{kept}">"#)).contains(kept));
        }
        for dropped in [
            "data:image/svg+xml;base64,PHN2Zz4=",
            "data:image/gif;base64,R0lGOD",
            "javascript:alert(1)",
        ] {
            let clean = sanitize(&format!(r#"<img src="{dropped}">"#));
            assert!(!clean.contains("src"), "{dropped}: {clean}");
        }
    }

    #[test]
    fn video_frames_lose_autoplay_and_foreign_schemes() {
        let clean = sanitize(
            r#"<iframe class="ql-video" frameborder="0" allowfullscreen="true" allow="autoplay" src="https://video.example/embed/1?autoplay=1&amp;start=5"></iframe>"#,
        );
        assert!(
            clean.contains(r#"src="https://video.example/embed/1?start=5""#),
            "{clean}"
        );
        assert!(!clean.contains("autoplay"), "{clean}");
        let clean = sanitize(r#"<iframe src="javascript:alert(1)"></iframe>"#);
        assert!(!clean.contains("javascript"), "{clean}");
    }

    #[test]
    fn a_draft_needs_title_description_and_deadline() {
        let parse = |t, d, dl| {
            ArticleDraft::parse(t, d, "<p>x</p>", dl, 0)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(parse("", "Описание", "2026-12-31"), MSG_TITLE_REQUIRED);
        assert_eq!(parse("Статья", " ", "2026-12-31"), MSG_DESCRIPTION_REQUIRED);
        assert_eq!(parse("Статья", "Описание", ""), MSG_DEADLINE_REQUIRED);
    }
}
