//! Access revocation: a blocked person, or one whose rights or departments
//! changed, is refused on the next call, not when their access token expires.
//!
//! Auth keeps a version per person (`users.access_version`), raised whenever
//! what a token says of them stops being true; each access token carries the
//! version it was signed at (`ver`). Every service replica keeps the versions
//! it knows in memory ([`AccessVersions`]) and refuses a token older than its
//! person's version, so the check on each call is a map read, never a call to
//! auth. A replica learns the versions by asking auth every
//! [`POLL_INTERVAL`] for the changes since its cursor ([`ChangeSource`]: auth's
//! `AccessRevocationService` for the other services, its own database for auth).
//!
//! While auth cannot be asked, a replica keeps what it knew and says so in its
//! log; what it has not learned yet it cannot refuse, which is at worst the
//! token lifetime of before. Versions only grow, so a change learned twice, or
//! from two auth replicas in either order, is the same.
//!
//! Service accounts have versions of their own, raised when an account is
//! disabled or its scopes change, so a disabled system's tokens stop at once too.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use crate::claims::{Claims, ServiceAccountClaims};
use crate::internal::InternalChannel;
use portal_proto::auth::v1::ListAccessChangesRequest;
use portal_proto::auth::v1::access_revocation_service_client::AccessRevocationServiceClient;

/// How often a replica asks for changes: the longest a change waits to be
/// enforced, give or take one answer's time.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// How long one question may take before the next one is asked.
const ASK_TIMEOUT: Duration = Duration::from_secs(5);

/// Whose access version: a person's (by user id) or a service account's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Holder {
    Person(i64),
    ServiceAccount(i64),
}

impl From<i64> for Holder {
    fn from(user_id: i64) -> Holder {
        Holder::Person(user_id)
    }
}

type Known = HashMap<Holder, i64>;

/// The access version of each person and service account a replica has
/// learned of; shared by the token check of every call and the task that
/// keeps it current.
#[derive(Clone, Debug, Default)]
pub struct AccessVersions {
    known: Arc<RwLock<Known>>,
}

impl AccessVersions {
    /// Whether a verified token is as new as its person's access version: a
    /// token signed before a block or a change of rights is not.
    pub fn is_current(&self, claims: &Claims) -> bool {
        self.is_at_least(Holder::Person(claims.user_id), claims.ver)
    }

    /// Whether a service account's token is as new as the account's version:
    /// one signed before the account was disabled is not.
    pub fn is_current_account(&self, claims: &ServiceAccountClaims) -> bool {
        self.is_at_least(Holder::ServiceAccount(claims.account_id), claims.ver)
    }

    /// Whether something a person's token of access version `ver` was given
    /// (a document's download link) still holds: not once they signed out,
    /// were blocked or had their rights changed since.
    pub fn is_person_at_least(&self, user_id: i64, ver: i64) -> bool {
        self.is_at_least(Holder::Person(user_id), ver)
    }

    fn is_at_least(&self, holder: Holder, ver: i64) -> bool {
        let known = self
            .known
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        known.get(&holder).is_none_or(|&version| ver >= version)
    }

    /// Learns versions; a lower one than known changes nothing.
    pub fn raise<H: Into<Holder>>(&self, changes: impl IntoIterator<Item = (H, i64)>) {
        let mut known = self
            .known
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (holder, version) in changes {
            let entry = known.entry(holder.into()).or_insert(version);
            *entry = (*entry).max(version);
        }
    }

    /// Keeps these versions current from `source` for as long as they are in
    /// use: the task ends once every clone is dropped.
    pub fn follow(&self, source: impl ChangeSource) {
        tokio::spawn(poll(Arc::downgrade(&self.known), source));
    }
}

/// What auth answered: versions that changed, and the cursor to ask with next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    pub versions: Vec<(Holder, i64)>,
    pub cursor: i64,
}

/// Where a replica asks for changes since a cursor (0: every person ever changed).
pub trait ChangeSource: Send + 'static {
    fn changes_since(&mut self, since: i64)
    -> impl Future<Output = Result<Changes, String>> + Send;
}

