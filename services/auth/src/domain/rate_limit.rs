//! Sign-in throttling, in memory: at most [`MAX_FAILURES`] failed sign-ins per
//! login and per client address within a sliding [`WINDOW`].
//!
//! An attempt reserves its place before the password is checked, so parallel
//! guesses cannot slip past the limit while earlier ones are still hashing. When
//! only unfinished attempts fill the limit (a shift signing in at once behind one
//! hospital address), a new attempt waits for one of them to settle rather than
//! being refused. The limit lifts by itself as failures age out of the window:
//! there is never a permanent lock. A successful sign-in forgets the login's failures (not the
//! address's: one good account must not launder an address's guesses).
//!
//! Each process keeps its own counts; with several auth replicas the effective
//! limit is per replica.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portal_kit::ServiceError;
use tokio::sync::Notify;

use super::login::LoginKey;

pub const MAX_FAILURES: usize = 5;
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
pub const MSG_TOO_MANY_ATTEMPTS: &str = "Слишком много неудачных попыток входа. Попробуйте позже.";

pub const MSG_BUSY: &str = "Сервер перегружен. Попробуйте позже.";

/// How long an attempt waits for unfinished ones to settle before it gives up.
pub const IN_FLIGHT_WAIT: Duration = Duration::from_secs(10);
/// The retry announced to an attempt that gave up waiting.
const BUSY_RETRY_AFTER: Duration = Duration::from_secs(1);
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

    /// Whether one more attempt may start now, and if not, why.
    fn admits(&self, now: Instant) -> Admission {
        if self.failures.len() + self.in_flight < MAX_FAILURES {
            Admission::Open
        } else if self.failures.len() >= MAX_FAILURES {
            let oldest = self.failures.front().copied().unwrap_or(now);
            let wait = WINDOW.saturating_sub(now.saturating_duration_since(oldest));
            Admission::Limited(wait.max(Duration::from_secs(1)))
        } else {
            Admission::Busy
        }
    }

    fn is_idle(&self) -> bool {
        self.failures.is_empty() && self.in_flight == 0
    }
}

/// What a key says to one more attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Admission {
    Open,
    /// Unfinished attempts fill the limit: wait for one to settle.
    Busy,
    /// Failures fill the limit: refused for this long.
    Limited(Duration),
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
    /// Woken whenever an attempt settles, for attempts waiting their turn.
    settled: Arc<Notify>,
}

impl SignInLimiter {
    pub fn new() -> SignInLimiter {
        SignInLimiter::default()
    }

    /// Reserves an attempt for `login` from `address`. Refused at once while
    /// either has used up its failures; while only unfinished attempts fill the
    /// limit, waits up to `IN_FLIGHT_WAIT` for one of them to settle.
    pub async fn begin(&self, login: &LoginKey, address: &str) -> Result<Attempt, ServiceError> {
        let deadline = tokio::time::Instant::now() + IN_FLIGHT_WAIT;
        loop {
            // Registered before the check, so a settle in between is not missed.
            let settled = self.settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            match self.try_begin(login, address, Instant::now()) {
                Err(Admission::Busy) => {}
                Err(refusal) => return Err(refusal.into_error()),
                Ok(attempt) => return Ok(attempt),
            }
            if tokio::time::timeout_at(deadline, settled).await.is_err() {
                return Err(Admission::Busy.into_error());
            }
        }
    }

