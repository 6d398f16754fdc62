//! Clearance to operate a model: a person is cleared when they have passed
//! every course the model requires and none of those passes has expired.
//! Passes and their expiry are education's; this is only the rule over them.

use std::collections::HashMap;

use portal_kit::{ServiceError, ServiceResult};

/// The most courses a model may require.
pub const MAX_REQUIRED_COURSES: usize = 50;
/// A clearance that lapses within this many days is shown as lapsing.
pub const LAPSING_DAYS: i64 = 30;
const MILLIS_PER_DAY: i64 = 86_400_000;

pub const MSG_TOO_MANY_COURSES: &str = "Модель может требовать не более 50 курсов";
pub const MSG_UNKNOWN_COURSE: &str = "Курс не найден";

/// The courses a model is to require: each once, ascending, at most
/// [`MAX_REQUIRED_COURSES`], all positive ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredCourses(Vec<i64>);

impl RequiredCourses {
    pub fn parse(course_ids: &[i64]) -> ServiceResult<RequiredCourses> {
        let mut ids = course_ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() > MAX_REQUIRED_COURSES {
            return Err(ServiceError::invalid(MSG_TOO_MANY_COURSES));
        }
        if ids.iter().any(|id| *id <= 0) {
            return Err(ServiceError::invalid(MSG_UNKNOWN_COURSE));
        }
        Ok(RequiredCourses(ids))
    }

    /// Ok when education knows every course (`known`, its answer); an
    /// unknown one is INVALID_ARGUMENT naming its id.
    pub fn require_known(&self, known: &[i64]) -> ServiceResult<()> {
        match self.0.iter().find(|id| !known.contains(id)) {
            Some(id) => Err(ServiceError::invalid(format!("{MSG_UNKNOWN_COURSE}: {id}"))),
            None => Ok(()),
        }
    }

    pub fn ids(&self) -> &[i64] {
        &self.0
    }
}

/// One person's clearance for a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clearance {
    /// Required courses not passed, or passed and expired, ascending.
    pub missing: Vec<i64>,
    /// When cleared: the earliest expiry among the required passes (Unix ms);
    /// `None` when none expires. `None` when not cleared.
    pub valid_until: Option<i64>,
}

impl Clearance {
    /// A person's clearance against `required` courses on `now`: `passes`
    /// maps a course they have passed to its pass's expiry (`None`: never).
    pub fn of(required: &[i64], passes: &HashMap<i64, Option<i64>>, now: i64) -> Clearance {
        let current = |course: &i64| match passes.get(course) {
            Some(Some(until)) => *until > now,
            Some(None) => true,
            None => false,
        };
        let missing: Vec<i64> = required.iter().filter(|c| !current(c)).copied().collect();
        let valid_until = if missing.is_empty() {
            required
                .iter()
                .filter_map(|course| passes.get(course).copied().flatten())
                .min()
        } else {
            None
        };
        Clearance {
            missing,
            valid_until,
        }
    }

    pub fn cleared(&self) -> bool {
        self.missing.is_empty()
    }

    /// Cleared, and lapsing within [`LAPSING_DAYS`] of `now`.
    pub fn lapsing(&self, now: i64) -> bool {
        self.cleared()
            && self
                .valid_until
                .is_some_and(|until| until <= now + LAPSING_DAYS * MILLIS_PER_DAY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;
    const DAY: i64 = MILLIS_PER_DAY;

    #[test]
    fn every_required_course_passed_and_current_clears() {
        let passes = HashMap::from([(1, None), (2, Some(NOW + 90 * DAY)), (3, Some(NOW - 1))]);
        let cleared = Clearance::of(&[1, 2], &passes, NOW);
        assert!(cleared.cleared());
        assert_eq!(cleared.valid_until, Some(NOW + 90 * DAY));
        assert!(!cleared.lapsing(NOW));

        let expired = Clearance::of(&[1, 3, 4], &passes, NOW);
        assert_eq!(expired.missing, [3, 4], "expired and never passed");
        assert_eq!(expired.valid_until, None);

        let forever = Clearance::of(&[1], &passes, NOW);
        assert_eq!((forever.cleared(), forever.valid_until), (true, None));
        assert!(Clearance::of(&[], &HashMap::new(), NOW).cleared());
    }

    #[test]
    fn a_clearance_lapsing_within_thirty_days_is_lapsing() {
        let passes = HashMap::from([(1, Some(NOW + 30 * DAY)), (2, Some(NOW + 31 * DAY))]);
        assert!(Clearance::of(&[1, 2], &passes, NOW).lapsing(NOW));
        assert!(!Clearance::of(&[2], &passes, NOW).lapsing(NOW));
    }

    #[test]
    fn required_courses_are_each_once_and_known() {
        let required = RequiredCourses::parse(&[5, 3, 5]).unwrap();
        assert_eq!(required.ids(), [3, 5]);
        let refused = required.require_known(&[3]).unwrap_err();
        assert_eq!(refused.to_string(), "Курс не найден: 5");
        let many: Vec<i64> = (1..=51).collect();
        assert!(RequiredCourses::parse(&many).is_err());
        assert!(RequiredCourses::parse(&[0]).is_err());
    }
}
