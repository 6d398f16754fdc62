//! Passwords: the rules a new one must meet, and argon2id hashing off the async
//! runtime with bounded concurrency and bounded memory.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use argon2::password_hash::phc::{self, Output, ParamsString, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use portal_kit::ServiceError;
use rand::Rng;
use rand::distributions::Alphanumeric;
use tokio::sync::oneshot;

pub const MIN_PASSWORD_CHARS: usize = 8;
/// Long enough for any passphrase, short enough that hashing stays cheap.
pub const MAX_PASSWORD_CHARS: usize = 256;
/// Hashes computed at once; each takes 19 MiB and one core for tens of milliseconds.
pub const HASHING_CONCURRENCY: usize = 2;
/// Length of a generated password (the bootstrap admin's).
pub const GENERATED_PASSWORD_CHARS: usize = 16;
/// How long a call waits for a hashing slot before it is turned away.
pub const QUEUE_TIMEOUT: Duration = Duration::from_secs(3);
/// Calls waiting for a slot beyond which an ordinary call is turned away at
/// once: a flood of guesses fills the queue, not the wait of a person's sign-in.
pub const QUEUE_LIMIT: usize = 8 * HASHING_CONCURRENCY;

pub const MSG_PASSWORD_REQUIRED: &str = "Введите пароль";
pub const MSG_PASSWORD_TOO_SHORT: &str = "Пароль должен содержать не менее 8 символов";
pub const MSG_PASSWORD_TOO_LONG: &str = "Пароль не должен превышать 256 символов";
pub use portal_kit::error::MSG_OVERLOADED;

/// A password good enough to be set. Never printed by `Debug`.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub fn parse(input: &str) -> Result<Password, ServiceError> {
        let chars = input.chars().count();
        if input.trim().is_empty() {
            Err(ServiceError::invalid(MSG_PASSWORD_REQUIRED))
        } else if chars < MIN_PASSWORD_CHARS {
            Err(ServiceError::invalid(MSG_PASSWORD_TOO_SHORT))
        } else if chars > MAX_PASSWORD_CHARS {
            Err(ServiceError::invalid(MSG_PASSWORD_TOO_LONG))
        } else {
            Ok(Password(input.to_owned()))
        }
    }

    /// A random password of letters and digits, for accounts nobody chose one for.
    pub fn generate() -> Password {
        let password = rand::rngs::OsRng
            .sample_iter(&Alphanumeric)
            .take(GENERATED_PASSWORD_CHARS)
            .map(char::from)
            .collect();
        Password(password)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(…)")
    }
}

/// A password's stored form: an argon2id PHC string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasswordHash(String);

impl PasswordHash {
    pub fn from_stored(phc: String) -> PasswordHash {
        PasswordHash(phc)
    }

    /// No password: what a person synced from HR has until an administrator
    /// sets one. No password matches it.
    pub fn none() -> PasswordHash {
        PasswordHash(String::new())
    }

    pub fn is_none(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Which calls may wait in a full hashing queue, and which go first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    /// Turned away at once while [`QUEUE_LIMIT`] calls wait.
    Ordinary,
    /// Waits anyway, and takes the next free slot before any ordinary call: a
    /// sign-in from a device known to that person, an admin's write.
    Priority,
}

/// Hashes and verifies passwords on the blocking pool, a few at a time, so a
/// burst of sign-ins neither stalls the runtime nor exhausts memory; a call
/// waits at most [`QUEUE_TIMEOUT`] for its turn.
#[derive(Clone)]
pub struct Passwords {
    slots: Slots,
    waiting: Arc<AtomicUsize>,
    memories: Memories,
    /// Verified when a login is unknown, so that answer costs the same as a
    /// wrong password.
    dummy: PasswordHash,
}

impl Passwords {
    pub async fn new() -> Result<Passwords, ServiceError> {
        let placeholder = Passwords {
            slots: Slots::new(HASHING_CONCURRENCY),
            waiting: Arc::default(),
            memories: Memories::default(),
            dummy: PasswordHash(String::new()),
        };
        let dummy = placeholder.hash(&Password::generate()).await?;
        Ok(Passwords {
            dummy,
            ..placeholder
        })
    }

