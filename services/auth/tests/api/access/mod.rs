//! Who may call what: the authorization matrix, and what callers get to see.

mod service_accounts;

use portal_kit::Right;
use portal_kit::access::Scope;
use portal_kit::testing::{
    AUDIT_MATRIX, AccessRule, ScopeRule, access_matrix, assert_matrix_covers, caller_tokens,
    scope_matrix, with_token,
};
use portal_proto::auth::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;
use crate::mfa_access;

use Code::{Ok as OK, PermissionDenied as DENIED, Unauthenticated as UNAUTH};

/// Expected codes for `Who::ALL`, in that order.
const PUBLIC: [Code; 5] = [OK, OK, OK, OK, OK];
const SIGNED_IN: [Code; 5] = [UNAUTH, OK, OK, OK, OK];
const ADMIN_TYPE: [Code; 5] = [UNAUTH, DENIED, OK, OK, OK];
const USER_MANAGEMENT: [Code; 5] = [UNAUTH, DENIED, OK, DENIED, DENIED];
/// Other departments' people: user management, and education management for
/// assigning courses; not equipment editing.
const PEOPLE_EVERYWHERE: [Code; 5] = [UNAUTH, DENIED, OK, OK, DENIED];

/// Every RPC of AuthService (some in two situations) and who may call it.
const MATRIX: &[AccessRule] = &[
    ("Login", PUBLIC),
    ("RefreshToken", PUBLIC),
    ("Logout", PUBLIC),
    ("RequestPasswordReset", PUBLIC),
    ("ResetPassword", PUBLIC),
    ("SendInvitation", USER_MANAGEMENT),
    ("InviteDepartment", USER_MANAGEMENT),
    ("MakeFirstSignInCode", USER_MANAGEMENT),
    ("FirstSignIn", PUBLIC),
    ("GetMe", SIGNED_IN),
    ("ListMySessions", SIGNED_IN),
    ("EndMySessions", SIGNED_IN),
    ("EndUserSessions", USER_MANAGEMENT),
    mfa_access::ROWS[0],
    mfa_access::ROWS[1],
    mfa_access::ROWS[2],
    mfa_access::ROWS[3],
    mfa_access::ROWS[4],
    mfa_access::ROWS[5],
    mfa_access::ROWS[6],
    crate::sso::ROWS[0],
    crate::sso::ROWS[1],
    crate::sso::ROWS[2],
    crate::sso::ROWS[3],
    ("ListDepartments", SIGNED_IN),
    ("ListDepartmentsByIds", SIGNED_IN),
    ("ListDepartmentsWithUsers", ADMIN_TYPE),
    ("GetDepartment/their own", SIGNED_IN),
    ("GetDepartment/another", ADMIN_TYPE),
    ("GetDepartmentWithUsers/their own", ADMIN_TYPE),
    ("GetDepartmentWithUsers/another", PEOPLE_EVERYWHERE),
    ("CreateDepartment", USER_MANAGEMENT),
    ("UpdateDepartment", USER_MANAGEMENT),
    ("ListRights", SIGNED_IN),
    ("ListPositions", SIGNED_IN),
    ("ListStatuses", SIGNED_IN),
    ("ListUsers", USER_MANAGEMENT),
    ("GetUser/another user", USER_MANAGEMENT),
    ("GetUser/themself", SIGNED_IN),
    ("CreateUser", USER_MANAGEMENT),
    ("UpdateUser", USER_MANAGEMENT),
    ("ResolveStaff", PEOPLE_EVERYWHERE),
    ("SyncStaff", USER_MANAGEMENT),
    ("SyncStaffStream", USER_MANAGEMENT),
    // Anyone signed in may search; only user managers find people.
    ("Search", SIGNED_IN),
];

