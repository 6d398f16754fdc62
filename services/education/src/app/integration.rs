//! What other hospital systems ask of education (issue 21): training records
//! after a cursor, as a page or as a stream that follows new ones; every
//! assignee's standing; and assigning a course by the HR system's keys. The
//! HR keys come from auth ([`Staff`]), asked with the caller's token.

use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use portal_kit::audit::AuditContext;
use portal_kit::deadline::Deadline;
use portal_kit::token::MSG_SESSION_EXPIRED;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::auth::v1::ResolveStaffRequest;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tonic::metadata::MetadataMap;

use crate::app::compliance::assess_rows;
use crate::app::staff::{OnBehalf, Staff};
use crate::domain::compliance::Assessment;
use crate::domain::date::Day;
use crate::domain::integration::{AssignmentKeys, Author, Page};
use crate::store::{AssignOutcome, ComplianceRow, Store, TrainingRow};

/// A watcher reads the database at least this often, so results committed by
/// other replicas (whose bell it cannot hear) reach it within a second.
pub const WATCH_POLL: Duration = Duration::from_millis(500);
/// Records a watch message holds at most.
pub const WATCH_BATCH: i64 = 500;
/// How long a watcher's each question to auth may take.
const WATCH_CALL_LIMIT: Duration = Duration::from_secs(10);
/// Messages a watcher may have ready before it waits for its client.
const WATCH_BUFFER: usize = 4;

/// A training record with the learner's HR employee number (empty when none).
pub struct Record {
    pub row: TrainingRow,
    pub employee_number: String,
}

/// Records after the page's cursor, with their employee numbers.
pub async fn records(
    store: &Store,
    staff: &Staff,
    caller: OnBehalf<'_>,
    page: Page,
) -> ServiceResult<Vec<Record>> {
    let rows = store.records_after(page.after, page.limit).await?;
    let user_ids: BTreeSet<i64> = rows.iter().map(|row| row.user_id).collect();
    let numbers = staff
        .employee_numbers(caller, user_ids.into_iter().collect())
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| Record {
            employee_number: numbers.get(&row.user_id).cloned().unwrap_or_default(),
            row,
        })
        .collect())
}

/// What a watcher needs: where to read, whom to ask for HR keys, and when to
/// stop.
pub struct Watch {
    pub store: Store,
    pub staff: Staff,
    /// The caller's credentials, for auth.
    pub metadata: MetadataMap,
    /// The caller's token's expiry, Unix seconds: the stream ends then.
    pub expires_at: u64,
    /// The server's shutdown: the stream ends (OK) then.
    pub shutdown: CancellationToken,
}

impl Watch {
    /// Starts following the records after `after`: batches in `seq` order,
    /// each sent once, then an error if one ends the stream. The receiver
    /// ends with the stream; dropping it stops the watcher.
    pub fn start(self, after: i64) -> mpsc::Receiver<ServiceResult<Vec<Record>>> {
        let (sender, receiver) = mpsc::channel(WATCH_BUFFER);
        tokio::spawn(self.run(after, sender));
        receiver
    }

    async fn run(self, mut cursor: i64, sender: mpsc::Sender<ServiceResult<Vec<Record>>>) {
        let expiry = Instant::now() + until(self.expires_at);
        // Subscribed before the first read: a result committed after it rings.
        let mut bell = self.store.record_bell();
        loop {
            bell.mark_unchanged();
            // Each step asks auth within its own limit: the stream has none.
            let caller = OnBehalf {
                metadata: &self.metadata,
                deadline: Deadline::within(WATCH_CALL_LIMIT),
            };
            let page = Page {
                after: cursor,
                limit: WATCH_BATCH,
            };
            let batch = tokio::select! {
                batch = records(&self.store, &self.staff, caller, page) => batch,
                () = self.shutdown.cancelled() => return,
            };
            let full = match &batch {
                Ok(records) => {
                    if let Some(last) = records.last() {
                        cursor = last.row.seq;
                    }
                    usize::try_from(WATCH_BATCH).is_ok_and(|limit| records.len() >= limit)
                }
                Err(_) => false,
            };
            let failed = batch.is_err();
            let nothing = batch.as_ref().is_ok_and(Vec::is_empty);
            if !nothing {
                tokio::select! {
                    sent = sender.send(batch) => if sent.is_err() { return },
                    () = self.shutdown.cancelled() => return,
                }
            }
            if failed {
                return;
            }
            if full {
                continue;
            }
            tokio::select! {
                _ = bell.changed() => {}
                () = tokio::time::sleep(WATCH_POLL) => {}
                () = sender.closed() => return,
                () = self.shutdown.cancelled() => return,
                () = tokio::time::sleep_until(expiry) => {
                    let expired = ServiceError::Unauthenticated(MSG_SESSION_EXPIRED.into());
                    let _ = sender.send(Err(expired)).await;
                    return;
                }
            }
        }
    }
}

