//! Clearance to operate equipment: the courses a model requires are the
//! wiki's, the passes of them education's, a department's members auth's. So
//! setting a model's courses asks education whether they exist, and a
//! clearance asks education for passes (and auth for a department's members),
//! each with the caller's own token, so each service applies its own rule to
//! the caller, within what is left of the caller's call (`grpc-timeout`).

use std::collections::HashMap;

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
pub use portal_kit::on_behalf::OnBehalf;
use portal_kit::on_behalf::refusal;
use portal_kit::serve::ServiceChannel;
use portal_proto::auth::v1::auth_service_client::AuthServiceClient;
use portal_proto::auth::v1::{DepartmentMember, GetDepartmentWithUsersRequest};
use portal_proto::education::v1::education_service_client::EducationServiceClient;
use portal_proto::education::v1::{ListCoursePassesRequest, ListCoursePassesResponse};

use crate::domain::clearance::{Clearance, RequiredCourses};
use crate::store::Store;

pub const MSG_EDUCATION_UNAVAILABLE: &str = "Сервис обучения временно недоступен, попробуйте позже";
pub const MSG_AUTH_UNAVAILABLE: &str = "Сервис сотрудников временно недоступен, попробуйте позже";

/// Education's limits of one `ListCoursePasses` call.
const PEOPLE_PER_CALL: usize = 1000;
const COURSES_PER_CALL: usize = 50;

/// A course the clearance names: id and title.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Course {
    pub id: i64,
    pub title: String,
}

/// A member of a department with their clearance.
#[derive(Clone, Debug)]
pub struct MemberClearance {
    pub member: DepartmentMember,
    pub clearance: Clearance,
}

/// Education (passes, courses) and auth (a department's members).
#[derive(Clone)]
pub struct Training {
    education: EducationServiceClient<ServiceChannel>,
    auth: AuthServiceClient<ServiceChannel>,
}

impl Training {
    /// `education` and `auth`: every replica of each.
    pub fn new(education: ServiceChannel, auth: ServiceChannel) -> Training {
        Training {
            education: EducationServiceClient::new(education),
            auth: AuthServiceClient::new(auth),
        }
    }

    /// Education's passes of `user_ids` of `course_ids`, and which of the
    /// courses exist: asked in as many calls as education's limits per call
    /// need (a large department, a hospital whose models require many
    /// courses), one after another.
    async fn passes(
        &self,
        caller: OnBehalf<'_>,
        user_ids: Vec<i64>,
        course_ids: &[i64],
    ) -> ServiceResult<ListCoursePassesResponse> {
        let mut answer = ListCoursePassesResponse::default();
        for people in at_least_one(&user_ids, PEOPLE_PER_CALL) {
            for courses in at_least_one(course_ids, COURSES_PER_CALL) {
                let request = caller.request(ListCoursePassesRequest {
                    user_ids: people.to_vec(),
                    course_ids: courses.to_vec(),
                });
                let part = match self.education.clone().list_course_passes(request).await {
                    Ok(reply) => reply.into_inner(),
                    Err(status) => return Err(refusal(&status, MSG_EDUCATION_UNAVAILABLE)),
                };
                for course in part.courses {
                    if !answer.courses.iter().any(|known| known.id == course.id) {
                        answer.courses.push(course);
                    }
                }
                answer.passes.extend(part.passes);
            }
        }
        Ok(answer)
    }

    /// The members of `department_id` as auth lists them to the caller.
    async fn members(
        &self,
        caller: OnBehalf<'_>,
        department_id: i64,
    ) -> ServiceResult<Vec<DepartmentMember>> {
        let request = caller.request(GetDepartmentWithUsersRequest { department_id });
        match self.auth.clone().get_department_with_users(request).await {
            Ok(reply) => Ok(reply
                .into_inner()
                .department
                .map(|department| department.users)
                .unwrap_or_default()),
            Err(status) => Err(refusal(&status, MSG_AUTH_UNAVAILABLE)),
        }
    }
}

/// `ids` in parts of at most `size`; none still makes one (empty) part, as
/// education answers a question with no people (which courses exist).
fn at_least_one(ids: &[i64], size: usize) -> Vec<&[i64]> {
    if ids.is_empty() {
        vec![ids]
    } else {
        ids.chunks(size).collect()
    }
}

/// Replaces the courses model `model_id` requires, once education knows each
/// of them; answers them as stored.
pub async fn set_required(
    store: &Store,
    training: &Training,
    caller: OnBehalf<'_>,
    model_id: i64,
    required: &RequiredCourses,
    audit: &AuditContext,
) -> ServiceResult<Vec<i64>> {
    if !required.ids().is_empty() {
        let known = training.passes(caller, Vec::new(), required.ids()).await?;
        let known: Vec<i64> = known.courses.iter().map(|course| course.id).collect();
        required.require_known(&known)?;
    }
    store
        .set_required_courses(audit, model_id, required.ids())
        .await?;
    store.required_courses(model_id).await
}

