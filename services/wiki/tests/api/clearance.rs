//! Clearance to operate equipment, against the real auth and education with
//! their demo data: auth's demo nurse (2, реанимация and хирургия) has passed
//! education's demo CPR course (2) and its hand hygiene course (1); its
//! doctor (3, реанимация) has passed neither; the demo ventilator, in
//! реанимация (1), requires CPR.

use portal_kit::Right;
use portal_kit::testing;
use portal_proto::wiki::v1 as pb;
use tonic::Code;

use crate::helpers::*;

const ADMIN: i64 = 1;
const NURSE: i64 = 2;
const DOCTOR: i64 = 3;
const SENIOR_NURSE: i64 = 5;
/// Auth's demo `icu-nurse`, in реанимация, who passed nothing.
const ICU_NURSE: i64 = 8;
const ICU: i64 = 1;
const SURGERY: i64 = 2;
const CARDIOLOGY: i64 = 3;
const HYGIENE_COURSE: i64 = 1;
const CPR_COURSE: i64 = 2;
const CPR_TITLE: &str = "Базовая сердечно-лёгочная реанимация";

async fn on_each_backend_with_training<F: std::future::Future<Output = ()>>(
    scenario: impl Fn(TrainingApp) -> F,
) {
    testing::on_each_backend(spawn_with_training, scenario).await;
}

impl TestApp {
    async fn ventilator(&self) -> pb::EnvironmentModel {
        self.client
            .clone()
            .list_environment_models(authed(
                pb::ListEnvironmentModelsRequest {},
                &self.editor_token(),
            ))
            .await
            .expect("models")
            .into_inner()
            .environment_models
            .into_iter()
            .find(|m| m.name.starts_with("Аппарат ИВЛ"))
            .expect("the demo ventilator")
    }

    async fn clearance(
        &self,
        token: &str,
        model_id: i64,
    ) -> Result<pb::GetClearanceResponse, tonic::Status> {
        self.client
            .clone()
            .get_clearance(authed(
                pb::GetClearanceRequest {
                    environment_model_id: model_id,
                },
                token,
            ))
            .await
            .map(|r| r.into_inner())
    }

    async fn department_clearance(
        &self,
        token: &str,
        model_id: i64,
        department_id: i64,
    ) -> Result<pb::GetDepartmentClearanceResponse, tonic::Status> {
        self.client
            .clone()
            .get_department_clearance(authed(
                pb::GetDepartmentClearanceRequest {
                    environment_model_id: model_id,
                    department_id,
                },
                token,
            ))
            .await
            .map(|r| r.into_inner())
    }

    async fn set_required(
        &self,
        token: &str,
        model_id: i64,
        course_ids: &[i64],
    ) -> Result<Vec<i64>, tonic::Status> {
        self.client
            .clone()
            .set_required_courses(authed(
                pb::SetRequiredCoursesRequest {
                    environment_model_id: model_id,
                    course_ids: course_ids.to_vec(),
                },
                token,
            ))
            .await
            .map(|r| r.into_inner().course_ids)
    }
}

#[tokio::test]
async fn a_person_is_cleared_when_they_passed_every_required_course() {
    on_each_backend_with_training(|app| async move {
        let ventilator = app.ventilator().await;
        assert_eq!(ventilator.required_course_ids, [CPR_COURSE]);
        let nurse = app.keys.token(NURSE, &[], &[ICU, SURGERY]);
        let doctor = app.keys.token(DOCTOR, &[], &[ICU]);

        let cleared = app.clearance(&nurse, ventilator.id).await.unwrap();
        assert!(cleared.cleared);
        assert!(cleared.missing_courses.is_empty());
        // The demo's CPR is valid 12 months and she passed it 358 days ago.
        let until = cleared
            .valid_until
            .expect("a pass of a 12-month course expires");
        let days_left = (until.seconds - portal_kit::db::now_millis() / 1000) / 86_400;
        assert!(
            (5..=9).contains(&days_left),
            "lapses next week: {days_left} days"
        );

        let refused = app.clearance(&doctor, ventilator.id).await.unwrap();
        assert!(!refused.cleared);
        assert_eq!(
            refused.missing_courses,
            [pb::RequiredCourse {
                id: CPR_COURSE,
                title: CPR_TITLE.into()
            }]
        );

        // The editor adds hygiene, which the nurse passed too; the model read
        // carries both.
        let both = app
            .set_required(
                &app.editor_token(),
                ventilator.id,
                &[HYGIENE_COURSE, CPR_COURSE, CPR_COURSE],
            )
            .await
            .unwrap();
        assert_eq!(both, [HYGIENE_COURSE, CPR_COURSE]);
        assert_eq!(app.ventilator().await.required_course_ids, both);
        assert!(app.clearance(&nurse, ventilator.id).await.unwrap().cleared);
        let missing = app
            .clearance(&doctor, ventilator.id)
            .await
            .unwrap()
            .missing_courses;
        let ids: Vec<i64> = missing.iter().map(|c| c.id).collect();
        assert_eq!(ids, [HYGIENE_COURSE, CPR_COURSE]);

        // Requiring nothing clears everyone.
        app.set_required(&app.editor_token(), ventilator.id, &[])
            .await
            .unwrap();
        assert!(app.clearance(&doctor, ventilator.id).await.unwrap().cleared);
    })
    .await;
}

