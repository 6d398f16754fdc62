//! Directory sign-in (issue 39.1) with the rest of sign-in, against a real
//! slapd ([`crate::slapd`]): a second factor after the directory's password
//! records the sign-in as the directory's, and parallel first sign-ins of an
//! entry the portal creates people for all get in as one person.

use futures_util::future::join_all;
use portal_auth::directory::DirectoryArgs;
use portal_kit::testing::{AuditLog, away_from_a_step_edge, totp_code};
use portal_proto::auth::v1 as pb;

use crate::directory::{IVANOVA_PASSWORD, on_each_backend_with, people, sync_hospital, user_id};
use crate::helpers::*;
use crate::mfa::second_step;
use crate::slapd::{Slapd, person};

#[tokio::test]
async fn a_directory_sign_in_with_a_second_factor_is_recorded_as_the_directorys() {
    let Some(slapd) = Slapd::start(&people(), &[], &[]) else {
        return;
    };
    on_each_backend_with(&slapd.settings(), |app| async move {
        sync_hospital(&app).await;
        let ivanova = user_id(&app, "m.ivanova").await;
        let token = app.token(ivanova, &[]);
        let mut client = app.client.clone();
        let secret = client
            .enrol_mfa(authed(pb::EnrolMfaRequest {}, &token))
            .await
            .expect("enrol")
            .into_inner()
            .secret;
        away_from_a_step_edge().await;
        let confirm = pb::ConfirmMfaRequest {
            code: totp_code(&secret, -1),
        };
        client
            .confirm_mfa(authed(confirm, &token))
            .await
            .expect("confirm");

        let first = app
            .login("ivanova", IVANOVA_PASSWORD)
            .await
            .expect("the directory's password");
        assert!(first.mfa_required);
        second_step(&app, &first.mfa_token, &totp_code(&secret, 0), "")
            .await
            .expect("the code");
        let signed_in = AuditLog::all::<Client>(&app)
            .await
            .into_iter()
            .rfind(|r| r.action == "sign-in" && r.entity_id == Some(ivanova))
            .expect("the sign-in recorded");
        assert_eq!(signed_in.reason, "directory");
        let method = signed_in.changes.iter().find(|c| c.field == "method");
        assert!(
            method.is_some_and(|c| c.new.contains("directory+totp")),
            "{signed_in:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn parallel_first_sign_ins_of_a_new_entry_all_get_in_as_one_person() {
    let newcomers = ["novikova", "orlov", "pavlova", "rybakov"];
    let entries: Vec<_> = newcomers
        .iter()
        .zip(["2001", "2002", "2003", "2004"])
        .map(|(login, number)| person(login, "newcomer-domain-pass", Some(number)))
        .collect();
    let Some(slapd) = Slapd::start(&entries, &newcomers, &[]) else {
        return;
    };
    let creating = DirectoryArgs {
        ldap_create_people: true,
        ..slapd.args()
    };
    let creating = creating.settings().unwrap().unwrap();
    on_each_backend_with(&creating, |app| async move {
        let tries = newcomers.iter().flat_map(|login| {
            let app = &app;
            (0..3).map(
                move |_| async move { (login, app.login(login, "newcomer-domain-pass").await) },
            )
        });
        for (login, answer) in join_all(tries).await {
            let signed_in = answer.unwrap_or_else(|e| panic!("{login}: {e:?}"));
            assert!(!signed_in.access_token.is_empty(), "{login}");
        }
        for login in newcomers {
            let people: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE login = $1")
                .bind(login)
                .fetch_one(&app.database().await)
                .await
                .unwrap();
            assert_eq!(people, 1, "{login}");
        }
    })
    .await;
}
