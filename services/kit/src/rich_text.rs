//! Rich text from the web client's editor (Quill), cleaned with ammonia before
//! a service stores it (DESIGN §8), so whatever reaches a database can be shown
//! as HTML: links only http, https, mailto, tel and sms (others lose their
//! `href`); images only PNG or JPEG data, or http(s); no scripts, event
//! handlers or styles. Which video frames may stay is each service's rule
//! (never beyond the portal's own origin and `PORTAL_FRAME_HOSTS`, which the
//! gateway's CSP `frame-src` also names), and every frame that stays is
//! sandboxed. Links to other sites open in a new tab with
//! `rel="noopener noreferrer"`. An image or frame whose source is refused goes
//! whole: left without one, it would show as an empty box (the public
//! instruction page, on a phone).

use std::collections::{HashMap, HashSet};

use ammonia::{Builder, UrlRelative};
use lol_html::{RewriteStrSettings, element, rewrite_str};
use sqlx::{AnyConnection, AnyPool, AssertSqlSafe};

use crate::audit::{self, AuditContext, Changes, Event, action};
use crate::error::ServiceResult;

/// Images travel inside rich text as data URLs, so it may be large: an
/// article's content and an equipment instruction hold up to 10 MB each.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

/// The largest gRPC message carrying rich text, for the services that read one
/// and for their callers: the text at its limit with room for the rest of the
/// message, so an oversized text meets its service's Russian message rather
/// than the transport's 4 MB default.
pub const MAX_MESSAGE_BYTES: usize = MAX_BYTES + 1024 * 1024;

/// What a frame that stays may do: play its video, fullscreen and all, but not
/// navigate the portal's page, open pop-ups or submit forms.
pub const FRAME_SANDBOX: &str = "allow-scripts allow-same-origin allow-presentation";

/// The `rel` of every link.
const LINK_REL: &str = "noopener noreferrer";

/// The editor's alignment classes.
const ALIGN_CLASSES: [&str; 3] = ["ql-align-center", "ql-align-right", "ql-align-justify"];

/// Cleans rich text: ammonia, then the media it left without a source dropped
/// and links to other sites made to open in a new tab.
pub struct Cleaner {
    builder: Builder<'static>,
    origin: String,
}

impl Cleaner {
    pub fn clean(&self, html: &str) -> String {
        self.finished(self.builder.clean(html).to_string())
    }

    /// Drops every `img` and `iframe` without a `src` (ammonia refused it) and
    /// gives links to other sites `target="_blank"`.
    ///
    /// ammonia can remove an attribute, or a tag by name, but not an element
    /// because of its attributes, and it sets an attribute on every element of
    /// a tag or none; lol_html (Cloudflare's streaming rewriter, with CSS
    /// selectors) does both on ammonia's well-formed output. Removing elements
    /// from clean HTML, or opening its links elsewhere, leaves it clean; should
    /// the rewriter fail, ammonia's output is kept as it is, safe with its
    /// empty boxes.
    fn finished(&self, html: String) -> String {
        let origin = self.origin.as_str();
        let settings = RewriteStrSettings::new()
            .append_element_content_handler(element!(
                "img:not([src]), iframe:not([src])",
                |element| {
                    element.remove();
                    Ok(())
                }
            ))
            .append_element_content_handler(element!("a[href]", move |element| {
                let href = element.get_attribute("href").unwrap_or_default();
                if is_web(&href) && !is_under(&href, origin) {
                    element.set_attribute("target", "_blank")?;
                }
                Ok(())
            }));
        match rewrite_str(&html, settings) {
            Ok(rewritten) => rewritten,
            Err(error) => {
                tracing::warn!(%error, "rich text kept with its sourceless media");
                html
            }
        }
    }
}

/// Rich text stored in a column: where it is, and how the audit log names
/// its rows and the field.
#[derive(Clone, Copy, Debug)]
pub struct Stored {
    pub table: &'static str,
    pub column: &'static str,
    pub entity: &'static str,
    pub field: &'static str,
}

/// Cleaning the rich text stored in `column` of every row of `table` (with an
/// `id` key) again, so text saved under older rules follows today's: the rows
/// whose text changes, one at a time (a text may be 10 MB), read on the pool.
/// Each is written back by [`Recleaned::write`] in a write transaction of the
/// caller's store.
pub struct Recleaning<F> {
    stored: Stored,
    clean: F,
    ids: std::vec::IntoIter<i64>,
}

impl<F: Fn(&str) -> String> Recleaning<F> {
    /// Every row of `stored`'s table, to be cleaned with `clean`.
    pub async fn start(pool: &AnyPool, stored: Stored, clean: F) -> ServiceResult<Recleaning<F>> {
        let table = stored.table;
        let ids: Vec<i64> =
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT id FROM {table} ORDER BY id")))
                .fetch_all(pool)
                .await?;
        Ok(Recleaning {
            stored,
            clean,
            ids: ids.into_iter(),
        })
    }

