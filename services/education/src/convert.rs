//! Stored records and use-case answers as the contract's messages.

use portal_kit::db::timestamp_from_millis;
use portal_proto::education::v1 as pb;

use crate::app::attempts::Started;
use crate::app::compliance::{AssigneeStanding, CourseCompliance};
use crate::app::integration::{Assignment, ComplianceItem, Record};
use crate::app::my_tests::MyTest;
use crate::domain::attempt::expires_at;
use crate::domain::compliance::{Assessment, Standing, Validity, valid_until};
use crate::domain::date::Day;
use crate::store::{
    AnswerRecord, ArticleRecord, Completed, CourseRecord, FullQuestion, InProgress, QuestionStats,
    ResultRecord, RevisionRecord, TestRecord, TriesUsed,
};

/// A stored count as the contract's int32; counts here are far below its limit.
fn count(value: i64) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

/// A day as the contract's text; empty for none.
fn day_text(day: Option<Day>) -> String {
    day.map(|day| day.to_string()).unwrap_or_default()
}

/// A complete course whose pass ends within 30 days.
fn is_expiring(assessment: &Assessment) -> bool {
    assessment.standing == Standing::Complete
        && matches!(assessment.validity, Validity::Expiring(_))
}

fn count_usize(value: usize) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn tries_left(test: &TestRecord, used: TriesUsed) -> i32 {
    count((test.number_of_tries - used.started).max(0))
}

impl From<RevisionRecord> for pb::Revision {
    /// Author 0 for the version of before revisions were kept.
    fn from(record: RevisionRecord) -> pb::Revision {
        pb::Revision {
            id: record.id,
            author_id: record.author_id.unwrap_or(0),
            author_name: record.author_name,
            created_at: Some(timestamp_from_millis(record.created_at)),
            size: record.size,
            restored_from_id: record.restored_from_id.unwrap_or(0),
            restored_from_created_at: record.restored_from_at.map(timestamp_from_millis),
        }
    }
}

impl From<ArticleRecord> for pb::Article {
    fn from(record: ArticleRecord) -> pb::Article {
        pb::Article {
            id: record.id,
            title: record.title,
            description: record.description,
            content: record.content,
            date_deadline: record.date_deadline.unwrap_or_default(),
            test_id: record.test_id.unwrap_or(0),
        }
    }
}

impl From<CourseRecord> for pb::Course {
    fn from(record: CourseRecord) -> pb::Course {
        pb::Course {
            id: record.id,
            title: record.title,
            description: record.description,
            date_creation: Some(timestamp_from_millis(record.date_creation)),
            date_deadline: record.date_deadline,
            validity_months: count(record.validity_months),
        }
    }
}

impl From<CourseRecord> for pb::CourseRef {
    fn from(record: CourseRecord) -> pb::CourseRef {
        pb::CourseRef {
            id: record.id,
            title: record.title,
        }
    }
}

impl From<TestRecord> for pb::TestInfo {
    fn from(record: TestRecord) -> pb::TestInfo {
        pb::TestInfo {
            id: record.id,
            title: record.title,
            description: record.description,
            total_points_required: count(record.total_points_required),
            number_of_questions: count(record.number_of_questions),
            number_of_tries: count(record.number_of_tries),
            article_id: record.article_id.unwrap_or(0),
        }
    }
}

pub fn summary(record: TestRecord, used: TriesUsed, open: Option<InProgress>) -> pb::TestSummary {
    pb::TestSummary {
        number_of_tries_left: tries_left(&record, used),
        attempt_in_progress: open.map(|attempt| pb::AttemptInProgress {
            attempt_id: attempt.id,
            started_at: Some(timestamp_from_millis(attempt.started_at)),
            expires_at: Some(timestamp_from_millis(expires_at(attempt.started_at))),
        }),
        id: record.id,
        title: record.title,
        description: record.description,
        number_of_questions: count(record.number_of_questions),
        total_points_required: count(record.total_points_required),
        number_of_tries: count(record.number_of_tries),
    }
}