#[tokio::test]
async fn a_department_s_clearance_lists_each_member() {
    on_each_backend_with_training(|app| async move {
        let ventilator = app.ventilator().await;
        let editor = app.keys.token(ADMIN, &[Right::EquipmentEditing], &[ICU]);
        let answer = app
            .department_clearance(&editor, ventilator.id, ICU)
            .await
            .unwrap();
        assert_eq!(answer.required_courses.len(), 1);
        assert_eq!(answer.required_courses[0].title, CPR_TITLE);
        let standing = |id: i64| {
            let person = answer
                .people
                .iter()
                .find(|p| p.user_id == id)
                .unwrap_or_else(|| panic!("member {id}: {:?}", answer.people));
            (person.cleared, person.lapsing, person.missing_courses.len())
        };
        assert_eq!(
            standing(NURSE),
            (true, true, 0),
            "cleared, lapsing next week"
        );
        assert_eq!(standing(SENIOR_NURSE), (true, false, 0));
        assert_eq!(standing(DOCTOR), (false, false, 1));
        let nurse = answer.people.iter().find(|p| p.user_id == NURSE).unwrap();
        assert_eq!(nurse.surname, "Смирнова");
    })
    .await;
}

#[tokio::test]
async fn clearance_refuses_the_wrong_people() {
    on_each_backend_with_training(|app| async move {
        let ventilator = app.ventilator().await;
        let nurse = app.keys.token(NURSE, &[], &[ICU, SURGERY]);
        // Only editors name required courses, only courses education knows,
        // only for a model that exists.
        let refused = app.set_required(&nurse, ventilator.id, &[CPR_COURSE]).await;
        assert_eq!(code(&refused), Code::PermissionDenied);
        let unknown = app
            .set_required(&app.editor_token(), ventilator.id, &[9999])
            .await;
        assert_status(unknown, Code::InvalidArgument, "Курс не найден: 9999");
        let no_model = app
            .set_required(&app.editor_token(), 9999, &[CPR_COURSE])
            .await;
        assert_eq!(code(&no_model), Code::NotFound);
        assert_eq!(app.ventilator().await.required_course_ids, [CPR_COURSE]);

        // A learner reads no one's clearance but their own.
        let refused = app.department_clearance(&nurse, ventilator.id, ICU).await;
        assert_eq!(code(&refused), Code::PermissionDenied);
        // An equipment editor alone reads only departments auth lists to
        // them: their own as stored (the doctor's is реанимация alone).
        let doctor_editor = app.keys.token(DOCTOR, &[Right::EquipmentEditing], &[ICU]);
        assert!(
            app.department_clearance(&doctor_editor, ventilator.id, ICU)
                .await
                .is_ok()
        );
        let other = app
            .department_clearance(&doctor_editor, ventilator.id, CARDIOLOGY)
            .await;
        assert_eq!(code(&other), Code::PermissionDenied);
        // Education management alone: the departments of their token only.
        let educator = app
            .keys
            .token(NURSE, &[Right::EducationManagement], &[ICU, SURGERY]);
        let other = app
            .department_clearance(&educator, ventilator.id, CARDIOLOGY)
            .await;
        assert_eq!(code(&other), Code::PermissionDenied);
        let anonymous = app
            .client
            .clone()
            .get_clearance(pb::GetClearanceRequest {
                environment_model_id: ventilator.id,
            })
            .await;
        assert_eq!(code(&anonymous), Code::Unauthenticated);
    })
    .await;
}

