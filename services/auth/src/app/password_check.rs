//! The password step of a sign-in: who checks it, and what it found.
//!
//! The precedence with a directory (`PORTAL_LDAP_URL`): a person with a
//! portal password signs in with it, checked here, and the directory is
//! never asked for them (so the bootstrap admin and local accounts work
//! whatever the directory does); every other login (a person synced from HR
//! with no portal password, or one the portal does not know) is checked by
//! the directory. Without a directory every login is checked here.

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;

pub use crate::app::checked::{Checked, Method};
use crate::app::directory_sign_in::DirectorySignIn;
use crate::domain::login::MAX_LOGIN_CHARS;
use crate::domain::password::{MAX_PASSWORD_CHARS, Passwords, Queue};
use crate::store::user::Credentials;

/// Checks passwords by the portal's hashes or by the directory.
#[derive(Clone)]
pub struct PasswordCheck {
    passwords: Passwords,
    directory: Option<DirectorySignIn>,
}

impl PasswordCheck {
    pub fn new(passwords: Passwords, directory: Option<DirectorySignIn>) -> PasswordCheck {
        PasswordCheck {
            passwords,
            directory,
        }
    }

    pub fn passwords(&self) -> &Passwords {
        &self.passwords
    }

    /// Checks `password` for `login`, whose portal person (if any) is
    /// `credentials`; `tried` is the request as the anonymous person trying.
    pub async fn check(
        &self,
        login: &str,
        password: &str,
        credentials: Option<Credentials>,
        queue: Queue,
        tried: &AuditContext,
    ) -> ServiceResult<Checked> {
        // No password can be this long, so it is not worth hashing or sending.
        let plausible = password.chars().count() <= MAX_PASSWORD_CHARS;
        let local = credentials
            .as_ref()
            .is_some_and(|c| !c.password_hash.is_none());
        if let Some(directory) = self.directory.as_ref().filter(|_| !local) {
            if !plausible || login.chars().count() > MAX_LOGIN_CHARS {
                return Ok(Checked::Wrong {
                    known: credentials.map(|c| c.user_id),
                });
            }
            return directory.check(login, password, tried).await;
        }
        let stored = credentials
            .as_ref()
            .filter(|_| plausible)
            .map(|c| &c.password_hash);
        let matches = plausible && self.passwords.verify(password, stored, queue).await?;
        Ok(match credentials {
            Some(user) if matches => Checked::Right {
                user,
                method: Method::Password,
            },
            other => Checked::Wrong {
                known: other.map(|c| c.user_id),
            },
        })
    }

    /// Whether `credentials`' password is the directory's to check (and to
    /// reset): a directory is set and the person has no portal password.
    pub fn by_directory(&self, credentials: &Credentials) -> bool {
        self.directory.is_some() && credentials.password_hash.is_none()
    }

    /// Where people whose password the directory checks reset it, if set.
    pub fn directory_reset_url(&self) -> Option<&str> {
        self.directory
            .as_ref()
            .and_then(|d| d.directory().settings().password_reset_url.as_deref())
    }

    pub fn directory_is_on(&self) -> bool {
        self.directory.is_some()
    }
}
