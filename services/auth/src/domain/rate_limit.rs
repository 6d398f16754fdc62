//! Sign-in throttling, in memory: at most [`MAX_FAILURES`] failed sign-ins per
//! login and per client address within a sliding [`WINDOW`].
//!
//! An attempt reserves its place before the password is checked, so parallel
//! guesses cannot slip past the limit while earlier ones are still hashing. The
//! limit lifts by itself as failures age out of the window: there is never a
//! permanent lock. A successful sign-in forgets the login's failures (not the
//! address's: one good account must not launder an address's guesses).
//!
//! Each process keeps its own counts; with several auth replicas the effective
//! limit is per replica.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portal_kit::ServiceError;

use super::login::LoginKey;

pub const MAX_FAILURES: usize = 5;
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
pub const MSG_TOO_MANY_ATTEMPTS: &str = "Слишком много неудачных попыток входа. Попробуйте позже.";

/// The wait announced while only unfinished attempts fill the limit.
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(1);
/// Forgotten entries are swept once the table grows past this many keys.
const SWEEP_ABOVE: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Login(String),
    Address(String),
}

#[derive(Default)]
struct Entry {
    /// The most recent failures, oldest first; never more than `MAX_FAILURES`.
    failures: VecDeque<Instant>,
    in_flight: usize,
}

impl Entry {
    fn forget_old(&mut self, now: Instant) {
        while self
            .failures
            .front()
            .is_some_and(|&at| now.saturating_duration_since(at) >= WINDOW)
        {
            self.failures.pop_front();
        }
    }

    /// How long until one more attempt may start, if it may not now.
    fn wait(&self, now: Instant) -> Option<Duration> {
        if self.failures.len() + self.in_flight < MAX_FAILURES {
            return None;
        }
        let wait = match self.failures.front() {
            Some(&oldest) if self.failures.len() >= MAX_FAILURES => {
                WINDOW.saturating_sub(now.saturating_duration_since(oldest))
            }
            _ => IN_FLIGHT_WAIT,
        };
        Some(wait.max(Duration::from_secs(1)))
    }

    fn is_idle(&self) -> bool {
        self.failures.is_empty() && self.in_flight == 0
    }
}

#[derive(Default)]
struct Table {
    entries: HashMap<Key, Entry>,
    swept_at_len: usize,
}

impl Table {
    fn sweep(&mut self, now: Instant) {
        if self.entries.len() <= SWEEP_ABOVE.max(self.swept_at_len * 2) {
            return;
        }
        self.entries.retain(|_, entry| {
            entry.forget_old(now);
            !entry.is_idle()
        });
        self.swept_at_len = self.entries.len();
    }
}

/// Failed sign-ins per login and per client address.
#[derive(Clone, Default)]
pub struct SignInLimiter {
    table: Arc<Mutex<Table>>,
}

impl SignInLimiter {
    pub fn new() -> SignInLimiter {
        SignInLimiter::default()
    }

