//! The access and scope matrices every service's tests run over each RPC, and
//! the audit log's reads as a test sees them.

use super::*;
use crate::access::{Right, Scope};
use crate::db::Backend;
use portal_proto::audit::v1::audit_service_client::AuditServiceClient;
use portal_proto::audit::v1::{AuditRecord, ListAuditRecordsRequest};
use prost::Message as _;
use std::fmt::Debug;
use tonic::Code;

/// The callers of an authorization matrix, in the order of its columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Anonymous,
    Learner,
    UserManagement,
    EducationManagement,
    EquipmentEditing,
}

impl Who {
    pub const ALL: [Who; 5] = [
        Who::Anonymous,
        Who::Learner,
        Who::UserManagement,
        Who::EducationManagement,
        Who::EquipmentEditing,
    ];

    /// The rights this caller holds: none for the anonymous caller and the
    /// learner, one for each of the others.
    pub fn rights(self) -> &'static [Right] {
        match self {
            Who::Anonymous | Who::Learner => &[],
            Who::UserManagement => &[Right::UserManagement],
            Who::EducationManagement => &[Right::EducationManagement],
            Who::EquipmentEditing => &[Right::EquipmentEditing],
        }
    }
}

/// A row of an authorization matrix: a call (`Rpc`, or `Rpc/situation` where
/// the rule depends on what it is called on) and the code each of [`Who::ALL`]
/// gets, in that order.
pub type AccessRule = (&'static str, [Code; 5]);

/// Tokens for [`Who::ALL`], in that order: none for the anonymous caller, and
/// for the others user `ids[i]` with that caller's rights, member of `departments`.
pub fn caller_tokens(keys: &TestKeys, ids: [i64; 5], departments: &[i64]) -> [Option<String>; 5] {
    std::array::from_fn(|i| {
        let who = Who::ALL[i];
        (who != Who::Anonymous).then(|| keys.token(ids[i], who.rights(), departments))
    })
}

/// Makes every call of `matrix` as each of [`Who::ALL`] through `call` (given
/// the call's name and the caller's column) and fails naming each answer that
/// differs from the rule, on `backend`.
pub async fn access_matrix(
    backend: Backend,
    matrix: &[AccessRule],
    mut call: impl AsyncFnMut(&str, usize) -> Code,
) {
    let mut wrong = Vec::new();
    for (rpc, expected) in matrix {
        for (who, expected) in expected.iter().enumerate() {
            let actual = call(rpc, who).await;
            if actual != *expected {
                wrong.push(format!(
                    "{rpc} as {:?}: expected {expected:?}, got {actual:?}",
                    Who::ALL[who]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "on {backend:?}:\n{}", wrong.join("\n"));
}

/// A row of an access matrix (its name, situation included) that a service
/// account granted this scope may call; every row not named is closed to
/// service accounts.
pub type ScopeRule = (&'static str, Scope);

/// Makes every call of `matrix` with a service account's token (from `keys`)
/// granted no scope, then each scope alone, through `call` (given the row and
/// the token), and fails naming each wrong allow (a call not in `open` for
/// that scope that was not refused) and each wrong refusal. Refused is
/// PERMISSION_DENIED or UNAUTHENTICATED; any other answer was let through.
pub async fn scope_matrix(
    backend: Backend,
    keys: &TestKeys,
    matrix: &[AccessRule],
    open: &[ScopeRule],
    mut call: impl AsyncFnMut(&str, &str) -> Code,
) {
    for (rpc, _) in open {
        assert!(
            matrix.iter().any(|(row, _)| row == rpc),
            "{rpc} of the scope rules is no row of the matrix"
        );
    }
    let grants: Vec<(String, Vec<Scope>)> = std::iter::once(("no scope".to_owned(), Vec::new()))
        .chain(Scope::ALL.map(|scope| (scope.as_str().to_owned(), vec![scope])))
        .collect();
    let mut wrong = Vec::new();
    for (account_id, (grant, scopes)) in (9000..).zip(&grants) {
        let token = keys.service_token(account_id, scopes);
        for (rpc, _) in matrix {
            let allowed = open
                .iter()
                .any(|(row, scope)| row == rpc && scopes.contains(scope));
            let code = call(rpc, &token).await;
            let refused = matches!(code, Code::PermissionDenied | Code::Unauthenticated);
            if allowed == refused {
                let verdict = if allowed {
                    "wrong refusal"
                } else {
                    "wrong allow"
                };
                wrong.push(format!("{rpc} with {grant}: {verdict} ({code:?})"));
            }
        }
    }
    assert!(wrong.is_empty(), "on {backend:?}:\n{}", wrong.join("\n"));
}

/// Fails unless `matrix` has a row for every RPC of service `service` in
/// package `package` of the contract.
pub fn assert_matrix_covers(matrix: &[AccessRule], package: &str, service: &str) {
    let descriptors = prost_types::FileDescriptorSet::decode(portal_proto::FILE_DESCRIPTOR_SET)
        .expect("the contract's descriptors");
    let service = descriptors
        .file
        .iter()
        .filter(|file| file.package() == package)
        .flat_map(|file| &file.service)
        .find(|found| found.name() == service)
        .unwrap_or_else(|| panic!("{service} in the descriptors"));
    for method in &service.method {
        let covered = matrix
            .iter()
            .any(|(rpc, _)| rpc.split('/').next() == Some(method.name()));
        assert!(
            covered,
            "{} is missing from the authorization matrix",
            method.name()
        );
    }
}

/// The audit log's rule, the same in every service (`portal.audit.v1`):
/// only UserManagement reads it, and no service account.
pub const AUDIT_MATRIX: &[AccessRule] = &[(
    "ListAuditRecords",
    [
        Code::Unauthenticated,
        Code::PermissionDenied,
        Code::Ok,
        Code::PermissionDenied,
        Code::PermissionDenied,
    ],
)];

/// Calls the `AuditService` a service serves beside its own (on `harness`'s
/// channel) as every caller of [`AUDIT_MATRIX`] and with a service
/// account's token of each scope, and fails on any answer but the rule's.
pub async fn assert_audit_access<C>(harness: &ServiceHarness<C>) {
    let mut client = AuditServiceClient::new(harness.channel.clone());
    assert_served_beside(harness, AUDIT_MATRIX, async |token| {
        let request = with_token(ListAuditRecordsRequest::default(), token);
        code(&client.list_audit_records(request).await)
    })
    .await;
}

/// Makes the one call of a contract a service serves beside its own
/// (`call`, given the caller's token, if any) as every caller of `matrix`,
/// then with a service account's token of each scope, none of which opens
/// it, and fails on any answer but the rule's.
pub(super) async fn assert_served_beside<C>(
    harness: &ServiceHarness<C>,
    matrix: &[AccessRule],
    mut call: impl AsyncFnMut(Option<&str>) -> Code,
) {
    let tokens = caller_tokens(&harness.keys, [0, 901, 902, 903, 904], &[]);
    access_matrix(harness.backend, matrix, async |_, who| {
        call(tokens[who].as_deref()).await
    })
    .await;
    scope_matrix(
        harness.backend,
        &harness.keys,
        matrix,
        &[],
        async |_, token| call(Some(token)).await,
    )
    .await;
}

/// The audit log a service serves beside its own, as its tests read it: the
/// records written since the last look, so each write's records are checked
/// apart from the ones before. The default looks from the first record on.
#[derive(Default)]
pub struct AuditLog {
    seen: usize,
}

impl AuditLog {
    /// Looks from now on (records written at start, such as a demo's, are
    /// not the test's).
    pub async fn start<C>(harness: &ServiceHarness<C>) -> AuditLog {
        AuditLog {
            seen: AuditLog::all(harness).await.len(),
        }
    }

    /// Every record, oldest first.
    pub async fn all<C>(harness: &ServiceHarness<C>) -> Vec<AuditRecord> {
        let token = harness.keys.token(900, &[Right::UserManagement], &[]);
        let request = ListAuditRecordsRequest {
            limit: 1000,
            ..Default::default()
        };
        let mut records = AuditServiceClient::new(harness.channel.clone())
            .list_audit_records(authed(request, &token))
            .await
            .expect("the audit log")
            .into_inner()
            .records;
        records.reverse();
        records
    }

    /// The `count` records written since the last look, and no more.
    pub async fn next<C>(&mut self, harness: &ServiceHarness<C>, count: usize) -> Vec<AuditRecord> {
        let all = AuditLog::all(harness).await;
        let new = all[self.seen.min(all.len())..].to_vec();
        let what: Vec<_> = new.iter().map(|r| (&r.entity, &r.action)).collect();
        assert_eq!(new.len(), count, "{:?}: {what:?}", harness.backend);
        self.seen = all.len();
        new
    }
}

/// The two tests of a service's authorization matrix, for a test module with
/// `MATRIX`, `on_each_backend`, `fixture(&app)` and `call(&app, &fixture, rpc,
/// who)`: every call as every caller on each backend, and that the table names
/// every RPC of service `$service` in package `$package`.
#[macro_export]
macro_rules! access_matrix_tests {
    ($package:literal, $service:literal) => {
        #[tokio::test]
        async fn every_call_enforces_its_access_rule() {
            on_each_backend(|app| async move {
                let fixture = fixture(&app).await;
                $crate::testing::access_matrix(app.backend, MATRIX, async |rpc, who| {
                    call(&app, &fixture, rpc, who).await
                })
                .await;
            })
            .await;
        }

        #[test]
        fn the_matrix_covers_every_rpc_of_the_contract() {
            $crate::testing::assert_matrix_covers(MATRIX, $package, $service);
        }
    };
}