    /// The next row whose text cleaning changes; none after the last.
    pub async fn next(&mut self, pool: &AnyPool) -> ServiceResult<Option<Recleaned>> {
        let Stored { table, column, .. } = self.stored;
        for id in self.ids.by_ref() {
            let text: Option<String> = sqlx::query_scalar(AssertSqlSafe(format!(
                "SELECT {column} FROM {table} WHERE id = $1"
            )))
            .bind(id)
            .fetch_optional(pool)
            .await?;
            let Some(text) = text else { continue };
            let cleaned = (self.clean)(&text);
            if cleaned != text {
                return Ok(Some(Recleaned {
                    stored: self.stored,
                    id,
                    text,
                    cleaned,
                }));
            }
        }
        Ok(None)
    }
}

/// A row's text and the same cleaned again.
pub struct Recleaned {
    stored: Stored,
    id: i64,
    text: String,
    cleaned: String,
}

impl Recleaned {
    /// Writes the cleaned text back in `conn`'s write transaction, only where
    /// nobody saved the row meanwhile, the change recorded as the portal's
    /// own.
    pub async fn write(&self, conn: &mut AnyConnection) -> ServiceResult<()> {
        let Stored {
            table,
            column,
            entity,
            field,
        } = self.stored;
        let updated = sqlx::query(AssertSqlSafe(format!(
            "UPDATE {table} SET {column} = $1 WHERE id = $2 AND {column} = $3"
        )))
        .bind(&self.cleaned)
        .bind(self.id)
        .bind(&self.text)
        .execute(&mut *conn)
        .await?;
        if updated.rows_affected() > 0 {
            let changes =
                Changes::new().field(field, Fingerprint(&self.text), Fingerprint(&self.cleaned));
            let event = Event::new(entity, self.id, action::UPDATE).changes(changes);
            audit::record(conn, &AuditContext::system(), event).await?;
        }
        Ok(())
    }
}

/// What the audit log keeps of rich text: its length in characters and the
/// first 16 hex digits of its SHA-256. Enough to see that it changed, and to
/// match it to a revision, without copying megabytes of HTML (photos inside)
/// into every record; the revisions keep the text itself.
pub struct Fingerprint<'a>(pub &'a str);

impl serde::Serialize for Fingerprint<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_fingerprint(self.0, serializer)
    }
}

/// A field of rich text as its [`Fingerprint`] (`#[serde(serialize_with)]`).
pub fn serialize_fingerprint<S: serde::Serializer>(
    html: &str,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(html.as_bytes()));
    let mut fingerprint = serializer.serialize_struct("Fingerprint", 2)?;
    fingerprint.serialize_field("chars", &html.chars().count())?;
    fingerprint.serialize_field("sha256", &digest[..16])?;
    fingerprint.end()
}

/// The origin (`scheme://host[:port]`, lower case) of an absolute URL such as
/// `PORTAL_PUBLIC_URL`.
pub fn origin_of(url: &str) -> String {
    let url = url.trim();
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    url[..end].to_ascii_lowercase()
}

/// Whether `url` is on `origin` (`scheme://host[:port]`).
fn is_under(url: &str, origin: &str) -> bool {
    let url = url.trim_start();
    url.get(..origin.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(origin))
        && matches!(
            url.as_bytes().get(origin.len()),
            None | Some(b'/' | b'?' | b'#')
        )
}

/// `PORTAL_FRAME_HOSTS`: the hosts besides the portal itself whose pages rich
/// text may frame over https (video players), e.g. `rutube.ru,www.youtube.com`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameHosts(Vec<String>);

impl FrameHosts {
    /// Comma-separated host names (a port allowed); blanks are skipped.
    pub fn parse(list: &str) -> Result<FrameHosts, String> {
        let mut hosts = Vec::new();
        for host in list.split(',').map(str::trim).filter(|h| !h.is_empty()) {
            let name = host.split_once(':').map_or(host, |(name, _)| name);
            let port_ok = host
                .split_once(':')
                .is_none_or(|(_, port)| port.parse::<u16>().is_ok());
            let name_ok = !name.is_empty()
                && !name.starts_with(['.', '-'])
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'));
            if !(name_ok && port_ok) {
                return Err(format!(
                    "'{host}' is not a host name (expected hosts separated by commas, e.g. rutube.ru,www.youtube.com)"
                ));
            }
            hosts.push(host.to_ascii_lowercase());
        }
        Ok(FrameHosts(hosts))
    }

    pub fn hosts(&self) -> &[String] {
        &self.0
    }

