//! Staff by the HR system's keys: SyncStaff (and its stream) keeping staff in
//! step with HR, and ResolveStaff turning the keys into ids.

mod batches;

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

pub(crate) fn department(code: &str, title: &str) -> pb::StaffDepartment {
    pb::StaffDepartment {
        code: code.into(),
        title: title.into(),
    }
}

fn position(code: &str, title: &str) -> pb::StaffPosition {
    pb::StaffPosition {
        code: code.into(),
        title: title.into(),
    }
}

pub(crate) fn person(
    number: &str,
    surname: &str,
    name: &str,
    departments: &[&str],
) -> pb::StaffPerson {
    pb::StaffPerson {
        employee_number: number.into(),
        surname: surname.into(),
        name: name.into(),
        last_name: "Петровна".into(),
        department_codes: departments.iter().map(|c| c.to_string()).collect(),
        ..Default::default()
    }
}

/// The hospital HR sends in the tests: two departments, a seeded position
/// it names and a new one, three people (two of one name).
pub(crate) fn hospital() -> pb::SyncStaffRequest {
    pb::SyncStaffRequest {
        departments: vec![
            department("CARD", "Кардиологическое отделение"),
            department("SURG", "Хирургическое отделение"),
        ],
        positions: vec![
            position("NURSE", "Медицинская сестра палатная"),
            position("PARA", "Фельдшер"),
        ],
        people: vec![
            pb::StaffPerson {
                login: "smirnova".into(),
                email: "smirnova@hospital.example".into(),
                position_codes: vec!["NURSE".into()],
                ..person("0001", "Смирнова", "Ольга", &["CARD"])
            },
            person("0002", "Иванова", "Анна", &["CARD", "SURG"]),
            pb::StaffPerson {
                position_codes: vec!["PARA".into()],
                ..person("0003", "Иванова", "Алла", &["SURG"])
            },
        ],
        ..Default::default()
    }
}

/// A system granted staff.write.
pub(crate) fn hr_system(app: &TestApp) -> String {
    app.keys.service_token(501, &[Scope::StaffWrite])
}

pub(crate) async fn sync(app: &TestApp, request: pb::SyncStaffRequest) -> pb::SyncStaffResponse {
    app.client
        .clone()
        .sync_staff(authed(request, &hr_system(app)))
        .await
        .expect("sync staff")
        .into_inner()
}

pub(crate) fn dry(request: &pb::SyncStaffRequest) -> pb::SyncStaffRequest {
    pb::SyncStaffRequest {
        dry_run: true,
        ..request.clone()
    }
}

/// (employee number, action, changed fields) of each person in an answer.
pub(crate) fn diff(response: &pb::SyncStaffResponse) -> Vec<(String, String, Vec<String>)> {
    response
        .people
        .iter()
        .map(|p| {
            (
                p.employee_number.clone(),
                p.action.clone(),
                p.changed.clone(),
            )
        })
        .collect()
}

pub(crate) fn counts(response: &pb::SyncStaffResponse) -> [i32; 4] {
    [
        response.created,
        response.changed,
        response.blocked,
        response.unchanged,
    ]
}

/// Every user by login.
pub(crate) async fn users(app: &TestApp) -> Vec<pb::User> {
    app.client
        .clone()
        .list_users(authed(pb::ListUsersRequest {}, &app.admin_token()))
        .await
        .unwrap()
        .into_inner()
        .users
}

pub(crate) async fn user_by_login(app: &TestApp, login: &str) -> pb::User {
    users(app)
        .await
        .into_iter()
        .find(|u| u.login == login)
        .unwrap_or_else(|| panic!("no user {login}"))
}

pub(crate) async fn resolve(app: &TestApp, numbers: &[&str]) -> Vec<pb::StaffKey> {
    let message = pb::ResolveStaffRequest {
        employee_numbers: numbers.iter().map(|n| n.to_string()).collect(),
        ..Default::default()
    };
    app.client
        .clone()
        .resolve_staff(authed(message, &app.admin_token()))
        .await
        .unwrap()
        .into_inner()
        .people
}

pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn a_batch_creates_staff_and_the_same_batch_again_changes_nothing() {
    on_each_backend(false, |app| async move {
        let first = sync(&app, hospital()).await;
        assert_eq!(counts(&first), [3, 0, 0, 0]);
        assert!(first.errors.is_empty(), "{:?}", first.errors);
        let created = |n: &str| (n.to_owned(), "created".to_owned(), Vec::new());
        assert_eq!(
            diff(&first),
            [created("0001"), created("0002"), created("0003")]
        );
        assert!(first.people.iter().all(|p| p.user_id > 0));
        let reference_counts = |c: &Option<pb::ReferenceCounts>| {
            let c = c.unwrap();
            [c.created, c.changed, c.unchanged]
        };
        assert_eq!(reference_counts(&first.department_counts), [2, 0, 0]);
        // The seeded position HR names is adopted, not made twice.
        assert_eq!(reference_counts(&first.position_counts), [1, 1, 0]);
        let nurse = first.positions.iter().find(|p| p.code == "NURSE").unwrap();
        assert_eq!(
            (nurse.action.as_str(), nurse.changed.clone()),
            ("changed", strings(&["code"]))
        );

        // Logins: the one sent, and made from the names (a number for the second).
        let smirnova = user_by_login(&app, "smirnova").await;
        assert_eq!(
            (smirnova.surname.as_str(), smirnova.email.as_str()),
            ("Смирнова", "smirnova@hospital.example")
        );
        assert_eq!(smirnova.position_ids, [nurse.id]);
        let anna = user_by_login(&app, "ivanova.ap").await;
        let alla = user_by_login(&app, "ivanova.ap2").await;
        assert_eq!(anna.department_ids.len(), 2);
        assert_eq!(alla.department_ids.len(), 1);
        assert_ne!(alla.status_id, 0, "a new person works");

        // No password yet: none signs them in, until an administrator sets one.
        assert_status(
            app.login("ivanova.ap", "anything-at-all").await,
            Code::Unauthenticated,
            "Неверный логин или пароль",
        );
        let with_password = pb::UserDraft {
            password: "a-password-now".into(),
            ..TestApp::unchanged(&anna)
        };
        app.update_user(anna.id, with_password).await.unwrap();
        app.login("ivanova.ap", "a-password-now").await.unwrap();

        let second = sync(&app, hospital()).await;
        assert_eq!(counts(&second), [0, 0, 0, 3]);
        assert!(second.people.is_empty() && second.errors.is_empty());
        assert_eq!(reference_counts(&second.department_counts), [0, 0, 2]);
        assert_eq!(reference_counts(&second.position_counts), [0, 0, 2]);
    })
    .await;
}

#[tokio::test]
async fn a_dry_run_answers_the_diff_and_writes_nothing() {
    on_each_backend(false, |app| async move {
        sync(&app, hospital()).await;
        let before = users(&app).await;
        let mut next = hospital();
        next.people[0].surname = "Смирнова-Петрова".into();
        next.people[1].department_codes = strings(&["CARD"]);
        next.people[2].dismissed = true;
        next.people
            .push(person("0004", "Кузнецов", "Иван", &["ICU"]));
        next.people.push(person("0005", "Кузнецов", "Пётр", &[]));
        next.departments.push(department("ICU", "Реанимация"));

        let planned = sync(&app, dry(&next)).await;
        assert!(planned.dry_run);
        assert_eq!(counts(&planned), [2, 2, 1, 0]);
        assert_eq!(
            diff(&planned),
            [
                ("0001".into(), "changed".into(), strings(&["surname"])),
                (
                    "0002".into(),
                    "changed".into(),
                    strings(&["department_codes"])
                ),
                ("0003".into(), "blocked".into(), strings(&["dismissed"])),
                ("0004".into(), "created".into(), vec![]),
                ("0005".into(), "created".into(), vec![]),
            ]
        );
        let created_ids: Vec<i64> = planned
            .people
            .iter()
            .filter(|p| p.action == "created")
            .map(|p| p.user_id)
            .collect();
        assert_eq!(created_ids, [0, 0]);
        let icu = &planned.departments[0];
        assert_eq!(
            (icu.code.as_str(), icu.action.as_str(), icu.id),
            ("ICU", "created", 0)
        );

        // Nothing written: the same people, the same answer again.
        let after: Vec<(i64, String, Vec<i64>, i64)> = users(&app)
            .await
            .into_iter()
            .map(|u| (u.id, u.surname, u.department_ids, u.status_id))
            .collect();
        let before: Vec<(i64, String, Vec<i64>, i64)> = before
            .into_iter()
            .map(|u| (u.id, u.surname, u.department_ids, u.status_id))
            .collect();
        assert_eq!(after, before);
        assert!(resolve(&app, &["0004"]).await.is_empty());
        assert_eq!(diff(&sync(&app, dry(&next)).await), diff(&planned));

        // The real run does what the dry run said.
        let done = sync(&app, next).await;
        assert_eq!(diff(&done), diff(&planned));
        assert_eq!(counts(&done), counts(&planned));
        assert!(done.people.iter().all(|p| p.user_id > 0));
    })
    .await;
}