/// Time from now until `unix_seconds`; nothing once it has passed.
fn until(unix_seconds: u64) -> Duration {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Duration::from_secs(unix_seconds).saturating_sub(now)
}

/// One assignee's standing in one course.
pub struct ComplianceItem {
    pub row: ComplianceRow,
    pub employee_number: String,
    pub assessment: Assessment,
}

/// A page of assignments with their standings, and the day they are for.
pub async fn compliance(
    store: &Store,
    staff: &Staff,
    caller: OnBehalf<'_>,
    course_id: i64,
    after: (i64, i64),
    page_limit: i64,
) -> ServiceResult<(Vec<ComplianceItem>, Day)> {
    let rows = store.compliance_rows(course_id, after, page_limit).await?;
    let user_ids: BTreeSet<i64> = rows.iter().map(|row| row.user_id).collect();
    let numbers = staff
        .employee_numbers(caller, user_ids.into_iter().collect())
        .await?;
    let today = Day::today();
    let items = assess_rows(store, rows, today)
        .await?
        .into_iter()
        .map(|(row, assessment)| ComplianceItem {
            employee_number: numbers.get(&row.user_id).cloned().unwrap_or_default(),
            assessment,
            row,
        })
        .collect();
    Ok((items, today))
}

/// What AssignCourse did, and which keys named nobody.
pub struct Assignment {
    pub outcome: AssignOutcome,
    pub blocked: Vec<i64>,
    pub not_found_employee_numbers: Vec<String>,
    pub not_found_department_codes: Vec<String>,
    pub not_found_user_ids: Vec<i64>,
}

/// Assigns course `course_id` to the people `keys` name, as auth resolves
/// them for the caller: NOT_FOUND for an unknown course before auth is asked.
/// Written as `author`'s, recorded in `audit`.
pub async fn assign_course(
    store: &Store,
    staff: &Staff,
    caller: OnBehalf<'_>,
    course_id: i64,
    keys: AssignmentKeys,
    (author, audit): (Author, &AuditContext),
    now: i64,
) -> ServiceResult<Assignment> {
    store
        .course(crate::store::Viewer::Everything, course_id)
        .await?;
    let resolved = if keys.employee_numbers.is_empty()
        && keys.department_codes.is_empty()
        && keys.user_ids.is_empty()
    {
        Default::default()
    } else {
        let request = ResolveStaffRequest {
            employee_numbers: keys.employee_numbers.iter().cloned().collect(),
            department_codes: keys.department_codes.iter().cloned().collect(),
            user_ids: keys.user_ids.iter().copied().collect(),
        };
        staff.resolve(caller, request).await?
    };
    let numbers: HashSet<&str> = resolved
        .people
        .iter()
        .map(|person| person.employee_number.as_str())
        .collect();
    let codes: HashSet<&str> = resolved
        .departments
        .iter()
        .map(|department| department.code.as_str())
        .collect();
    let ids: HashSet<i64> = resolved
        .people
        .iter()
        .map(|person| person.user_id)
        .collect();
    let mut people = BTreeSet::new();
    let mut blocked = BTreeSet::new();
    for person in &resolved.people {
        if person.blocked {
            blocked.insert(person.user_id);
        } else {
            people.insert(person.user_id);
        }
    }
    let outcome = store
        .assign_course(course_id, &people, keys.deadline, author, now, audit)
        .await?;
    Ok(Assignment {
        outcome,
        blocked: blocked.into_iter().collect(),
        not_found_employee_numbers: keys
            .employee_numbers
            .iter()
            .filter(|number| !numbers.contains(number.as_str()))
            .cloned()
            .collect(),
        not_found_department_codes: keys
            .department_codes
            .iter()
            .filter(|code| !codes.contains(code.as_str()))
            .cloned()
            .collect(),
        not_found_user_ids: keys
            .user_ids
            .iter()
            .copied()
            .filter(|id| !ids.contains(id))
            .collect(),
    })
}