/// A test with its questions and which answers are correct: for education
/// managers only.
pub fn full_test(record: TestRecord, questions: Vec<FullQuestion>) -> pb::Test {
    pb::Test {
        id: record.id,
        title: record.title,
        description: record.description,
        total_points_required: count(record.total_points_required),
        number_of_questions: count(record.number_of_questions),
        number_of_tries: count(record.number_of_tries),
        article_id: record.article_id.unwrap_or(0),
        questions: questions.into_iter().map(pb::Question::from).collect(),
    }
}

impl From<FullQuestion> for pb::Question {
    fn from(question: FullQuestion) -> pb::Question {
        pb::Question {
            id: question.question.id,
            title: question.question.title,
            answers: question.answers.into_iter().map(pb::Answer::from).collect(),
        }
    }
}

impl From<AnswerRecord> for pb::Answer {
    fn from(answer: AnswerRecord) -> pb::Answer {
        pb::Answer {
            id: answer.id,
            title: answer.title,
            is_correct: answer.is_correct == 1,
        }
    }
}

impl From<Started> for pb::StartAttemptResponse {
    fn from(started: Started) -> pb::StartAttemptResponse {
        let Started {
            attempt,
            questions,
            test,
            used,
        } = started;
        pb::StartAttemptResponse {
            attempt_id: attempt.id,
            questions: questions.into_iter().map(drawn_question).collect(),
            started_at: Some(timestamp_from_millis(attempt.started_at)),
            number_of_tries_left: tries_left(&test, used),
            expires_at: Some(timestamp_from_millis(expires_at(attempt.started_at))),
        }
    }
}

/// A question as a learner sees it: no correctness.
fn drawn_question(question: FullQuestion) -> pb::DrawnQuestion {
    pb::DrawnQuestion {
        id: question.question.id,
        title: question.question.title,
        answers: question
            .answers
            .into_iter()
            .map(|a| pb::AnswerOption {
                id: a.id,
                title: a.title,
            })
            .collect(),
    }
}

/// A scored attempt, and the tries left on its test after it.
pub fn completed(
    completed: Completed,
    test: &TestRecord,
    used: TriesUsed,
) -> pb::CompleteTestResponse {
    pb::CompleteTestResponse {
        total_point: count(completed.total_point),
        is_passed: completed.is_passed,
        total_points_possible: count(completed.points_possible),
        test_result_id: completed.attempt_id,
        number_of_tries_left: tries_left(test, used),
    }
}

impl From<MyTest> for pb::AssignedTest {
    fn from(mine: MyTest) -> pb::AssignedTest {
        let MyTest {
            test,
            tries,
            link,
            validity,
        } = mine;
        pb::AssignedTest {
            // "My tests" lists tries, not attempts in progress.
            summary: Some(summary(test, tries, None)),
            article_id: link.article_id,
            article_title: link.article_title,
            is_passed: matches!(validity, Validity::Current(_) | Validity::Expiring(_)),
            course_id: link.course_id,
            date_deadline: link.date_deadline,
            valid_until: day_text(validity.valid_until()),
            is_expiring: matches!(validity, Validity::Expiring(_)),
            is_expired: matches!(validity, Validity::Expired(_)),
        }
    }
}

impl From<ResultRecord> for pb::TestResult {
    fn from(record: ResultRecord) -> pb::TestResult {
        pb::TestResult {
            id: record.id,
            test: Some(pb::TestRef {
                id: record.test_id,
                title: record.test_title,
            }),
            user_id: record.user_id,
            total_point: count(record.total_point),
            is_passed: record.is_passed == 1,
            date_completion: Some(timestamp_from_millis(record.completed_at)),
            total_points_possible: count(record.points_possible),
        }
    }
}

impl From<QuestionStats> for pb::QuestionAnalysis {
    fn from(stats: QuestionStats) -> pb::QuestionAnalysis {
        pb::QuestionAnalysis {
            question_id: stats.id,
            title: stats.title,
            times_answered: count(stats.answered),
            times_correct: count(stats.correct),
        }
    }
}

