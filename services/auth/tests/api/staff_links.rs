//! Whom the staff sync may change (issue 37): only the people it created
//! and the people an administrator linked to an employee number on the user
//! form; a holder of an admin right only when linked; and a full sync that
//! would block too many of them is refused unless the caller allows it.

use portal_kit::error::reason_of;
use portal_proto::auth::v1 as pb;
use tonic::Code;

use crate::audit::records_after;
use crate::helpers::*;
use crate::staff_sync::{
    counts, diff, dry, hospital, hr_system, person, resolve, strings, sync, user_by_login, users,
};

/// The admin as the attacker's row names them: a new number, their login,
/// dismissed.
fn takeover(login: &str) -> pb::SyncStaffRequest {
    pb::SyncStaffRequest {
        people: vec![pb::StaffPerson {
            login: login.into(),
            email: "evil@evil.example".into(),
            dismissed: false,
            ..person("EVIL0001", "Злоумышленник", "Иван", &[])
        }],
        ..Default::default()
    }
}

fn reasons(response: &pb::SyncStaffResponse) -> Vec<(String, String)> {
    response
        .errors
        .iter()
        .map(|e| (e.key.clone(), e.reason.clone()))
        .collect()
}

#[tokio::test]
async fn a_staff_writer_cannot_block_or_take_over_an_account_made_by_hand() {
    on_each_backend(false, |app| async move {
        let educator = app
            .staff(
                "educator",
                "educator-password",
                &[RIGHT_EDUCATION_MANAGEMENT],
                &[],
            )
            .await;
        let before = users(&app).await;
        for login in ["admin", "educator"] {
            let mut dismissal = takeover(login);
            dismissal.people[0].dismissed = true;
            for request in [
                dry(&dismissal),
                dismissal,
                dry(&takeover(login)),
                takeover(login),
            ] {
                let done = sync(&app, request).await;
                assert_eq!(counts(&done), [0, 0, 0, 0], "{login}: {done:?}");
                assert_eq!(
                    reasons(&done),
                    [("EVIL0001".to_owned(), "staff-not-linked".to_owned())]
                );
                assert!(done.errors[0].message.contains(&format!("«{login}»")));
            }
        }
        // Nothing changed: no one blocked, no e-mail taken, no number given.
        assert_eq!(format!("{:?}", users(&app).await), format!("{before:?}"));
        app.login("admin", ADMIN_PASSWORD).await.unwrap();
        app.login("educator", "educator-password").await.unwrap();
        assert!(resolve(&app, &["EVIL0001"]).await.is_empty());
        assert_eq!(user_by_login(&app, "educator").await.id, educator.id);
    })
    .await;
}

#[tokio::test]
async fn a_synced_person_given_an_admin_right_is_left_alone_until_an_administrator_links_them() {
    on_each_backend(false, |app| async move {
        sync(&app, hospital()).await;
        let anna = user_by_login(&app, "ivanova.ap").await;
        assert_eq!(anna.employee_number, "0002");
        // Made an educator on the form, the number not touched (an older client).
        let promoted = pb::UserDraft {
            right_ids: vec![RIGHT_EDUCATION_MANAGEMENT],
            ..TestApp::unchanged(&anna)
        };
        app.update_user(anna.id, promoted.clone()).await.unwrap();

        let mut next = hospital();
        next.people[1].email = "hr-system@evil.example".into();
        next.people[1].dismissed = true;
        let refused = sync(&app, next.clone()).await;
        assert_eq!(
            reasons(&refused),
            [("0002".to_owned(), "staff-admin-not-linked".to_owned())]
        );
        assert!(refused.people.is_empty(), "{:?}", refused.people);
        let kept = user_by_login(&app, "ivanova.ap").await;
        assert_eq!(kept.email, anna.email);
        assert!(!resolve(&app, &["0002"]).await[0].blocked);

        // A full sync does not block them either, and says why.
        let mut full = hospital();
        full.full = true;
        full.allow_mass_block = true;
        full.people.remove(1);
        let done = sync(&app, full).await;
        assert!(done.people.is_empty(), "{:?}", done.people);
        assert_eq!(
            (done.errors[0].index, done.errors[0].reason.as_str()),
            (-1, "staff-admin-not-linked")
        );

        // The administrator links them on the form: HR keeps them in step.
        let linked = pb::UserDraft {
            employee_number: Some("0002".into()),
            ..promoted
        };
        app.update_user(anna.id, linked).await.unwrap();
        let applied = sync(&app, next).await;
        assert!(applied.errors.is_empty(), "{:?}", applied.errors);
        assert_eq!(
            diff(&applied),
            [(
                "0002".into(),
                "blocked".into(),
                strings(&["email", "dismissed"])
            )]
        );
    })
    .await;
}

