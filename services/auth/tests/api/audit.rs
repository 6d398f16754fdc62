//! Auth's audit records (issue 25): every sign-in, sign-out and refused
//! sign-in, every write of users, departments and service accounts (a staff
//! sync's too), with the fields old → new, read back through
//! `portal.audit.v1.AuditService`; no record holds a password or a secret.

use portal_kit::access::Scope;
use portal_proto::audit::v1 as audit_pb;
use portal_proto::audit::v1::audit_service_client::AuditServiceClient;
use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::service_account_service_client::ServiceAccountServiceClient;

use crate::helpers::*;

const NURSE_PASSWORD: &str = "nurse-password-1";
const NEW_PASSWORD: &str = "a-brand-new-password";

/// The records matching `request`, newest first, read as the admin.
async fn records(
    app: &TestApp,
    request: audit_pb::ListAuditRecordsRequest,
) -> Vec<audit_pb::AuditRecord> {
    AuditServiceClient::new(app.channel.clone())
        .list_audit_records(authed(request, &app.admin_token()))
        .await
        .expect("list audit records")
        .into_inner()
        .records
}

async fn of_user(app: &TestApp, user_id: i64) -> Vec<audit_pb::AuditRecord> {
    records(
        app,
        audit_pb::ListAuditRecordsRequest {
            entity: "user".into(),
            entity_id: Some(user_id),
            ..Default::default()
        },
    )
    .await
}

/// A change as `(field, old, new)`, its values JSON text.
type Change = (String, String, String);

/// `(action, [(field, old, new)])` of each record, oldest first.
fn summary(records: &[audit_pb::AuditRecord]) -> Vec<(String, Vec<Change>)> {
    records
        .iter()
        .rev()
        .map(|record| {
            let changes = record
                .changes
                .iter()
                .map(|c| (c.field.clone(), c.old.clone(), c.new.clone()))
                .collect();
            (record.action.clone(), changes)
        })
        .collect()
}

fn change(field: &str, old: &str, new: &str) -> Change {
    (field.into(), old.into(), new.into())
}

/// No record anywhere holds a password's or a secret's value.
async fn assert_no_secret(app: &TestApp, secrets: &[&str]) {
    let all = records(app, audit_pb::ListAuditRecordsRequest::default()).await;
    let text = format!("{all:?}");
    for secret in secrets {
        assert!(!text.contains(secret), "a record holds a secret: {text}");
    }
}

#[tokio::test]
async fn sign_in_refusal_and_sign_out_are_recorded_without_the_password() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", NURSE_PASSWORD, &[], &[]).await;
        let mut client = app.client.clone();
        let signed_in = client
            .login(from_address(
                login_request("nurse", NURSE_PASSWORD),
                "203.0.113.7",
            ))
            .await
            .expect("sign in")
            .into_inner();
        let wrong = client
            .login(from_address(
                login_request("nurse", "not-her-password"),
                "203.0.113.8",
            ))
            .await;
        assert!(wrong.is_err());
        let unknown = client
            .login(from_address(
                login_request("nobody", "whatever-pass"),
                "203.0.113.9",
            ))
            .await;
        assert!(unknown.is_err());
        client
            .logout(pb::LogoutRequest {
                refresh_token: signed_in.refresh_token,
            })
            .await
            .expect("sign out");

        let mine = of_user(&app, nurse.id).await;
        let actions: Vec<(&str, &str, &str, &str)> = mine
            .iter()
            .rev()
            .map(|r| {
                let actor = r.actor.as_ref().unwrap();
                (
                    r.action.as_str(),
                    actor.kind.as_str(),
                    r.reason.as_str(),
                    r.address.as_str(),
                )
            })
            .collect();
        assert_eq!(
            actions,
            [
                ("create", "person", "", "127.0.0.1"),
                ("sign-in", "person", "password", "203.0.113.7"),
                (
                    "sign-in-refused",
                    "anonymous",
                    "wrong-password",
                    "203.0.113.8"
                ),
                ("sign-out", "person", "", "127.0.0.1"),
            ],
            "{:?}",
            app.backend
        );
        let sign_in = &mine[2];
        assert_eq!(sign_in.actor.as_ref().unwrap().user_id, Some(nurse.id));
        assert!(
            !sign_in.request_id.is_empty(),
            "every call has a request id"
        );
        let refused = &mine[1];
        assert_eq!(refused.actor.as_ref().unwrap().login, "nurse");

        // An unknown login: no person, the login tried and why.
        let unknown = records(
            &app,
            audit_pb::ListAuditRecordsRequest {
                action: "sign-in-refused".into(),
                ..Default::default()
            },
        )
        .await;
        let nobody = unknown
            .iter()
            .find(|r| r.actor.as_ref().unwrap().login == "nobody")
            .expect("the unknown login's refusal");
        assert_eq!(
            (nobody.entity_id, nobody.reason.as_str()),
            (None, "unknown-login")
        );
        assert_no_secret(&app, &[NURSE_PASSWORD, "not-her-password", "whatever-pass"]).await;
    })
    .await;
}