/// The rows of MATRIX open to service accounts, by scope. Staff reading
/// stays with ResolveStaff (ids, employee numbers, departments, blocked):
/// staff.read deliberately opens no list of users, departments or positions,
/// which carry logins, e-mails and names a system has no need of. Every
/// other row is refused to every system.
const SCOPES: &[ScopeRule] = &[
    ("ResolveStaff", Scope::StaffRead),
    ("ResolveStaff", Scope::TrainingRead),
    ("ResolveStaff", Scope::TrainingAssign),
    ("SyncStaff", Scope::StaffWrite),
    ("SyncStaffStream", Scope::StaffWrite),
];

#[tokio::test]
async fn every_call_is_open_to_systems_only_by_its_scopes() {
    on_each_backend(false, |app| async move {
        let mut fixture = fixture(&app).await;
        let me = fixture.ids[1];
        let rows = needing_a_caller(MATRIX);
        scope_matrix(app.backend, &app.keys, &rows, SCOPES, async |rpc, token| {
            call_as(&app, &mut fixture, rpc, Some(token), me).await
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn every_call_enforces_its_access_rule() {
    on_each_backend(false, |app| async move {
        let mut fixture = fixture(&app).await;
        access_matrix(app.backend, MATRIX, async |rpc, who| {
            call(&app, &mut fixture, rpc, who).await
        })
        .await;
    })
    .await;
}

/// An equipment editor of department A lists only A's people and is refused
/// B's; education management reads both (it assigns courses to anyone).
#[tokio::test]
async fn an_equipment_editor_reads_only_their_own_departments_people() {
    on_each_backend(false, |app| async move {
        let fixture = fixture(&app).await;
        let mut client = app.client.clone();
        let listed = |token: &Option<String>| {
            let mut client = app.client.clone();
            let request = with_token(pb::ListDepartmentsWithUsersRequest {}, token.as_deref());
            async move {
                let departments = client.list_departments_with_users(request).await;
                let mut ids: Vec<i64> = departments
                    .unwrap()
                    .into_inner()
                    .departments
                    .iter()
                    .map(|d| d.id)
                    .collect();
                ids.sort_unstable();
                ids
            }
        };
        let (a, b) = (fixture.department_id, fixture.other_department_id);
        assert_eq!(listed(&fixture.tokens[4]).await, [a]);
        let everyone = listed(&fixture.tokens[3]).await;
        assert!(
            everyone.contains(&a) && everyone.contains(&b),
            "{everyone:?}"
        );

        let of_b = pb::GetDepartmentWithUsersRequest { department_id: b };
        let refused = client
            .get_department_with_users(with_token(of_b, fixture.tokens[4].as_deref()))
            .await;
        assert_eq!(code(&refused), DENIED);
    })
    .await;
}

#[test]
fn the_matrix_covers_every_rpc_of_the_contract() {
    assert_matrix_covers(MATRIX, "portal.auth.v1", "AuthService");
}

#[tokio::test]
async fn only_user_managers_read_the_audit_log() {
    on_each_backend(false, |app| async move {
        portal_kit::testing::assert_audit_access(&app).await;
    })
    .await;
}

#[test]
fn the_audit_matrix_covers_every_rpc_of_the_contract() {
    assert_matrix_covers(AUDIT_MATRIX, "portal.audit.v1", "AuditService");
}

/// The rows a caller's token matters to: the public calls (sign-in, refresh,
/// sign-out, a system's token request) look at credentials of their own.
fn needing_a_caller(matrix: &[AccessRule]) -> Vec<AccessRule> {
    matrix
        .iter()
        .filter(|(_, codes)| codes != &PUBLIC)
        .copied()
        .collect()
}

// --- ServiceAccountService ---

const LEARNER_PASSWORD: &str = "learner-password";

/// Real users for each caller, and the things the calls act on.
struct Fixture {
    ids: [i64; 5],
    tokens: [Option<String>; 5],
    learner_login: String,
    other: pb::User,
    /// The learner's department.
    department_id: i64,
    /// A department the learner is not in.
    other_department_id: i64,
    refresh_token: String,
}

async fn fixture(app: &TestApp) -> Fixture {
    let department_id = app
        .create_department("Кардиологическое отделение", &[])
        .await
        .id;
    let other_department_id = app
        .create_department("Хирургическое отделение", &[])
        .await
        .id;
    let learner = app
        .staff(
            &unique_login("learner"),
            LEARNER_PASSWORD,
            &[],
            &[department_id],
        )
        .await;
    let um = app
        .staff(
            &unique_login("users"),
            "password-1",
            &[RIGHT_USER_MANAGEMENT],
            &[],
        )
        .await;
    let em = app
        .staff(
            &unique_login("education"),
            "password-2",
            &[RIGHT_EDUCATION_MANAGEMENT],
            &[],
        )
        .await;
    let ee = app
        .staff(
            &unique_login("equipment"),
            "password-3",
            &[RIGHT_EQUIPMENT_EDITING],
            &[department_id],
        )
        .await;
    let other = app
        .staff(&unique_login("other"), "password-4", &[], &[])
        .await;
    let refresh_token = app.session_of(&learner.login, LEARNER_PASSWORD).await;
    let ids = [0, learner.id, um.id, em.id, ee.id];
    Fixture {
        ids,
        tokens: caller_tokens(&app.keys, ids, &[]),
        learner_login: learner.login,
        other,
        department_id,
        other_department_id,
        refresh_token,
    }
}

/// Makes the call `rpc` as caller `who` of the access matrix.
async fn call(app: &TestApp, fixture: &mut Fixture, rpc: &str, who: usize) -> Code {
    // A copy: the call may renew the fixture's refresh token.
    let token = fixture.tokens[who].clone();
    let self_id = fixture.ids[who];
    call_as(app, fixture, rpc, token.as_deref(), self_id).await
}

/// Makes the call `rpc` with `token` (a person's, `self_id`, or a system's).
async fn call_as(
    app: &TestApp,
    fixture: &mut Fixture,
    rpc: &str,
    token: Option<&str>,
    self_id: i64,
) -> Code {
    let mut client = app.client.clone();
    fn done<T>(result: Result<tonic::Response<T>, Status>) -> Code {
        code(&result)
    }
    match rpc {
        "Login" => done(
            client
                .login(with_token(
                    login_request(&fixture.learner_login, LEARNER_PASSWORD),
                    token,
                ))
                .await,
        ),
        "RefreshToken" => {
            let message = pb::RefreshTokenRequest {
                refresh_token: fixture.refresh_token.clone(),
            };
            let result = client.refresh_token(with_token(message, token)).await;
            if let Ok(response) = &result {
                fixture.refresh_token = response.get_ref().refresh_token.clone();
            }
            done(result)
        }
        "Logout" => done(
            client
                .logout(with_token(
                    pb::LogoutRequest {
                        refresh_token: "unknown".into(),
                    },
                    token,
                ))
                .await,
        ),
        "RequestPasswordReset" => done(
            client
                .request_password_reset(with_token(
                    pb::RequestPasswordResetRequest {
                        login: fixture.learner_login.clone(),
                    },
                    token,
                ))
                .await,
        ),
        // Whoever calls, an unknown link is refused for itself, never for
        // the caller: that refusal is this public call's answer.
        "ResetPassword" => {
            let message = pb::ResetPasswordRequest {
                token: "unknown".into(),
                password: "a-new-long-password".into(),
            };
            match code(&client.reset_password(with_token(message, token)).await) {
                Code::FailedPrecondition => OK,
                other => other,
            }
        }
        "GetMe" => done(client.get_me(with_token(pb::GetMeRequest {}, token)).await),
        "ListDepartments" => done(
            client
                .list_departments(with_token(pb::ListDepartmentsRequest {}, token))
                .await,
        ),
        "ListDepartmentsByIds" => {
            let message = pb::ListDepartmentsByIdsRequest {
                department_ids: vec![fixture.department_id],
            };
            done(
                client
                    .list_departments_by_ids(with_token(message, token))
                    .await,
            )
        }
        "ListDepartmentsWithUsers" => done(
            client
                .list_departments_with_users(with_token(
                    pb::ListDepartmentsWithUsersRequest {},
                    token,
                ))
                .await,
        ),
        "GetDepartment/their own" => {
            let message = pb::GetDepartmentRequest {
                department_id: fixture.department_id,
            };
            done(client.get_department(with_token(message, token)).await)
        }
        "GetDepartment/another" => {
            let message = pb::GetDepartmentRequest {
                department_id: fixture.other_department_id,
            };
            done(client.get_department(with_token(message, token)).await)
        }
        "GetDepartmentWithUsers/their own" | "GetDepartmentWithUsers/another" => {
            let department_id = if rpc.ends_with("another") {
                fixture.other_department_id
            } else {
                fixture.department_id
            };
            let message = pb::GetDepartmentWithUsersRequest { department_id };
            done(
                client
                    .get_department_with_users(with_token(message, token))
                    .await,
            )
        }
        "CreateDepartment" => {
            let message = pb::CreateDepartmentRequest {
                title: "Приёмное отделение".into(),
                user_ids: vec![],
            };
            done(client.create_department(with_token(message, token)).await)
        }
        "UpdateDepartment" => {
            let message = pb::UpdateDepartmentRequest {
                id: fixture.department_id,
                title: "Кардиологическое отделение".into(),
                user_ids: vec![fixture.ids[1], fixture.ids[4]],
            };
            done(client.update_department(with_token(message, token)).await)
        }
        "ListRights" => done(
            client
                .list_rights(with_token(pb::ListRightsRequest {}, token))
                .await,
        ),
        "ListPositions" => done(
            client
                .list_positions(with_token(pb::ListPositionsRequest {}, token))
                .await,
        ),
        "ListStatuses" => done(
            client
                .list_statuses(with_token(pb::ListStatusesRequest {}, token))
                .await,
        ),
        "ListUsers" => done(
            client
                .list_users(with_token(pb::ListUsersRequest {}, token))
                .await,
        ),
        "GetUser/another user" => done(
            client
                .get_user(with_token(
                    pb::GetUserRequest {
                        user_id: fixture.other.id,
                    },
                    token,
                ))
                .await,
        ),
        "GetUser/themself" => done(
            client
                .get_user(with_token(pb::GetUserRequest { user_id: self_id }, token))
                .await,
        ),
        "CreateUser" => {
            let message = creating(pb::UserDraft {
                login: unique_login("created"),
                password: "created-password".into(),
                ..Default::default()
            });
            done(client.create_user(with_token(message, token)).await)
        }
        "UpdateUser" => {
            let draft = pb::UserDraft {
                name: "Пётр".into(),
                surname: "Петров".into(),
                ..TestApp::unchanged(&fixture.other)
            };
            let message = updating(fixture.other.id, draft);
            done(client.update_user(with_token(message, token)).await)
        }
        "ResolveStaff" => {
            let message = pb::ResolveStaffRequest {
                employee_numbers: vec!["0001".into()],
                department_codes: vec!["CARD".into()],
                user_ids: vec![fixture.other.id],
            };
            done(client.resolve_staff(with_token(message, token)).await)
        }
        "SyncStaff" => done(client.sync_staff(with_token(staff_batch(), token)).await),
        "SyncStaffStream" => {
            let chunks = futures_util::stream::iter([pb::SyncStaffStreamRequest {
                chunk: Some(staff_batch()),
            }]);
            done(client.sync_staff_stream(with_token(chunks, token)).await)
        }
        #[allow(deprecated)] // held to its rule while it is served
        "Search" => done(client.search(with_token(search_request(), token)).await),
        "ListMySessions" => done(
            client
                .list_my_sessions(with_token(pb::ListMySessionsRequest {}, token))
                .await,
        ),
        // Names no session: the matrix's callers keep theirs.
        "EndMySessions" => {
            let message = pb::EndMySessionsRequest::default();
            done(client.end_my_sessions(with_token(message, token)).await)
        }
        // A person with no session, so nobody's tokens go stale.
        "EndUserSessions" => {
            let message = pb::EndUserSessionsRequest {
                user_id: fixture.other.id,
            };
            done(client.end_user_sessions(with_token(message, token)).await)
        }
        rpc if crate::invitations::MATRIX_CALLS.contains(&rpc) => {
            let (person, department) = (fixture.other.id, fixture.department_id);
            crate::invitations::call_as(app, rpc, token, person, department).await
        }
        other => match mfa_access::call(&mut client, other, token, fixture.other.id).await {
            Some(code) => code,
            None => crate::sso::call(&mut client, other, token)
                .await
                .unwrap_or_else(|| panic!("the matrix names an unknown call {other}")),
        },
    }
}

/// A batch any allowed caller may send again and again (idempotent).
fn staff_batch() -> pb::SyncStaffRequest {
    pb::SyncStaffRequest {
        departments: vec![pb::StaffDepartment {
            code: "CARD".into(),
            title: "Кардиологическое отделение".into(),
        }],
        people: vec![pb::StaffPerson {
            employee_number: "0001".into(),
            surname: "Кузнецова".into(),
            name: "Мария".into(),
            department_codes: vec!["CARD".into()],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn sorted_ids(departments: &[pb::Department]) -> Vec<i64> {
    let mut ids: Vec<i64> = departments.iter().map(|d| d.id).collect();
    ids.sort_unstable();
    ids
}

#[tokio::test]
async fn a_learner_reads_only_their_own_departments() {
    on_each_backend(false, |app| async move {
        let intensive = app
            .create_department("Отделение реанимации и интенсивной терапии", &[])
            .await;
        let surgery = app.create_department("Хирургическое отделение", &[]).await;
        let cardiology = app
            .create_department("Кардиологическое отделение", &[])
            .await;
        let nurse = app
            .staff("nurse", "nurse-password", &[], &[intensive.id, surgery.id])
            .await;
        let asked = pb::ListDepartmentsByIdsRequest {
            department_ids: vec![intensive.id, surgery.id, cardiology.id, 999],
        };
        let mut client = app.client.clone();

        let as_nurse = client
            .list_departments_by_ids(authed(asked.clone(), &app.token(nurse.id, &[])))
            .await
            .unwrap();
        assert_eq!(
            sorted_ids(&as_nurse.into_inner().departments),
            [intensive.id, surgery.id]
        );

        let as_manager = client
            .list_departments_by_ids(authed(asked, &app.admin_token()))
            .await
            .unwrap();
        assert_eq!(
            sorted_ids(&as_manager.into_inner().departments),
            [intensive.id, surgery.id, cardiology.id]
        );

        let listed = |token: String| {
            let mut client = app.client.clone();
            async move {
                let reply = client
                    .list_departments(authed(pb::ListDepartmentsRequest {}, &token))
                    .await
                    .unwrap();
                sorted_ids(&reply.into_inner().departments)
            }
        };
        assert_eq!(
            listed(app.token(nurse.id, &[])).await,
            [intensive.id, surgery.id]
        );
        let engineer = app.token(nurse.id, &[Right::EquipmentEditing]);
        assert_eq!(
            listed(engineer).await,
            [intensive.id, surgery.id, cardiology.id]
        );
    })
    .await;
}

/// The reference list of positions, in reading order.
async fn positions(app: &TestApp) -> Vec<pb::Position> {
    let mut client = app.client.clone();
    client
        .list_positions(authed(pb::ListPositionsRequest {}, &app.admin_token()))
        .await
        .unwrap()
        .into_inner()
        .positions
}

/// GetMe as user `user_id` calls it.
async fn me(app: &TestApp, user_id: i64) -> pb::GetMeResponse {
    let mut client = app.client.clone();
    client
        .get_me(authed(pb::GetMeRequest {}, &app.token(user_id, &[])))
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn get_me_names_the_callers_status_departments_positions_and_rights() {
    on_each_backend(false, |app| async move {
        let position = positions(&app)
            .await
            .into_iter()
            .find(|p| p.title == "Врач-кардиолог")
            .unwrap();
        let cardiology = app
            .create_department("Кардиологическое отделение", &[])
            .await;
        let on_leave = app.status_id("В отпуске").await;
        let doctor = app
            .create_user(pb::UserDraft {
                name: "Елена".into(),
                surname: "Морозова".into(),
                login: "cardiologist".into(),
                password: "cardiologist-password".into(),
                status_id: on_leave,
                department_ids: vec![cardiology.id],
                position_ids: vec![position.id],
                right_ids: vec![RIGHT_EDUCATION_MANAGEMENT],
                ..Default::default()
            })
            .await;

        let me = me(&app, doctor.id).await;
        assert_eq!(me.user.unwrap().login, "cardiologist");
        assert_eq!(me.status.unwrap().name, "В отпуске");
        assert_eq!(
            me.departments,
            [pb::Department {
                id: cardiology.id,
                title: "Кардиологическое отделение".into()
            }]
        );
        assert_eq!(me.positions, [position]);
        assert_eq!(
            me.rights,
            [pb::Right {
                id: RIGHT_EDUCATION_MANAGEMENT,
                name: "EducationManagement".into()
            }]
        );
    })
    .await;
}

#[tokio::test]
async fn get_me_lists_several_links_by_title_and_their_ids_by_id() {
    on_each_backend(false, |app| async move {
        let positions = positions(&app).await;
        // Created first, read second: the lists go by title, the ids by id.
        let surgery = app.create_department("Хирургия", &[]).await;
        let admissions = app.create_department("Приёмное отделение", &[]).await;
        // The reference list is in reading order already.
        let two_positions: Vec<pb::Position> = positions.into_iter().take(2).collect();
        assert_eq!(two_positions.len(), 2);
        let doctor = app
            .create_user(pb::UserDraft {
                name: "Ольга".into(),
                surname: "Смирнова".into(),
                login: "two-departments".into(),
                password: "two-departments-password".into(),
                department_ids: vec![surgery.id, admissions.id],
                position_ids: two_positions.iter().map(|p| p.id).collect(),
                right_ids: vec![RIGHT_EQUIPMENT_EDITING, RIGHT_USER_MANAGEMENT],
                ..Default::default()
            })
            .await;

        let me = me(&app, doctor.id).await;
        let user = me.user.unwrap();
        assert_eq!(me.status, None);
        let titles: Vec<&str> = me.departments.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(titles, ["Приёмное отделение", "Хирургия"]);
        assert_eq!(user.department_ids, [surgery.id, admissions.id]);
        assert_eq!(me.positions, two_positions);
        let mut position_ids: Vec<i64> = two_positions.iter().map(|p| p.id).collect();
        position_ids.sort_unstable();
        assert_eq!(user.position_ids, position_ids);
        let rights: Vec<(i64, &str)> = me.rights.iter().map(|r| (r.id, r.name.as_str())).collect();
        assert_eq!(
            rights,
            [
                (RIGHT_USER_MANAGEMENT, "UserManagement"),
                (RIGHT_EQUIPMENT_EDITING, "EquipmentEditing")
            ]
        );
        assert_eq!(
            user.right_ids,
            [RIGHT_USER_MANAGEMENT, RIGHT_EQUIPMENT_EDITING]
        );
    })
    .await;
}

fn search_request() -> pb::SearchRequest {
    pb::SearchRequest {
        query: "отделение".into(),
        ..Default::default()
    }
}
