//! The access matrix's calls of two-step sign-in (issue 39.4), apart from
//! `access.rs`: each refused for itself (an unknown token, a wrong code, no
//! factor) answers with its own reason, which is this call's OK, so what the
//! matrix sees is only whether the caller got in.

use portal_kit::error::REASON_KEY;
use portal_kit::testing::with_token;
use portal_proto::auth::v1 as pb;
use tonic::{Code, Status};

use crate::helpers::*;

/// The rows of the access matrix for these calls.
pub const ROWS: [(&str, [Code; 5]); 7] = {
    use Code::{Ok as OK, PermissionDenied as DENIED, Unauthenticated as UNAUTH};
    [
        ("LoginMfa", [OK, OK, OK, OK, OK]),
        ("GetMyMfa", [UNAUTH, OK, OK, OK, OK]),
        ("EnrolMfa", [UNAUTH, OK, OK, OK, OK]),
        ("ConfirmMfa", [UNAUTH, OK, OK, OK, OK]),
        ("DisableMfa", [UNAUTH, OK, OK, OK, OK]),
        ("RegenerateRecoveryCodes", [UNAUTH, OK, OK, OK, OK]),
        ("ResetUserMfa", [UNAUTH, DENIED, OK, DENIED, DENIED]),
    ]
};

/// OK, or the call's own refusal when its reason is one of `reasons`.
pub(crate) fn answered<T>(result: Result<tonic::Response<T>, Status>, reasons: &[&str]) -> Code {
    match &result {
        Err(status)
            if status
                .metadata()
                .get(REASON_KEY)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|reason| reasons.contains(&reason)) =>
        {
            Code::Ok
        }
        _ => code(&result),
    }
}

/// Makes call `rpc` with `token`; `None` if it is not one of these.
pub async fn call(client: &mut Client, rpc: &str, token: Option<&str>, other: i64) -> Option<Code> {
    let wrong = || "000000".to_owned();
    Some(match rpc {
        "LoginMfa" => {
            let message = pb::LoginMfaRequest {
                mfa_token: "unknown".into(),
                code: wrong(),
                device_token: String::new(),
            };
            answered(
                client.login_mfa(with_token(message, token)).await,
                &["mfa-token-invalid"],
            )
        }
        "GetMyMfa" => code(
            &client
                .get_my_mfa(with_token(pb::GetMyMfaRequest {}, token))
                .await,
        ),
        "EnrolMfa" => code(
            &client
                .enrol_mfa(with_token(pb::EnrolMfaRequest {}, token))
                .await,
        ),
        "ConfirmMfa" => answered(
            client
                .confirm_mfa(with_token(pb::ConfirmMfaRequest { code: wrong() }, token))
                .await,
            &["mfa-code-invalid", "mfa-not-enrolling"],
        ),
        "DisableMfa" => answered(
            client
                .disable_mfa(with_token(pb::DisableMfaRequest { code: wrong() }, token))
                .await,
            &["mfa-off"],
        ),
        "RegenerateRecoveryCodes" => {
            let message = pb::RegenerateRecoveryCodesRequest { code: wrong() };
            answered(
                client
                    .regenerate_recovery_codes(with_token(message, token))
                    .await,
                &["mfa-off"],
            )
        }
        "ResetUserMfa" => {
            let message = pb::ResetUserMfaRequest { user_id: other };
            code(&client.reset_user_mfa(with_token(message, token)).await)
        }
        _ => return None,
    })
}
