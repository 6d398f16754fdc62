//! The sign-in limits (after OWASP's authentication guidance and NIST SP
//! 800-63B §5.2.2): they stop guessing without locking people out.
//!
//! - Per login and client address, from devices not known to that person: at
//!   most [`PAIR_MAX_FAILURES`] failures in [`WINDOW`]; then each further try
//!   from that address waits twice as long as the one before
//!   ([`PAIR_BACKOFF_FIRST`], doubling up to the window), refused until then.
//!   Only the guesser's address waits: the person at another PC (a colleague's
//!   ward, their phone) still signs in with the right password.
//! - Per login from every address, the backstop against guesses spread over
//!   many addresses: past [`LOGIN_BACKSTOP_FAILURES`] failures in the window,
//!   unknown devices' attempts at that login take turns, one every
//!   [`ADDRESS_SLOWDOWN`], never refused for the login alone, so a right
//!   password still gets in. Addresses that guessed at the login before take
//!   turns in a lane of their own, so a colleague at a new PC does not queue
//!   behind the storm: at most two tries a second an auth replica.
//!   A browser that has signed in as the person before (a device token) is
//!   not counted here, so strangers' guesses never slow them.
//! - Per known device and person: [`DEVICE_MAX_FAILURES`], after which that
//!   device counts as unknown, so a stolen device cookie buys few guesses. Its
//!   attempts beyond the limit while earlier ones are still being checked (a
//!   burst of parallel guesses, or of a person's own sign-ins) wait for those
//!   to settle: right ones let them go on, wrong ones refuse them.
//! - Per client address (IPv6 by /64): [`ADDRESS_MAX_FAILURES`], high enough for
//!   a whole hospital behind one NAT address. Beyond it, attempts from unknown
//!   devices are slowed (one at a time, [`ADDRESS_SLOWDOWN`] apart), never
//!   refused for the address alone, so a right password still gets in.
//!
//! Counts include unfinished attempts (each reserves its place before the
//! password is checked), so parallel guesses cannot slip past a limit. The counts
//! live in the database, shared by every auth replica; only the slow lane is
//! per process. Nothing is ever locked for good: limits lift as failures age.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use portal_kit::ServiceError;

pub const WINDOW: Duration = Duration::from_secs(15 * 60);
pub const PAIR_MAX_FAILURES: i64 = 5;
/// The wait before the first try past [`PAIR_MAX_FAILURES`]; each further one doubles it.
pub const PAIR_BACKOFF_FIRST: Duration = Duration::from_secs(15);
pub const LOGIN_BACKSTOP_FAILURES: i64 = 100;
pub const DEVICE_MAX_FAILURES: i64 = 5;
pub const ADDRESS_MAX_FAILURES: i64 = 100;
/// Over the address limit or the login's backstop, how far apart attempts
/// in that lane start.
pub const ADDRESS_SLOWDOWN: Duration = Duration::from_secs(1);
/// How long an attempt waits in an address's slow lane before it is turned away.
pub const SLOW_LANE_MAX_WAIT: Duration = Duration::from_secs(10);

pub const MSG_TOO_MANY_ATTEMPTS: &str = "Слишком много неудачных попыток входа. Попробуйте позже.";
pub use portal_kit::error::MSG_OVERLOADED as MSG_BUSY;

/// The retry announced to an attempt turned away from a full slow lane.
const BUSY_RETRY_AFTER: Duration = Duration::from_secs(1);
/// The retry announced to a known device's attempt refused for its earlier
/// failures: by then the device counts as unknown, under the login's limit.
const DEVICE_RETRY_AFTER: Duration = Duration::from_secs(1);
/// How soon a known device's waiting attempt counts its earlier ones again,
/// the pause doubling up to the longest, and for how long at most it waits
/// (then it is turned away as busy): earlier attempts settle within a password
/// check each. The doubling keeps a thousand parallel guesses with one stolen
/// cookie to about a dozen counts each on the known devices' lane, not a
/// hundred and fifty.
pub const DEVICE_WAIT_POLL: Duration = Duration::from_millis(20);
pub const DEVICE_WAIT_POLL_LONGEST: Duration = Duration::from_millis(320);
pub const DEVICE_MAX_WAIT: Duration = Duration::from_secs(3);

