//! The sign-in limits (after OWASP's authentication guidance): they stop
//! guessing without locking people out.
//!
//! - Per login, from devices not known to that person: at most
//!   [`LOGIN_MAX_FAILURES`] failures in [`WINDOW`], then refused until the oldest
//!   ages out. A browser that has signed in as the person before (a device
//!   token) is not counted here, so strangers' guesses never lock them out.
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
pub const LOGIN_MAX_FAILURES: i64 = 5;
pub const DEVICE_MAX_FAILURES: i64 = 5;
pub const ADDRESS_MAX_FAILURES: i64 = 100;
/// Over the address limit, how far apart attempts from that address start.
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
    /// The login's key, for attempts from a device not known to that person.
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
    /// Attempts under the known device's key, failed or not yet settled.
    pub device: i64,
    /// Of the earlier ones, those that failed.
    pub device_failed: i64,
    /// When the oldest attempt counted against the login started (Unix ms).
    pub login_oldest_at: Option<i64>,
}

/// What the limits say to one more attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Open,
    /// The address is over its limit: the attempt waits its turn in the slow lane.
    Slowed,
    /// A known device's attempt beyond its limit while earlier ones are
    /// unsettled: it waits until they are, and is judged again.
    Waiting,
    /// The login is over its limit for unknown devices, or a known device over its own.
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
    } else if keys.login.is_some() && counts.login > LOGIN_MAX_FAILURES {
        let oldest = counts.login_oldest_at.unwrap_or(now);
        let elapsed = Duration::from_millis(u64::try_from(now - oldest).unwrap_or(0));
        let retry_after = WINDOW.saturating_sub(elapsed).max(Duration::from_secs(1));
        Verdict::Refused { retry_after }
    } else if keys.device.is_none() && counts.address > ADDRESS_MAX_FAILURES {
        Verdict::Slowed
    } else {
        Verdict::Open
    }
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
            device: 1,
            device_failed: 0,
            login_oldest_at: Some(NOW - 60_000),
        }
    }

    #[test]
    fn the_sixth_attempt_at_a_login_from_an_unknown_device_is_refused_until_the_oldest_ages_out() {
        assert_eq!(
            verdict(&unknown_device(), counts(LOGIN_MAX_FAILURES, 5), NOW),
            Verdict::Open
        );
        assert_eq!(
            verdict(&unknown_device(), counts(LOGIN_MAX_FAILURES + 1, 6), NOW),
            Verdict::Refused {
                retry_after: WINDOW - Duration::from_secs(60)
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
            Verdict::Slowed
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