#[tokio::test]
async fn a_dismissed_person_is_blocked_never_deleted_and_may_come_back() {
    on_each_backend(false, |app| async move {
        let first = sync(&app, hospital()).await;
        let smirnova = first.people[0].user_id;
        let with_password = pb::UserDraft {
            password: "smirnova-password".into(),
            ..TestApp::unchanged(&user_by_login(&app, "smirnova").await)
        };
        app.update_user(smirnova, with_password).await.unwrap();
        let session = app.session_of("smirnova", "smirnova-password").await;

        let mut next = hospital();
        next.people[0].dismissed = true;
        let blocked = sync(&app, next.clone()).await;
        assert_eq!(counts(&blocked), [0, 0, 1, 2]);
        assert_eq!(
            diff(&blocked),
            [("0001".into(), "blocked".into(), strings(&["dismissed"]))]
        );
        // Kept with everything they had, but out: sessions ended, sign-in refused.
        let kept = user_by_login(&app, "smirnova").await;
        assert_eq!(kept.id, smirnova);
        assert_eq!(kept.department_ids.len(), 1);
        assert!(resolve(&app, &["0001"]).await[0].blocked);
        assert_eq!(code(&app.refresh(&session).await), Code::Unauthenticated);
        assert_eq!(
            code(&app.login("smirnova", "smirnova-password").await),
            Code::Unauthenticated
        );
        let pool = app.database().await;
        let version: i64 = sqlx::query_scalar("SELECT access_version FROM users WHERE id = $1")
            .bind(smirnova)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert!(version > 0, "their tokens are stale");
        assert_eq!(counts(&sync(&app, next).await), [0, 0, 0, 3]);

        // Taken back by HR: working again.
        let back = sync(&app, hospital()).await;
        assert_eq!(
            diff(&back),
            [("0001".into(), "changed".into(), strings(&["dismissed"]))]
        );
        assert!(!resolve(&app, &["0001"]).await[0].blocked);
        app.login("smirnova", "smirnova-password").await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_full_sync_blocks_whoever_hr_no_longer_sends() {
    on_each_backend(false, |app| async move {
        sync(&app, hospital()).await;
        let manual = app
            .staff(&unique_login("manual"), "manual-password", &[], &[])
            .await;
        let before = users(&app).await;
        let mut next = hospital();
        next.full = true;
        // One of three is a third of the people the sync keeps: a mass block.
        next.allow_mass_block = true;
        next.people.remove(2);
        // A mistyped row still names its person: they are not blocked.
        next.people[1].email = "broken".into();
        let done = sync(&app, next).await;
        assert_eq!(counts(&done), [0, 0, 1, 1]);
        assert_eq!(
            diff(&done),
            [("0003".into(), "blocked".into(), strings(&["dismissed"]))]
        );
        assert_eq!(done.errors.len(), 1);
        assert_eq!(
            done.errors[0].message,
            "Некорректный адрес электронной почты"
        );
        let blocked: Vec<bool> = resolve(&app, &["0001", "0002", "0003"])
            .await
            .iter()
            .map(|p| p.blocked)
            .collect();
        assert_eq!(blocked, [false, false, true]);
        // People HR does not keep (the bootstrap admin, one made by hand) stay.
        let status =
            |users: &[pb::User], id: i64| users.iter().find(|u| u.id == id).unwrap().status_id;
        let after = users(&app).await;
        for id in [ADMIN_ID, manual.id] {
            assert_eq!(status(&after, id), status(&before, id));
        }
    })
    .await;
}

#[tokio::test]
async fn a_full_sync_never_blocks_the_last_user_manager() {
    on_each_backend(false, |app| async move {
        let first = sync(&app, hospital()).await;
        let manager = first.people[1].user_id;
        let dismissed = app.status_id("Уволен").await;
        // An administrator linked them: the sync may block them, but not
        // the last who can manage users.
        let draft = pb::UserDraft {
            right_ids: vec![RIGHT_USER_MANAGEMENT],
            employee_number: Some("0002".into()),
            ..TestApp::unchanged(&user_by_login(&app, "ivanova.ap").await)
        };
        app.update_user(manager, draft).await.unwrap();
        let admin = users(&app).await.into_iter().find(|u| u.id == ADMIN_ID).unwrap();
        app.update_user(ADMIN_ID, pb::UserDraft { status_id: dismissed, name: "Админ".into(), surname: "Админов".into(), ..TestApp::unchanged(&admin) })
            .await
            .unwrap();

        let mut next = hospital();
        next.full = true;
        next.allow_mass_block = true;
        next.people.truncate(1);
        let done = sync(&app, next).await;
        assert_eq!(diff(&done), [("0003".into(), "blocked".into(), strings(&["dismissed"]))]);
        assert_eq!(done.errors.len(), 1, "{:?}", done.errors);
        let refused = &done.errors[0];
        assert_eq!((refused.section.as_str(), refused.index, refused.key.as_str()), ("people", -1, "0002"));
        assert_eq!(refused.message, "Нельзя отнять право управления пользователями у последнего, кто им обладает, или заблокировать его");
        assert_eq!(refused.reason, "last-user-manager");
        assert!(!resolve(&app, &["0002"]).await[0].blocked);
    })
    .await;
}
