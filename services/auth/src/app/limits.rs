//! The sign-in limits of [`crate::domain::rate_limit`] over the store: an
//! attempt is recorded before its password is checked and settled after.

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;

use crate::domain::rate_limit::{
    AttemptKeys, DEVICE_MAX_WAIT, DEVICE_WAIT_POLL, DEVICE_WAIT_POLL_LONGEST, SlowLanes, Verdict,
    busy, too_many_attempts, verdict,
};
use crate::store::Store;

#[derive(Clone)]
pub struct SignInLimits {
    store: Store,
    slow_lanes: SlowLanes,
}

impl SignInLimits {
    pub fn new(store: Store) -> SignInLimits {
        SignInLimits {
            store,
            slow_lanes: SlowLanes::default(),
        }
    }

    /// Records an attempt under `keys` and lets it go on, after its turn in the
    /// slow lane where its address is over the limit; refused where its login is.
    pub async fn begin(&self, keys: &AttemptKeys) -> ServiceResult<Attempt> {
        let now = now_millis();
        // A known device's attempt, written and settled on its own connections.
        let store = self.store.for_sign_in(keys.device.is_some());
        let (id, counts) = store.begin_sign_in_attempt(keys, now).await?;
        let attempt = Attempt {
            store,
            id,
            settled: false,
        };
        let mut verdict_now = verdict(keys, counts, now);
        let waiting_since = tokio::time::Instant::now();
        let mut pause = DEVICE_WAIT_POLL;
        loop {
            match verdict_now {
                Verdict::Open => return Ok(attempt),
                Verdict::Slowed {
                    by_address,
                    by_login,
                } => {
                    if let Some(login) = keys.login.as_deref().filter(|_| by_login) {
                        // An address that has not guessed at this login takes
                        // turns apart from those that have, so a colleague
                        // at a new PC does not queue behind a storm. No
                        // address has a space: the lanes cannot meet.
                        let lane = match counts.pair {
                            0 | 1 => format!("login {login}"),
                            _ => format!("login {login} guessed"),
                        };
                        self.slow_lanes.wait_turn(&lane).await?;
                    }
                    if by_address {
                        self.slow_lanes.wait_turn(&keys.address).await?;
                    }
                    return Ok(attempt);
                }
                Verdict::Refused { retry_after } => return Err(too_many_attempts(retry_after)),
                Verdict::Waiting => {
                    if waiting_since.elapsed() >= DEVICE_MAX_WAIT {
                        return Err(busy());
                    }
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(DEVICE_WAIT_POLL_LONGEST);
                    let now = now_millis();
                    let device_key = keys.device.as_deref().unwrap_or_default();
                    let counts = attempt
                        .store
                        .device_attempts_before(device_key, attempt.id, now)
                        .await?;
                    verdict_now = verdict(keys, counts, now);
                }
            }
        }
    }
}

/// A recorded attempt. Dropped unsettled (refused, cancelled, or failed for
/// another reason than the password), it is forgotten rather than counted.
pub struct Attempt {
    store: Store,
    id: i64,
    settled: bool,
}

impl Attempt {
    /// The password was wrong or the login unknown (`user_id` none): the
    /// attempt counts, and is recorded as a refused sign-in in `context`.
    pub async fn failed(
        mut self,
        context: &AuditContext,
        user_id: Option<i64>,
    ) -> ServiceResult<()> {
        self.settled = true;
        let purged = self
            .store
            .fail_sign_in_attempt(self.id, now_millis(), context, user_id)
            .await?;
        if purged > 0 {
            tracing::debug!(purged, "forgot sign-in attempts older than the window");
        }
        Ok(())
    }

    /// The password was right: the attempt does not count.
    pub async fn succeeded(mut self) -> ServiceResult<()> {
        self.settled = true;
        self.store.forget_sign_in_attempt(self.id).await
    }

    /// The password was right, and the sign-in's own write forgets the attempt
    /// with the rest it writes ([`Store::record_sign_in`]); dropped without
    /// [`Attempt::forgotten`] (that write failed), it is forgotten on its own.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The write of a sign-in forgot this attempt.
    pub fn forgotten(mut self) {
        self.settled = true;
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let (store, id) = (self.store.clone(), self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(error) = store.forget_sign_in_attempt(id).await {
                    tracing::warn!(%error, id, "an unsettled sign-in attempt stays until it ages out");
                }
            });
        }
    }
}
