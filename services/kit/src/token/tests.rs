//! Tokens issued and verified: claims, keys, expiry, scopes and access versions.

use super::*;
use crate::access::Scope;
use std::time::Duration;

fn subject() -> Subject {
    Subject {
        user_id: 42,
        login: "ivanova".into(),
        name: "Анна".into(),
        surname: "Иванова".into(),
        last_name: "Петровна".into(),
        rights: vec!["EducationManagement".into()],
        departments: vec![3],
        access_version: 2,
    }
}

fn keys(dir: &Path) -> (TokenIssuer, TokenVerifier) {
    let (private, public) = ensure_key_pair(dir).unwrap();
    (
        TokenIssuer::from_pem_file(&private).unwrap(),
        TokenVerifier::from_pem_file(&public).unwrap(),
    )
}

#[test]
fn an_issued_token_verifies_with_its_claims() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let claims = verifier.verify(&issuer.issue(subject()).unwrap()).unwrap();
    assert_eq!(claims.user_id, 42);
    assert_eq!(claims.rights, ["EducationManagement"]);
    assert_eq!(claims.exp - claims.iat, ACCESS_TOKEN_TTL.as_secs());
    assert_eq!(claims.ver, 2);
}

fn caller_of(verifier: &mut TokenVerifier, token: &str) -> Caller {
    use tonic::service::Interceptor;
    let mut request = Request::new(());
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    Caller::of(&verifier.call(request).unwrap())
}

#[test]
fn a_token_older_than_its_persons_access_version_is_refused_as_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let versions = AccessVersions::default();
    let mut verifier = verifier.with_access_versions(versions.clone());
    let token = issuer.issue(subject()).unwrap();
    assert!(matches!(
        caller_of(&mut verifier, &token),
        Caller::SignedIn(_)
    ));
    versions.raise([(42, 3)]);
    assert!(matches!(caller_of(&mut verifier, &token), Caller::Revoked));
    let renewed = issuer
        .issue(Subject {
            access_version: 3,
            ..subject()
        })
        .unwrap();
    assert!(matches!(
        caller_of(&mut verifier, &renewed),
        Caller::SignedIn(_)
    ));
}

fn system() -> ServiceAccountSubject {
    ServiceAccountSubject {
        account_id: 42,
        name: "МИС".into(),
        client_id: "mis".into(),
        scopes: vec![Scope::TrainingRead, Scope::StaffRead],
        access_version: 1,
    }
}

#[test]
fn a_service_accounts_token_verifies_as_a_service_account_never_as_a_person() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let token = issuer.issue_service_account(system()).unwrap();
    let Some(Principal::ServiceAccount(claims)) = verifier.verify_principal(&token) else {
        panic!("a service account's token");
    };
    assert_eq!(claims.account_id, 42);
    assert_eq!(claims.scopes, ["training.read", "staff.read"]);
    assert!(claims.has(Scope::StaffRead) && !claims.has(Scope::StaffWrite));
    assert_eq!(claims.exp - claims.iat, SERVICE_TOKEN_TTL.as_secs());
    assert!(verifier.verify(&token).is_none());
    let payload = token.split('.').nth(1).unwrap();
    let json = String::from_utf8(
        base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, payload).unwrap(),
    )
    .unwrap();
    assert!(json.contains(r#""sub":"svc:42""#), "{json}");
    assert!(
        json.contains(r#""scope":"training.read staff.read""#),
        "{json}"
    );
}

#[test]
fn a_disabled_service_account_is_refused_as_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let versions = AccessVersions::default();
    let mut verifier = verifier.with_access_versions(versions.clone());
    let token = issuer.issue_service_account(system()).unwrap();
    assert!(matches!(
        caller_of(&mut verifier, &token),
        Caller::ServiceAccount(_)
    ));
    // A person with the same id is someone else.
    versions.raise([(42, 5)]);
    assert!(matches!(
        caller_of(&mut verifier, &token),
        Caller::ServiceAccount(_)
    ));
    versions.raise([(crate::revocation::Holder::ServiceAccount(42), 2)]);
    assert!(matches!(caller_of(&mut verifier, &token), Caller::Revoked));
}

/// What the interceptor answers a call with `token` on a server holding `limiter`.
fn call_with_limits(
    verifier: &mut TokenVerifier,
    limiter: &AccountLimiter,
    token: &str,
) -> Result<Caller, Status> {
    use tonic::service::Interceptor;
    let mut request = Request::new(());
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    request.extensions_mut().insert(limiter.clone());
    verifier.call(request).map(|request| Caller::of(&request))
}

#[tokio::test(start_paused = true)]
async fn a_service_accounts_burst_is_refused_with_a_wait_while_others_and_people_go_on() {
    use crate::account_limits::ServiceAccountLimits;
    let dir = tempfile::tempdir().unwrap();
    let (issuer, mut verifier) = keys(dir.path());
    let limiter = AccountLimiter::new(ServiceAccountLimits { rate: 4, burst: 5 });
    let runaway = issuer.issue_service_account(system()).unwrap();
    let other = issuer
        .issue_service_account(ServiceAccountSubject {
            account_id: 43,
            ..system()
        })
        .unwrap();
    // A person with the runaway account's id is someone else.
    let person = issuer.issue(subject()).unwrap();
    for _ in 0..5 {
        assert!(matches!(
            call_with_limits(&mut verifier, &limiter, &runaway),
            Ok(Caller::ServiceAccount(_))
        ));
    }
    let refused = call_with_limits(&mut verifier, &limiter, &runaway).unwrap_err();
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
    assert_eq!(crate::error::reason_of(&refused), "RATE_LIMITED");
    let wait = {
        use tonic_types::StatusExt;
        refused
            .get_details_retry_info()
            .unwrap()
            .retry_delay
            .unwrap()
    };
    assert_eq!(wait, Duration::from_millis(250));
    assert_eq!(
        refused
            .metadata()
            .get(crate::error::RETRY_AFTER_KEY)
            .unwrap(),
        "1"
    );
    for _ in 0..5 {
        assert!(call_with_limits(&mut verifier, &limiter, &other).is_ok());
    }
    for _ in 0..200 {
        assert!(matches!(
            call_with_limits(&mut verifier, &limiter, &person),
            Ok(Caller::SignedIn(_))
        ));
    }
    tokio::time::advance(wait).await;
    assert!(call_with_limits(&mut verifier, &limiter, &runaway).is_ok());
    assert!(call_with_limits(&mut verifier, &limiter, &runaway).is_err());
}

#[test]
fn the_key_pair_is_generated_once() {
    let dir = tempfile::tempdir().unwrap();
    let first = std::fs::read(ensure_key_pair(dir.path()).unwrap().1).unwrap();
    let second = std::fs::read(ensure_key_pair(dir.path()).unwrap().1).unwrap();
    assert_eq!(first, second);
}

#[test]
fn a_token_of_another_key_is_refused() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (issuer, _) = keys(a.path());
    let (_, verifier) = keys(b.path());
    assert!(verifier.verify(&issuer.issue(subject()).unwrap()).is_none());
}