#[tokio::test]
async fn a_blocked_persons_sign_in_is_refused_on_record() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", NURSE_PASSWORD, &[], &[]).await;
        let dismissed = app.status_id("Уволен").await;
        app.update_user(
            nurse.id,
            pb::UserDraft {
                status_id: dismissed,
                ..TestApp::unchanged(&nurse)
            },
        )
        .await
        .unwrap();
        assert!(app.login("nurse", NURSE_PASSWORD).await.is_err());
        let mine = summary(&of_user(&app, nurse.id).await);
        let actions: Vec<&str> = mine.iter().map(|(action, _)| action.as_str()).collect();
        assert_eq!(actions, ["create", "block", "sign-in-refused"]);
        let status = &mine[1].1;
        assert_eq!(status.len(), 1, "{status:?}");
        assert_eq!(status[0].0, "statusId");
        let refused = &of_user(&app, nurse.id).await[0];
        assert_eq!(refused.reason, "blocked");
    })
    .await;
}

#[tokio::test]
async fn rights_granted_and_removed_are_recorded_old_to_new_with_who_gave_them() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", NURSE_PASSWORD, &[], &[]).await;
        let granted = app
            .update_user(
                nurse.id,
                pb::UserDraft {
                    right_ids: vec![RIGHT_USER_MANAGEMENT, RIGHT_EQUIPMENT_EDITING],
                    surname: "Петрова".into(),
                    ..TestApp::unchanged(&nurse)
                },
            )
            .await
            .unwrap();
        app.update_user(
            nurse.id,
            pb::UserDraft {
                right_ids: vec![RIGHT_EQUIPMENT_EDITING],
                password: NEW_PASSWORD.into(),
                ..TestApp::unchanged(&granted)
            },
        )
        .await
        .unwrap();

        let mine = of_user(&app, nurse.id).await;
        assert_eq!(
            summary(&mine),
            [
                (
                    "create".into(),
                    vec![
                        change("email", "null", "\"nurse@hospital.example\""),
                        change("lastName", "null", "\"Викторовна\""),
                        change("login", "null", "\"nurse\""),
                        change("name", "null", "\"Ольга\""),
                        change("surname", "null", "\"Смирнова\""),
                        change("password", "\"***\"", "\"***\""),
                    ]
                ),
                (
                    "update".into(),
                    vec![change("surname", "\"Смирнова\"", "\"Петрова\"")]
                ),
                (
                    "grant".into(),
                    vec![change(
                        "rights",
                        "[]",
                        "[\"UserManagement\",\"EquipmentEditing\"]"
                    )]
                ),
                (
                    "update".into(),
                    vec![change("password", "\"***\"", "\"***\"")]
                ),
                (
                    "revoke".into(),
                    vec![change(
                        "rights",
                        "[\"UserManagement\",\"EquipmentEditing\"]",
                        "[\"EquipmentEditing\"]"
                    )]
                ),
            ],
            "{:?}",
            app.backend
        );
        // Who gave what to whom: the admin, to the nurse.
        let grant = mine.iter().find(|r| r.action == "grant").unwrap();
        assert_eq!(grant.actor.as_ref().unwrap().user_id, Some(ADMIN_ID));
        assert_eq!(grant.entity_id, Some(nurse.id));
        let by_admin = records(
            &app,
            audit_pb::ListAuditRecordsRequest {
                user_id: Some(ADMIN_ID),
                action: "revoke".into(),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(by_admin.len(), 1);
        assert_no_secret(&app, &[NURSE_PASSWORD, NEW_PASSWORD, "argon2"]).await;
    })
    .await;
}

