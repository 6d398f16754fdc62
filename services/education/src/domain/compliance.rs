//! Where an assignee stands with a course's deadline.

use super::date::Day;

/// How many days before a deadline an unfinished course counts as due soon.
pub const DUE_SOON_DAYS: i64 = 7;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_decides_only_for_unfinished_courses() {
        let today = Day::parse("2026-03-10").unwrap();
        let day = |text| Some(Day::parse(text).unwrap());
        assert_eq!(standing(2, 2, day("2026-03-01"), today), Standing::Complete);
        assert_eq!(standing(1, 2, day("2026-03-09"), today), Standing::Overdue);
        assert_eq!(standing(1, 2, day("2026-03-10"), today), Standing::DueSoon);
        assert_eq!(standing(0, 2, day("2026-03-17"), today), Standing::DueSoon);
        assert_eq!(
            standing(0, 2, day("2026-03-18"), today),
            Standing::InProgress
        );
    }
}