/// The course that clears a nurse to operate her department's equipment is
/// hers to take (issue 37): the реанимация nurse who passed nothing, whom
/// nobody assigned basic CPR, enrols in it herself; it is then her course,
/// with its test's tries, recorded as her own change of its assignees. A
/// course no model of hers requires, or one another department's model
/// requires, stays out of reach (NOT_FOUND, as an unassigned course reads).
#[tokio::test]
async fn a_nurse_enrols_in_the_course_her_equipment_requires() {
    use portal_proto::audit::v1::ListAuditRecordsRequest;
    use portal_proto::audit::v1::audit_service_client::AuditServiceClient;
    use portal_proto::education::v1 as education;
    on_each_backend_with_training(|app| async move {
        let ventilator = app.ventilator().await;
        let icu_nurse = app.keys.token(ICU_NURSE, &[], &[ICU]);
        let mut courses = app.education.clone();
        let read = |token: String, course_id: i64| {
            let mut courses = app.education.clone();
            async move {
                courses
                    .get_course(authed(education::GetCourseRequest { course_id }, &token))
                    .await
            }
        };
        let enroll = |token: String, course_id: i64| {
            let mut courses = app.education.clone();
            async move {
                courses
                    .enroll_for_clearance(authed(
                        education::EnrollForClearanceRequest { course_id },
                        &token,
                    ))
                    .await
                    .map(|r| r.into_inner())
            }
        };
        assert_eq!(
            code(&read(icu_nurse.clone(), CPR_COURSE).await),
            Code::NotFound,
            "nobody assigned it to her"
        );
        let check = app
            .client
            .clone()
            .check_clearance_course(authed(
                pb::CheckClearanceCourseRequest {
                    course_id: CPR_COURSE,
                },
                &icu_nurse,
            ))
            .await
            .expect("the wiki says")
            .into_inner();
        assert!(check.clears);
        assert_eq!(check.environment_model_ids, [ventilator.id]);

        let audit = |channel: tonic::transport::Channel, token: String| async move {
            AuditServiceClient::new(channel)
                .list_audit_records(authed(
                    ListAuditRecordsRequest {
                        limit: 1000,
                        ..Default::default()
                    },
                    &token,
                ))
                .await
                .expect("the audit log")
                .into_inner()
                .records
        };
        let auditor = app.keys.token(ADMIN, &[Right::UserManagement], &[]);
        let before = audit(app.education_channel.clone(), auditor.clone())
            .await
            .len();

        let enrolled = enroll(icu_nurse.clone(), CPR_COURSE)
            .await
            .expect("enrolled");
        assert!(enrolled.enrolled);
        assert_eq!(enrolled.course.expect("the course").title, CPR_TITLE);
        let course = read(icu_nurse.clone(), CPR_COURSE).await.expect("hers now");
        assert_eq!(course.into_inner().course.unwrap().id, CPR_COURSE);
        let mine = courses
            .list_my_tests(authed(education::ListMyTestsRequest {}, &icu_nurse))
            .await
            .expect("her tests")
            .into_inner()
            .tests;
        let cpr = mine
            .iter()
            .find(|test| test.course_id == CPR_COURSE)
            .expect("the course's test is hers");
        let summary = cpr.summary.as_ref().unwrap();
        assert_eq!(summary.number_of_tries_left, summary.number_of_tries);
        assert!(summary.number_of_tries > 0);

        let records = audit(app.education_channel.clone(), auditor.clone()).await;
        let new = &records[..records.len() - before];
        let [record] = new else {
            panic!("one record: {new:?}");
        };
        assert_eq!(
            (
                record.entity.as_str(),
                record.entity_id,
                record.action.as_str()
            ),
            ("course", Some(CPR_COURSE), "update")
        );
        let actor = record.actor.as_ref().unwrap();
        assert_eq!(
            (actor.kind.as_str(), actor.user_id),
            ("person", Some(ICU_NURSE))
        );

        // Again: hers already, nothing written.
        let again = enroll(icu_nurse.clone(), CPR_COURSE).await.expect("hers");
        assert!(!again.enrolled);
        let after = audit(app.education_channel.clone(), auditor).await.len();
        assert_eq!(after, records.len());

        // Hand hygiene clears her for nothing; another department's nurse
        // sees no ventilator; an unknown course is unknown.
        let refused = enroll(icu_nurse.clone(), HYGIENE_COURSE).await;
        assert_status(refused, Code::NotFound, "Курс не найден");
        let elsewhere = app.keys.token(ICU_NURSE + 100, &[], &[CARDIOLOGY]);
        let refused = enroll(elsewhere.clone(), CPR_COURSE).await;
        assert_status(refused, Code::NotFound, "Курс не найден");
        assert_eq!(code(&read(elsewhere, CPR_COURSE).await), Code::NotFound);
        let refused = enroll(icu_nurse, 9999).await;
        assert_eq!(code(&refused), Code::NotFound);
        let system = app.keys.service_token(7, &portal_kit::access::Scope::ALL);
        assert_eq!(
            code(&enroll(system, CPR_COURSE).await),
            Code::PermissionDenied
        );
    })
    .await;
}

