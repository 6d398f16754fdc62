//! A user's login: what people type to sign in.

use std::fmt;

use portal_kit::ServiceError;

pub const MAX_LOGIN_CHARS: usize = 64;

pub const MSG_LOGIN_REQUIRED: &str = "Введите логин";
pub const MSG_LOGIN_TOO_LONG: &str = "Логин не должен превышать 64 символа";
pub const MSG_LOGIN_WHITESPACE: &str = "Логин не должен содержать пробелов и служебных символов";

/// A login as the user chose it (trimmed), plus its key: the lower-case form that
/// is unique among users and that sign-in matches, so `Ivanova` and `ivanova` are
/// one account.
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    display: String,
    key: LoginKey,
}

/// The case-insensitive identity of a login.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoginKey(String);

impl Login {
    pub fn parse(input: &str) -> Result<Login, ServiceError> {
        let display = input.trim();
        if display.is_empty() {
            return Err(ServiceError::invalid(MSG_LOGIN_REQUIRED));
        }
        if display.chars().count() > MAX_LOGIN_CHARS {
            return Err(ServiceError::invalid(MSG_LOGIN_TOO_LONG));
        }
        if display.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ServiceError::invalid(MSG_LOGIN_WHITESPACE));
        }
        Ok(Login {
            display: display.to_owned(),
            key: LoginKey::of(display),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.display
    }

    pub fn key(&self) -> &LoginKey {
        &self.key
    }
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

impl fmt::Display for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

impl LoginKey {
    /// The key of whatever was typed into the sign-in form. Sign-in does not
    /// validate logins: an impossible one simply matches nobody.
    pub fn of(input: &str) -> LoginKey {
        LoginKey(input.trim().to_lowercase())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(input: &str) -> String {
        Login::parse(input).unwrap_err().to_string()
    }

    #[test]
    fn a_login_is_trimmed_and_keeps_its_case() {
        let login = Login::parse("  Ivanova ").unwrap();
        assert_eq!(login.as_str(), "Ivanova");
        assert_eq!(login.key().as_str(), "ivanova");
    }

    #[test]
    fn logins_differing_only_in_case_share_a_key() {
        assert_eq!(
            Login::parse("ПЕТРОВ").unwrap().key(),
            Login::parse("петров").unwrap().key()
        );
        assert_eq!(LoginKey::of(" Nurse "), LoginKey::of("nurse"));
    }

    #[test]
    fn a_blank_login_is_refused() {
        assert_eq!(message(""), MSG_LOGIN_REQUIRED);
        assert_eq!(message("   "), MSG_LOGIN_REQUIRED);
    }

    #[test]
    fn a_login_with_inner_whitespace_is_refused() {
        assert_eq!(message("anna ivanova"), MSG_LOGIN_WHITESPACE);
        assert_eq!(message("anna\u{7}"), MSG_LOGIN_WHITESPACE);
    }

    #[test]
    fn a_login_longer_than_the_limit_is_refused() {
        assert!(Login::parse(&"я".repeat(MAX_LOGIN_CHARS)).is_ok());
        assert_eq!(
            message(&"я".repeat(MAX_LOGIN_CHARS + 1)),
            MSG_LOGIN_TOO_LONG
        );
    }
}
