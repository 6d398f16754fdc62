//! Directory sign-in (issue 39.1) against a real slapd ([`crate::slapd`]):
//! people synced from HR with no portal password sign in with their
//! directory password through the same Login RPC; local accounts keep their
//! own; the directory away is a 503 that locks nobody out.

use futures_util::future::join_all;
use portal_auth::app::directory_sign_in::{MSG_DIRECTORY_DISABLED, MSG_NOT_IN_PORTAL};
use portal_auth::app::sessions::{MSG_ACCOUNT_BLOCKED, MSG_BAD_CREDENTIALS};
use portal_auth::directory::{DirectoryArgs, DirectorySettings, MSG_DIRECTORY_UNAVAILABLE};
use portal_kit::testing::{self, AuditLog};
use portal_proto::auth::v1 as pb;
use tonic::Code;

use crate::helpers::*;
use crate::slapd::{Person, Slapd, person};
use crate::staff_sync::{department, sync};

pub(crate) const IVANOVA_PASSWORD: &str = "ivanova-domain-pass";

/// The directory of most tests: Иванова (an educator, her portal login
/// `m.ivanova` unlike her directory's), Петров (in no portal), Сидоров
/// (disabled in the domain), Кузнецова (blocked in the portal).
pub(crate) fn people() -> Vec<Person<'static>> {
    vec![
        person("ivanova", IVANOVA_PASSWORD, Some("1001")),
        person("petrov", "petrov-domain-pass", Some("1002")),
        Person {
            account_control: 514,
            ..person("sidorov", "sidorov-domain-pass", Some("1003"))
        },
        person("kuznetsova", "kuznetsova-domain-pass", Some("1004")),
    ]
}

fn hr_person(number: &str, login: &str, surname: &str) -> pb::StaffPerson {
    pb::StaffPerson {
        login: login.into(),
        ..crate::staff_sync::person(number, surname, "Анна", &["CARD"])
    }
}

/// HR sends the people the portal knows, with no password.
pub(crate) async fn sync_hospital(app: &TestApp) {
    sync(
        app,
        pb::SyncStaffRequest {
            departments: vec![department("CARD", "Кардиологическое отделение")],
            people: vec![
                hr_person("1001", "m.ivanova", "Иванова"),
                hr_person("1003", "sidorov", "Сидоров"),
                hr_person("1004", "kuznetsova", "Кузнецова"),
            ],
            ..Default::default()
        },
    )
    .await;
}

pub(crate) async fn user_id(app: &TestApp, login: &str) -> i64 {
    sqlx::query_scalar("SELECT id FROM users WHERE login = $1")
        .bind(login)
        .fetch_one(&app.database().await)
        .await
        .expect("the person")
}

pub(crate) async fn rights_of(app: &TestApp, user_id: i64) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT r.name FROM user_rights ur JOIN rights r ON r.id = ur.right_id \
         WHERE ur.user_id = $1 ORDER BY r.name",
    )
    .bind(user_id)
    .fetch_all(&app.database().await)
    .await
    .expect("rights")
}

async fn last_record(app: &TestApp) -> portal_proto::audit::v1::AuditRecord {
    let records = AuditLog::all::<Client>(app).await;
    records.last().cloned().expect("a record")
}

fn refused_with(result: Result<pb::LoginResponse, tonic::Status>, code: Code, message: &str) {
    let status = result.expect_err("refused");
    assert_eq!(
        (status.code(), status.message()),
        (code, message),
        "{status:?}"
    );
}

/// Runs `scenario` on every backend with a fresh auth on `settings`.
pub(crate) async fn on_each_backend_with<F: Future<Output = ()>>(
    settings: &DirectorySettings,
    scenario: impl Fn(TestApp) -> F,
) {
    let spawn = |backend| spawn_with_directory(backend, settings.clone());
    testing::on_each_backend(spawn, scenario).await;
}

#[tokio::test]
async fn a_synced_person_signs_in_with_the_directory_password_and_gets_the_groups_rights() {
    let Some(slapd) = Slapd::start(&people(), &["ivanova"], &[]) else {
        return;
    };
    on_each_backend_with(&slapd.settings(), |app| async move {
        sync_hospital(&app).await;
        let ivanova = user_id(&app, "m.ivanova").await;
        assert_eq!(rights_of(&app, ivanova).await, Vec::<String>::new());
        let mut log = AuditLog::start(&app).await;

        let signed_in = app
            .login("ivanova", IVANOVA_PASSWORD)
            .await
            .expect("signs in");
        assert!(!signed_in.access_token.is_empty());
        assert_eq!(rights_of(&app, ivanova).await, ["EducationManagement"]);
        let records = log.next(&app, 2).await;
        let shown: Vec<_> = records
            .iter()
            .map(|r| (r.action.as_str(), r.entity_id, r.reason.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("grant", Some(ivanova), ""),
                ("sign-in", Some(ivanova), "directory"),
            ]
        );
        // The directory knows her by its own login, not the portal's.
        refused_with(
            app.login("m.ivanova", IVANOVA_PASSWORD).await,
            Code::Unauthenticated,
            MSG_BAD_CREDENTIALS,
        );
    })
    .await;
}