#[tokio::test]
async fn an_administrator_links_and_unlinks_an_employee_number_on_the_user_form() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        assert_eq!(nurse.employee_number, "");
        let linked = app
            .update_user(
                nurse.id,
                pb::UserDraft {
                    employee_number: Some(" 00042 ".into()),
                    ..TestApp::unchanged(&nurse)
                },
            )
            .await
            .unwrap();
        assert_eq!(linked.employee_number, "00042");
        // Recorded as the administrator's word.
        let record = records_after(&app, 0).await.pop().unwrap();
        let changes: Vec<(&str, &str, &str)> = record
            .changes
            .iter()
            .map(|c| (c.field.as_str(), c.old.as_str(), c.new.as_str()))
            .collect();
        assert_eq!(
            (record.entity_id, record.action.as_str(), changes),
            (
                Some(nurse.id),
                "update",
                vec![
                    ("employeeNumber", "null", "\"00042\""),
                    ("staffLink", "null", "\"admin\"")
                ]
            )
        );
        // HR now keeps her in step by that number, and only by it.
        let done = sync(
            &app,
            pb::SyncStaffRequest {
                people: vec![pb::StaffPerson {
                    email: "nurse.new@hospital.example".into(),
                    ..person("00042", "Смирнова", "Ольга", &[])
                }],
                ..Default::default()
            },
        )
        .await;
        assert_eq!(
            diff(&done),
            [(
                "00042".into(),
                "changed".into(),
                strings(&["last_name", "email"])
            )]
        );

        // Another person cannot have the same number.
        let other = app.staff("other", "other-password", &[], &[]).await;
        let taken = app
            .client
            .clone()
            .update_user(authed(
                pb::UpdateUserRequest {
                    id: other.id,
                    user: Some(pb::UserDraft {
                        employee_number: Some("00042".into()),
                        ..TestApp::unchanged(&other)
                    }),
                },
                &app.admin_token(),
            ))
            .await;
        assert_eq!(code(&taken), Code::FailedPrecondition);
        let status = taken.unwrap_err();
        assert_eq!(
            status.message(),
            "Этот табельный номер уже указан у другого пользователя"
        );
        assert_eq!(reason_of(&status), "EMPLOYEE_NUMBER_TAKEN");

        // Unlinked (an empty number): the sync leaves her alone.
        let nurse = user_by_login(&app, "nurse").await;
        let unlinked = app
            .update_user(
                nurse.id,
                pb::UserDraft {
                    employee_number: Some(String::new()),
                    ..TestApp::unchanged(&nurse)
                },
            )
            .await
            .unwrap();
        assert_eq!(unlinked.employee_number, "");
        assert!(resolve(&app, &["00042"]).await.is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_full_sync_that_would_block_more_than_a_tenth_is_refused_unless_allowed() {
    on_each_backend(false, |app| async move {
        let staff = pb::SyncStaffRequest {
            people: (0..20)
                .map(|n| person(&format!("{n:04}"), "Сотрудникова", "Мария", &[]))
                .collect(),
            ..Default::default()
        };
        sync(&app, staff.clone()).await;
        let without = |missing: usize, allow: bool| pb::SyncStaffRequest {
            full: true,
            allow_mass_block: allow,
            people: staff.people[missing..].to_vec(),
            ..staff.clone()
        };

        // Three of twenty: the dry run says so, the real run is refused whole.
        let planned = sync(&app, dry(&without(3, false))).await;
        assert_eq!(
            (planned.blocked, planned.managed, planned.mass_block_refused),
            (3, 20, true)
        );
        let refused = app
            .client
            .clone()
            .sync_staff(authed(without(3, false), &hr_system(&app)))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::FailedPrecondition);
        assert_eq!(reason_of(&refused), "STAFF_MASS_BLOCK");
        assert!(
            refused.message().starts_with(
                "Полная выгрузка заблокировала бы 3 из 20 сотрудников, которых ведёт синхронизация, — больше 10 %"
            ),
            "{}",
            refused.message()
        );
        let blocked = |people: Vec<pb::StaffKey>| people.iter().filter(|p| p.blocked).count();
        let numbers: Vec<String> = (0..20).map(|n| format!("{n:04}")).collect();
        let numbers: Vec<&str> = numbers.iter().map(String::as_str).collect();
        assert_eq!(blocked(resolve(&app, &numbers).await), 0);

        // An empty full sync, the HR system's worst day, blocks nobody.
        let empty = pb::SyncStaffRequest {
            full: true,
            ..Default::default()
        };
        let planned = sync(&app, dry(&empty)).await;
        assert_eq!((planned.blocked, planned.mass_block_refused), (20, true));

        // Two of twenty is a tenth, not more: done. Allowed, three are too.
        assert_eq!(sync(&app, without(2, false)).await.blocked, 2);
        let allowed = sync(&app, without(5, true)).await;
        assert_eq!((allowed.blocked, allowed.mass_block_refused), (3, false));
        assert_eq!(blocked(resolve(&app, &numbers).await), 5);
    })
    .await;
}
