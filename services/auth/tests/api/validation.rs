//! What users and departments must look like (spec §5), and what is not found.

use portal_proto::auth::v1 as pb;
use tonic::Code;

use crate::helpers::*;

const LOGIN_TAKEN: &str = "Пользователь с таким логином уже существует";
const TITLE_TAKEN: &str = "Отделение с таким названием уже существует";

fn new_user(login: &str, password: &str) -> pb::UserDraft {
    pb::UserDraft {
        login: login.into(),
        password: password.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn creating_a_user_requires_a_login_and_a_long_enough_password() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        let cases = [
            (new_user("", "long-enough"), "Введите логин"),
            (
                new_user("anna ivanova", "long-enough"),
                "Логин не должен содержать пробелов и служебных символов",
            ),
            (new_user("ivanova", ""), "Введите пароль"),
            (
                new_user("ivanova", "1234567"),
                "Пароль должен содержать не менее 8 символов",
            ),
            (
                pb::UserDraft {
                    email: "ivanova".into(),
                    ..new_user("ivanova", "long-enough")
                },
                "Некорректный адрес электронной почты",
            ),
        ];
        for (request, message) in cases {
            assert_status(
                client.create_user(authed(creating(request), &token)).await,
                Code::InvalidArgument,
                message,
            );
        }
        // Nothing else is required: a login and a password make a user.
        let created = client
            .create_user(authed(creating(new_user("ivanova", "пароль78")), &token))
            .await
            .unwrap();
        assert_eq!(created.into_inner().user.unwrap().login, "ivanova");
    })
    .await;
}

#[tokio::test]
async fn a_taken_login_is_refused_whatever_its_case() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let again = client
            .create_user(authed(
                creating(new_user("nurse", "another-password")),
                &token,
            ))
            .await;
        assert_status(again, Code::FailedPrecondition, LOGIN_TAKEN);
        let upper = client
            .create_user(authed(
                creating(new_user(" NURSE ", "another-password")),
                &token,
            ))
            .await;
        assert_status(upper, Code::FailedPrecondition, LOGIN_TAKEN);

        let doctor = app.staff("doctor", "doctor-password", &[], &[]).await;
        let rename = pb::UserDraft {
            login: "Nurse".into(),
            ..TestApp::unchanged(&doctor)
        };
        assert_status(
            app.update_user(doctor.id, rename).await,
            Code::FailedPrecondition,
            LOGIN_TAKEN,
        );
        // Keeping one's own login, in another case, is no conflict.
        let recase = pb::UserDraft {
            login: "Doctor".into(),
            ..TestApp::unchanged(&doctor)
        };
        assert_eq!(
            app.update_user(doctor.id, recase).await.unwrap().login,
            "Doctor"
        );
    })
    .await;
}

#[tokio::test]
async fn lookalike_logins_and_hidden_characters_are_refused() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        app.staff("cope", "cope-password", &[], &[]).await;
        let mut client = app.client.clone();
        let token = app.admin_token();
        let create = |login: &str| creating(new_user(login, "long-enough"));
        // Fullwidth letters, another case, and a word written wholly in Cyrillic
        // letters that look Latin ("соре") are logins that exist.
        for taken in ["ｎｕｒｓｅ", "NURSE", "\u{441}\u{43E}\u{440}\u{435}"] {
            assert_status(
                client.create_user(authed(create(taken), &token)).await,
                Code::FailedPrecondition,
                LOGIN_TAKEN,
            );
        }
        let characters = "Логин может содержать только буквы одного алфавита (латиница или кириллица), цифры и знаки . _ - @";
        for odd in ["nurѕe", "nurse\u{200B}", "nu\u{202E}rse"] {
            assert_status(
                client.create_user(authed(create(odd), &token)).await,
                Code::InvalidArgument,
                characters,
            );
        }
        let hidden_name = pb::UserDraft {
            surname: "Смирнова\u{202E}".into(),
            ..new_user("smirnova", "long-enough")
        };
        assert_status(
            client.create_user(authed(creating(hidden_name), &token)).await,
            Code::InvalidArgument,
            "Фамилия, имя и отчество не должны содержать невидимых и управляющих символов",
        );
        let hidden_title = pb::CreateDepartmentRequest {
            title: "Приёмное\u{7}отделение".into(),
            user_ids: vec![],
        };
        assert_status(
            client.create_department(authed(hidden_title, &token)).await,
            Code::InvalidArgument,
            "Название отделения не должно содержать невидимых и управляющих символов",
        );
    })
    .await;
}