#[tokio::test]
async fn department_and_service_account_writes_are_recorded_and_a_secret_never() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", NURSE_PASSWORD, &[], &[]).await;
        let department = app.create_department("Кардиология", &[]).await;
        app.client
            .clone()
            .update_department(authed(
                pb::UpdateDepartmentRequest {
                    id: department.id,
                    title: "Кардиология №1".into(),
                    user_ids: vec![nurse.id],
                },
                &app.admin_token(),
            ))
            .await
            .expect("update department");
        let written = records(
            &app,
            audit_pb::ListAuditRecordsRequest {
                entity: "department".into(),
                entity_id: Some(department.id),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(
            summary(&written),
            [
                (
                    "create".into(),
                    vec![change("title", "null", "\"Кардиология\"")]
                ),
                (
                    "update".into(),
                    vec![
                        change("title", "\"Кардиология\"", "\"Кардиология №1\""),
                        change("userIds", "[]", &format!("[{}]", nurse.id)),
                    ]
                ),
            ]
        );

        let mut accounts = ServiceAccountServiceClient::new(app.channel.clone());
        let created = accounts
            .create_service_account(authed(
                pb::CreateServiceAccountRequest {
                    name: "МИС".into(),
                    description: "Медицинская информационная система".into(),
                    scopes: vec!["staff.read".into()],
                    owner_id: ADMIN_ID,
                },
                &app.admin_token(),
            ))
            .await
            .expect("create service account")
            .into_inner();
        let rotated = accounts
            .rotate_service_account_secret(authed(
                pb::RotateServiceAccountSecretRequest { id: created.id },
                &app.admin_token(),
            ))
            .await
            .expect("rotate")
            .into_inner();
        let written = records(
            &app,
            audit_pb::ListAuditRecordsRequest {
                entity: "service-account".into(),
                entity_id: Some(created.id),
                ..Default::default()
            },
        )
        .await;
        let actions: Vec<&str> = written.iter().rev().map(|r| r.action.as_str()).collect();
        assert_eq!(actions, ["create", "update"]);
        for record in &written {
            let secret = record.changes.iter().find(|c| c.field == "secret");
            assert_eq!(
                secret.map(|c| (c.old.as_str(), c.new.as_str())),
                Some(("\"***\"", "\"***\""))
            );
        }
        assert_no_secret(&app, &[&created.client_secret, &rotated.client_secret]).await;
    })
    .await;
}

#[tokio::test]
async fn a_record_cannot_be_changed_or_deleted_in_the_database() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", NURSE_PASSWORD, &[], &[]).await;
        let pool = sqlx::AnyPool::connect(&app.database.url).await.unwrap();
        for attempt in [
            "UPDATE audit_records SET action = 'delete'",
            "DELETE FROM audit_records",
        ] {
            let refused = sqlx::query(attempt).execute(&pool).await.unwrap_err();
            assert!(refused.to_string().contains("append-only"), "{refused}");
        }
        pool.close().await;
    })
    .await;
}

fn hr_person(number: &str, surname: &str, departments: &[&str]) -> pb::StaffPerson {
    pb::StaffPerson {
        employee_number: number.into(),
        surname: surname.into(),
        name: "Анна".into(),
        last_name: "Петровна".into(),
        department_codes: departments.iter().map(|c| c.to_string()).collect(),
        ..Default::default()
    }
}

/// Syncs `people` into the departments CARD and SURG as an HR system
/// (client `client-501`); the people's user ids by employee number.
async fn hr_sync(app: &TestApp, people: Vec<pb::StaffPerson>) -> Vec<(String, i64)> {
    let department = |code: &str, title: &str| pb::StaffDepartment {
        code: code.into(),
        title: title.into(),
    };
    let request = pb::SyncStaffRequest {
        departments: vec![
            department("CARD", "Кардиологическое отделение"),
            department("SURG", "Хирургическое отделение"),
        ],
        people,
        ..Default::default()
    };
    let token = app.keys.service_token(501, &[Scope::StaffWrite]);
    let answer = app
        .client
        .clone()
        .sync_staff(authed(request, &token))
        .await
        .expect("sync staff")
        .into_inner();
    assert!(answer.errors.is_empty(), "{:?}", answer.errors);
    answer
        .people
        .into_iter()
        .map(|p| (p.employee_number, p.user_id))
        .collect()
}

