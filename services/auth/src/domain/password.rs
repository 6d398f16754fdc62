//! Passwords: the rules a new one must meet, and argon2id hashing off the async
//! runtime with bounded concurrency.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use portal_kit::ServiceError;
use rand::Rng;
use rand::distributions::Alphanumeric;
use tokio::sync::Semaphore;

pub const MIN_PASSWORD_CHARS: usize = 8;
/// Long enough for any passphrase, short enough that hashing stays cheap.
pub const MAX_PASSWORD_CHARS: usize = 256;
/// Hashes computed at once; each takes 19 MiB and one core for tens of milliseconds.
pub const HASHING_CONCURRENCY: usize = 2;
/// Length of a generated password (the bootstrap admin's).
pub const GENERATED_PASSWORD_CHARS: usize = 16;
/// How long a call waits for a hashing slot before it is turned away.
pub const QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

pub const MSG_PASSWORD_REQUIRED: &str = "Введите пароль";
pub const MSG_PASSWORD_TOO_SHORT: &str = "Пароль должен содержать не менее 8 символов";
pub const MSG_PASSWORD_TOO_LONG: &str = "Пароль не должен превышать 256 символов";
pub const MSG_OVERLOADED: &str = "Сервер перегружен. Попробуйте позже.";

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

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Hashes and verifies passwords on the blocking pool, a few at a time, so a
/// burst of sign-ins neither stalls the runtime nor exhausts memory.
#[derive(Clone)]
pub struct Passwords {
    permits: Arc<Semaphore>,
    /// Verified when a login is unknown, so that answer costs the same as a
    /// wrong password.
    dummy: PasswordHash,
}

impl Passwords {
    pub async fn new() -> Result<Passwords, ServiceError> {
        let permits = Arc::new(Semaphore::new(HASHING_CONCURRENCY));
        let placeholder = Passwords {
            permits,
            dummy: PasswordHash(String::new()),
        };
        let dummy = placeholder.hash(&Password::generate()).await?;
        Ok(Passwords {
            dummy,
            ..placeholder
        })
    }

    /// An argon2id hash (m=19456 KiB, t=2, p=1, random salt) of `password`.
    pub async fn hash(&self, password: &Password) -> Result<PasswordHash, ServiceError> {
        let password = password.clone();
        let phc = self
            .blocking(move || {
                Argon2::default()
                    .hash_password(password.expose().as_bytes())
                    .map(|hash| hash.to_string())
                    .map_err(|e| ServiceError::internal(format!("hashing a password: {e}")))
            })
            .await??;
        Ok(PasswordHash(phc))
    }

    /// Whether `password` matches `stored`; with no stored hash (unknown login) a
    /// dummy is checked instead and the answer is always no.
    pub async fn verify(
        &self,
        password: &str,
        stored: Option<&PasswordHash>,
    ) -> Result<bool, ServiceError> {
        let known = stored.is_some();
        let hash = stored.unwrap_or(&self.dummy).0.clone();
        let password = password.to_owned();
        let matches = self
            .blocking(move || {
                match Argon2::default().verify_password(password.as_bytes(), hash.as_str()) {
                    Ok(()) => true,
                    Err(argon2::password_hash::Error::PasswordInvalid) => false,
                    Err(error) => {
                        tracing::error!(%error, "a stored password hash cannot be checked");
                        false
                    }
                }
            })
            .await?;
        Ok(known && matches)
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(ServiceError::internal)?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(ServiceError::internal)
    }
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
                .verify("correct horse", Some(&hash))
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify("battery staple", Some(&hash))
                .await
                .unwrap()
        );
    }

    #[tokio::test]
    async fn an_unknown_login_never_verifies() {
        let passwords = Passwords::new().await.unwrap();
        assert!(!passwords.verify("", None).await.unwrap());
        assert!(!passwords.verify("anything at all", None).await.unwrap());
    }

    #[tokio::test]
    async fn a_corrupt_stored_hash_does_not_verify() {
        let passwords = Passwords::new().await.unwrap();
        let corrupt = PasswordHash::from_stored("not a hash".into());
        assert!(!passwords.verify("anything", Some(&corrupt)).await.unwrap());
    }
}
