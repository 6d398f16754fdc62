//! Where an assignee stands with a course: its deadline, and whether their
//! pass is still valid (recertification, issue 24).
//!
//! The rules, in one place so that every reader agrees (the course page's
//! compliance, «Мои тесты», the integration records, the wiki's clearance):
//! - a pass completed on day D (UTC) of a course valid M months is valid
//!   through D + M calendar months ([`valid_until`]; the 31st of a shorter
//!   month becomes its last day); M = 0: it never expires;
//! - a person's pass of a course is the latest pass of each of its tests, and
//!   it is valid until the earliest of those ends ([`Validity::of`]);
//! - once a pass has expired the course is due again with a renewal deadline:
//!   the pass's last valid day plus the course's lead time, the days between
//!   its creation and its deadline ([`renewal_deadline`]); and the person's
//!   tries on the test start afresh: a cycle begins the instant the pass
//!   expired, and only attempts started since count ([`Cycle::of`]). Earlier
//!   attempts stay in every history.

use portal_kit::ServiceError;

use super::date::Day;

/// How many days before a deadline an unfinished course counts as due soon.
pub const DUE_SOON_DAYS: i64 = 7;
/// How many days before its end a valid pass counts as expiring.
pub const EXPIRING_DAYS: i64 = 30;
/// The longest validity a course may have: ten years.
pub const MAX_VALIDITY_MONTHS: i32 = 120;
pub const MSG_VALIDITY_RANGE: &str = "Срок действия курса должен быть от 0 до 120 месяцев";

const MILLIS_PER_DAY: i64 = 86_400_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    Overdue,
    DueSoon,
    InProgress,
    Complete,
}

/// An assignee who passed `passed` of the course's `total` tests, on `today`.
pub fn standing(passed: usize, total: usize, deadline: Option<Day>, today: Day) -> Standing {
    if passed >= total {
        return Standing::Complete;
    }
    match deadline {
        Some(deadline) if deadline < today => Standing::Overdue,
        Some(deadline) if deadline <= today.plus_days(DUE_SOON_DAYS) => Standing::DueSoon,
        _ => Standing::InProgress,
    }
}

/// A course's validity as requested: 0 (never expires) to 120 months.
pub fn validity_months(requested: i32) -> Result<i64, ServiceError> {
    if (0..=MAX_VALIDITY_MONTHS).contains(&requested) {
        Ok(i64::from(requested))
    } else {
        Err(ServiceError::invalid(MSG_VALIDITY_RANGE))
    }
}

/// The last day a pass completed at `passed_at` (Unix milliseconds) is valid
/// for a course valid `validity_months` months; `None`: it never expires.
pub fn valid_until(passed_at: i64, validity_months: i64) -> Option<Day> {
    if validity_months <= 0 {
        return None;
    }
    let (year, month, day) = civil_from_days(passed_at.div_euclid(MILLIS_PER_DAY));
    let months = year * 12 + month - 1 + validity_months;
    let (year, month) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    let day = day.min(days_in_month(year, month));
    Some(day_number(days_from_civil(year, month, day)))
}

/// Whether a pass valid `until` (`None`: forever) still holds on `today`.
fn holds(until: Option<Day>, today: Day) -> bool {
    until.is_none_or(|until| until >= today)
}

/// Where a person's pass of a course (or of one test) stands on a day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validity {
    /// Valid for more than [`EXPIRING_DAYS`], through the day given (`None`:
    /// it never expires).
    Current(Option<Day>),
    /// Valid through the day given, which is at most [`EXPIRING_DAYS`] away.
    Expiring(Day),
    /// Passed, but valid only through the day given, which has gone: due again.
    Expired(Day),
    /// Not every test passed yet.
    NeverDone,
}

impl Validity {
    /// From when the person last passed each test of the course (`None`:
    /// never), for a course valid `validity_months` months.
    pub fn of(
        latest_passes: impl IntoIterator<Item = Option<i64>>,
        validity_months: i64,
        today: Day,
    ) -> Validity {
        let mut until: Option<Day> = None;
        for pass in latest_passes {
            let Some(passed_at) = pass else {
                return Validity::NeverDone;
            };
            if let Some(end) = valid_until(passed_at, validity_months) {
                until = Some(until.map_or(end, |until| until.min(end)));
            }
        }
        match until {
            None => Validity::Current(None),
            Some(until) if until < today => Validity::Expired(until),
            Some(until) if until <= today.plus_days(EXPIRING_DAYS) => Validity::Expiring(until),
            Some(until) => Validity::Current(Some(until)),
        }
    }

    /// The last day the pass is valid; `None` when never passed or never expiring.
    pub fn valid_until(self) -> Option<Day> {
        match self {
            Validity::Current(until) => until,
            Validity::Expiring(until) | Validity::Expired(until) => Some(until),
            Validity::NeverDone => None,
        }
    }
}

