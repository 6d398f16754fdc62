//! The staff sync's larger batches: bad rows reported in Russian beside the rest
//! applied, a stream of chunks as one batch, and five thousand people in one call.

use super::*;
use crate::helpers::*;
use portal_proto::auth::v1 as pb;
use std::time::Instant;
use tonic::Code;

#[tokio::test]
async fn bad_rows_are_reported_in_russian_and_the_rest_applied() {
    on_each_backend(false, |app| async move {
        let by_hand = app.staff("byhand", "byhand-password", &[], &[]).await;
        sync(
            &app,
            pb::SyncStaffRequest {
                people: vec![pb::StaffPerson {
                    login: "taken".into(),
                    ..person("0009", "Занятая", "Анна", &[])
                }],
                ..Default::default()
            },
        )
        .await;
        app.create_department("Хирургическое отделение", &[]).await;
        let mut batch = hospital();
        // SURG's title is a department HR does not keep yet: adopted.
        batch
            .departments
            .push(department("CARD2", "кардиологическое  отделение"));
        batch.people[0].department_codes.push("NOPE".into());
        batch.people[1].login = "Taken".into();
        batch.people.push(person("0002", "Дубль", "Номер", &[]));
        batch.people.push(pb::StaffPerson {
            name: String::new(),
            ..person("0004", "Безымянная", "", &[])
        });
        batch
            .people
            .push(person("0005", "Петров", "Пётр", &["SURG"]));
        // A person made by hand, without a number: HR's row of their login
        // is refused (an administrator links them instead).
        batch.people.push(pb::StaffPerson {
            login: "ByHand".into(),
            ..person("0006", "Ручная", "Вера", &[])
        });
        let done = sync(&app, batch).await;
        let errors: Vec<(String, i32, String, String)> = done
            .errors
            .iter()
            .map(|e| (e.section.clone(), e.index, e.key.clone(), e.message.clone()))
            .collect();
        let reasons: Vec<&str> = done.errors.iter().map(|e| e.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "title-taken",
                "unknown-code",
                "login-taken",
                "duplicate-key",
                "invalid-row",
                "staff-not-linked"
            ]
        );
        assert_eq!(
            errors,
            [
                (
                    "departments".into(),
                    2,
                    "CARD2".into(),
                    "Отделение с таким названием уже существует".into()
                ),
                (
                    "people".into(),
                    0,
                    "0001".into(),
                    "Отделение с кодом «NOPE» не найдено".into()
                ),
                (
                    "people".into(),
                    1,
                    "0002".into(),
                    "Пользователь с таким логином уже существует".into()
                ),
                (
                    "people".into(),
                    3,
                    "0002".into(),
                    "Табельный номер «0002» встречается в пакете дважды".into()
                ),
                ("people".into(), 4, "0004".into(), "Введите имя".into()),
                (
                    "people".into(),
                    6,
                    "0006".into(),
                    "Учётная запись «byhand» создана в портале, и администратор не связал её с этим табельным номером: синхронизация её не меняет. Укажите табельный номер в карточке пользователя".into()
                ),
            ]
        );
        assert_eq!(counts(&done), [2, 0, 0, 0]);
        let untouched = user_by_login(&app, "byhand").await;
        assert_eq!(
            (untouched.surname, untouched.employee_number),
            (by_hand.surname, String::new())
        );
        let surgery = done.departments.iter().find(|d| d.code == "SURG").unwrap();
        assert_eq!(
            (surgery.action.as_str(), surgery.changed.clone()),
            ("changed", strings(&["code"]))
        );
        let petrov = user_by_login(&app, "petrov.pp").await;
        assert_eq!(petrov.department_ids, [surgery.id]);
        assert_eq!(resolve(&app, &["0009"]).await.len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_stream_of_chunks_is_one_batch() {
    on_each_backend(false, |app| async move {
        let whole = hospital();
        let mut chunks = vec![pb::SyncStaffRequest {
            departments: whole.departments.clone(),
            positions: whole.positions.clone(),
            ..Default::default()
        }];
        chunks.extend(whole.people.iter().map(|p| pb::SyncStaffRequest {
            people: vec![p.clone()],
            ..Default::default()
        }));
        let messages = |chunks: &[pb::SyncStaffRequest]| {
            let messages: Vec<pb::SyncStaffStreamRequest> = chunks
                .iter()
                .map(|chunk| pb::SyncStaffStreamRequest {
                    chunk: Some(chunk.clone()),
                })
                .collect();
            futures_util::stream::iter(messages)
        };
        let stream = messages(&chunks);
        let done = app
            .client
            .clone()
            .sync_staff_stream(authed(stream, &hr_system(&app)))
            .await
            .unwrap()
            .into_inner()
            .result
            .unwrap();
        assert_eq!(counts(&done), [3, 0, 0, 0]);
        assert_eq!(counts(&sync(&app, whole).await), [0, 0, 0, 3]);

        // The flags are the first chunk's.
        chunks[1].dry_run = true;
        let refused = app
            .client
            .clone()
            .sync_staff_stream(authed(messages(&chunks), &hr_system(&app)))
            .await;
        assert_eq!(code(&refused), Code::InvalidArgument);
    })
    .await;
}

/// 5,000 people in one call: created, then all unchanged. The time is printed
/// for the record (`--nocapture`), never asserted: `make bench` measures.
#[tokio::test]
async fn five_thousand_people_in_one_call() {
    on_each_backend(false, |app| async move {
        let mut batch = pb::SyncStaffRequest {
            departments: (0..50)
                .map(|d| department(&format!("D{d}"), &format!("Отделение №{d}")))
                .collect(),
            ..Default::default()
        };
        batch.people = (0..5000)
            .map(|n| pb::StaffPerson {
                email: format!("staff{n}@hospital.example"),
                ..person(
                    &format!("{n:06}"),
                    "Сотрудникова",
                    "Мария",
                    &[&format!("D{}", n % 50)],
                )
            })
            .collect();
        let started = Instant::now();
        let first = sync(&app, batch.clone()).await;
        let created_in = started.elapsed();
        assert_eq!(counts(&first), [5000, 0, 0, 0]);
        assert!(first.errors.is_empty());
        let started = Instant::now();
        let second = sync(&app, batch).await;
        eprintln!(
            "5,000 people on {:?}: created in {created_in:?}, unchanged in {:?}",
            app.backend,
            started.elapsed()
        );
        assert_eq!(counts(&second), [0, 0, 0, 5000]);
        assert_eq!(users(&app).await.len(), 5001);
    })
    .await;
}