    /// Reserves an attempt for `login` from `address`, or refuses it while either
    /// has used up its failures.
    pub fn begin(
        &self,
        login: &LoginKey,
        address: &str,
        now: Instant,
    ) -> Result<Attempt, ServiceError> {
        let keys = [
            Key::Login(login.as_str().to_owned()),
            Key::Address(address.to_owned()),
        ];
        let mut table = self.lock();
        table.sweep(now);
        let mut wait = None;
        for key in &keys {
            if let Some(entry) = table.entries.get_mut(key) {
                entry.forget_old(now);
                wait = wait.max(entry.wait(now));
            }
        }
        if let Some(retry_after) = wait {
            return Err(ServiceError::RateLimited {
                message: MSG_TOO_MANY_ATTEMPTS.into(),
                retry_after,
            });
        }
        for key in &keys {
            table.entries.entry(key.clone()).or_default().in_flight += 1;
        }
        Ok(Attempt {
            limiter: self.clone(),
            keys,
            settled: false,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // A panic while holding the lock leaves counts that are still usable.
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A reserved sign-in attempt. Dropping it unsettled (the request was cancelled
/// or failed for another reason) frees the reservation without counting.
pub struct Attempt {
    limiter: SignInLimiter,
    keys: [Key; 2],
    settled: bool,
}

impl Attempt {
    /// The password was wrong or the login unknown.
    pub fn failed(mut self, now: Instant) {
        self.settle(|_, entry| {
            if entry.failures.len() == MAX_FAILURES {
                entry.failures.pop_front();
            }
            entry.failures.push_back(now);
        });
    }

    /// The password was right.
    pub fn succeeded(mut self) {
        self.settle(|key, entry| {
            if matches!(key, Key::Login(_)) {
                entry.failures.clear();
            }
        });
    }

    fn settle(&mut self, mut update: impl FnMut(&Key, &mut Entry)) {
        if self.settled {
            return;
        }
        self.settled = true;
        let mut table = self.limiter.lock();
        for key in &self.keys {
            if let Some(entry) = table.entries.get_mut(key) {
                entry.in_flight = entry.in_flight.saturating_sub(1);
                update(key, entry);
                if entry.is_idle() {
                    table.entries.remove(key);
                }
            }
        }
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        self.settle(|_, _| {});
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(login: &str) -> LoginKey {
        LoginKey::of(login)
    }

    fn fail(limiter: &SignInLimiter, login: &str, address: &str, now: Instant) {
        limiter
            .begin(&key(login), address, now)
            .unwrap()
            .failed(now);
    }

    fn wait_of(result: Result<Attempt, ServiceError>) -> Duration {
        match result {
            Err(ServiceError::RateLimited {
                message,
                retry_after,
            }) => {
                assert_eq!(message, MSG_TOO_MANY_ATTEMPTS);
                retry_after
            }
            Err(other) => panic!("expected a rate limit, got {other:?}"),
            Ok(_) => panic!("expected a rate limit, got an attempt"),
        }
    }

    #[test]
    fn the_sixth_attempt_within_the_window_is_refused() {
        let limiter = SignInLimiter::new();
        let start = Instant::now();
        for i in 0..MAX_FAILURES {
            fail(
                &limiter,
                "nurse",
                "10.0.0.1",
                start + Duration::from_secs(i as u64),
            );
        }
        let wait =
            wait_of(limiter.begin(&key("nurse"), "10.0.0.1", start + Duration::from_secs(60)));
        assert_eq!(wait, WINDOW - Duration::from_secs(60));
    }

    #[test]
    fn the_limit_lifts_when_failures_age_out() {
        let limiter = SignInLimiter::new();
        let start = Instant::now();
        for _ in 0..MAX_FAILURES {
            fail(&limiter, "nurse", "10.0.0.1", start);
        }
        assert!(
            limiter
                .begin(
                    &key("nurse"),
                    "10.0.0.1",
                    start + WINDOW - Duration::from_secs(1)
                )
                .is_err()
        );
        assert!(
            limiter
                .begin(&key("nurse"), "10.0.0.1", start + WINDOW)
                .is_ok()
        );
    }

    #[test]
    fn a_limited_login_is_refused_from_any_address() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        for i in 0..MAX_FAILURES {
            fail(&limiter, "Nurse", &format!("10.0.0.{i}"), now);
        }
        assert!(limiter.begin(&key("nurse"), "10.9.9.9", now).is_err());
        assert!(limiter.begin(&key("doctor"), "10.9.9.9", now).is_ok());
    }

    #[test]
    fn a_limited_address_is_refused_for_any_login() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        for i in 0..MAX_FAILURES {
            fail(&limiter, &format!("user{i}"), "10.0.0.1", now);
        }
        assert!(limiter.begin(&key("doctor"), "10.0.0.1", now).is_err());
        assert!(limiter.begin(&key("doctor"), "10.0.0.2", now).is_ok());
    }

    #[test]
    fn unfinished_attempts_count_against_the_limit() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        let pending: Vec<_> = (0..MAX_FAILURES)
            .map(|_| limiter.begin(&key("nurse"), "10.0.0.1", now).unwrap())
            .collect();
        assert_eq!(
            wait_of(limiter.begin(&key("nurse"), "10.0.0.1", now)),
            IN_FLIGHT_WAIT
        );
        drop(pending);
        assert!(limiter.begin(&key("nurse"), "10.0.0.1", now).is_ok());
    }

    #[test]
    fn a_success_forgets_the_logins_failures_but_not_the_addresss() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        for _ in 0..MAX_FAILURES - 1 {
            fail(&limiter, "nurse", "10.0.0.1", now);
        }
        limiter
            .begin(&key("nurse"), "10.0.0.1", now)
            .unwrap()
            .succeeded();
        // The login starts afresh from another address...
        for _ in 0..MAX_FAILURES - 1 {
            fail(&limiter, "nurse", "10.0.0.2", now);
        }
        assert!(limiter.begin(&key("nurse"), "10.0.0.3", now).is_ok());
        // ...while the first address still remembers its four failures.
        fail(&limiter, "doctor", "10.0.0.1", now);
        assert!(limiter.begin(&key("someone"), "10.0.0.1", now).is_err());
    }

    #[test]
    fn settled_keys_leave_no_entries_behind() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        limiter
            .begin(&key("nurse"), "10.0.0.1", now)
            .unwrap()
            .succeeded();
        drop(limiter.begin(&key("doctor"), "10.0.0.2", now).unwrap());
        let table = limiter.lock();
        // The address of the successful sign-in had no failures either.
        assert!(table.entries.is_empty());
    }
}
