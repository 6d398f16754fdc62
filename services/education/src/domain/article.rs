//! Articles (статьи): a title, a description, rich content and a deadline.
//!
//! The content is HTML from the web client's editor. It is cleaned with ammonia
//! before it is stored (DESIGN §8), so whatever reaches the database can be
//! shown as HTML: links only http, https, mailto, tel and sms (to other sites
//! in a new tab, without the opener); images only PNG or JPEG data or http(s);
//! video frames only from the portal itself and the hosts of
//! `PORTAL_FRAME_HOSTS`, sandboxed, without autoplay. Content stored under
//! older rules is cleaned again when the service starts.

use portal_kit::ServiceError;
use portal_kit::rich_text::{self, Frames, without_autoplay};
use portal_kit::text::{Field, Shape};

use super::date::Day;
use super::text::{MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS};

pub const MSG_TITLE_REQUIRED: &str = "Введите название статьи";
pub const MSG_TITLE_TOO_LONG: &str = "Название статьи не должно превышать 300 символов";
pub const MSG_DESCRIPTION_REQUIRED: &str = "Введите описание статьи";
pub const MSG_DESCRIPTION_TOO_LONG: &str = "Описание статьи не должно превышать 5000 символов";
pub const MSG_DEADLINE_REQUIRED: &str = "Укажите срок прохождения статьи";
pub const MSG_CONTENT_TOO_LARGE: &str = "Содержимое статьи не должно превышать 10 МБ";
pub const MSG_ARTICLE_NOT_FOUND: &str = "Статья не найдена";

const TITLE: Field = Field {
    required: MSG_TITLE_REQUIRED,
    too_long: MSG_TITLE_TOO_LONG,
    hidden: "Название статьи не должно содержать невидимых и управляющих символов",
    max_chars: MAX_TITLE_CHARS,
    shape: Shape::Line,
};
const DESCRIPTION: Field = Field {
    required: MSG_DESCRIPTION_REQUIRED,
    too_long: MSG_DESCRIPTION_TOO_LONG,
    hidden: "Описание статьи не должно содержать невидимых и управляющих символов",
    max_chars: MAX_DESCRIPTION_CHARS,
    shape: Shape::Lines,
};

/// Images travel inside the content as data URLs, so it may be large.
pub const MAX_CONTENT_BYTES: usize = rich_text::MAX_BYTES;

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
        cleaner: &ContentCleaner,
        title: &str,
        description: &str,
        content: &str,
        deadline: &str,
        test_id: i64,
    ) -> Result<ArticleDraft, ServiceError> {
        let title = TITLE.required(title)?;
        let description = DESCRIPTION.required(description)?;
        let deadline = Day::required(deadline, MSG_DEADLINE_REQUIRED)?;
        if content.len() > MAX_CONTENT_BYTES {
            return Err(ServiceError::invalid(MSG_CONTENT_TOO_LARGE));
        }
        Ok(ArticleDraft {
            title,
            description,
            content: cleaner.clean(content),
            deadline,
            test_id: (test_id > 0).then_some(test_id),
        })
    }
}

/// Makes article content safe to show as HTML; frames only where `Frames`
/// allows, without autoplay.
pub struct ContentCleaner(rich_text::Cleaner);

impl ContentCleaner {
    pub fn new(frames: Frames) -> ContentCleaner {
        let origin = frames.origin().to_owned();
        ContentCleaner(rich_text::cleaner(&origin, move |url| {
            frames.allows(url).then(|| without_autoplay(url))
        }))
    }

    pub fn clean(&self, html: &str) -> String {
        self.0.clean(html)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaner() -> ContentCleaner {
        let hosts = rich_text::FrameHosts::parse("video.example").unwrap();
        ContentCleaner::new(Frames::new("https://portal.example", hosts))
    }

    fn sanitize(html: &str) -> String {
        cleaner().clean(html)
    }

    #[test]
    fn video_frames_lose_autoplay_and_foreign_sources() {
        let clean = sanitize(
            r#"<iframe class="ql-video" frameborder="0" allowfullscreen="true" allow="autoplay" src="https://video.example/embed/1?autoplay=1&amp;start=5"></iframe>"#,
        );
        assert!(
            clean.contains(r#"src="https://video.example/embed/1?start=5""#),
            "{clean}"
        );
        assert!(clean.contains(r#"sandbox="allow-scripts"#), "{clean}");
        assert!(!clean.contains("autoplay"), "{clean}");
        for foreign in [
            "javascript:alert(1)",
            "https://evil.example/",
            "http://video.example/embed/1",
        ] {
            let clean = sanitize(&format!(r#"<p>x</p><iframe src="{foreign}"></iframe>"#));
            assert_eq!(clean, "<p>x</p>", "{foreign}");
        }
        let own = sanitize(r#"<iframe src="https://portal.example/api/file/download/7"></iframe>"#);
        assert!(own.contains("/api/file/download/7"), "{own}");
    }

    #[test]
    fn a_draft_needs_title_description_and_deadline() {
        let parse = |t, d, dl| {
            ArticleDraft::parse(&cleaner(), t, d, "<p>x</p>", dl, 0)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(parse("", "Описание", "2026-12-31"), MSG_TITLE_REQUIRED);
        assert_eq!(parse("Статья", " ", "2026-12-31"), MSG_DESCRIPTION_REQUIRED);
        assert_eq!(parse("Статья", "Описание", ""), MSG_DEADLINE_REQUIRED);
    }
}
