//! Calendar dates (`YYYY-MM-DD`), as services store them (DESIGN §7: TEXT), and
//! the UTC day instants fall on.

use crate::error::ServiceError;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

const DAY: &[time::format_description::BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]");

pub const MSG_DATE_INVALID: &str = "Дата должна быть в формате ГГГГ-ММ-ДД";
const MILLIS_PER_DAY: i64 = 86_400_000;

/// A calendar day. On input a full RFC 3339 value is accepted too and its date
/// part kept (DESIGN §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day(Date);

impl Day {
    pub fn parse(input: &str) -> Result<Day, ServiceError> {
        let input = input.trim();
        Date::parse(input, DAY)
            .or_else(|_| OffsetDateTime::parse(input, &Rfc3339).map(|at| at.date()))
            .map(Day)
            .map_err(|_| ServiceError::invalid(MSG_DATE_INVALID))
    }

    /// A required day: blank is `missing`.
    pub fn required(input: &str, missing: &str) -> Result<Day, ServiceError> {
        if input.trim().is_empty() {
            Err(ServiceError::invalid(missing))
        } else {
            Day::parse(input)
        }
    }

    /// An optional day: blank is none.
    pub fn optional(input: &str) -> Result<Option<Day>, ServiceError> {
        if input.trim().is_empty() {
            Ok(None)
        } else {
            Day::parse(input).map(Some)
        }
    }

    /// Today in UTC.
    pub fn today() -> Day {
        Day(OffsetDateTime::now_utc().date())
    }

    /// The stored form of a deadline, a stored text read back as a day.
    pub fn stored(text: &str) -> Option<Day> {
        Date::parse(text, DAY).ok().map(Day)
    }

    pub fn plus_days(self, days: i64) -> Day {
        Day(self.0.saturating_add(time::Duration::days(days)))
    }

    /// The day (UTC) holding the instant `millis` (Unix ms).
    pub fn of_millis(millis: i64) -> Day {
        Day(OffsetDateTime::UNIX_EPOCH.date()).plus_days(millis.div_euclid(MILLIS_PER_DAY))
    }

    /// The first millisecond of this day, UTC.
    pub fn start_millis(self) -> i64 {
        self.0.midnight().assume_utc().unix_timestamp() * 1000
    }

    /// The first millisecond after this day, UTC.
    pub fn end_millis(self) -> i64 {
        self.start_millis() + MILLIS_PER_DAY
    }
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.format(DAY) {
            Ok(text) => f.write_str(&text),
            Err(_) => Err(std::fmt::Error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_falls_on_its_utc_day() {
        let day = Day::parse("2026-12-31").unwrap();
        assert_eq!(Day::of_millis(day.start_millis()), day);
        assert_eq!(Day::of_millis(day.end_millis() - 1), day);
        assert_eq!(Day::of_millis(day.end_millis()), day.plus_days(1));
    }

    #[test]
    fn a_day_or_a_full_timestamp_gives_the_day() {
        assert_eq!(Day::parse("2026-12-31").unwrap().to_string(), "2026-12-31");
        assert_eq!(
            Day::parse("2026-12-31T10:00:00Z").unwrap().to_string(),
            "2026-12-31"
        );
    }

    #[test]
    fn nonsense_and_impossible_days_are_refused() {
        for bad in ["31.12.2026", "2026-02-30", "завтра"] {
            assert_eq!(Day::parse(bad).unwrap_err().to_string(), MSG_DATE_INVALID);
        }
    }

    #[test]
    fn a_day_spans_its_utc_milliseconds() {
        let day = Day::parse("1970-01-02").unwrap();
        assert_eq!(day.start_millis(), 86_400_000);
        assert_eq!(day.end_millis(), 2 * 86_400_000);
        assert_eq!(day.plus_days(7).to_string(), "1970-01-09");
    }
}