/// Every record newer than record `after`, oldest first.
pub(crate) async fn records_after(app: &TestApp, after: i64) -> Vec<audit_pb::AuditRecord> {
    let all = records(
        app,
        audit_pb::ListAuditRecordsRequest {
            limit: 1000,
            ..Default::default()
        },
    )
    .await;
    all.into_iter().rev().filter(|r| r.id > after).collect()
}

#[tokio::test]
async fn a_staff_sync_records_each_write_old_to_new_as_its_service_account() {
    on_each_backend(false, |app| async move {
        let first = hr_sync(
            &app,
            vec![
                hr_person("0002", "Иванова", &["CARD"]),
                hr_person("0003", "Кузнецова", &["SURG"]),
            ],
        )
        .await;
        let (ivanova, kuznetsova) = (first[0].1, first[1].1);
        let mark = records_after(&app, 0).await.last().unwrap().id;

        // One person new, one renamed and moved, one dismissed.
        let people = vec![
            hr_person("0001", "Смирнова", &["CARD"]),
            hr_person("0002", "Петрова", &["SURG"]),
            pb::StaffPerson {
                dismissed: true,
                ..hr_person("0003", "Кузнецова", &["SURG"])
            },
        ];
        let second = hr_sync(&app, people.clone()).await;
        let smirnova = second[0].1;
        let written = records_after(&app, mark).await;
        let (card, surg): (i64, i64) = {
            let pool = app.database().await;
            let id = |code: &'static str| {
                sqlx::query_scalar("SELECT id FROM departments WHERE code = $1")
                    .bind(code)
                    .fetch_one(&pool)
            };
            (id("CARD").await.unwrap(), id("SURG").await.unwrap())
        };
        let working = app.status_id("Работает").await;
        let dismissed = app.status_id("Уволен").await;
        let what: Vec<(&str, i64, &str, Vec<Change>)> = written
            .iter()
            .map(|r| {
                let changes = r
                    .changes
                    .iter()
                    .map(|c| (c.field.clone(), c.old.clone(), c.new.clone()))
                    .collect();
                let id = r.entity_id.unwrap_or_default();
                (r.entity.as_str(), id, r.action.as_str(), changes)
            })
            .collect();
        let members = |ids: &[i64]| {
            let mut ids = ids.to_vec();
            ids.sort_unstable();
            format!("{ids:?}").replace(' ', "")
        };
        assert_eq!(
            what,
            [
                (
                    "department",
                    card,
                    "update",
                    vec![change(
                        "userIds",
                        &members(&[ivanova]),
                        &members(&[smirnova])
                    )]
                ),
                (
                    "department",
                    surg,
                    "update",
                    vec![change(
                        "userIds",
                        &members(&[kuznetsova]),
                        &members(&[ivanova, kuznetsova])
                    )]
                ),
                (
                    "user",
                    smirnova,
                    "create",
                    vec![
                        change("departmentIds", "null", &format!("[{card}]")),
                        change("employeeNumber", "null", "\"0001\""),
                        change("lastName", "null", "\"Петровна\""),
                        change("login", "null", "\"smirnova.ap\""),
                        change("name", "null", "\"Анна\""),
                        change("staffLink", "null", "\"sync\""),
                        change("statusId", "null", &working.to_string()),
                        change("surname", "null", "\"Смирнова\""),
                    ]
                ),
                (
                    "user",
                    ivanova,
                    "update",
                    vec![
                        change("departmentIds", &format!("[{card}]"), &format!("[{surg}]")),
                        change("surname", "\"Иванова\"", "\"Петрова\""),
                    ]
                ),
                (
                    "user",
                    kuznetsova,
                    "block",
                    vec![change(
                        "statusId",
                        &working.to_string(),
                        &dismissed.to_string()
                    )]
                ),
            ],
            "{:?}",
            app.backend
        );
        for record in &written {
            let actor = record.actor.as_ref().unwrap();
            assert_eq!(
                (actor.kind.as_str(), actor.client_id.as_str()),
                ("service-account", "client-501")
            );
            assert!(record.changes.iter().all(|c| !c.field.contains("password")));
        }

        // The same batch again changes nothing and records nothing.
        hr_sync(&app, people).await;
        assert_eq!(records_after(&app, mark).await.len(), written.len());
    })
    .await;
}