/// The lead time a course gives: the days from its creation (Unix
/// milliseconds) to its deadline, at least 0.
pub fn lead_days(created_at: i64, deadline: Option<Day>) -> i64 {
    deadline.map_or(0, |deadline| {
        ((deadline.start_millis() - created_at.div_euclid(MILLIS_PER_DAY) * MILLIS_PER_DAY)
            / MILLIS_PER_DAY)
            .max(0)
    })
}

/// The deadline of a course due again because a pass valid through `expired`
/// lapsed: that day plus the course's lead time.
pub fn renewal_deadline(expired: Day, lead_days: i64) -> Day {
    expired.plus_days(lead_days)
}

/// A course's terms for one assignee.
#[derive(Clone, Copy, Debug)]
pub struct Terms {
    pub validity_months: i64,
    /// Their own deadline, else the course's.
    pub deadline: Option<Day>,
    /// See [`lead_days`].
    pub lead_days: i64,
}

/// One assignee's standing in one course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assessment {
    /// Tests of the course they hold a valid pass of.
    pub passed: usize,
    pub total: usize,
    pub standing: Standing,
    pub validity: Validity,
    /// The deadline that applies now: the renewal deadline once expired.
    pub deadline: Option<Day>,
}

/// Where an assignee stands given when they last passed each test of the
/// course (`None`: never).
pub fn assess(latest_passes: &[Option<i64>], terms: Terms, today: Day) -> Assessment {
    let validity = Validity::of(latest_passes.iter().copied(), terms.validity_months, today);
    let passed = latest_passes
        .iter()
        .flatten()
        .filter(|passed_at| holds(valid_until(**passed_at, terms.validity_months), today))
        .count();
    let deadline = match validity {
        Validity::Expired(until) => Some(renewal_deadline(until, terms.lead_days)),
        _ => terms.deadline,
    };
    let total = latest_passes.len();
    Assessment {
        passed,
        total,
        standing: standing(passed, total, deadline, today),
        validity,
        deadline,
    }
}

/// An attempt as far as tries go: when it started and, if it passed, when
/// it was completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttemptMark {
    pub started_at: i64,
    pub passed_at: Option<i64>,
}

/// A person's current cycle on one test: the tries they took in it. Every
/// count of tries left reads this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cycle {
    /// The instant it began (Unix milliseconds): when their pass last
    /// lapsed, else 0.
    pub start: i64,
    /// Attempts started in it.
    pub started: i64,
    /// Of those, how many passed.
    pub passed: i64,
    /// When they last passed the test, in any cycle.
    pub last_pass: Option<i64>,
    /// The validity the cycles follow (0: a pass never expires).
    pub validity_months: i64,
}

impl Cycle {
    /// The cycle at `now` of a person whose attempts on the test are
    /// `attempts`, valid `validity_months` months once passed.
    pub fn of(attempts: &[AttemptMark], validity_months: i64, now: i64) -> Cycle {
        // (completed, first instant no longer valid) of each expiring pass.
        let passes: Vec<(i64, i64)> = attempts
            .iter()
            .filter_map(|attempt| attempt.passed_at)
            .filter_map(|passed_at| {
                valid_until(passed_at, validity_months).map(|until| (passed_at, until.end_millis()))
            })
            .collect();
        // A pass lapsed when it ended with no later pass already made to
        // carry on past it: passing again early does not open a cycle.
        let start = passes
            .iter()
            .map(|(_, ended)| *ended)
            .filter(|ended| *ended <= now)
            .filter(|ended| {
                !passes
                    .iter()
                    .any(|(passed_at, other)| passed_at < ended && other > ended)
            })
            .max()
            .unwrap_or(0);
        let current = attempts
            .iter()
            .filter(|attempt| attempt.started_at >= start);
        Cycle {
            start,
            started: i64::try_from(current.clone().count()).unwrap_or(i64::MAX),
            passed: i64::try_from(
                current
                    .filter(|attempt| attempt.passed_at.is_some())
                    .count(),
            )
            .unwrap_or(i64::MAX),
            last_pass: attempts
                .iter()
                .filter_map(|attempt| attempt.passed_at)
                .max(),
            validity_months,
        }
    }
}

/// The day `days` after 1970-01-01. Kit's [`Day`] has no constructor from a
/// count of days, so any day it knows serves as the anchor.
fn day_number(days: i64) -> Day {
    let anchor = Day::today();
    anchor.plus_days(days - anchor.start_millis().div_euclid(MILLIS_PER_DAY))
}