    /// Reserves an attempt if both keys admit one at `now`.
    fn try_begin(
        &self,
        login: &LoginKey,
        address: &str,
        now: Instant,
    ) -> Result<Attempt, Admission> {
        let keys = [
            Key::Login(login.as_str().to_owned()),
            Key::Address(address.to_owned()),
        ];
        let mut table = self.lock();
        table.sweep(now);
        let mut admission = Admission::Open;
        for key in &keys {
            if let Some(entry) = table.entries.get_mut(key) {
                entry.forget_old(now);
                admission = admission.max(entry.admits(now));
            }
        }
        if admission != Admission::Open {
            return Err(admission);
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

impl Admission {
    fn into_error(self) -> ServiceError {
        let (message, retry_after) = match self {
            Admission::Limited(wait) => (MSG_TOO_MANY_ATTEMPTS, wait),
            Admission::Open | Admission::Busy => (MSG_BUSY, BUSY_RETRY_AFTER),
        };
        ServiceError::RateLimited {
            message: message.into(),
            retry_after,
        }
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
        {
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
        self.limiter.settled.notify_waiters();
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

    fn begin(
        limiter: &SignInLimiter,
        login: &str,
        address: &str,
        now: Instant,
    ) -> Result<Attempt, Admission> {
        limiter.try_begin(&key(login), address, now)
    }

    fn fail(limiter: &SignInLimiter, login: &str, address: &str, now: Instant) {
        begin(limiter, login, address, now).unwrap().failed(now);
    }

    fn wait_of(result: Result<Attempt, Admission>) -> Duration {
        match result {
            Err(Admission::Limited(wait)) => wait,
            Err(other) => panic!("expected a limit, got {other:?}"),
            Ok(_) => panic!("expected a limit, got an attempt"),
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
        let wait = wait_of(begin(
            &limiter,
            "nurse",
            "10.0.0.1",
            start + Duration::from_secs(60),
        ));
        assert_eq!(wait, WINDOW - Duration::from_secs(60));
        match Admission::Limited(wait).into_error() {
            ServiceError::RateLimited {
                message,
                retry_after,
            } => {
                assert_eq!(message, MSG_TOO_MANY_ATTEMPTS);
                assert_eq!(retry_after, wait);
            }
            other => panic!("expected a rate limit, got {other:?}"),
        }
    }

    #[test]
    fn the_limit_lifts_when_failures_age_out() {
        let limiter = SignInLimiter::new();
        let start = Instant::now();
        for _ in 0..MAX_FAILURES {
            fail(&limiter, "nurse", "10.0.0.1", start);
        }
        let almost = start + WINDOW - Duration::from_secs(1);
        assert!(begin(&limiter, "nurse", "10.0.0.1", almost).is_err());
        assert!(begin(&limiter, "nurse", "10.0.0.1", start + WINDOW).is_ok());
    }

    #[test]
    fn a_limited_login_is_refused_from_any_address() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        for i in 0..MAX_FAILURES {
            fail(&limiter, "Nurse", &format!("10.0.0.{i}"), now);
        }
        assert!(begin(&limiter, "nurse", "10.9.9.9", now).is_err());
        assert!(begin(&limiter, "doctor", "10.9.9.9", now).is_ok());
    }

    #[test]
    fn a_limited_address_is_refused_for_any_login() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        for i in 0..MAX_FAILURES {
            fail(&limiter, &format!("user{i}"), "10.0.0.1", now);
        }
        assert!(begin(&limiter, "doctor", "10.0.0.1", now).is_err());
        assert!(begin(&limiter, "doctor", "10.0.0.2", now).is_ok());
    }

    #[test]
    fn unfinished_attempts_fill_the_limit_as_failures_would() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        let pending: Vec<_> = (0..MAX_FAILURES)
            .map(|i| begin(&limiter, &format!("user{i}"), "10.0.0.1", now).unwrap())
            .collect();
        assert_eq!(
            begin(&limiter, "nurse", "10.0.0.1", now).err(),
            Some(Admission::Busy)
        );
        // A failure on top of the unfinished attempts still makes a limit, not a wait.
        drop(pending);
        for _ in 0..MAX_FAILURES {
            fail(&limiter, "nurse", "10.0.0.1", now);
        }
        let _pending = begin(&limiter, "doctor", "10.0.0.2", now).unwrap();
        assert!(matches!(
            begin(&limiter, "nurse", "10.0.0.2", now),
            Err(Admission::Limited(_))
        ));
    }

    #[tokio::test]
    async fn a_busy_attempt_waits_for_one_to_settle_and_then_starts() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        let mut pending: Vec<_> = (0..MAX_FAILURES)
            .map(|i| begin(&limiter, &format!("user{i}"), "10.0.0.1", now).unwrap())
            .collect();
        let waiting = tokio::spawn({
            let limiter = limiter.clone();
            async move { limiter.begin(&key("nurse"), "10.0.0.1").await.map(|_| ()) }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "the sixth attempt waits its turn");
        pending.pop().unwrap().succeeded();
        let started = tokio::time::timeout(Duration::from_secs(5), waiting).await;
        assert!(started.unwrap().unwrap().is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn a_busy_attempt_gives_up_after_a_while_with_a_busy_message() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        let _pending: Vec<_> = (0..MAX_FAILURES)
            .map(|i| begin(&limiter, &format!("user{i}"), "10.0.0.1", now).unwrap())
            .collect();
        let started = tokio::time::Instant::now();
        match limiter.begin(&key("nurse"), "10.0.0.1").await {
            Err(ServiceError::RateLimited {
                message,
                retry_after,
            }) => {
                assert_eq!(message, MSG_BUSY);
                assert_eq!(retry_after, BUSY_RETRY_AFTER);
            }
            Err(other) => panic!("expected a busy refusal, got {other:?}"),
            Ok(_) => panic!("expected a busy refusal, got an attempt"),
        }
        assert!(started.elapsed() >= IN_FLIGHT_WAIT);
    }

    #[test]
    fn a_success_forgets_the_logins_failures_but_not_the_addresss() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        for _ in 0..MAX_FAILURES - 1 {
            fail(&limiter, "nurse", "10.0.0.1", now);
        }
        begin(&limiter, "nurse", "10.0.0.1", now)
            .unwrap()
            .succeeded();
        // The login starts afresh from another address...
        for _ in 0..MAX_FAILURES - 1 {
            fail(&limiter, "nurse", "10.0.0.2", now);
        }
        assert!(begin(&limiter, "nurse", "10.0.0.3", now).is_ok());
        // ...while the first address still remembers its four failures.
        fail(&limiter, "doctor", "10.0.0.1", now);
        assert!(begin(&limiter, "someone", "10.0.0.1", now).is_err());
    }

    #[test]
    fn settled_keys_leave_no_entries_behind() {
        let limiter = SignInLimiter::new();
        let now = Instant::now();
        begin(&limiter, "nurse", "10.0.0.1", now)
            .unwrap()
            .succeeded();
        drop(begin(&limiter, "doctor", "10.0.0.2", now).unwrap());
        let table = limiter.lock();
        // The address of the successful sign-in had no failures either.
        assert!(table.entries.is_empty());
    }
}