/// What one attempt counts against. A key that does not apply is `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptKeys {
    pub address: String,
    /// The login's key, for attempts from a device not known to that person:
    /// counted per login and per login and address.
    pub login: Option<String>,
    /// The known device and the person, for attempts from such a device.
    pub device: Option<String>,
}

impl AttemptKeys {
    /// The device key of an attempt from a device known to the person: its
    /// [`verdict`] reads only that key's count, so the count is taken with the
    /// attempt's record in one statement, which stays cheap during a storm.
    pub fn known_device(&self) -> Option<&str> {
        self.device.as_deref().filter(|_| self.login.is_none())
    }
}

/// What the window holds for an attempt's keys, itself included. A key the
/// attempt's verdict does not read counts zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub login: i64,
    pub address: i64,
    /// Attempts at the login from the address.
    pub pair: i64,
    /// Attempts under the known device's key, failed or not yet settled.
    pub device: i64,
    /// Of the earlier ones, those that failed.
    pub device_failed: i64,
    /// When the latest earlier attempt at the login from the address
    /// started (Unix ms).
    pub pair_latest_at: Option<i64>,
}

/// What the limits say to one more attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Open,
    /// The address is over its limit, or the login over its backstop: the
    /// attempt waits its turn in the slow lane of each.
    Slowed {
        by_address: bool,
        by_login: bool,
    },
    /// A known device's attempt beyond its limit while earlier ones are
    /// unsettled: it waits until they are, and is judged again.
    Waiting,
    /// The login and address are over their limit and the last try was too
    /// recent, or a known device is over its own limit.
    Refused {
        retry_after: Duration,
    },
}

/// The verdict for an attempt whose keys hold `counts` at `now` (Unix ms).
pub fn verdict(keys: &AttemptKeys, counts: Counts, now: i64) -> Verdict {
    if keys.device.is_some() && counts.device_failed >= DEVICE_MAX_FAILURES {
        Verdict::Refused {
            retry_after: DEVICE_RETRY_AFTER,
        }
    } else if keys.device.is_some() && counts.device > DEVICE_MAX_FAILURES {
        Verdict::Waiting
    } else if let Some(retry_after) = pair_wait(keys, counts, now) {
        Verdict::Refused { retry_after }
    } else {
        let by_address = keys.device.is_none() && counts.address > ADDRESS_MAX_FAILURES;
        let by_login = keys.login.is_some() && counts.login > LOGIN_BACKSTOP_FAILURES;
        if by_address || by_login {
            Verdict::Slowed {
                by_address,
                by_login,
            }
        } else {
            Verdict::Open
        }
    }
}

/// How much longer the login and address must wait before another try, if
/// they are past their limit and tried too recently: [`PAIR_BACKOFF_FIRST`]
/// after the first try past it, doubling with each try since.
fn pair_wait(keys: &AttemptKeys, counts: Counts, now: i64) -> Option<Duration> {
    let earlier = counts.pair - 1;
    if keys.login.is_none() || earlier < PAIR_MAX_FAILURES {
        return None;
    }
    let doublings = u32::try_from(earlier - PAIR_MAX_FAILURES)
        .unwrap_or(u32::MAX)
        .min(16);
    let wait = PAIR_BACKOFF_FIRST
        .saturating_mul(1 << doublings)
        .min(WINDOW);
    let latest = counts.pair_latest_at.unwrap_or(now);
    let since = Duration::from_millis(u64::try_from(now - latest).unwrap_or(0));
    (since < wait).then(|| (wait - since).max(Duration::from_secs(1)))
}

