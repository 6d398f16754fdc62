//! Directory sign-in (issue 39.1) with the rest of sign-in, against a real
//! slapd ([`crate::slapd`]): a second factor after the directory's password
//! records the sign-in as the directory's.

use portal_kit::testing::{AuditLog, away_from_a_step_edge, totp_code};
use portal_proto::auth::v1 as pb;

use crate::directory::{IVANOVA_PASSWORD, on_each_backend_with, people, sync_hospital, user_id};
use crate::helpers::*;
use crate::mfa::second_step;
use crate::slapd::Slapd;

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