#[tokio::test]
async fn a_right_the_groups_no_longer_give_is_taken_at_the_next_sign_in() {
    let Some(slapd) = Slapd::start(&people(), &[], &["ivanova"]) else {
        return;
    };
    let settings = slapd.settings();
    on_each_backend_with(&settings, |app| async move {
        sync_hospital(&app).await;
        let ivanova = user_id(&app, "m.ivanova").await;
        // An administrator gave her EquipmentEditing, which no group names.
        sqlx::query("INSERT INTO user_rights (user_id, right_id) VALUES ($1, 3), ($1, 2)")
            .bind(ivanova)
            .execute(&app.database().await)
            .await
            .unwrap();
        app.login("ivanova", IVANOVA_PASSWORD)
            .await
            .expect("signs in");
        assert_eq!(
            rights_of(&app, ivanova).await,
            ["EquipmentEditing", "UserManagement"]
        );
        let revoked = AuditLog::all::<Client>(&app)
            .await
            .into_iter()
            .filter(|r| r.entity_id == Some(ivanova))
            .map(|r| r.action)
            .collect::<Vec<_>>();
        assert!(revoked.contains(&"grant".to_owned()), "{revoked:?}");
        assert!(revoked.contains(&"revoke".to_owned()), "{revoked:?}");
    })
    .await;
}

#[tokio::test]
async fn a_wrong_directory_password_counts_against_the_limits() {
    let Some(slapd) = Slapd::start(&people(), &[], &[]) else {
        return;
    };
    on_each_backend_with(&slapd.settings(), |app| async move {
        sync_hospital(&app).await;
        for _ in 0..5 {
            refused_with(
                app.login("kuznetsova", "not-her-password").await,
                Code::Unauthenticated,
                MSG_BAD_CREDENTIALS,
            );
        }
        let last = last_record(&app).await;
        assert_eq!(
            (last.action.as_str(), last.reason.as_str()),
            ("sign-in-refused", "wrong-password")
        );
        // The sixth try, even the right password, waits like a local one.
        let limited = app.login("kuznetsova", "kuznetsova-domain-pass").await;
        assert_eq!(
            limited.expect_err("limited").code(),
            Code::ResourceExhausted
        );
    })
    .await;
}

#[tokio::test]
async fn an_entry_the_portal_does_not_know_is_refused_unless_people_are_created() {
    let Some(slapd) = Slapd::start(&people(), &["petrov"], &[]) else {
        return;
    };
    on_each_backend_with(&slapd.settings(), |app| async move {
        sync_hospital(&app).await;
        refused_with(
            app.login("petrov", "petrov-domain-pass").await,
            Code::Unauthenticated,
            MSG_NOT_IN_PORTAL,
        );
        let last = last_record(&app).await;
        assert_eq!(
            (last.action.as_str(), last.reason.as_str()),
            ("sign-in-refused", "not-in-portal")
        );
        // Refused after the right password: no guess, so it never locks him out.
        for _ in 0..6 {
            assert!(app.login("petrov", "petrov-domain-pass").await.is_err());
        }
        let counted: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sign_in_attempts")
            .fetch_one(&app.database().await)
            .await
            .unwrap();
        assert_eq!(counted, 0);
    })
    .await;

    let creating = DirectoryArgs {
        ldap_create_people: true,
        ..slapd.args()
    };
    let creating = creating.settings().unwrap().unwrap();
    on_each_backend_with(&creating, |app| async move {
        app.login("petrov", "petrov-domain-pass")
            .await
            .expect("created and signed in");
        let petrov = user_id(&app, "petrov").await;
        let number: Option<String> =
            sqlx::query_scalar("SELECT employee_number FROM users WHERE id = $1")
                .bind(petrov)
                .fetch_one(&app.database().await)
                .await
                .unwrap();
        assert_eq!(number.as_deref(), Some("1002"));
        // Created with no rights; then the groups give theirs.
        assert_eq!(rights_of(&app, petrov).await, ["EducationManagement"]);
        let created = AuditLog::all::<Client>(&app)
            .await
            .into_iter()
            .find(|r| r.action == "create" && r.entity_id == Some(petrov))
            .expect("recorded");
        assert!(!created.changes.iter().any(|c| c.field == "password"));
        // The second sign-in finds him.
        app.login("petrov", "petrov-domain-pass")
            .await
            .expect("signs in");
        let people: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE login = 'petrov'")
            .fetch_one(&app.database().await)
            .await
            .unwrap();
        assert_eq!(people, 1);
    })
    .await;
}

