//! What the bell and the daily digest say: education's due items (courses
//! due within 7 days or overdue), their stable keys, and the digest's text,
//! which also carries the wiki's items (lapsing clearances to operate
//! equipment, maintenance due).

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

/// What the wiki's item is about, as its `kind` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EquipmentKind {
    /// A clearance to operate a model that lapses soon.
    Clearance,
    /// Maintenance of a unit (and any kind the wiki adds later).
    Maintenance,
}

impl EquipmentKind {
    pub fn of(kind: &str) -> EquipmentKind {
        if kind == "clearance" {
            EquipmentKind::Clearance
        } else {
            EquipmentKind::Maintenance
        }
    }
}

/// One of the wiki's items for the digest, as the bell shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquipmentItem {
    pub kind: EquipmentKind,
    pub title: String,
    /// The portal's path of its page.
    pub link: String,
    pub due: Day,
    pub overdue: bool,
}

/// One person's digest: whom it greets and what is due, sorted.
pub struct Digest<'a> {
    /// Given name and patronymic, as a Russian greeting uses them.
    pub greeting_name: String,
    pub items: &'a [DueCourse],
    /// The wiki's items, as it sorted them.
    pub equipment: &'a [EquipmentItem],
    /// `PORTAL_PUBLIC_URL`, without a trailing slash.
    pub portal_url: &'a str,
}

pub const DIGEST_SUBJECT: &str = "Портал: что нужно пройти";

/// A section of the digest: its heading and lines.
struct Section {
    heading: &'static str,
    lines: Vec<Line>,
}

/// One thing due: what, how it stands, its page.
struct Line {
    title: String,
    state: String,
    url: String,
    overdue: bool,
}

impl Digest<'_> {
    fn sections(&self) -> Vec<Section> {
        let courses = self
            .items
            .iter()
            .map(|item| {
                let state = if item.overdue {
                    format!("просрочен, срок был {}", russian_date(item.due))
                } else {
                    format!("срок {}", russian_date(item.due))
                };
                Line {
                    title: item.title.clone(),
                    state,
                    url: format!("{}{}", self.portal_url, item.link()),
                    overdue: item.overdue,
                }
            })
            .collect();
        let equipment = |kind: EquipmentKind| {
            self.equipment
                .iter()
                .filter(|item| item.kind == kind)
                .map(|item| {
                    let state = match (kind, item.overdue) {
                        (EquipmentKind::Clearance, false) => {
                            format!("действует до {}", russian_date(item.due))
                        }
                        (EquipmentKind::Clearance, true) => {
                            format!("истёк {}", russian_date(item.due))
                        }
                        (EquipmentKind::Maintenance, false) => {
                            format!("обслуживание до {}", russian_date(item.due))
                        }
                        (EquipmentKind::Maintenance, true) => {
                            format!(
                                "обслуживание просрочено, срок был {}",
                                russian_date(item.due)
                            )
                        }
                    };
                    Line {
                        title: item.title.clone(),
                        state,
                        url: format!("{}{}", self.portal_url, item.link),
                        overdue: item.overdue,
                    }
                })
                .collect()
        };
        [
            Section {
                heading: "Курсы, которые нужно пройти:",
                lines: courses,
            },
            Section {
                heading: "Допуски к работе с оборудованием, которые скоро истекут:",
                lines: equipment(EquipmentKind::Clearance),
            },
            Section {
                heading: "Техническое обслуживание оборудования:",
                lines: equipment(EquipmentKind::Maintenance),
            },
        ]
        .into_iter()
        .filter(|section| !section.lines.is_empty())
        .collect()
    }

    pub fn plain_text(&self) -> String {
        let mut text = format!("Здравствуйте, {}!\n", self.greeting_name);
        for section in self.sections() {
            text.push_str(&format!("\n{}\n\n", section.heading));
            for line in &section.lines {
                text.push_str(&format!(
                    "• {} — {}\n  {}\n",
                    line.title, line.state, line.url
                ));
            }
        }
        text.push_str(&format!(
            "\nВсе уведомления: {}/home\n\nПисьмо отправлено порталом автоматически. Отключить ежедневные напоминания можно в личном кабинете: {}/cabinet\n",
            self.portal_url, self.portal_url
        ));
        text
    }

    pub fn html(&self) -> String {
        let mut html = format!(
            "<!doctype html><html lang=\"ru\"><body><p>Здравствуйте, {}!</p>",
            escape(&self.greeting_name)
        );
        for section in self.sections() {
            html.push_str(&format!("<p>{}</p><ul>", escape(section.heading)));
            for line in &section.lines {
                html.push_str(&format!(
                    "<li><a href=\"{}\">{}</a> — {}</li>",
                    escape(&line.url),
                    escape(&line.title),
                    if line.overdue {
                        format!("<strong>{}</strong>", escape(&line.state))
                    } else {
                        escape(&line.state)
                    }
                ));
            }
            html.push_str("</ul>");
        }
        html.push_str(&format!(
            "<p><a href=\"{0}/home\">Открыть портал</a></p><p style=\"color:#666\">Письмо отправлено порталом автоматически. Отключить ежедневные напоминания можно в <a href=\"{0}/cabinet\">личном кабинете</a>.</p></body></html>",
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
            equipment: &[],
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
        assert!(!text.contains("оборудован"), "{text}");
    }

    #[test]
    fn equipment_items_have_sections_of_their_own_without_courses() {
        let equipment = [
            EquipmentItem {
                kind: EquipmentKind::of("clearance"),
                title: "Допуск к работе: Аппарат ИВЛ".into(),
                link: "/short-instruction/3".into(),
                due: Day::parse("2026-03-16").unwrap(),
                overdue: false,
            },
            EquipmentItem {
                kind: EquipmentKind::of("maintenance"),
                title: "Монитор <X>, инв. № 7".into(),
                link: "/departments/environments/1/environment/2/maintenance-logbook?unit=7".into(),
                due: Day::parse("2026-03-01").unwrap(),
                overdue: true,
            },
        ];
        let digest = Digest {
            greeting_name: "Анна Петровна".into(),
            items: &[],
            equipment: &equipment,
            portal_url: "https://portal.hospital.local",
        };
        let text = digest.plain_text();
        assert!(!text.contains("Курсы"), "{text}");
        assert!(
            text.contains("• Допуск к работе: Аппарат ИВЛ — действует до 16.03.2026\n  https://portal.hospital.local/short-instruction/3"),
            "{text}"
        );
        assert!(
            text.contains("обслуживание просрочено, срок был 01.03.2026"),
            "{text}"
        );
        let html = digest.html();
        assert!(html.contains("Монитор &lt;X&gt;, инв. № 7"), "{html}");
        assert!(html.contains("maintenance-logbook?unit=7\""), "{html}");
    }
}