    /// An argon2id hash (v19, m=19456 KiB, t=2, p=1, random salt) of `password`.
    pub async fn hash(&self, password: &Password) -> Result<PasswordHash, ServiceError> {
        let password = password.clone();
        let phc = self
            .blocking(Queue::Priority, move |memory| {
                hash_phc(memory, password.expose().as_bytes())
            })
            .await?
            .map_err(|e| ServiceError::internal(format!("hashing a password: {e}")))?;
        Ok(PasswordHash(phc))
    }

    /// Whether `password` matches `stored`; with no stored hash (unknown login,
    /// or a person without a password yet) a dummy is checked instead, so
    /// the answer costs the same, and it is always no.
    pub async fn verify(
        &self,
        password: &str,
        stored: Option<&PasswordHash>,
        queue: Queue,
    ) -> Result<bool, ServiceError> {
        let stored = stored.filter(|hash| !hash.is_none());
        let known = stored.is_some();
        let hash = stored.unwrap_or(&self.dummy).0.clone();
        let password = password.to_owned();
        let outcome = self
            .blocking(queue, move |memory| {
                verify_phc(memory, password.as_bytes(), &hash)
            })
            .await?;
        let matches = outcome.unwrap_or_else(|error| {
            tracing::error!(%error, "a stored password hash cannot be checked");
            false
        });
        Ok(known && matches)
    }

    /// Turns a call of `queue` away now if its hash would be, before it does
    /// anything else: under a flood of guesses, a guess the queue would refuse
    /// costs no database write either.
    pub fn check_room(&self, queue: Queue) -> Result<(), ServiceError> {
        let waiting = self.waiting.load(Ordering::SeqCst);
        if queue == Queue::Ordinary && waiting >= QUEUE_LIMIT {
            return Err(queue_full(waiting));
        }
        Ok(())
    }

    async fn blocking<T: Send + 'static>(
        &self,
        queue: Queue,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let waiting = Waiting::join(&self.waiting);
        if queue == Queue::Ordinary && waiting.ahead >= QUEUE_LIMIT {
            return Err(queue_full(waiting.ahead));
        }
        let _slot = tokio::time::timeout(QUEUE_TIMEOUT, self.slots.take(queue))
            .await
            .map_err(|_| {
                tracing::warn!("no password hashing slot within the queue time-out");
                overloaded()
            })??;
        drop(waiting);
        let memories = self.memories.clone();
        tokio::task::spawn_blocking(move || memories.lend(work))
            .await
            .map_err(ServiceError::internal)
    }
}

fn queue_full(waiting: usize) -> ServiceError {
    tracing::warn!(waiting, "password hashing queue full: call turned away");
    overloaded()
}

fn overloaded() -> ServiceError {
    ServiceError::Unavailable(MSG_OVERLOADED.into())
}

/// The hashing slots, [`HASHING_CONCURRENCY`] of them. A freed slot goes to the
/// longest-waiting priority call, else to the longest-waiting ordinary one: a
/// known device waits for one hash to end, not for the sixteen guesses queued
/// before it (a FIFO semaphore made it wait ~1 s in a storm of guesses).
#[derive(Clone)]
struct Slots(Arc<Mutex<SlotQueues>>);

struct SlotQueues {
    free: usize,
    priority: VecDeque<oneshot::Sender<Slot>>,
    ordinary: VecDeque<oneshot::Sender<Slot>>,
}

/// A slot held; dropping it hands it to the next waiting call.
struct Slot(Option<Slots>);

impl Slots {
    fn new(count: usize) -> Slots {
        Slots(Arc::new(Mutex::new(SlotQueues {
            free: count,
            priority: VecDeque::new(),
            ordinary: VecDeque::new(),
        })))
    }

    /// A slot, at once if one is free, else when its turn comes. Cancel-safe:
    /// a slot handed to a call that stopped waiting goes on to the next.
    async fn take(&self, queue: Queue) -> Result<Slot, ServiceError> {
        let turn = {
            let mut queues = self.queues();
            // A slot is only free while nobody waits: a freed one is handed on.
            if queues.free > 0 {
                queues.free -= 1;
                return Ok(Slot(Some(self.clone())));
            }
            let (sender, turn) = oneshot::channel();
            match queue {
                Queue::Priority => queues.priority.push_back(sender),
                Queue::Ordinary => queues.ordinary.push_back(sender),
            }
            turn
        };
        turn.await.map_err(ServiceError::internal)
    }