#[tokio::test]
async fn a_disabled_domain_account_or_a_blocked_person_cannot_sign_in() {
    let Some(slapd) = Slapd::start(&people(), &["kuznetsova"], &[]) else {
        return;
    };
    on_each_backend_with(&slapd.settings(), |app| async move {
        sync_hospital(&app).await;
        refused_with(
            app.login("sidorov", "sidorov-domain-pass").await,
            Code::Unauthenticated,
            MSG_DIRECTORY_DISABLED,
        );
        let last = last_record(&app).await;
        assert_eq!(last.reason, "directory-disabled");

        let kuznetsova = user_id(&app, "kuznetsova").await;
        let user = app
            .client
            .clone()
            .get_user(authed(
                pb::GetUserRequest {
                    user_id: kuznetsova,
                },
                &app.admin_token(),
            ))
            .await
            .expect("get user")
            .into_inner()
            .user
            .expect("the user");
        app.block(&user).await;
        refused_with(
            app.login("kuznetsova", "kuznetsova-domain-pass").await,
            Code::Unauthenticated,
            MSG_ACCOUNT_BLOCKED,
        );
        let last = last_record(&app).await;
        assert_eq!(
            (last.reason.as_str(), last.entity_id),
            ("blocked", Some(kuznetsova))
        );
        // A blocked person's rights are left as they are.
        assert_eq!(rights_of(&app, kuznetsova).await, Vec::<String>::new());
    })
    .await;
}

#[tokio::test]
async fn the_directory_away_is_a_503_that_locks_nobody_out_and_local_accounts_work() {
    let Some(mut slapd) = Slapd::start(&people(), &[], &[]) else {
        return;
    };
    let settings = slapd.settings();
    let app = spawn_with_directory(testing::backends()[0], settings).await;
    sync_hospital(&app).await;
    app.staff("nurse", "nurse-portal-password", &[], &[]).await;
    app.login("ivanova", IVANOVA_PASSWORD)
        .await
        .expect("signs in");

    slapd.stop();
    // More tries than the limits allow a login: none of them counts.
    for _ in 0..8 {
        let status = app
            .login("ivanova", IVANOVA_PASSWORD)
            .await
            .expect_err("the directory is away");
        assert_eq!(
            (status.code(), status.message()),
            (Code::Unavailable, MSG_DIRECTORY_UNAVAILABLE)
        );
        assert_eq!(
            portal_kit::error::reason_of(&status),
            "DIRECTORY_UNAVAILABLE"
        );
    }
    let last = last_record(&app).await;
    assert_eq!(last.reason, "directory-unavailable");
    // The bootstrap admin and people with a portal password never ask it.
    app.login(ADMIN_LOGIN, ADMIN_PASSWORD)
        .await
        .expect("the admin signs in");
    app.login("nurse", "nurse-portal-password")
        .await
        .expect("a local account signs in");
    let local = last_record(&app).await;
    assert_eq!(
        (local.action.as_str(), local.reason.as_str()),
        ("sign-in", "password")
    );
    // ...and checks theirs itself: a directory password is no portal one.
    refused_with(
        app.login("nurse", "nurse-domain-password").await,
        Code::Unauthenticated,
        MSG_BAD_CREDENTIALS,
    );

    slapd.resume();
    app.login("ivanova", IVANOVA_PASSWORD)
        .await
        .expect("signs in as soon as the directory is back");
}

#[tokio::test]
async fn fifty_people_sign_in_at_once() {
    let numbers: Vec<String> = (0..50).map(|i| format!("{}", 2000 + i)).collect();
    let logins: Vec<String> = (0..50).map(|i| format!("staff{i:02}")).collect();
    let passwords: Vec<String> = logins.iter().map(|l| format!("{l}-domain-pass")).collect();
    let people: Vec<Person<'_>> = (0..50)
        .map(|i| person(&logins[i], &passwords[i], Some(numbers[i].as_str())))
        .collect();
    let Some(slapd) = Slapd::start(&people, &[], &[]) else {
        return;
    };
    let app = spawn_with_directory(testing::backends()[0], slapd.settings()).await;
    sync(
        &app,
        pb::SyncStaffRequest {
            departments: vec![department("CARD", "Кардиологическое отделение")],
            people: (0..50)
                .map(|i| hr_person(&numbers[i], &format!("portal.{}", logins[i]), "Сотрудник"))
                .collect(),
            ..Default::default()
        },
    )
    .await;
    let started = std::time::Instant::now();
    let signed_in = join_all((0..50).map(|i| app.login(&logins[i], &passwords[i]))).await;
    let failed: Vec<_> = signed_in.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failed.is_empty(), "{failed:?}");
    eprintln!("50 directory sign-ins at once took {:?}", started.elapsed());
}