/// The start of the window that ends at `now` (Unix ms).
pub fn window_start(now: i64) -> i64 {
    now.saturating_sub(i64::try_from(WINDOW.as_millis()).unwrap_or(i64::MAX))
}

pub fn too_many_attempts(retry_after: Duration) -> ServiceError {
    ServiceError::RateLimited {
        message: MSG_TOO_MANY_ATTEMPTS.into(),
        retry_after,
    }
}

pub fn busy() -> ServiceError {
    ServiceError::RateLimited {
        message: MSG_BUSY.into(),
        retry_after: BUSY_RETRY_AFTER,
    }
}

/// One queue per address over its limit: its attempts start one at a time,
/// [`ADDRESS_SLOWDOWN`] apart. A lane is forgotten when no attempt is in it.
#[derive(Clone, Default)]
pub struct SlowLanes(Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>);

impl SlowLanes {
    /// Waits for this attempt's turn; a turn that does not come within
    /// [`SLOW_LANE_MAX_WAIT`] is a "busy" refusal.
    pub async fn wait_turn(&self, address: &str) -> Result<(), ServiceError> {
        let lane = self.lanes().entry(address.to_owned()).or_default().clone();
        let outcome = match tokio::time::timeout(SLOW_LANE_MAX_WAIT, lane.lock()).await {
            Ok(_turn) => {
                tokio::time::sleep(ADDRESS_SLOWDOWN).await;
                Ok(())
            }
            Err(_) => Err(busy()),
        };
        let mut lanes = self.lanes();
        // Held by the map and by this attempt only: nobody else is waiting.
        if Arc::strong_count(&lane) == 2 {
            lanes.remove(address);
        }
        outcome
    }

