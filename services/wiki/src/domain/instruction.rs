//! The short operating instruction: HTML from the editor, cleaned with ammonia
//! before it is stored (DESIGN §8), so whatever reaches the database can be
//! shown as HTML, also on the public page a device's QR code opens.
//!
//! Links only http, https, mailto, tel and sms (others lose their `href`, which
//! the editor shows as about:blank); images only PNG or JPEG data or http(s);
//! frames only the portal's own videos (the files service's downloads under
//! `PORTAL_PUBLIC_URL/api/file/download/`), sandboxed, without autoplay; links
//! to other sites open in a new tab without the opener. No scripts, no event
//! handlers, no styles.

use portal_kit::ServiceError;
use portal_kit::rich_text::{self, without_autoplay};

pub const MSG_INSTRUCTION_TOO_LARGE: &str = "Инструкция не должна превышать 10 МБ";
pub const MSG_REVISION_NOT_FOUND: &str = "Версия инструкции не найдена";

/// Images travel inside the instruction as data URLs, so it may be large.
pub const MAX_INSTRUCTION_BYTES: usize = rich_text::MAX_BYTES;

/// Where the files service serves a stored file (its contract's `File.url`).
pub const VIDEO_PATH: &str = "/api/file/download/";

/// Cleans instructions for one portal: its public URL says which frames are its
/// own videos.
pub struct Sanitizer {
    cleaner: rich_text::Cleaner,
}

impl Sanitizer {
    /// `public_url` is `PORTAL_PUBLIC_URL` (scheme, host, port, maybe a path).
    pub fn new(public_url: &str) -> Sanitizer {
        let video_prefix = format!("{}{VIDEO_PATH}", public_url.trim_end_matches('/'));
        Sanitizer {
            cleaner: rich_text::cleaner(&rich_text::origin_of(public_url), move |url| {
                own_video(url, &video_prefix)
            }),
        }
    }

    /// An instruction made safe to show as HTML; over 10 MB is refused.
    pub fn clean(&self, html: &str) -> Result<String, ServiceError> {
        if html.len() > MAX_INSTRUCTION_BYTES {
            return Err(ServiceError::invalid(MSG_INSTRUCTION_TOO_LARGE));
        }
        Ok(self.cleaner.clean(html))
    }

    /// An instruction stored under older rules, cleaned under today's.
    pub fn clean_again(&self, html: &str) -> String {
        self.cleaner.clean(html)
    }
}

/// A frame's source if it is one of the portal's videos, without `autoplay`.
fn own_video(url: &str, prefix: &str) -> Option<String> {
    let rest = url.strip_prefix(prefix)?;
    let id = rest.split(['?', '#']).next().unwrap_or_default();
    // A download path is an id: no way up and out of it.
    if id.is_empty() || id.contains("..") || id.contains(['/', '\\']) {
        return None;
    }
    Some(without_autoplay(url))
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
    fn an_oversized_instruction_is_refused() {
        let big = "x".repeat(MAX_INSTRUCTION_BYTES + 1);
        assert_eq!(
            Sanitizer::new(PORTAL).clean(&big).unwrap_err().to_string(),
            MSG_INSTRUCTION_TOO_LARGE
        );
    }
}