    /// Hands a freed slot to the next call still waiting, or frees it.
    fn hand_on(mut self) {
        loop {
            let next = {
                let mut queues = self.queues();
                let next = match queues.priority.pop_front() {
                    Some(waiter) => Some(waiter),
                    None => queues.ordinary.pop_front(),
                };
                let Some(next) = next else {
                    queues.free += 1;
                    return;
                };
                next
            };
            match next.send(Slot(Some(self))) {
                Ok(()) => return,
                // That call stopped waiting (its time-out): the next one's turn.
                Err(mut unsent) => match unsent.0.take() {
                    Some(slots) => self = slots,
                    None => return,
                },
            }
        }
    }

    fn queues(&self) -> std::sync::MutexGuard<'_, SlotQueues> {
        // The lock is never held across a panic-prone call; stay usable anyway.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(slots) = self.0.take() {
            slots.hand_on();
        }
    }
}

/// A call's place in the hashing queue, left when dropped.
struct Waiting<'a> {
    count: &'a AtomicUsize,
    /// Calls that were waiting when this one joined.
    ahead: usize,
}

impl<'a> Waiting<'a> {
    fn join(count: &'a AtomicUsize) -> Waiting<'a> {
        let ahead = count.fetch_add(1, Ordering::SeqCst);
        Waiting { count, ahead }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Argon2 working memories, one per hashing permit, reused from hash to hash:
/// a sign-in allocates no 19 MiB block, and freed blocks do not pile up in the
/// allocator's arenas (they did: resident memory doubled after 48 sign-ins).
#[derive(Clone, Default)]
struct Memories(Arc<Mutex<Vec<Vec<Block>>>>);

impl Memories {
    fn lend<T>(&self, work: impl FnOnce(&mut Vec<Block>) -> T) -> T {
        let mut memory = self.stack().pop().unwrap_or_default();
        let result = work(&mut memory);
        self.stack().push(memory);
        result
    }

    fn stack(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Block>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The first `params.block_count()` blocks of `memory`, grown if need be.
fn sized<'m>(memory: &'m mut Vec<Block>, params: &Params) -> &'m mut [Block] {
    let needed = params.block_count();
    if memory.len() < needed {
        memory.resize(needed, Block::default());
    }
    &mut memory[..needed]
}

/// The PHC string `Argon2::default().hash_password` would write, computed in `memory`.
fn hash_phc(memory: &mut Vec<Block>, password: &[u8]) -> Result<String, String> {
    let salt = argon2::password_hash::try_generate_salt().map_err(|e| e.to_string())?;
    let (algorithm, version, params) = (Algorithm::Argon2id, Version::V0x13, Params::default());
    let mut output = [0u8; Params::DEFAULT_OUTPUT_LEN];
    Argon2::new(algorithm, version, params.clone())
        .hash_password_into_with_memory(password, &salt, &mut output, sized(memory, &params))
        .map_err(|e| e.to_string())?;
    let phc = phc::PasswordHash {
        algorithm: algorithm.ident(),
        version: Some(version.into()),
        params: ParamsString::try_from(&params).map_err(|e| e.to_string())?,
        salt: Some(Salt::new(&salt).map_err(|e| e.to_string())?),
        hash: Some(Output::new(&output).map_err(|e| e.to_string())?),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches the PHC string `stored`, computed in `memory`; the
/// outputs are compared in constant time (`Output`'s equality).
fn verify_phc(memory: &mut Vec<Block>, password: &[u8], stored: &str) -> Result<bool, String> {
    let hash = phc::PasswordHash::new(stored).map_err(|e| e.to_string())?;
    let (Some(salt), Some(expected)) = (&hash.salt, &hash.hash) else {
        return Err("the stored hash has no salt or no output".into());
    };
    let algorithm = Algorithm::try_from(hash.algorithm.as_str()).map_err(|e| e.to_string())?;
    let version = hash
        .version
        .map(Version::try_from)
        .transpose()
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    let params = Params::try_from(&hash).map_err(|e| e.to_string())?;
    let mut output = vec![0u8; expected.as_bytes().len()];
    Argon2::new(algorithm, version, params.clone())
        .hash_password_into_with_memory(password, salt, &mut output, sized(memory, &params))
        .map_err(|e| e.to_string())?;
    Ok(Output::new(&output).map_err(|e| e.to_string())? == *expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(input: &str) -> String {
        Password::parse(input).unwrap_err().to_string()
    }

    #[test]
    fn a_password_shorter_than_eight_characters_is_refused() {
        assert_eq!(message("1234567"), MSG_PASSWORD_TOO_SHORT);
        assert_eq!(message("пароль7"), MSG_PASSWORD_TOO_SHORT);
        assert!(Password::parse("пароль78").is_ok());
    }

    #[test]
    fn a_blank_password_is_refused() {
        assert_eq!(message(""), MSG_PASSWORD_REQUIRED);
        assert_eq!(message("          "), MSG_PASSWORD_REQUIRED);
    }

    #[test]
    fn an_overlong_password_is_refused() {
        assert!(Password::parse(&"x".repeat(MAX_PASSWORD_CHARS)).is_ok());
        assert_eq!(
            message(&"x".repeat(MAX_PASSWORD_CHARS + 1)),
            MSG_PASSWORD_TOO_LONG
        );
    }

    #[test]
    fn a_password_never_shows_in_debug_output() {
        let password = Password::parse("secret-words").unwrap();
        assert!(!format!("{password:?}").contains("secret"));
    }

    #[test]
    fn generated_passwords_are_long_random_and_acceptable() {
        let (a, b) = (Password::generate(), Password::generate());
        assert_eq!(a.expose().chars().count(), GENERATED_PASSWORD_CHARS);
        assert!(a.expose().chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a.expose(), b.expose());
        assert!(Password::parse(a.expose()).is_ok());
    }

    #[tokio::test]
    async fn no_password_matches_a_person_without_one() {
        let passwords = Passwords::new().await.unwrap();
        for typed in ["", "anything at all"] {
            let none = PasswordHash::none();
            let matches = passwords.verify(typed, Some(&none), Queue::Priority);
            assert!(!matches.await.unwrap());
        }
    }

    #[tokio::test]
    async fn a_hash_verifies_its_password_only() {
        let passwords = Passwords::new().await.unwrap();
        let hash = passwords
            .hash(&Password::parse("correct horse").unwrap())
            .await
            .unwrap();
        assert!(
            hash.as_str().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{}",
            hash.as_str()
        );
        assert!(
            passwords
                .verify("correct horse", Some(&hash), Queue::Ordinary)
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify("battery staple", Some(&hash), Queue::Ordinary)
                .await
                .unwrap()
        );
    }

    #[tokio::test]
    async fn an_unknown_login_never_verifies() {
        let passwords = Passwords::new().await.unwrap();
        assert!(!passwords.verify("", None, Queue::Ordinary).await.unwrap());
        assert!(
            !passwords
                .verify("anything at all", None, Queue::Ordinary)
                .await
                .unwrap()
        );
    }

    #[tokio::test]
    async fn a_corrupt_stored_hash_does_not_verify() {
        let passwords = Passwords::new().await.unwrap();
        let corrupt = PasswordHash::from_stored("not a hash".into());
        assert!(
            !passwords
                .verify("anything", Some(&corrupt), Queue::Ordinary)
                .await
                .unwrap()
        );
    }

    #[test]
    fn hashes_read_and_write_the_standard_phc_format() {
        use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
        let mut memory = Vec::new();
        // Ours, checked by the argon2 crate's own verifier...
        let ours = hash_phc(&mut memory, b"correct horse").unwrap();
        let parsed = phc::PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        assert!(
            Argon2::default()
                .verify_password(b"battery staple", &parsed)
                .is_err()
        );
        // ...and the crate's own, with other costs, checked by ours.
        let cheaper = Params::new(8192, 1, 1, None).unwrap();
        let theirs = Argon2::new(Algorithm::Argon2id, Version::V0x13, cheaper)
            .hash_password(b"correct horse")
            .unwrap()
            .to_string();
        assert!(theirs.contains("m=8192,t=1,p=1"), "{theirs}");
        assert_eq!(verify_phc(&mut memory, b"correct horse", &theirs), Ok(true));
        assert_eq!(
            verify_phc(&mut memory, b"battery staple", &theirs),
            Ok(false)
        );
        // The memory was kept at the largest size asked for, not reallocated.
        assert_eq!(memory.len(), Params::default().block_count());
    }

    #[tokio::test]
    async fn working_memories_are_reused_not_multiplied() {
        let passwords = Passwords::new().await.unwrap();
        let stored = passwords
            .hash(&Password::parse("correct horse").unwrap())
            .await
            .unwrap();
        let checks =
            (0..8).map(|_| passwords.verify("correct horse", Some(&stored), Queue::Ordinary));
        for matches in futures_util::future::join_all(checks).await {
            assert!(matches.unwrap());
        }
        assert!(passwords.memories.stack().len() <= HASHING_CONCURRENCY);
    }

    /// Every hashing slot, held until dropped, as by hashes that take long.
    async fn every_slot(passwords: &Passwords) -> Vec<Slot> {
        let mut slots = Vec::new();
        for _ in 0..HASHING_CONCURRENCY {
            slots.push(passwords.slots.take(Queue::Ordinary).await.unwrap());
        }
        slots
    }

    #[tokio::test]
    async fn a_freed_slot_goes_to_a_priority_call_before_ordinary_calls_that_waited_longer() {
        let slots = Slots::new(1);
        let held = slots.take(Queue::Ordinary).await.unwrap();
        let (order, mut served) = tokio::sync::mpsc::unbounded_channel();
        let mut waiting = Vec::new();
        for (name, queue) in [
            ("first guess", Queue::Ordinary),
            ("second guess", Queue::Ordinary),
            ("own browser", Queue::Priority),
        ] {
            let (slots, order) = (slots.clone(), order.clone());
            waiting.push(tokio::spawn(async move {
                let _slot = slots.take(queue).await.unwrap();
                order.send(name).unwrap();
            }));
            // Each call in the queue before the next one joins.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(held);
        for call in waiting {
            call.await.unwrap();
        }
        let mut turns = Vec::new();
        while let Ok(name) = served.try_recv() {
            turns.push(name);
        }
        assert_eq!(turns, ["own browser", "first guess", "second guess"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_slot_handed_to_a_call_that_stopped_waiting_goes_to_the_next() {
        let slots = Slots::new(1);
        let held = slots.take(Queue::Ordinary).await.unwrap();
        let gave_up = tokio::time::timeout(Duration::from_secs(1), slots.take(Queue::Priority));
        assert!(gave_up.await.is_err());
        let next = tokio::spawn({
            let slots = slots.clone();
            async move { slots.take(Queue::Ordinary).await.map(drop) }
        });
        tokio::task::yield_now().await;
        drop(held);
        next.await.unwrap().unwrap();
        // The slot came back free: nothing was lost on the way.
        let _again = slots.take(Queue::Ordinary).await.unwrap();
        assert_eq!(slots.queues().free, 0);
    }

    #[tokio::test]
    async fn a_full_queue_turns_ordinary_calls_away_at_once_and_lets_priority_ones_wait() {
        let passwords = Passwords::new().await.unwrap();
        // Every slot taken and the queue full, as under a flood of guesses.
        let slots = every_slot(&passwords).await;
        let queued: Vec<_> = (0..QUEUE_LIMIT)
            .map(|_| Waiting::join(&passwords.waiting))
            .collect();
        match passwords.verify("guess", None, Queue::Ordinary).await {
            Err(ServiceError::Unavailable(message)) => assert_eq!(message, MSG_OVERLOADED),
            other => panic!("expected an overloaded refusal, got {other:?}"),
        }
        assert!(passwords.check_room(Queue::Ordinary).is_err());
        assert!(passwords.check_room(Queue::Priority).is_ok());
        let priority = tokio::spawn({
            let passwords = passwords.clone();
            async move { passwords.verify("right", None, Queue::Priority).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!priority.is_finished(), "a priority call waits its turn");
        drop(slots);
        assert!(matches!(priority.await.unwrap(), Ok(false)));
        drop(queued);
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_waits_at_most_the_queue_time_out() {
        let passwords = Passwords::new().await.unwrap();
        let _slots = every_slot(&passwords).await;
        let started = tokio::time::Instant::now();
        let outcome = passwords.verify("right", None, Queue::Priority).await;
        assert!(
            matches!(outcome, Err(ServiceError::Unavailable(_))),
            "{outcome:?}"
        );
        assert!(started.elapsed() >= QUEUE_TIMEOUT);
    }
}