/// The clearance of `user_id` (the caller) for model `model_id` on `now`, and
/// the courses it names (the missing ones), by id.
pub async fn of_person(
    store: &Store,
    training: &Training,
    caller: OnBehalf<'_>,
    user_id: i64,
    model_id: i64,
    now: i64,
) -> ServiceResult<(Clearance, Vec<Course>)> {
    let required = store.required_courses(model_id).await?;
    if required.is_empty() {
        return Ok((Clearance::of(&[], &HashMap::new(), now), Vec::new()));
    }
    let answer = training.passes(caller, vec![user_id], &required).await?;
    let passes = passes_of(&answer).remove(&user_id).unwrap_or_default();
    let clearance = Clearance::of(&required, &passes, now);
    let missing = titled(&answer, &clearance.missing);
    Ok((clearance, missing))
}

/// Each member of `department_id` with their clearance for model `model_id`
/// on `now`, and the courses the model requires, by id.
pub async fn of_department(
    store: &Store,
    training: &Training,
    caller: OnBehalf<'_>,
    model_id: i64,
    department_id: i64,
    now: i64,
) -> ServiceResult<(Vec<Course>, Vec<MemberClearance>)> {
    let members = training.members(caller, department_id).await?;
    let required = store.required_courses(model_id).await?;
    let user_ids = members.iter().map(|member| member.id).collect();
    let answer = if required.is_empty() {
        ListCoursePassesResponse::default()
    } else {
        training.passes(caller, user_ids, &required).await?
    };
    let mut passes = passes_of(&answer);
    let people = members
        .into_iter()
        .map(|member| {
            let theirs = passes.remove(&member.id).unwrap_or_default();
            MemberClearance {
                clearance: Clearance::of(&required, &theirs, now),
                member,
            }
        })
        .collect();
    Ok((titled(&answer, &required), people))
}

/// The models `user_id` (the caller) is cleared for on `now` whose clearance
/// lapses within 30 days, each with when it ends (Unix ms): one question to
/// education for every course any model requires.
pub async fn lapsing_for(
    store: &Store,
    training: &Training,
    caller: OnBehalf<'_>,
    user_id: i64,
    now: i64,
) -> ServiceResult<Vec<(i64, i64)>> {
    let required = store.every_required_course().await?;
    let courses = required_course_ids(&required);
    if courses.is_empty() {
        return Ok(Vec::new());
    }
    let answer = training.passes(caller, vec![user_id], &courses).await?;
    let passes = passes_of(&answer).remove(&user_id).unwrap_or_default();
    Ok(lapsing(&required, &passes, now))
}

/// Every course any model of `required` (model → its courses) requires,
/// ascending, each once.
pub fn required_course_ids(required: &HashMap<i64, Vec<i64>>) -> Vec<i64> {
    let mut courses: Vec<i64> = required.values().flatten().copied().collect();
    courses.sort_unstable();
    courses.dedup();
    courses
}

/// The models of `required` (model → its courses) a person with `passes`
/// (course → expiry, Unix ms; `None`: never) is cleared for on `now` and
/// whose clearance lapses within 30 days, each with when it ends, by model:
/// the one rule of the bell's clearances and the digest's.
pub fn lapsing(
    required: &HashMap<i64, Vec<i64>>,
    passes: &HashMap<i64, Option<i64>>,
    now: i64,
) -> Vec<(i64, i64)> {
    let mut lapsing: Vec<(i64, i64)> = required
        .iter()
        .filter_map(|(model_id, courses)| {
            let clearance = Clearance::of(courses, passes, now);
            clearance
                .lapsing(now)
                .then_some((*model_id, clearance.valid_until?))
        })
        .collect();
    lapsing.sort_unstable();
    lapsing
}

/// Each person's passes: course → expiry (`None`: never), Unix ms.
fn passes_of(answer: &ListCoursePassesResponse) -> HashMap<i64, HashMap<i64, Option<i64>>> {
    let mut by_person: HashMap<i64, HashMap<i64, Option<i64>>> = HashMap::new();
    for pass in &answer.passes {
        let until = pass.valid_until.as_ref().map(millis);
        by_person
            .entry(pass.user_id)
            .or_default()
            .insert(pass.course_id, until);
    }
    by_person
}

/// A timestamp as Unix ms, the wiki's form of an instant.
pub fn millis(at: &prost_types::Timestamp) -> i64 {
    at.seconds.saturating_mul(1000) + i64::from(at.nanos) / 1_000_000
}

/// `ids` with education's titles; a course education no longer has keeps
/// its id with an empty title.
fn titled(answer: &ListCoursePassesResponse, ids: &[i64]) -> Vec<Course> {
    ids.iter()
        .map(|id| Course {
            id: *id,
            title: answer
                .courses
                .iter()
                .find(|course| course.id == *id)
                .map(|course| course.title.clone())
                .unwrap_or_default(),
        })
        .collect()
}