    /// The CSP `frame-src` sources: the portal itself and each host over https.
    pub fn csp_frame_src(&self) -> String {
        std::iter::once("'self'".to_owned())
            .chain(self.0.iter().map(|host| format!("https://{host}")))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Where rich text may frame pages from: the portal's own origin and, over
/// https, the hosts of `PORTAL_FRAME_HOSTS`.
#[derive(Clone, Debug)]
pub struct Frames {
    origin: String,
    hosts: FrameHosts,
}

impl Frames {
    /// `public_url` is `PORTAL_PUBLIC_URL`.
    pub fn new(public_url: &str, hosts: FrameHosts) -> Frames {
        Frames {
            origin: origin_of(public_url),
            hosts,
        }
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether a frame may show `url`.
    pub fn allows(&self, url: &str) -> bool {
        let url = url.trim();
        if is_under(url, &self.origin) {
            return true;
        }
        let Some(rest) = url
            .get(..8)
            .filter(|scheme| scheme.eq_ignore_ascii_case("https://"))
            .map(|_| &url[8..])
        else {
            return false;
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        !authority.contains(['@', '\\'])
            && self
                .hosts
                .hosts()
                .iter()
                .any(|host| host.eq_ignore_ascii_case(authority))
    }
}

/// A cleaner for a portal at `origin` (`scheme://host[:port]`, see
/// [`origin_of`]) that keeps a frame, sandboxed, when `frame_source` gives its
/// (cleaned) source.
pub fn cleaner<F>(origin: &str, frame_source: F) -> Cleaner
where
    F: Fn(&str) -> Option<String> + Send + Sync + 'static,
{
    let mut builder = Builder::default();
    builder
        .add_tags(["iframe"])
        .add_tag_attributes("iframe", ["src", "frameborder", "allowfullscreen"])
        .set_tag_attribute_value("iframe", "sandbox", FRAME_SANDBOX)
        .link_rel(Some(LINK_REL))
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
    Cleaner {
        builder,
        origin: origin.to_ascii_lowercase(),
    }
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

    const PORTAL: &str = "https://portal.example";

    fn sanitize(html: &str) -> String {
        cleaner(PORTAL, |url| is_web(url).then(|| without_autoplay(url))).clean(html)
    }

    fn frames() -> Frames {
        Frames::new(
            "https://Portal.example/base/",
            FrameHosts::parse(" rutube.ru, www.youtube.com ,").unwrap(),
        )
    }

    #[test]
    fn frames_come_only_from_the_portal_and_the_allow_list() {
        let frames = frames();
        assert_eq!(frames.origin(), PORTAL);
        for allowed in [
            "https://portal.example/api/file/download/3",
            "HTTPS://PORTAL.EXAMPLE/x?y",
            "https://rutube.ru/play/embed/1",
            "https://www.youtube.com/embed/x?start=5",
            "https://RuTube.ru",
        ] {
            assert!(frames.allows(allowed), "{allowed}");
        }
        for refused in [
            "https://evil.example/",
            "http://rutube.ru/play/embed/1",
            "https://rutube.ru.evil.example/",
            "https://rutube.ru@evil.example/",
            "https://evil.example/https://rutube.ru/",
            "https://portal.example.evil.example/",
            "https://youtube.com/embed/x",
            "javascript:alert(1)",
            "//rutube.ru/x",
        ] {
            assert!(!frames.allows(refused), "{refused}");
        }
        assert!(FrameHosts::parse("https://rutube.ru").is_err());
        assert!(FrameHosts::parse("rutube.ru/x").is_err());
        assert!(FrameHosts::parse("a b").is_err());
        assert_eq!(FrameHosts::parse("").unwrap(), FrameHosts::default());
    }

    #[test]
    fn the_csp_names_the_same_frame_sources() {
        assert_eq!(
            frames().hosts.csp_frame_src(),
            "'self' https://rutube.ru https://www.youtube.com"
        );
        assert_eq!(FrameHosts::default().csp_frame_src(), "'self'");
    }

    #[test]
    fn a_foreign_frame_goes_and_an_allowed_one_stays_sandboxed() {
        let frames = frames();
        let origin = frames.origin().to_owned();
        let cleaner = cleaner(&origin, move |url| {
            frames.allows(url).then(|| without_autoplay(url))
        });
        let clean = cleaner.clean(
            r#"<p>a</p><iframe src="https://evil.example/"></iframe><iframe class="ql-video" sandbox="allow-top-navigation allow-popups" src="https://rutube.ru/play/embed/1?autoplay=1"></iframe>"#,
        );
        assert_eq!(
            clean,
            format!(
                r#"<p>a</p><iframe class="ql-video" src="https://rutube.ru/play/embed/1" sandbox="{FRAME_SANDBOX}"></iframe>"#
            ),
        );
    }

    #[test]
    fn links_to_other_sites_open_in_a_new_tab_without_the_opener() {
        let clean = sanitize(
            r#"<a href="https://who.int/" target="_self" rel="opener">ВОЗ</a><a href="https://portal.example/courses">Курсы</a><a href="mailto:a@b.example">Почта</a>"#,
        );
        assert_eq!(
            clean,
            r#"<a href="https://who.int/" rel="noopener noreferrer" target="_blank">ВОЗ</a><a href="https://portal.example/courses" rel="noopener noreferrer">Курсы</a><a href="mailto:a@b.example" rel="noopener noreferrer">Почта</a>"#
        );
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