    fn lanes(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<()>>>> {
        // A panic while holding the lock leaves a map that is still usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lanes().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 10_000_000;

    fn unknown_device() -> AttemptKeys {
        AttemptKeys {
            address: "192.0.2.1".into(),
            login: Some("nurse".into()),
            device: None,
        }
    }

    fn known_device() -> AttemptKeys {
        AttemptKeys {
            address: "192.0.2.1".into(),
            login: None,
            device: Some("device:7".into()),
        }
    }

    fn counts(login: i64, address: i64) -> Counts {
        Counts {
            login,
            address,
            pair: 1,
            device: 1,
            device_failed: 0,
            pair_latest_at: None,
        }
    }

    /// `pair` attempts at the login from the address, the one before this
    /// `ago` seconds ago.
    fn pair(pair: i64, ago: i64) -> Counts {
        Counts {
            pair,
            pair_latest_at: Some(NOW - ago * 1000),
            ..counts(pair, pair)
        }
    }

    #[test]
    fn past_five_failures_a_login_and_address_wait_longer_before_each_try() {
        let keys = unknown_device();
        assert_eq!(
            verdict(&keys, pair(PAIR_MAX_FAILURES, 0), NOW),
            Verdict::Open
        );
        let refused = |retry: u64| Verdict::Refused {
            retry_after: Duration::from_secs(retry),
        };
        // The sixth: 15 s after the fifth; the seventh 30 s after the sixth...
        assert_eq!(verdict(&keys, pair(6, 5), NOW), refused(10));
        assert_eq!(verdict(&keys, pair(6, 15), NOW), Verdict::Open);
        assert_eq!(verdict(&keys, pair(7, 15), NOW), refused(15));
        assert_eq!(verdict(&keys, pair(8, 59), NOW), refused(1));
        assert_eq!(verdict(&keys, pair(8, 60), NOW), Verdict::Open);
        // ...never longer than the window.
        assert_eq!(verdict(&keys, pair(40, 0), NOW), refused(15 * 60));
    }

    #[test]
    fn a_logins_failures_from_many_addresses_slow_unknown_devices_never_refuse_them() {
        let keys = unknown_device();
        assert_eq!(
            verdict(&keys, counts(LOGIN_BACKSTOP_FAILURES, 1), NOW),
            Verdict::Open
        );
        assert_eq!(
            verdict(&keys, counts(LOGIN_BACKSTOP_FAILURES + 1, 1), NOW),
            Verdict::Slowed {
                by_address: false,
                by_login: true
            }
        );
    }

    #[test]
    fn a_known_device_is_not_stopped_by_the_logins_failures_nor_slowed_by_the_address() {
        assert_eq!(
            verdict(&known_device(), counts(50, ADDRESS_MAX_FAILURES * 3), NOW),
            Verdict::Open
        );
    }

    #[test]
    fn a_known_devices_verdict_reads_only_the_devices_count() {
        assert_eq!(unknown_device().known_device(), None);
        assert_eq!(known_device().known_device(), Some("device:7"));
        // Whatever the window holds for the login and address, a known device's
        // attempt goes on while its own count allows.
        for (login, address) in [(0, 0), (i64::MAX, i64::MAX)] {
            assert_eq!(
                verdict(&known_device(), counts(login, address), NOW),
                Verdict::Open
            );
        }
    }

    #[test]
    fn a_known_devices_attempt_beyond_its_limit_waits_for_the_earlier_ones_then_goes_on_or_is_refused()
     {
        let device = |device, device_failed| Counts {
            device,
            device_failed,
            ..Counts::default()
        };
        assert_eq!(
            verdict(&known_device(), device(DEVICE_MAX_FAILURES, 4), NOW),
            Verdict::Open
        );
        assert_eq!(
            verdict(&known_device(), device(DEVICE_MAX_FAILURES + 1, 4), NOW),
            Verdict::Waiting
        );
        assert_eq!(
            verdict(
                &known_device(),
                device(DEVICE_MAX_FAILURES + 1, DEVICE_MAX_FAILURES),
                NOW
            ),
            Verdict::Refused {
                retry_after: DEVICE_RETRY_AFTER
            }
        );
    }

    #[test]
    fn an_address_over_its_limit_is_slowed_never_refused() {
        let keys = AttemptKeys {
            login: Some("doctor".into()),
            ..unknown_device()
        };
        assert_eq!(
            verdict(&keys, counts(1, ADDRESS_MAX_FAILURES), NOW),
            Verdict::Open
        );
        assert_eq!(
            verdict(&keys, counts(1, ADDRESS_MAX_FAILURES + 1), NOW),
            Verdict::Slowed {
                by_address: true,
                by_login: false
            }
        );
    }

    #[test]
    fn the_window_is_fifteen_minutes() {
        assert_eq!(window_start(NOW), NOW - 15 * 60 * 1000);
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_lane_lets_one_attempt_start_per_slowdown_and_is_forgotten_when_empty() {
        let lanes = SlowLanes::default();
        let started = tokio::time::Instant::now();
        let runs: Vec<_> = (0..3)
            .map(|_| {
                let lanes = lanes.clone();
                tokio::spawn(async move { lanes.wait_turn("192.0.2.1").await })
            })
            .collect();
        for run in runs {
            run.await.unwrap().unwrap();
        }
        assert!(started.elapsed() >= ADDRESS_SLOWDOWN * 3);
        assert_eq!(lanes.len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_slow_lane_turns_an_attempt_away_as_busy() {
        let lanes = SlowLanes::default();
        let waiting: Vec<_> = (0..12)
            .map(|_| {
                let lanes = lanes.clone();
                tokio::spawn(async move { lanes.wait_turn("192.0.2.1").await })
            })
            .collect();
        let mut refused = 0;
        for run in waiting {
            if let Err(ServiceError::RateLimited { message, .. }) = run.await.unwrap() {
                assert_eq!(message, MSG_BUSY);
                refused += 1;
            }
        }
        assert!(
            refused >= 1,
            "twelve one-second turns do not fit in ten seconds"
        );
    }
}
