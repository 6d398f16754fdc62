//! Enrolling in a course that clears a person to operate equipment (issue
//! 37): a nurse whose ventilator requires a course nobody assigned her may
//! take it herself. Which courses clear whom is the wiki's (a model's
//! required courses, and which models the person sees), so education asks
//! its `CheckClearanceCourse` with the caller's own token, within what is
//! left of the call, as the wiki asks education for passes; the enrolment
//! is an assignment education keeps, made by the person themselves.

use std::collections::BTreeSet;

use portal_kit::audit::AuditContext;
use portal_kit::on_behalf::refusal;
use portal_kit::serve::ServiceChannel;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::wiki::v1::CheckClearanceCourseRequest;
use portal_proto::wiki::v1::wiki_service_client::WikiServiceClient;

use crate::app::staff::OnBehalf;
use crate::domain::course::MSG_COURSE_NOT_FOUND;
use crate::domain::integration::Author;
use crate::store::{CourseRecord, Store, Viewer};

pub const MSG_WIKI_UNAVAILABLE: &str = "Сервис оборудования временно недоступен, попробуйте позже";

/// The wiki, asked which courses clear the caller to operate its equipment.
#[derive(Clone)]
pub struct Equipment {
    wiki: WikiServiceClient<ServiceChannel>,
}

impl Equipment {
    /// `wiki`: every replica of the wiki.
    pub fn new(wiki: ServiceChannel) -> Equipment {
        Equipment {
            wiki: WikiServiceClient::new(wiki),
        }
    }

    /// Whether a model the caller sees requires course `course_id`.
    async fn clears(&self, caller: OnBehalf<'_>, course_id: i64) -> ServiceResult<bool> {
        let request = caller.request(CheckClearanceCourseRequest { course_id });
        match self.wiki.clone().check_clearance_course(request).await {
            Ok(reply) => Ok(reply.into_inner().clears),
            Err(status) => Err(refusal(&status, MSG_WIKI_UNAVAILABLE)),
        }
    }
}

/// Enrols person `user_id` (the caller) in course `course_id` if it clears
/// them to operate equipment they see: the course as they now read it, and
/// whether this call enrolled them. A course already theirs is answered as
/// it is, the wiki not asked; one that clears them for nothing is NOT_FOUND,
/// as an unassigned course reads.
pub async fn enroll(
    store: &Store,
    equipment: &Equipment,
    caller: OnBehalf<'_>,
    (user_id, course_id): (i64, i64),
    (now, audit): (i64, &AuditContext),
) -> ServiceResult<(CourseRecord, bool)> {
    let mine = Viewer::Assignee(user_id);
    match store.course(mine, course_id).await {
        Ok(course) => return Ok((course, false)),
        Err(ServiceError::NotFound(_)) => {}
        Err(error) => return Err(error),
    }
    if !equipment.clears(caller, course_id).await? {
        return Err(ServiceError::not_found(MSG_COURSE_NOT_FOUND));
    }
    let me = BTreeSet::from([user_id]);
    let outcome = store
        .assign_course(course_id, &me, None, Author::Person(user_id), now, audit)
        .await?;
    let course = store.course(mine, course_id).await?;
    Ok((course, !outcome.assigned.is_empty()))
}
