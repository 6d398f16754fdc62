//! What the bell and the daily digest say: education's due items (courses
//! due within 7 days or overdue), their stable keys, and the digest's text.

use super::date::Day;

/// The prefix of every item id education lists: the gateway sends a read
/// mark to the service whose prefix the id carries.
pub const ITEM_PREFIX: &str = "education:";
pub const MSG_MAIL_OFF: &str =
    "Отправка писем не настроена: задайте PORTAL_SMTP_URL, чтобы рассылать напоминания";

/// An unfinished course due within 7 days or overdue for one person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DueCourse {
    pub user_id: i64,
    pub course_id: i64,
    pub title: String,
    pub due: Day,
    pub overdue: bool,
}

impl DueCourse {
    /// Stable while the deadline stays: a new deadline is a new, unread item.
    pub fn key(&self) -> String {
        format!("{ITEM_PREFIX}course:{}:{}", self.course_id, self.due)
    }

    /// The course's page in the web client.
    pub fn link(&self) -> String {
        format!("/courses/{}", self.course_id)
    }
}

/// Overdue first, then the soonest due, then by course.
pub fn sort(items: &mut [DueCourse]) {
    items.sort_by_key(|item| (!item.overdue, item.due, item.course_id));
}

/// One person's digest: whom it greets and what is due, sorted.
pub struct Digest<'a> {
    /// Given name and patronymic, as a Russian greeting uses them.
    pub greeting_name: String,
    pub items: &'a [DueCourse],
    /// `PORTAL_PUBLIC_URL`, without a trailing slash.
    pub portal_url: &'a str,
}

pub const DIGEST_SUBJECT: &str = "Портал: что нужно пройти";

impl Digest<'_> {
    fn line(&self, item: &DueCourse) -> (String, String) {
        let state = if item.overdue {
            format!("просрочен, срок был {}", russian_date(item.due))
        } else {
            format!("срок {}", russian_date(item.due))
        };
        (state, format!("{}{}", self.portal_url, item.link()))
    }

    pub fn plain_text(&self) -> String {
        let mut text = format!("Здравствуйте, {}!\n\n", self.greeting_name);
        text.push_str("Курсы, которые нужно пройти:\n\n");
        for item in self.items {
            let (state, url) = self.line(item);
            text.push_str(&format!("• {} — {}\n  {}\n", item.title, state, url));
        }
        text.push_str(&format!(
            "\nВсе уведомления: {}/home\n\nПисьмо отправлено порталом автоматически. Отключить ежедневные напоминания можно в личном кабинете: {}/cabinet\n",
            self.portal_url, self.portal_url
        ));
        text
    }

    pub fn html(&self) -> String {
        let mut html = format!(
            "<!doctype html><html lang=\"ru\"><body><p>Здравствуйте, {}!</p><p>Курсы, которые нужно пройти:</p><ul>",
            escape(&self.greeting_name)
        );
        for item in self.items {
            let (state, url) = self.line(item);
            html.push_str(&format!(
                "<li><a href=\"{}\">{}</a> — {}</li>",
                escape(&url),
                escape(&item.title),
                if item.overdue {
                    format!("<strong>{}</strong>", escape(&state))
                } else {
                    escape(&state)
                }
            ));
        }
        html.push_str(&format!(
            "</ul><p><a href=\"{0}/home\">Открыть портал</a></p><p style=\"color:#666\">Письмо отправлено порталом автоматически. Отключить ежедневные напоминания можно в <a href=\"{0}/cabinet\">личном кабинете</a>.</p></body></html>",
            escape(self.portal_url)
        ));
        html
    }
}

/// `DD.MM.YYYY`, as Russian readers write dates.
fn russian_date(day: Day) -> String {
    let text = day.to_string();
    match (text.get(0..4), text.get(5..7), text.get(8..10)) {
        (Some(year), Some(month), Some(date)) => format!("{date}.{month}.{year}"),
        _ => text,
    }
}

/// Text placed into HTML: course titles are what people typed.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overdue_course() -> DueCourse {
        DueCourse {
            user_id: 2,
            course_id: 5,
            title: "Работа с ИВЛ <Hamilton>".into(),
            due: Day::parse("2026-03-09").unwrap(),
            overdue: true,
        }
    }

    #[test]
    fn the_digest_links_each_course_and_escapes_titles_in_html() {
        let items = [overdue_course()];
        assert_eq!(items[0].key(), "education:course:5:2026-03-09");
        let digest = Digest {
            greeting_name: "Анна Петровна".into(),
            items: &items,
            portal_url: "https://portal.hospital.local",
        };
        let text = digest.plain_text();
        assert!(text.contains("Здравствуйте, Анна Петровна!"), "{text}");
        assert!(text.contains("просрочен, срок был 09.03.2026"), "{text}");
        assert!(
            text.contains("https://portal.hospital.local/courses/5"),
            "{text}"
        );
        let html = digest.html();
        assert!(html.contains("Работа с ИВЛ &lt;Hamilton&gt;"), "{html}");
        assert!(
            html.contains("href=\"https://portal.hospital.local/courses/5\""),
            "{html}"
        );
    }
}
