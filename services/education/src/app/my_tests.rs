//! A learner's own list of tests: each assigned test once, with their tries.

use std::collections::HashMap;

use portal_kit::ServiceResult;

use crate::store::{AssignedTestRecord, Store, TestRecord, TriesUsed, Viewer};

/// A test assigned to the learner, under the first article that links it and
/// due by the earliest of its links' deadlines.
pub struct MyTest {
    pub test: TestRecord,
    pub tries: TriesUsed,
    pub link: AssignedTestRecord,
}

pub async fn my_tests(store: &Store, user_id: i64) -> ServiceResult<Vec<MyTest>> {
    let assigned = store.assigned_tests(user_id).await?;
    let mut used = store.tries_by_test(user_id).await?;
    let tests: HashMap<i64, TestRecord> = store
        .tests(Viewer::Assignee(user_id))
        .await?
        .into_iter()
        .map(|test| (test.id, test))
        .collect();
    let mut mine: Vec<MyTest> = Vec::new();
    let mut listed: HashMap<i64, usize> = HashMap::new();
    for link in assigned {
        let Some(test) = tests.get(&link.test_id) else {
            continue;
        };
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
            tries: used.remove(&test.id).unwrap_or_default(),
            link,
        });
    }
    Ok(mine)
}