#[tokio::test]
async fn editing_a_user_requires_name_surname_and_login() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        let unchanged = TestApp::unchanged(&nurse);
        let cases = [
            (
                pb::UserDraft {
                    name: "  ".into(),
                    ..unchanged.clone()
                },
                "Введите имя",
            ),
            (
                pb::UserDraft {
                    surname: String::new(),
                    ..unchanged.clone()
                },
                "Введите фамилию",
            ),
            (
                pb::UserDraft {
                    login: String::new(),
                    ..unchanged.clone()
                },
                "Введите логин",
            ),
            (
                pb::UserDraft {
                    password: "short".into(),
                    ..unchanged.clone()
                },
                "Пароль должен содержать не менее 8 символов",
            ),
        ];
        for (request, message) in cases {
            assert_status(
                app.update_user(nurse.id, request).await,
                Code::InvalidArgument,
                message,
            );
        }
    })
    .await;
}

#[tokio::test]
async fn a_department_needs_a_title() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        let blank = pb::CreateDepartmentRequest {
            title: "   ".into(),
            user_ids: vec![],
        };
        assert_status(
            client.create_department(authed(blank, &token)).await,
            Code::InvalidArgument,
            "Введите название отделения",
        );
        let department = app.create_department("Хирургическое отделение", &[]).await;
        let blank = pb::UpdateDepartmentRequest {
            id: department.id,
            title: String::new(),
            user_ids: vec![],
        };
        assert_status(
            client.update_department(authed(blank, &token)).await,
            Code::InvalidArgument,
            "Введите название отделения",
        );
    })
    .await;
}

#[tokio::test]
async fn a_taken_department_title_is_refused_whatever_its_case_spacing_or_yo() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        let reception = app.create_department("Приёмное отделение", &[]).await;
        let again = pb::CreateDepartmentRequest {
            title: " ПРИЕМНОЕ   отделение".into(),
            user_ids: vec![],
        };
        assert_status(
            client.create_department(authed(again, &token)).await,
            Code::FailedPrecondition,
            TITLE_TAKEN,
        );

        let surgery = app.create_department("Хирургическое отделение", &[]).await;
        let rename = pb::UpdateDepartmentRequest {
            id: surgery.id,
            title: "приёмное отделение".into(),
            user_ids: vec![],
        };
        assert_status(
            client.update_department(authed(rename, &token)).await,
            Code::FailedPrecondition,
            TITLE_TAKEN,
        );
        // Keeping one's own title, in another case, is no conflict.
        let recase = pb::UpdateDepartmentRequest {
            id: reception.id,
            title: "ПРИЁМНОЕ ОТДЕЛЕНИЕ".into(),
            user_ids: vec![],
        };
        let recased = client.update_department(authed(recase, &token)).await;
        assert_eq!(
            recased.unwrap().into_inner().department.unwrap().title,
            "ПРИЁМНОЕ ОТДЕЛЕНИЕ"
        );
        let all = client
            .list_departments(authed(pb::ListDepartmentsRequest {}, &token))
            .await
            .unwrap();
        assert_eq!(all.into_inner().departments.len(), 2);
    })
    .await;
}

#[tokio::test]
async fn links_to_unknown_ids_are_invalid() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        let base = new_user("ivanova", "long-enough");
        let cases = [
            (
                pb::UserDraft {
                    department_ids: vec![999],
                    ..base.clone()
                },
                "Отделение с идентификатором 999 не существует",
            ),
            (
                pb::UserDraft {
                    position_ids: vec![999],
                    ..base.clone()
                },
                "Должность с идентификатором 999 не существует",
            ),
            (
                pb::UserDraft {
                    right_ids: vec![4],
                    ..base.clone()
                },
                "Право с идентификатором 4 не существует",
            ),
            (
                pb::UserDraft {
                    status_id: 999,
                    ..base.clone()
                },
                "Статус с идентификатором 999 не существует",
            ),
        ];
        for (request, message) in cases {
            assert_status(
                client.create_user(authed(creating(request), &token)).await,
                Code::InvalidArgument,
                message,
            );
        }
        let users = client
            .list_users(authed(pb::ListUsersRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .users;
        assert_eq!(users.len(), 1, "nothing was written by the refused calls");

        let members = pb::CreateDepartmentRequest {
            title: "Хирургическое отделение".into(),
            user_ids: vec![ADMIN_ID, 999],
        };
        let refused = client.create_department(authed(members, &token)).await;
        assert_status(
            refused,
            Code::InvalidArgument,
            "Пользователь с идентификатором 999 не существует",
        );
        let departments = client
            .list_departments(authed(pb::ListDepartmentsRequest {}, &token))
            .await
            .unwrap();
        assert!(departments.into_inner().departments.is_empty());
    })
    .await;
}