#[tokio::test]
async fn ldap_filter_characters_in_the_login_find_nobody() {
    let Some(slapd) = Slapd::start(&people(), &[], &[]) else {
        return;
    };
    let app = spawn_with_directory(testing::backends()[0], slapd.settings()).await;
    sync_hospital(&app).await;
    // Unescaped, `ivano*` would find Иванова's entry alone and bind as her.
    for login in ["ivano*", "*)(uid=*", "ivanova)(uid=*", "*", "ivanova\\2a"] {
        refused_with(
            app.login(login, IVANOVA_PASSWORD).await,
            Code::Unauthenticated,
            MSG_BAD_CREDENTIALS,
        );
    }
    app.login("ivanova", IVANOVA_PASSWORD)
        .await
        .expect("signs in");
}

#[tokio::test]
async fn a_server_certificate_of_another_ca_is_refused() {
    let Some(slapd) = Slapd::start(&people(), &[], &[]) else {
        return;
    };
    // Debian's snakeoil certificate: a CA that did not sign this server's.
    let snakeoil = "/etc/ssl/certs/ssl-cert-snakeoil.pem";
    let other_ca = if std::path::Path::new(snakeoil).exists() {
        DirectoryArgs {
            ldap_ca_file: Some(snakeoil.into()),
            ..slapd.args()
        }
    } else {
        // No CA file: the public roots, which did not sign it either.
        DirectoryArgs {
            ldap_ca_file: None,
            ..slapd.args()
        }
    };
    let app = spawn_with_directory(
        testing::backends()[0],
        other_ca.settings().unwrap().unwrap(),
    )
    .await;
    sync_hospital(&app).await;
    let status = app
        .login("ivanova", IVANOVA_PASSWORD)
        .await
        .expect_err("not trusted");
    assert_eq!(status.code(), Code::Unavailable);
}

#[tokio::test]
async fn a_forgotten_directory_password_is_sent_to_the_domains_reset_not_mailed() {
    let Some(slapd) = Slapd::start(&people(), &[], &[]) else {
        return;
    };
    let args = DirectoryArgs {
        ldap_password_reset_url: Some("https://passwordreset.hospital.local/".into()),
        ..slapd.args()
    };
    let settings = args.settings().unwrap().unwrap();
    let spawn = |backend| spawn_directory_mailing(backend, settings.clone());
    testing::on_each_backend(spawn, |Mailing { app, sink }| async move {
        sync(
            &app,
            pb::SyncStaffRequest {
                departments: vec![department("CARD", "Кардиологическое отделение")],
                people: vec![pb::StaffPerson {
                    email: "ivanova@hospital.example".into(),
                    ..hr_person("1001", "m.ivanova", "Иванова")
                }],
                ..Default::default()
            },
        )
        .await;
        app.staff("nurse", "nurse-portal-password", &[], &[]).await;
        for login in ["m.ivanova", "nurse", "nobody"] {
            let answer = app
                .client
                .clone()
                .request_password_reset(pb::RequestPasswordResetRequest {
                    login: login.into(),
                })
                .await
                .expect("always answered")
                .into_inner();
            // The same for everyone: it tells nothing of the login.
            assert_eq!(
                answer,
                pb::RequestPasswordResetResponse {
                    directory_sign_in: true,
                    directory_reset_url: "https://passwordreset.hospital.local/".into(),
                }
            );
        }
        let mails = sink.wait_for(1, std::time::Duration::from_secs(10)).await;
        assert_eq!(mails[0].to, ["nurse@hospital.example"]);
        // Nor does a link to her come later.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert_eq!(sink.mails().len(), 1);
        let ivanova = user_id(&app, "m.ivanova").await;
        let asked = AuditLog::all::<Client>(&app)
            .await
            .into_iter()
            .find(|r| r.action == "password-reset-requested" && r.entity_id == Some(ivanova))
            .expect("recorded");
        assert_eq!(asked.reason, "directory-password");
    })
    .await;
}
