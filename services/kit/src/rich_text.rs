//! Rich text from the web client's editor (Quill), cleaned with ammonia before
//! a service stores it (DESIGN §8), so whatever reaches a database can be shown
//! as HTML: links only http, https, mailto, tel and sms (others lose their
//! `href`); images only PNG or JPEG data, or http(s); no scripts, event
//! handlers or styles. Which video frames may stay is each service's rule.

use std::collections::{HashMap, HashSet};

use ammonia::{Builder, UrlRelative};

/// The editor's alignment classes.
const ALIGN_CLASSES: [&str; 3] = ["ql-align-center", "ql-align-right", "ql-align-justify"];

/// A cleaner that keeps a frame when `frame_source` gives its (cleaned) source.
pub fn cleaner<F>(frame_source: F) -> Builder<'static>
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
    builder
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
        cleaner(|url| is_web(url).then(|| without_autoplay(url)))
            .clean(html)
            .to_string()
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
            let clean = sanitize(&format!(r#"<img src="{dropped}">"#));
            assert!(!clean.contains("src"), "{dropped}: {clean}");
        }
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