#[tokio::test]
async fn unknown_users_and_departments_are_not_found() {
    on_each_backend(false, |app| async move {
        let mut client = app.client.clone();
        let token = app.admin_token();
        let user = client
            .get_user(authed(pb::GetUserRequest { user_id: 999 }, &token))
            .await;
        assert_status(user, Code::NotFound, "Пользователь не найден");
        let update = pb::UserDraft {
            name: "Анна".into(),
            surname: "Иванова".into(),
            login: "ivanova".into(),
            ..Default::default()
        };
        assert_status(
            app.update_user(999, update).await,
            Code::NotFound,
            "Пользователь не найден",
        );

        let department = client
            .get_department(authed(
                pb::GetDepartmentRequest { department_id: 999 },
                &token,
            ))
            .await;
        assert_status(department, Code::NotFound, "Отделение не найдено");
        let with_users = pb::GetDepartmentWithUsersRequest { department_id: 999 };
        assert_status(
            client
                .get_department_with_users(authed(with_users, &token))
                .await,
            Code::NotFound,
            "Отделение не найдено",
        );
        let update = pb::UpdateDepartmentRequest {
            id: 999,
            title: "Приёмное отделение".into(),
            user_ids: vec![],
        };
        assert_status(
            client.update_department(authed(update, &token)).await,
            Code::NotFound,
            "Отделение не найдено",
        );
    })
    .await;
}

#[tokio::test]
async fn a_users_links_are_replaced_on_edit() {
    on_each_backend(false, |app| async move {
        let surgery = app.create_department("Хирургическое отделение", &[]).await;
        let intensive = app
            .create_department("Отделение реанимации и интенсивной терапии", &[])
            .await;
        let nurse = app
            .staff(
                "nurse",
                "nurse-password",
                &[RIGHT_EQUIPMENT_EDITING],
                &[surgery.id],
            )
            .await;
        assert_eq!(nurse.department_ids, [surgery.id]);
        assert_eq!(nurse.right_ids, [RIGHT_EQUIPMENT_EDITING]);
        assert!(nurse.created_at.is_some());

        let moved = pb::UserDraft {
            department_ids: vec![intensive.id, intensive.id],
            right_ids: vec![],
            ..TestApp::unchanged(&nurse)
        };
        let updated = app.update_user(nurse.id, moved).await.unwrap();
        assert_eq!(updated.department_ids, [intensive.id]);
        assert!(updated.right_ids.is_empty());

        let mut client = app.client.clone();
        let fetched = client
            .get_user(authed(
                pb::GetUserRequest { user_id: nurse.id },
                &app.admin_token(),
            ))
            .await;
        assert_eq!(fetched.unwrap().into_inner().user.unwrap(), updated);
    })
    .await;
}

#[tokio::test]
async fn a_departments_members_are_replaced_on_edit() {
    on_each_backend(false, |app| async move {
        let nurse = app.staff("nurse", "nurse-password", &[], &[]).await;
        let doctor = app.staff("doctor", "doctor-password", &[], &[]).await;
        let created = app
            .create_department("  Хирургическое отделение ", &[nurse.id])
            .await;
        assert_eq!(created.title, "Хирургическое отделение");
        assert_eq!(
            created.users.iter().map(|u| u.id).collect::<Vec<_>>(),
            [nurse.id]
        );
        assert_eq!(created.users[0].last_name, "Викторовна");

        let mut client = app.client.clone();
        let token = app.admin_token();
        let update = pb::UpdateDepartmentRequest {
            id: created.id,
            title: "Хирургия".into(),
            user_ids: vec![doctor.id],
        };
        let updated = client
            .update_department(authed(update, &token))
            .await
            .unwrap()
            .into_inner()
            .department
            .unwrap();
        assert_eq!(updated.title, "Хирургия");
        assert_eq!(
            updated.users.iter().map(|u| u.id).collect::<Vec<_>>(),
            [doctor.id]
        );

        let all = client
            .list_departments_with_users(authed(pb::ListDepartmentsWithUsersRequest {}, &token))
            .await;
        assert_eq!(all.unwrap().into_inner().departments, [updated]);
    })
    .await;
}

#[tokio::test]
async fn the_last_user_manager_can_neither_lose_the_right_nor_be_blocked() {
    on_each_backend(false, |app| async move {
        let last = "Нельзя отнять право управления пользователями у последнего, кто им обладает, или заблокировать его";
        let admin = app
            .client
            .clone()
            .get_user(authed(pb::GetUserRequest { user_id: ADMIN_ID }, &app.admin_token()))
            .await
            .unwrap()
            .into_inner()
            .user
            .unwrap();
        let without_the_right = pb::UserDraft {
            right_ids: vec![RIGHT_EDUCATION_MANAGEMENT],
            ..TestApp::unchanged(&admin)
        };
        assert_status(
            app.update_user(ADMIN_ID, without_the_right.clone()).await,
            Code::FailedPrecondition,
            last,
        );
        let dismissed = pb::UserDraft {
            status_id: app.status_id("Уволен").await,
            ..TestApp::unchanged(&admin)
        };
        assert_status(
            app.update_user(ADMIN_ID, dismissed).await,
            Code::FailedPrecondition,
            last,
        );
        // With a second manager the first may step down.
        app.staff("manager", "manager-password", &[RIGHT_USER_MANAGEMENT], &[])
            .await;
        let stepped_down = app.update_user(ADMIN_ID, without_the_right).await.unwrap();
        assert_eq!(stepped_down.right_ids, [RIGHT_EDUCATION_MANAGEMENT]);
    })
    .await;
}