/// A clearance is told only of a model the person sees (issue 37): the
/// demo nurse's CPR pass clears her for the ventilator of реанимация, but
/// with a token of кардиология alone the ventilator is another department's,
/// so neither GetClearance (NOT_FOUND, as GetEnvironmentModel), the bell nor
/// the digest names it.
#[tokio::test]
async fn a_clearance_is_told_only_of_a_model_the_person_sees() {
    use portal_proto::wiki::v1::digest_item_service_client::DigestItemServiceClient;
    use portal_proto::wiki::v1::notification_service_client::NotificationServiceClient;
    on_each_backend_with_training(|app| async move {
        let ventilator = app.ventilator().await;
        let elsewhere = app.keys.token(NURSE, &[], &[CARDIOLOGY]);
        let hidden = app.clearance(&elsewhere, ventilator.id).await;
        assert_status(hidden, Code::NotFound, "Модель оборудования не найдена");
        let model = app
            .client
            .clone()
            .get_environment_model(authed(
                pb::GetEnvironmentModelRequest {
                    environment_model_id: ventilator.id,
                },
                &elsewhere,
            ))
            .await;
        assert_eq!(
            code(&model),
            Code::NotFound,
            "the same answer as the model's"
        );
        let own = app.keys.token(NURSE, &[], &[ICU]);
        assert!(app.clearance(&own, ventilator.id).await.unwrap().cleared);

        let bell = NotificationServiceClient::new(app.channel.clone())
            .list_my_notifications(authed(pb::ListMyNotificationsRequest {}, &elsewhere))
            .await
            .expect("the bell")
            .into_inner()
            .notifications;
        assert!(bell.is_empty(), "{bell:?}");

        let week = 7 * 24 * 60 * 60 * 1000;
        let lapsing = Some(portal_kit::db::timestamp_from_millis(
            portal_kit::db::now_millis() + week,
        ));
        let digest = DigestItemServiceClient::with_interceptor(
            app.channel.clone(),
            app.keys.internal.credential(),
        )
        .list_digest_items(pb::ListDigestItemsRequest {
            people: vec![pb::DigestPerson {
                user_id: NURSE,
                department_ids: vec![CARDIOLOGY],
                rights: Vec::new(),
            }],
            passes: vec![pb::DigestPass {
                user_id: NURSE,
                course_id: CPR_COURSE,
                valid_until: lapsing,
            }],
        })
        .await
        .expect("the digest's items")
        .into_inner()
        .people;
        assert!(digest.is_empty(), "{digest:?}");
    })
    .await;
}

#[tokio::test]
async fn a_clearance_lapsing_within_30_days_rings_the_bell_of_its_person_alone() {
    use portal_proto::wiki::v1::notification_service_client::NotificationServiceClient;
    on_each_backend_with_training(|app| async move {
        let ventilator = app.ventilator().await;
        let bell = |token: String| {
            let channel = app.channel.clone();
            async move {
                NotificationServiceClient::new(channel)
                    .list_my_notifications(authed(pb::ListMyNotificationsRequest {}, &token))
                    .await
                    .expect("the bell")
                    .into_inner()
                    .notifications
            }
        };
        // The demo nurse's CPR pass (valid 12 months) ends next week.
        let nurse = bell(app.keys.token(NURSE, &[], &[ICU, SURGERY])).await;
        let [item] = &nurse[..] else {
            panic!("one item: {nurse:?}");
        };
        assert_eq!(item.kind, "clearance");
        assert!(
            item.id
                .starts_with(&format!("wiki:clearance:{}:", ventilator.id))
        );
        assert_eq!(item.link, format!("/short-instruction/{}", ventilator.id));
        assert!(item.title.contains(&ventilator.name) && !item.overdue && !item.read);
        // The senior nurse's pass is new, the doctor has none: nothing lapses for them.
        assert!(
            bell(app.keys.token(SENIOR_NURSE, &[], &[ICU]))
                .await
                .is_empty()
        );
        assert!(bell(app.keys.token(DOCTOR, &[], &[ICU])).await.is_empty());
    })
    .await;
}

