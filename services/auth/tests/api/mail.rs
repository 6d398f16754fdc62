//! Whom the digest's mail may reach (internal `MailRecipientService`, no
//! token): the not blocked with an address, with their departments and
//! rights, by the ids asked or a page at a time of everyone.

use portal_proto::auth::v1 as pb;
use portal_proto::auth::v1::mail_recipient_service_client::MailRecipientServiceClient;
use tonic::Code;

use crate::helpers::*;

#[tokio::test]
async fn recipients_carry_departments_and_rights_and_every_page_walks_everyone_mailable() {
    on_each_backend(false, |app| async move {
        let icu = app.create_department("Реанимация", &[]).await.id;
        let surgery = app.create_department("Хирургия", &[]).await.id;
        let editor = app
            .staff(
                "mail-editor",
                "mail-editor-password",
                &[RIGHT_EQUIPMENT_EDITING],
                &[surgery, icu],
            )
            .await;
        let nurse = app
            .staff("mail-nurse", "mail-nurse-password", &[], &[icu])
            .await;
        let blocked = app
            .staff("mail-blocked", "mail-blocked-password", &[], &[icu])
            .await;
        app.block(&blocked).await;
        let silent = app
            .create_user(pb::UserDraft {
                name: "Пётр".into(),
                surname: "Петров".into(),
                login: "mail-silent".into(),
                password: "mail-silent-password".into(),
                ..Default::default()
            })
            .await;

        // Education's digest, with the services' credential.
        let mut mail = MailRecipientServiceClient::with_interceptor(
            app.channel.clone(),
            app.keys.internal.credential(),
        );
        let mut everyone = Vec::new();
        let mut after = 0;
        loop {
            let page = mail
                .list_mail_recipients_page(pb::ListMailRecipientsPageRequest {
                    after_user_id: after,
                    page_size: 1,
                })
                .await
                .expect("no person's token needed")
                .into_inner();
            let Some(last) = page.recipients.last() else {
                assert_eq!(page.last_user_id, 0);
                break;
            };
            assert_eq!(page.recipients.len(), 1);
            assert_eq!(page.last_user_id, last.user_id);
            after = page.last_user_id;
            everyone.extend(page.recipients);
        }
        let ids: Vec<i64> = everyone.iter().map(|r| r.user_id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert!(
            ids.contains(&editor.id) && ids.contains(&nurse.id),
            "{ids:?}"
        );
        assert!(
            !ids.contains(&blocked.id) && !ids.contains(&silent.id),
            "{ids:?}"
        );
        let of = |id: i64| everyone.iter().find(|r| r.user_id == id).unwrap().clone();
        let mut departments = vec![icu, surgery];
        departments.sort_unstable();
        assert_eq!(of(editor.id).department_ids, departments);
        assert_eq!(of(editor.id).rights, ["EquipmentEditing"]);
        assert_eq!(of(editor.id).email, "mail-editor@hospital.example");
        assert_eq!(of(nurse.id).department_ids, [icu]);
        assert!(of(nurse.id).rights.is_empty());

        let asked = mail
            .list_mail_recipients(pb::ListMailRecipientsRequest {
                user_ids: vec![nurse.id, blocked.id, editor.id],
            })
            .await
            .expect("by ids")
            .into_inner()
            .recipients;
        let mut expected = vec![of(editor.id), of(nurse.id)];
        expected.sort_by_key(|r| r.user_id);
        assert_eq!(asked, expected);

        for page_size in [1001, -1] {
            let refused = mail
                .list_mail_recipients_page(pb::ListMailRecipientsPageRequest {
                    after_user_id: 0,
                    page_size,
                })
                .await;
            assert_eq!(
                refused.map(|_| ()).unwrap_err().code(),
                Code::InvalidArgument
            );
        }
    })
    .await;
}