/// (year, month 1–12, day 1–31) of the day `days` after 1970-01-01, in the
/// proleptic Gregorian calendar (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The inverse of [`civil_from_days`].
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: i64) -> i64 {
    let (next_year, next_month) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    days_from_civil(next_year, next_month, 1) - days_from_civil(year, month, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Day {
        Day::parse(text).unwrap()
    }

    /// Noon UTC of a day, as a pass's instant.
    fn noon(text: &str) -> i64 {
        day(text).start_millis() + MILLIS_PER_DAY / 2
    }

    #[test]
    fn the_deadline_decides_only_for_unfinished_courses() {
        let today = day("2026-03-10");
        let on = |text| Some(day(text));
        assert_eq!(standing(2, 2, on("2026-03-01"), today), Standing::Complete);
        assert_eq!(standing(1, 2, on("2026-03-09"), today), Standing::Overdue);
        assert_eq!(standing(1, 2, on("2026-03-10"), today), Standing::DueSoon);
        assert_eq!(standing(0, 2, on("2026-03-17"), today), Standing::DueSoon);
        assert_eq!(
            standing(0, 2, on("2026-03-18"), today),
            Standing::InProgress
        );
    }

    #[test]
    fn a_pass_is_valid_for_calendar_months_from_its_day() {
        assert_eq!(valid_until(noon("2026-03-10"), 12), Some(day("2027-03-10")));
        assert_eq!(valid_until(noon("2026-01-31"), 1), Some(day("2026-02-28")));
        assert_eq!(valid_until(noon("2028-01-31"), 1), Some(day("2028-02-29")));
        assert_eq!(valid_until(noon("2026-11-15"), 3), Some(day("2027-02-15")));
        assert_eq!(valid_until(noon("1969-12-31"), 1), Some(day("1970-01-31")));
        assert_eq!(valid_until(noon("2026-03-10"), 0), None);
    }

    #[test]
    fn validity_is_current_expiring_expired_or_never_done_at_its_boundaries() {
        let passes = [Some(noon("2025-03-10")), Some(noon("2025-06-01"))];
        // Valid through 2026-03-10: the earlier test's pass decides.
        let on = |today| Validity::of(passes, 12, day(today));
        assert_eq!(on("2026-02-07"), Validity::Current(Some(day("2026-03-10"))));
        assert_eq!(on("2026-02-08"), Validity::Expiring(day("2026-03-10")));
        assert_eq!(on("2026-03-10"), Validity::Expiring(day("2026-03-10")));
        assert_eq!(on("2026-03-11"), Validity::Expired(day("2026-03-10")));
        assert_eq!(
            Validity::of([Some(noon("2025-03-10")), None], 12, day("2025-04-01")),
            Validity::NeverDone
        );
        assert_eq!(
            Validity::of(passes, 0, day("2099-01-01")),
            Validity::Current(None)
        );
    }

    #[test]
    fn an_expired_pass_makes_the_course_due_by_the_renewal_deadline() {
        let terms = Terms {
            validity_months: 12,
            deadline: Some(day("2025-03-31")),
            lead_days: lead_days(noon("2025-03-01"), Some(day("2025-03-31"))),
        };
        assert_eq!(terms.lead_days, 30);
        let passes = [Some(noon("2025-03-10"))];
        let current = assess(&passes, terms, day("2026-03-10"));
        assert_eq!(current.standing, Standing::Complete);
        assert_eq!(current.passed, 1);
        let lapsed = assess(&passes, terms, day("2026-03-11"));
        assert_eq!(lapsed.passed, 0);
        assert_eq!(lapsed.validity, Validity::Expired(day("2026-03-10")));
        assert_eq!(lapsed.deadline, Some(day("2026-04-09")));
        assert_eq!(lapsed.standing, Standing::InProgress);
        assert_eq!(
            assess(&passes, terms, day("2026-04-10")).standing,
            Standing::Overdue
        );
    }

    #[test]
    fn tries_start_afresh_when_a_pass_lapses() {
        let failed = AttemptMark {
            started_at: noon("2025-03-09"),
            passed_at: None,
        };
        let passed = AttemptMark {
            started_at: noon("2025-03-10"),
            passed_at: Some(noon("2025-03-10")),
        };
        let attempts = [failed, passed];
        let before = Cycle::of(&attempts, 12, day("2026-03-10").end_millis() - 1);
        assert_eq!((before.start, before.started, before.passed), (0, 2, 1));
        let after = Cycle::of(&attempts, 12, day("2026-03-10").end_millis());
        assert_eq!(after.start, day("2026-03-11").start_millis());
        assert_eq!((after.started, after.passed), (0, 0));
        assert_eq!(after.last_pass, Some(noon("2025-03-10")));
        let renewal = AttemptMark {
            started_at: noon("2026-03-12"),
            passed_at: None,
        };
        let again = Cycle::of(&[failed, passed, renewal], 12, noon("2026-03-12"));
        assert_eq!((again.started, again.passed), (1, 0));
        assert_eq!(Cycle::of(&attempts, 0, i64::MAX).started, 2);
        let early = AttemptMark {
            started_at: noon("2026-02-01"),
            passed_at: Some(noon("2026-02-01")),
        };
        let renewed_early = Cycle::of(&[failed, passed, early], 12, noon("2026-06-01"));
        assert_eq!((renewed_early.start, renewed_early.started), (0, 3));
    }

    #[test]
    fn validity_months_are_bounded() {
        assert_eq!(validity_months(0).unwrap(), 0);
        assert_eq!(validity_months(120).unwrap(), 120);
        assert_eq!(
            validity_months(-1).unwrap_err().to_string(),
            MSG_VALIDITY_RANGE
        );
        assert_eq!(
            validity_months(121).unwrap_err().to_string(),
            MSG_VALIDITY_RANGE
        );
    }
}