#[test]
fn an_unsigned_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let token = issuer.issue(subject()).unwrap();
    let mut parts = token.split('.');
    let (_, payload) = (parts.next().unwrap(), parts.next().unwrap());
    // {"alg":"none","typ":"JWT"}
    let forged = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{payload}.");
    assert!(verifier.verify(&forged).is_none());
}

/// `claims` signed by `signer`'s key but naming `kid` as its key.
fn sign(claims: &Claims, kid: &str, signer: &TokenIssuer) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &signer.key).unwrap()
}

#[test]
fn an_expired_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let mut claims = Claims::for_test(1, &[]);
    claims.exp = unix_now() - 3600;
    let token = sign(&claims, &issuer.kid, &issuer);
    assert!(verifier.verify(&token).is_none());
}

#[test]
fn a_cached_token_is_refused_once_it_expires() {
    let dir = tempfile::tempdir().unwrap();
    let (issuer, verifier) = keys(dir.path());
    let token = issuer.issue(subject()).unwrap();
    let now = unix_now();
    let claims = verifier.verify_at(&token, now).unwrap();
    assert!(verifier.verified.contains_key(token.as_str()));
    let last_valid = claims.exp() + EXPIRY_LEEWAY_SECS;
    assert!(verifier.verify_at(&token, last_valid).is_some());
    assert!(verifier.verify_at(&token, last_valid + 1).is_none());
    assert!(!verifier.verified.contains_key(token.as_str()));
}

#[test]
fn a_forged_signature_is_refused_while_the_genuine_token_is_cached() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (issuer, verifier) = keys(a.path());
    let (forger, _) = keys(b.path());
    let genuine = issuer.issue(subject()).unwrap();
    let claims = verifier.verify(&genuine).unwrap();
    // The same header and claims, signed with a key that is not published.
    let forged = sign(&claims, &issuer.kid, &forger);
    assert_ne!(forged, genuine);
    assert_eq!(
        forged.rsplit_once('.').unwrap().0,
        genuine.rsplit_once('.').unwrap().0
    );
    assert!(verifier.verify(&forged).is_none());
    // The genuine signature with one character changed.
    let mut tampered = genuine.clone().into_bytes();
    let middle = genuine.len() - 40;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    assert!(
        verifier
            .verify(&String::from_utf8(tampered).unwrap())
            .is_none()
    );
    assert!(verifier.verify(&genuine).is_some());
}

#[test]
fn a_key_dropped_from_the_public_file_refuses_its_tokens_after_a_restart() {
    let (old, new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (old_issuer, _) = keys(old.path());
    let (new_issuer, _) = keys(new.path());
    let old_public = std::fs::read_to_string(old.path().join(PUBLIC_KEY_FILE)).unwrap();
    let new_public = std::fs::read_to_string(new.path().join(PUBLIC_KEY_FILE)).unwrap();
    let both = new.path().join("both.pem");
    std::fs::write(&both, format!("{old_public}{new_public}")).unwrap();
    let during_rotation = TokenVerifier::from_pem_file(&both).unwrap();
    let old_token = old_issuer.issue(subject()).unwrap();
    assert!(during_rotation.verify(&old_token).is_some());
    assert!(
        during_rotation
            .verify(&new_issuer.issue(subject()).unwrap())
            .is_some()
    );
    let after_rotation = TokenVerifier::from_pem_file(&new.path().join(PUBLIC_KEY_FILE)).unwrap();
    assert!(after_rotation.verify(&old_token).is_none());
}