/// The digest's items (internal `DigestItemService`, no token) are the
/// bell's, decided by the same code for the people named with the passes
/// given: a clearance lapsing for anyone, maintenance due only for an
/// equipment editor and only in their departments; nobody else is listed.
#[tokio::test]
async fn the_digest_lists_each_named_person_s_bell_items() {
    use portal_proto::wiki::v1::digest_item_service_client::DigestItemServiceClient;
    use portal_proto::wiki::v1::notification_service_client::NotificationServiceClient;
    const ENGINEER: i64 = 6;
    const SURGERY_EDITOR: i64 = 40;
    on_each_backend_with_training(|app| async move {
        // Education's digest, with the services' credential.
        let mut digest = DigestItemServiceClient::with_interceptor(
            app.channel.clone(),
            app.keys.internal.credential(),
        );
        let required = digest
            .list_required_courses(pb::ListRequiredCoursesRequest {})
            .await
            .expect("no person's token needed")
            .into_inner();
        assert_eq!(required.course_ids, [CPR_COURSE]);

        let day = 24 * 60 * 60 * 1000;
        let now = portal_kit::db::now_millis();
        let person = |user_id, department_ids: &[i64], rights: &[Right]| pb::DigestPerson {
            user_id,
            department_ids: department_ids.to_vec(),
            rights: rights.iter().map(|r| r.as_str().to_owned()).collect(),
        };
        let pass = |user_id, until: Option<i64>| pb::DigestPass {
            user_id,
            course_id: CPR_COURSE,
            valid_until: until.map(portal_kit::db::timestamp_from_millis),
        };
        let answer = digest
            .list_digest_items(pb::ListDigestItemsRequest {
                people: vec![
                    person(NURSE, &[ICU, SURGERY], &[]),
                    person(DOCTOR, &[ICU], &[]),
                    person(SENIOR_NURSE, &[ICU], &[Right::EducationManagement]),
                    person(ENGINEER, &[ICU], &[Right::EquipmentEditing]),
                    person(SURGERY_EDITOR, &[SURGERY], &[Right::EquipmentEditing]),
                ],
                passes: vec![
                    // Ends next week: lapsing. Never ends: cleared, not lapsing.
                    pass(NURSE, Some(now + 7 * day)),
                    pass(SENIOR_NURSE, None),
                    // Ended yesterday: not cleared, so nothing lapses.
                    pass(DOCTOR, Some(now - day)),
                    // A pass of a course no model requires counts for nothing.
                    pb::DigestPass {
                        user_id: ENGINEER,
                        course_id: HYGIENE_COURSE,
                        valid_until: Some(portal_kit::db::timestamp_from_millis(now + day)),
                    },
                ],
            })
            .await
            .expect("the digest's items")
            .into_inner();
        let listed: Vec<i64> = answer.people.iter().map(|p| p.user_id).collect();
        assert_eq!(listed, [NURSE, ENGINEER], "{answer:?}");

        // The nurse's item is the one her bell shows (read marks aside).
        let bell = NotificationServiceClient::new(app.channel.clone())
            .list_my_notifications(authed(
                pb::ListMyNotificationsRequest {},
                &app.keys.token(NURSE, &[], &[ICU, SURGERY]),
            ))
            .await
            .expect("the bell")
            .into_inner()
            .notifications;
        assert_eq!(answer.people[0].items, bell);
        assert_eq!(answer.people[0].items[0].kind, "clearance");

        // The engineer of реанимация: its ventilator overdue first, then the
        // defibrillator due this month; the same as an editor's bell there.
        let items = &answer.people[1].items;
        let kinds: Vec<(&str, bool)> = items.iter().map(|i| (i.kind.as_str(), i.overdue)).collect();
        assert_eq!(
            kinds,
            [("maintenance", true), ("maintenance", false)],
            "{items:?}"
        );
        assert!(items[0].title.ends_with("инв. № ИН-000201"), "{items:?}");
        assert!(items[1].title.ends_with("инв. № ИН-000301"), "{items:?}");
        let editor_bell = NotificationServiceClient::new(app.channel.clone())
            .list_my_notifications(authed(
                pb::ListMyNotificationsRequest {},
                &app.keys.token(ENGINEER, &[Right::EquipmentEditing], &[ICU]),
            ))
            .await
            .expect("the editor's bell")
            .into_inner()
            .notifications;
        assert_eq!(items, &editor_bell);

        let too_many = (0..1001).map(|id| person(id, &[], &[])).collect();
        let refused = digest
            .list_digest_items(pb::ListDigestItemsRequest {
                people: too_many,
                passes: Vec::new(),
            })
            .await;
        assert_eq!(code(&refused), Code::InvalidArgument);
    })
    .await;
}