/// Auth's `AccessRevocationService`, over the channel of every auth replica.
pub struct AuthChanges {
    client: AccessRevocationServiceClient<InternalChannel>,
}

impl AuthChanges {
    /// Asks over `channel` (the service is internal: each call carries the
    /// services' credential).
    pub fn new(channel: InternalChannel) -> AuthChanges {
        AuthChanges {
            client: AccessRevocationServiceClient::new(channel),
        }
    }
}

impl ChangeSource for AuthChanges {
    async fn changes_since(&mut self, since: i64) -> Result<Changes, String> {
        let mut request = tonic::Request::new(ListAccessChangesRequest { since });
        request.set_timeout(ASK_TIMEOUT);
        let reply = self
            .client
            .list_access_changes(request)
            .await
            .map_err(|status| format!("{:?}: {}", status.code(), status.message()))?
            .into_inner();
        Ok(Changes {
            versions: reply
                .changes
                .into_iter()
                .map(|change| {
                    let holder = if change.service_account_id != 0 {
                        Holder::ServiceAccount(change.service_account_id)
                    } else {
                        Holder::Person(change.user_id)
                    };
                    (holder, change.access_version)
                })
                .collect(),
            cursor: reply.cursor,
        })
    }
}

async fn poll(known: Weak<RwLock<Known>>, mut source: impl ChangeSource) {
    let mut cursor = 0;
    let mut failing = false;
    let mut synced = false;
    loop {
        let asked = tokio::time::timeout(ASK_TIMEOUT, source.changes_since(cursor)).await;
        let Some(known) = known.upgrade() else {
            return;
        };
        match asked.unwrap_or_else(|_| Err("no answer in time".into())) {
            Ok(changes) => {
                if failing {
                    tracing::info!("access versions: auth answers again");
                }
                failing = false;
                if !synced {
                    synced = true;
                    tracing::info!(
                        persons = changes.versions.len(),
                        "access versions learned from auth; stale tokens are refused from now on"
                    );
                }
                AccessVersions { known }.raise(changes.versions);
                cursor = changes.cursor;
            }
            Err(error) => {
                if !failing {
                    tracing::warn!(%error, "access versions: cannot ask auth; keeping what is known and asking again");
                }
                failing = true;
            }
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(user_id: i64, ver: i64) -> Claims {
        Claims {
            ver,
            ..Claims::for_test(user_id, &[])
        }
    }

    #[test]
    fn a_token_older_than_its_persons_version_is_not_current() {
        let versions = AccessVersions::default();
        assert!(versions.is_current(&token(7, 0)));
        versions.raise([(7, 2)]);
        assert!(!versions.is_current(&token(7, 1)));
        assert!(versions.is_current(&token(7, 2)));
        assert!(versions.is_current(&token(8, 0)));
    }

    #[test]
    fn versions_only_grow() {
        let versions = AccessVersions::default();
        versions.raise([(7, 3), (7, 2)]);
        versions.raise([(7, 1)]);
        assert!(!versions.is_current(&token(7, 2)));
    }

    /// Answers from a list, then nothing new.
    struct Scripted(Vec<Result<Changes, String>>);

    impl ChangeSource for Scripted {
        async fn changes_since(&mut self, _since: i64) -> Result<Changes, String> {
            if self.0.is_empty() {
                std::future::pending::<()>().await;
            }
            self.0.remove(0)
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_follower_learns_changes_and_keeps_them_while_auth_fails() {
        let versions = AccessVersions::default();
        versions.follow(Scripted(vec![
            Ok(Changes {
                versions: vec![(Holder::Person(7), 1)],
                cursor: 10,
            }),
            Err("unreachable".into()),
            Ok(Changes {
                versions: vec![(Holder::Person(7), 2)],
                cursor: 20,
            }),
        ]));
        tokio::time::sleep(POLL_INTERVAL / 2).await;
        assert!(!versions.is_current(&token(7, 0)));
        assert!(versions.is_current(&token(7, 1)));
        tokio::time::sleep(POLL_INTERVAL).await;
        assert!(versions.is_current(&token(7, 1)));
        tokio::time::sleep(POLL_INTERVAL).await;
        assert!(!versions.is_current(&token(7, 1)));
    }
}
