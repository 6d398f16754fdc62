//! Rich text from the web client's editor (Quill), cleaned with ammonia before
//! a service stores it (DESIGN §8), so whatever reaches a database can be shown
//! as HTML: links only http, https, mailto, tel and sms (others lose their
//! `href`); images only PNG or JPEG data, or http(s); no scripts, event
//! handlers or styles. Which video frames may stay is each service's rule. An
//! image or frame whose source is refused goes whole: left without one, it
//! would show as an empty box (the public instruction page, on a phone).

use std::collections::{HashMap, HashSet};

use ammonia::{Builder, UrlRelative};
use lol_html::{RewriteStrSettings, element, rewrite_str};

/// Images travel inside rich text as data URLs, so it may be large: an
/// article's content and an equipment instruction hold up to 10 MB each.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

/// The largest gRPC message carrying rich text, for the services that read one
/// and for their callers: the text at its limit with room for the rest of the
/// message, so an oversized text meets its service's Russian message rather
/// than the transport's 4 MB default.
pub const MAX_MESSAGE_BYTES: usize = MAX_BYTES + 1024 * 1024;

/// The editor's alignment classes.
const ALIGN_CLASSES: [&str; 3] = ["ql-align-center", "ql-align-right", "ql-align-justify"];

/// Cleans rich text: ammonia, then the media it left without a source dropped.
pub struct Cleaner {
    builder: Builder<'static>,
}

impl Cleaner {
    pub fn clean(&self, html: &str) -> String {
        without_sourceless_media(self.builder.clean(html).to_string())
    }
}

/// Drops every `img` and `iframe` without a `src` (ammonia refused it).
///
/// ammonia can remove an attribute, or a tag by name, but not an element
/// because of its attributes; lol_html (Cloudflare's streaming rewriter, with
/// CSS selectors) does that on ammonia's well-formed output. Removing elements
/// from clean HTML leaves it clean; should the rewriter fail, ammonia's output
/// is kept as it is, safe with its empty boxes.
fn without_sourceless_media(html: String) -> String {
    let settings = RewriteStrSettings::new().append_element_content_handler(element!(
        "img:not([src]), iframe:not([src])",
        |element| {
            element.remove();
            Ok(())
        }
    ));
    match rewrite_str(&html, settings) {
        Ok(rewritten) => rewritten,
        Err(error) => {
            tracing::warn!(%error, "rich text kept with its sourceless media");
            html
        }
    }
}

/// A cleaner that keeps a frame when `frame_source` gives its (cleaned) source.
pub fn cleaner<F>(frame_source: F) -> Cleaner
where
    F: Fn(&str) -> Option<String> + Send + Sync + 'static,
{
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
        .attribute_filter(
            move |element, attribute, value| match (element, attribute) {
                ("img", "src") => image_source(value).then_some(value.into()),
                ("iframe", "src") => frame_source(value).map(Into::into),
                (_, "href" | "src" | "cite") if is_data(value) => None,
                _ => Some(value.into()),
            },
        );
    Cleaner { builder }
}

fn is_data(url: &str) -> bool {
    url.trim_start()
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// An http or https URL.
pub fn is_web(url: &str) -> bool {
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

/// A URL with any `autoplay` (or `auto_play`) query parameter removed.
pub fn without_autoplay(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, query),
        None => return url.to_owned(),
    };
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            !name.is_empty()
                && !name.eq_ignore_ascii_case("autoplay")
                && !name.eq_ignore_ascii_case("auto_play")
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
    cleaned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sanitize(html: &str) -> String {
        cleaner(|url| is_web(url).then(|| without_autoplay(url))).clean(html)
    }

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
            let clean = sanitize(&format!(r#"<p>Панель<img src="{dropped}" alt="x"></p>"#));
            assert_eq!(clean, "<p>Панель</p>", "{dropped}");
        }
    }

    #[test]
    fn a_frame_whose_source_is_refused_goes_whole() {
        let clean = sanitize(
            r#"<p>Видео:</p><iframe class="ql-video" src="javascript:alert(1)"></iframe><iframe></iframe><p>Конец</p>"#,
        );
        assert_eq!(clean, "<p>Видео:</p><p>Конец</p>");
    }

    #[test]
    fn autoplay_leaves_a_url_and_the_rest_stays() {
        assert_eq!(
            without_autoplay("https://v.example/1?autoplay=1&start=5#t"),
            "https://v.example/1?start=5#t"
        );
        assert_eq!(
            without_autoplay("https://v.example/1?AutoPlay=true&auto_play=1"),
            "https://v.example/1"
        );
        assert_eq!(
            without_autoplay("https://v.example/1"),
            "https://v.example/1"
        );
    }
}
