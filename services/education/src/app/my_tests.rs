//! A learner's own list of tests: each assigned test once, with their tries
//! in the current cycle and whether their pass is still valid.

use std::collections::HashMap;

use portal_kit::ServiceResult;

use crate::domain::compliance::{Validity, lead_days, renewal_deadline};
use crate::domain::date::Day;
use crate::store::{AssignedTestRecord, Store, TestRecord, TriesUsed, Viewer};

/// A test assigned to the learner, under the first article that links it and
/// due by the earliest of its links' deadlines (a link whose pass expired
/// counts with its course's renewal deadline).
pub struct MyTest {
    pub test: TestRecord,
    pub tries: TriesUsed,
    pub link: AssignedTestRecord,
    pub validity: Validity,
}

pub async fn my_tests(store: &Store, user_id: i64, now: i64) -> ServiceResult<Vec<MyTest>> {
    let assigned = store.assigned_tests(user_id).await?;
    let cycles = store.cycles(user_id, now).await?;
    let tests: HashMap<i64, TestRecord> = store
        .tests(Viewer::Assignee(user_id))
        .await?
        .into_iter()
        .map(|test| (test.id, test))
        .collect();
    let today = Day::today();
    let mut mine: Vec<MyTest> = Vec::new();
    let mut listed: HashMap<i64, usize> = HashMap::new();
    for mut link in assigned {
        let Some(test) = tests.get(&link.test_id) else {
            continue;
        };
        let cycle = cycles.get(&test.id).copied().unwrap_or_default();
        let validity = Validity::of([cycle.last_pass], cycle.validity_months, today);
        if let Validity::Expired(until) = validity {
            let lead = lead_days(link.course_created, Day::stored(&link.course_deadline));
            link.date_deadline = renewal_deadline(until, lead).to_string();
        }
        if let Some(&index) = listed.get(&test.id) {
            let entry = &mut mine[index].link;
            if link.date_deadline < entry.date_deadline {
                entry.date_deadline = link.date_deadline;
            }
            continue;
        }
        listed.insert(test.id, mine.len());
        mine.push(MyTest {
            test: test.clone(),
            tries: cycle.into(),
            link,
            validity,
        });
    }
    Ok(mine)
}
