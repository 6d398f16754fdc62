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
