//! The short operating instruction: HTML from the editor, cleaned with ammonia
//! before it is stored (DESIGN §8), so whatever reaches the database can be
//! shown as HTML, also on the public page a device's QR code opens.
//!
//! Links only http, https, mailto, tel and sms (others lose their `href`, which
//! the editor shows as about:blank); images only PNG or JPEG data or http(s);
//! frames only the portal's own videos (the files service's downloads under
//! `PORTAL_PUBLIC_URL/api/file/download/`), without autoplay. No scripts, no
//! event handlers, no styles.

use std::collections::{HashMap, HashSet};

use ammonia::{Builder, UrlRelative};
use portal_kit::ServiceError;

pub const MSG_INSTRUCTION_TOO_LARGE: &str = "Инструкция не должна превышать 10 МБ";

/// Images travel inside the instruction as data URLs, so it may be large.
pub const MAX_INSTRUCTION_BYTES: usize = 10 * 1024 * 1024;

/// Where the files service serves a stored file (its contract's `File.url`).
pub const VIDEO_PATH: &str = "/api/file/download/";

/// The editor's alignment classes.
const ALIGN_CLASSES: [&str; 3] = ["ql-align-center", "ql-align-right", "ql-align-justify"];

/// Cleans instructions for one portal: its public URL says which frames are its
/// own videos.
pub struct Sanitizer {
    builder: Builder<'static>,
}

impl Sanitizer {
    /// `public_url` is `PORTAL_PUBLIC_URL` (scheme, host, port, maybe a path).
    pub fn new(public_url: &str) -> Sanitizer {
        let video_prefix = format!("{}{VIDEO_PATH}", public_url.trim_end_matches('/'));
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
                    ("iframe", "src") => own_video(value, &video_prefix).map(Into::into),
                    (_, "href" | "src" | "cite") if is_data(value) => None,
                    _ => Some(value.into()),
                },
            );
        Sanitizer { builder }
    }

    /// An instruction made safe to show as HTML; over 10 MB is refused.
    pub fn clean(&self, html: &str) -> Result<String, ServiceError> {
        if html.len() > MAX_INSTRUCTION_BYTES {
            return Err(ServiceError::invalid(MSG_INSTRUCTION_TOO_LARGE));
        }
        Ok(self.builder.clean(html).to_string())
    }
}

fn is_data(url: &str) -> bool {
    url.trim_start()
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// PNG or JPEG data, or an image on the web.
fn image_source(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("data:image/png;base64,")
        || lower.starts_with("data:image/jpeg;base64,")
}

/// A frame's source if it is one of the portal's videos, without `autoplay`.
fn own_video(url: &str, prefix: &str) -> Option<String> {
    let rest = url.strip_prefix(prefix)?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let (path, path_fragment) = match path.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (path, None),
    };
    // A download path is an id: no way up and out of it.
    if path.is_empty() || path.contains("..") || path.contains('\\') {
        return None;
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            !name.is_empty() && !name.eq_ignore_ascii_case("autoplay")
        })
        .collect();
    let mut cleaned = format!("{prefix}{path}");
    if !kept.is_empty() {
        cleaned.push('?');
        cleaned.push_str(&kept.join("&"));
    }
    if let Some(fragment) = fragment.or(path_fragment) {
        cleaned.push('#');
        cleaned.push_str(fragment);
    }
    Some(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORTAL: &str = "https://portal.example";

    fn clean(html: &str) -> String {
        Sanitizer::new(PORTAL).clean(html).unwrap()
    }

    #[test]
    fn the_editors_formatting_survives() {
        let clean = clean(
            r#"<h2 class="ql-align-center">Включение</h2><p><strong>1.</strong> Нажмите <em>«Пуск»</em></p><ol><li>Проверьте</li></ol><a href="tel:+70000000000">Инженер</a>"#,
        );
        assert!(
            clean.contains(r#"<h2 class="ql-align-center">Включение</h2>"#),
            "{clean}"
        );
        assert!(clean.contains("<strong>1.</strong>"), "{clean}");
        assert!(clean.contains(r#"href="tel:+70000000000""#), "{clean}");
    }

    #[test]
    fn only_safe_link_schemes_stay() {
        for kept in ["http://a/", "https://a/", "mailto:a@b", "tel:1", "sms:1"] {
            let out = clean(&format!(r#"<a href="{kept}">x</a>"#));
            assert!(out.contains(&format!(r#"href="{kept}""#)), "{out}");
        }
        for dropped in [
            "javascript:alert(1)",
            "data:text/html,x",
            "/relative",
            "file:///etc",
        ] {
            let out = clean(&format!(r#"<a href="{dropped}">x</a>"#));
            assert!(!out.contains("href"), "{dropped}: {out}");
        }
    }

    #[test]
    fn frames_are_only_the_portals_own_videos_without_autoplay() {
        let own = clean(&format!(
            r#"<iframe class="ql-video" allowfullscreen="true" allow="autoplay" src="{PORTAL}/api/file/download/12?autoplay=1&amp;t=5"></iframe>"#
        ));
        assert!(
            own.contains(&format!(r#"src="{PORTAL}/api/file/download/12?t=5""#)),
            "{own}"
        );
        assert!(!own.contains("autoplay"), "{own}");
        for foreign in [
            "https://video.example/embed/1",
            "https://portal.example.evil.example/api/file/download/1",
            "https://portal.example/api/file/download/../../api/auth/logout",
            "https://portal.example/api/user/get-all-user",
            "javascript:alert(1)",
        ] {
            let out = clean(&format!(r#"<iframe src="{foreign}"></iframe>"#));
            assert!(!out.contains("src="), "{foreign}: {out}");
        }
    }

    #[test]
    fn images_are_png_or_jpeg_data_or_web_images() {
        assert!(clean(r#"<img src="data:image/png;base64,iVBO">"#).contains("src="));
        assert!(!clean(r#"<img src="data:image/svg+xml;base64,PHN2Zz4=">"#).contains("src="));
    }

    #[test]
    fn an_oversized_instruction_is_refused() {
        let big = "x".repeat(MAX_INSTRUCTION_BYTES + 1);
        assert_eq!(
            Sanitizer::new(PORTAL).clean(&big).unwrap_err().to_string(),
            MSG_INSTRUCTION_TOO_LARGE
        );
    }
}
