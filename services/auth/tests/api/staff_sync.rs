//! Staff by the HR system's keys: ResolveStaff.

use portal_kit::access::Scope;
use portal_proto::auth::v1 as pb;
use tonic::Code;

use crate::helpers::*;

/// Gives user `user_id` the employee number `number` and department
/// `department_id` the code `code`, as a sync would.
async fn set_keys(app: &TestApp, user_id: i64, number: &str, department_id: i64, code: &str) {
    let pool = app.database().await;
    sqlx::query("UPDATE users SET employee_number = $1 WHERE id = $2")
        .bind(number)
        .bind(user_id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE departments SET code = $1 WHERE id = $2")
        .bind(code)
        .bind(department_id)
        .execute(&pool)
        .await
        .unwrap();
}

#[tokio::test]
async fn resolve_staff_turns_hr_keys_into_ids_and_back() {
    on_each_backend(false, |app| async move {
        let cardiology = app
            .create_department("Кардиологическое отделение", &[])
            .await;
        let surgery = app.create_department("Хирургическое отделение", &[]).await;
        let nurse = app
            .staff(
                &unique_login("nurse"),
                "nurse-password",
                &[],
                &[cardiology.id],
            )
            .await;
        let surgeon = app
            .staff(
                &unique_login("surgeon"),
                "surgeon-password",
                &[],
                &[cardiology.id, surgery.id],
            )
            .await;
        let without_number = app
            .staff(&unique_login("plain"), "plain-password", &[], &[surgery.id])
            .await;
        set_keys(&app, nurse.id, "0001", cardiology.id, "CARD").await;
        set_keys(&app, surgeon.id, "0002", surgery.id, "SURG").await;
        let dismissed = app.status_id("Уволен").await;
        let mut blocked = TestApp::unchanged(&surgeon);
        blocked.status_id = dismissed;
        app.update_user(surgeon.id, blocked).await.unwrap();

        let ask = |numbers: &[&str], codes: &[&str], ids: &[i64], token: String| {
            let mut client = app.client.clone();
            let message = pb::ResolveStaffRequest {
                employee_numbers: numbers.iter().map(|n| n.to_string()).collect(),
                department_codes: codes.iter().map(|c| c.to_string()).collect(),
                user_ids: ids.to_vec(),
            };
            async move { client.resolve_staff(authed(message, &token)).await }
        };
        let system = app.keys.service_token(77, &[Scope::TrainingAssign]);

        // By employee number (an unknown one and a blank one left out).
        let found = ask(&["0001", " 0002 ", "9999", ""], &[], &[], system.clone())
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            found.people,
            [
                pb::StaffKey {
                    user_id: nurse.id,
                    employee_number: "0001".into(),
                    department_ids: vec![cardiology.id],
                    blocked: false,
                },
                pb::StaffKey {
                    user_id: surgeon.id,
                    employee_number: "0002".into(),
                    department_ids: vec![cardiology.id, surgery.id],
                    blocked: true,
                },
            ]
        );
        assert!(found.departments.is_empty());

        // By department code: its members too, each once, by id; a person
        // HR does not keep has an empty number.
        let found = ask(
            &[],
            &["SURG", "NONE"],
            &[nurse.id, 424242],
            app.admin_token(),
        )
        .await
        .unwrap()
        .into_inner();
        let ids: Vec<(i64, String)> = found
            .people
            .iter()
            .map(|p| (p.user_id, p.employee_number.clone()))
            .collect();
        assert_eq!(
            ids,
            [
                (nurse.id, "0001".to_owned()),
                (surgeon.id, "0002".to_owned()),
                (without_number.id, String::new()),
            ]
        );
        assert_eq!(
            found.departments,
            [pb::DepartmentKey {
                department_id: surgery.id,
                code: "SURG".into(),
                member_ids: vec![surgeon.id, without_number.id],
            }]
        );

        // Nothing asked, nothing answered; a system without a staff or
        // training scope is refused.
        let none = ask(&[], &[], &[], system).await.unwrap().into_inner();
        assert!(none.people.is_empty() && none.departments.is_empty());
        let equipment = app.keys.service_token(78, &[Scope::EquipmentRead]);
        assert_eq!(
            code(&ask(&["0001"], &[], &[], equipment).await),
            Code::PermissionDenied
        );
    })
    .await;
}
