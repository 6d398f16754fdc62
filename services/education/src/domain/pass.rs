//! Passes of courses: whose and which a reader asks for, and how long a pass
//! counts — the one rule every reader of a pass's expiry goes through
//! (clearance to operate equipment reads it).

use portal_kit::{ServiceError, ServiceResult};

use super::compliance::valid_until;

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

/// The last instant (Unix ms) a pass made at `passed_at` counts, for a course
/// whose passes stay valid `validity_months`: the end of the pass's last valid
/// day by [`valid_until`], the one rule of recertification; `None` when it
/// never expires.
pub fn pass_valid_until(passed_at: i64, validity_months: i64) -> Option<i64> {
    valid_until(passed_at, validity_months).map(|last_day| last_day.plus_days(1).start_millis() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: &str) -> i64 {
        portal_kit::day::Day::parse(day).unwrap().start_millis()
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
        assert_eq!(pass_valid_until(at("2026-03-10") + 3_600_000, 0), None);
    }

    #[test]
    fn a_pass_counts_through_the_last_day_of_its_calendar_months() {
        let end_of = |day| at(day) + 86_400_000 - 1;
        let passed = |day| at(day) + 3_600_000;
        assert_eq!(
            pass_valid_until(passed("2026-03-10"), 12),
            Some(end_of("2027-03-10"))
        );
        assert_eq!(
            pass_valid_until(passed("2026-11-30"), 3),
            Some(end_of("2027-02-28"))
        );
        assert_eq!(
            pass_valid_until(passed("2023-08-31"), 6),
            Some(end_of("2024-02-29"))
        );
    }
}