impl From<CourseCompliance> for pb::GetCourseComplianceResponse {
    fn from(compliance: CourseCompliance) -> pb::GetCourseComplianceResponse {
        pb::GetCourseComplianceResponse {
            course: Some(compliance.course.into()),
            assignees: compliance
                .assignees
                .into_iter()
                .map(pb::AssigneeCompliance::from)
                .collect(),
            today: compliance.today.to_string(),
        }
    }
}

impl From<AssigneeStanding> for pb::AssigneeCompliance {
    fn from(assignee: AssigneeStanding) -> pb::AssigneeCompliance {
        let a = assignee.assessment;
        pb::AssigneeCompliance {
            user_id: assignee.user_id,
            tests_passed: count_usize(a.passed),
            tests_total: count_usize(a.total),
            is_complete: a.standing == Standing::Complete,
            is_overdue: a.standing == Standing::Overdue,
            is_due_soon: a.standing == Standing::DueSoon,
            valid_until: day_text(a.validity.valid_until()),
            is_expiring: is_expiring(&a),
            is_expired: matches!(a.validity, Validity::Expired(_)),
            date_deadline: day_text(a.deadline),
        }
    }
}

impl From<Record> for pb::TrainingRecord {
    fn from(
        Record {
            row,
            employee_number,
        }: Record,
    ) -> pb::TrainingRecord {
        pb::TrainingRecord {
            seq: row.seq,
            user_id: row.user_id,
            employee_number,
            course_id: row.course_id.unwrap_or(0),
            course_title: row.course_title.unwrap_or_default(),
            test_id: row.test_id,
            test_title: row.test_title,
            attempt_id: row.attempt_id,
            try_number: count(row.try_number),
            points: count(row.points),
            max_points: count(row.max_points),
            points_required: count(row.points_required),
            passed: row.passed == 1,
            completed_at: Some(timestamp_from_millis(row.completed_at)),
            valid_until: if row.passed == 1 {
                day_text(valid_until(row.completed_at, row.validity_months))
            } else {
                String::new()
            },
        }
    }
}

/// The records of a page or a watch message, and the cursor after them
/// (`after` when there are none).
pub fn records(records: Vec<Record>, after: i64) -> (Vec<pb::TrainingRecord>, i64) {
    let next = records.last().map_or(after, |record| record.row.seq);
    (records.into_iter().map(Into::into).collect(), next)
}

impl From<ComplianceItem> for pb::TrainingCompliance {
    fn from(item: ComplianceItem) -> pb::TrainingCompliance {
        let ComplianceItem {
            row,
            employee_number,
            assessment: a,
        } = item;
        pb::TrainingCompliance {
            course_id: row.course_id,
            course_title: row.course_title,
            user_id: row.user_id,
            employee_number,
            date_deadline: day_text(a.deadline),
            own_deadline: row.own_deadline.is_some(),
            tests_passed: count_usize(a.passed),
            tests_total: count_usize(a.total),
            is_complete: a.standing == Standing::Complete,
            is_overdue: a.standing == Standing::Overdue,
            valid_until: day_text(a.validity.valid_until()),
            is_expiring: is_expiring(&a),
            is_expired: matches!(a.validity, Validity::Expired(_)),
        }
    }
}

impl From<Assignment> for pb::AssignCourseResponse {
    fn from(assignment: Assignment) -> pb::AssignCourseResponse {
        let Assignment {
            outcome,
            blocked,
            not_found_employee_numbers,
            not_found_department_codes,
            not_found_user_ids,
        } = assignment;
        pb::AssignCourseResponse {
            assigned: outcome.assigned,
            updated: outcome.updated,
            unchanged: outcome.unchanged,
            blocked,
            not_found_employee_numbers,
            not_found_department_codes,
            not_found_user_ids,
        }
    }
}

impl From<crate::app::passes::Pass> for pb::CoursePass {
    fn from(pass: crate::app::passes::Pass) -> pb::CoursePass {
        pb::CoursePass {
            user_id: pass.user_id,
            course_id: pass.course_id,
            passed_at: Some(timestamp_from_millis(pass.passed_at)),
            valid_until: pass.valid_until.map(timestamp_from_millis),
        }
    }
}
