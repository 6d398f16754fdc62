//! The maintenance logbook of a unit and its standing: due within 30 days or
//! overdue, by the next due date of its latest entry.

use portal_kit::ServiceError;
use portal_kit::day::Day;
use portal_kit::text::{Field, Shape};

use super::text::{MAX_NAME_CHARS, MAX_TEXT_CHARS};

/// A unit is due soon when its next maintenance is at most this many days away.
pub const DUE_SOON_DAYS: i64 = 30;

pub const MSG_DATE_REQUIRED: &str = "Укажите дату обслуживания";
pub const MSG_DATE_IN_FUTURE: &str = "Дата обслуживания не может быть в будущем";
pub const MSG_KIND_REQUIRED: &str = "Выберите вид обслуживания";
pub const MSG_NEXT_DUE_NOT_AFTER: &str =
    "Дата следующего обслуживания должна быть позже даты обслуживания";

const PERFORMER: Field = Field {
    required: "Укажите, кто выполнил обслуживание",
    too_long: "Исполнитель не должен превышать 300 символов",
    hidden: "Исполнитель не должен содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const DESCRIPTION: Field = Field {
    required: "Опишите выполненные работы",
    too_long: "Описание работ не должно превышать 5000 символов",
    hidden: "Описание работ не должно содержать невидимых и управляющих символов",
    max_chars: MAX_TEXT_CHARS,
    shape: Shape::Lines,
};
const RESULT: Field = Field {
    required: "Укажите результат обслуживания",
    too_long: "Результат не должен превышать 5000 символов",
    hidden: "Результат не должен содержать невидимых и управляющих символов",
    max_chars: MAX_TEXT_CHARS,
    shape: Shape::Lines,
};

/// What kind of work an entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Preventive,
    Corrective,
    Inspection,
    Calibration,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Preventive,
        Kind::Corrective,
        Kind::Inspection,
        Kind::Calibration,
    ];

    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Preventive => "preventive",
            Kind::Corrective => "corrective",
            Kind::Inspection => "inspection",
            Kind::Calibration => "calibration",
        }
    }

    pub fn stored(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// What recording maintenance writes.
#[derive(Clone, Debug)]
pub struct EntryDraft {
    pub date: Day,
    pub kind: Kind,
    pub performed_by: String,
    pub description: String,
    pub result: String,
    pub next_due: Option<Day>,
}

/// An entry as a request carries it; `kind` is none when not chosen.
pub struct EntryInput<'a> {
    pub date: &'a str,
    pub kind: Option<Kind>,
    pub performed_by: &'a str,
    pub description: &'a str,
    pub result: &'a str,
    pub next_due: &'a str,
}

impl EntryDraft {
    pub fn parse(input: EntryInput<'_>, today: Day) -> Result<EntryDraft, ServiceError> {
        let date = Day::required(input.date, MSG_DATE_REQUIRED)?;
        if date > today {
            return Err(ServiceError::invalid(MSG_DATE_IN_FUTURE));
        }
        let kind = input
            .kind
            .ok_or_else(|| ServiceError::invalid(MSG_KIND_REQUIRED))?;
        let next_due = Day::optional(input.next_due)?;
        if next_due.is_some_and(|next| next <= date) {
            return Err(ServiceError::invalid(MSG_NEXT_DUE_NOT_AFTER));
        }
        Ok(EntryDraft {
            date,
            kind,
            performed_by: PERFORMER.required(input.performed_by)?,
            description: DESCRIPTION.required(input.description)?,
            result: RESULT.optional(input.result)?,
            next_due,
        })
    }
}

/// Where a unit stands with its maintenance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    Overdue,
    DueSoon,
    Scheduled,
    Unplanned,
}

/// The standing of a unit whose latest entry plans `next_due`.
pub fn standing(next_due: Option<Day>, today: Day) -> Standing {
    match next_due {
        None => Standing::Unplanned,
        Some(due) if due < today => Standing::Overdue,
        Some(due) if due <= today.plus_days(DUE_SOON_DAYS) => Standing::DueSoon,
        Some(_) => Standing::Scheduled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Day {
        Day::parse(text).unwrap()
    }

    fn input<'a>(date: &'a str, next_due: &'a str) -> EntryInput<'a> {
        EntryInput {
            date,
            kind: Some(Kind::Preventive),
            performed_by: "ООО «Медтехника»",
            description: "Замена фильтров",
            result: "",
            next_due,
        }
    }

    #[test]
    fn a_unit_is_due_within_thirty_days_and_overdue_after_its_day() {
        let today = day("2026-11-23");
        assert_eq!(standing(None, today), Standing::Unplanned);
        assert_eq!(standing(Some(day("2026-11-22")), today), Standing::Overdue);
        assert_eq!(standing(Some(today), today), Standing::DueSoon);
        assert_eq!(standing(Some(day("2026-12-23")), today), Standing::DueSoon);
        assert_eq!(
            standing(Some(day("2026-12-24")), today),
            Standing::Scheduled
        );
    }

    #[test]
    fn an_entry_is_dated_not_in_the_future_and_plans_after_itself() {
        let today = day("2026-11-23");
        let message = |i| EntryDraft::parse(i, today).unwrap_err().to_string();
        assert_eq!(message(input("", "")), MSG_DATE_REQUIRED);
        assert_eq!(message(input("2026-11-24", "")), MSG_DATE_IN_FUTURE);
        assert_eq!(
            message(input("2026-11-20", "2026-11-20")),
            MSG_NEXT_DUE_NOT_AFTER
        );
        let mut no_kind = input("2026-11-20", "");
        no_kind.kind = None;
        assert_eq!(message(no_kind), MSG_KIND_REQUIRED);
        let draft = EntryDraft::parse(input("2026-11-20", "2027-05-20"), today).unwrap();
        assert_eq!(draft.next_due, Some(day("2027-05-20")));
        assert_eq!(draft.result, "");
    }

    #[test]
    fn kinds_round_trip_through_storage() {
        for kind in Kind::ALL {
            assert_eq!(Kind::stored(kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::stored("repair"), None);
    }
}
