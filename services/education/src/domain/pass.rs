//! Passes of courses: whose and which a reader asks for, and how long a pass
//! counts — the one rule every reader of a pass's expiry goes through
//! (clearance to operate equipment reads it).

use portal_kit::{ServiceError, ServiceResult};

/// The most people one ListCoursePasses names.
pub const MAX_PEOPLE: usize = 1000;
/// The most courses one ListCoursePasses names.
pub const MAX_COURSES: usize = 50;
pub const MSG_TOO_MANY_PEOPLE: &str = "Слишком много сотрудников в одном запросе (не более 1000)";
pub const MSG_TOO_MANY_COURSES: &str = "Слишком много курсов в одном запросе (не более 50)";

/// Whose passes of which courses: each id once, ascending, within the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassQuery {
    pub user_ids: Vec<i64>,
    pub course_ids: Vec<i64>,
}

impl PassQuery {
    pub fn parse(user_ids: &[i64], course_ids: &[i64]) -> ServiceResult<PassQuery> {
        let user_ids = distinct(user_ids);
        let course_ids = distinct(course_ids);
        if user_ids.len() > MAX_PEOPLE {
            return Err(ServiceError::invalid(MSG_TOO_MANY_PEOPLE));
        }
        if course_ids.len() > MAX_COURSES {
            return Err(ServiceError::invalid(MSG_TOO_MANY_COURSES));
        }
        Ok(PassQuery {
            user_ids,
            course_ids,
        })
    }
}

fn distinct(ids: &[i64]) -> Vec<i64> {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Until when (Unix ms) a pass made at `passed_at` counts, for a course valid
/// `validity_months` calendar months after a pass; 0 (or less): it never
/// expires (`None`). A pass on the 31st lapses on the last day of a shorter
/// month.
pub fn pass_valid_until(passed_at: i64, validity_months: i64) -> Option<i64> {
    if validity_months <= 0 {
        return None;
    }
    let days = passed_at.div_euclid(MILLIS_PER_DAY);
    let time_of_day = passed_at.rem_euclid(MILLIS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    let months = year * 12 + (month - 1) + validity_months;
    let (year, month) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    let day = day.min(days_in_month(year, month));
    Some(days_from_civil(year, month, day) * MILLIS_PER_DAY + time_of_day)
}

const MILLIS_PER_DAY: i64 = 86_400_000;

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date (year, month, day) `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(year: i64, month: i64, day: i64) -> i64 {
        days_from_civil(year, month, day) * MILLIS_PER_DAY + 3_600_000
    }

    #[test]
    fn a_query_names_each_id_once_within_the_limits() {
        let query = PassQuery::parse(&[3, 2, 3], &[7, 7]).unwrap();
        assert_eq!(query.user_ids, [2, 3]);
        assert_eq!(query.course_ids, [7]);
        let courses: Vec<i64> = (1..=51).collect();
        let refused = PassQuery::parse(&[1], &courses).unwrap_err();
        assert_eq!(refused.to_string(), MSG_TOO_MANY_COURSES);
    }

    #[test]
    fn a_pass_without_a_validity_period_never_expires() {
        assert_eq!(pass_valid_until(at(2026, 3, 10), 0), None);
    }

    #[test]
    fn a_pass_counts_calendar_months_at_the_same_time_of_day() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
        assert_eq!(pass_valid_until(at(2026, 3, 10), 12), Some(at(2027, 3, 10)));
        assert_eq!(pass_valid_until(at(2026, 11, 30), 3), Some(at(2027, 2, 28)));
        assert_eq!(pass_valid_until(at(2023, 8, 31), 6), Some(at(2024, 2, 29)));
    }
}
