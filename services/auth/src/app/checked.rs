//! What the password step of a sign-in found, and how it checked: shared by
//! the portal's own hashes ([`super::password_check`]) and the directory
//! ([`super::directory_sign_in`]).

use crate::store::user::Credentials;

/// How a sign-in's password was checked, as its audit record's reason says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The portal's own password.
    Password,
    /// A bind to the directory.
    Directory,
    /// Single sign-on: the OpenID provider's ID token.
    Sso,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Password => "password",
            Method::Directory => "directory",
            Method::Sso => "sso",
        }
    }

    /// The method [`Method::as_str`] wrote; a row written before the method
    /// was kept (no value) was a portal password's.
    pub fn from_stored(stored: &str) -> Method {
        match stored {
            "directory" => Method::Directory,
            "sso" => Method::Sso,
            _ => Method::Password,
        }
    }
}

/// What the password step found.
pub enum Checked {
    /// The password is `user`'s.
    Right { user: Credentials, method: Method },
    /// A wrong password or an unknown login (`known` the person of the
    /// login, if any): counts against the limits.
    Wrong { known: Option<i64> },
    /// The password was right, but the person may not sign in (`reason` for
    /// the audit record, `message` for them): not counted, as it is no guess.
    Refused {
        user_id: Option<i64>,
        reason: &'static str,
        message: &'static str,
    },
}
