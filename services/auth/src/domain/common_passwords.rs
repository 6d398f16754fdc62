//! NIST 800-63B's check of a chosen password against common and breached
//! ones: no composition rules, only length ([`Password::parse`]) and this list,
//! shipped with the portal (`common_passwords.txt`: Django's list of common
//! passwords by Royce Williams, those of 8 characters or more).

use std::collections::HashSet;
use std::sync::LazyLock;

use portal_kit::ServiceError;

use super::password::Password;

pub const MSG_PASSWORD_TOO_COMMON: &str = "Этот пароль слишком распространён — выберите другой";
/// The stable reason of a password refused as common.
pub const REASON_PASSWORD_TOO_COMMON: &str = "password-too-common";

const LIST: &str = include_str!("common_passwords.txt");

/// The list, lower-case, built at its first use.
static COMMON: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    LIST.lines()
        .map(|line| line.trim_end_matches('\r'))
        .filter(|line| !line.is_empty() && !line.starts_with("# "))
        .collect()
});

/// Whether `input` is on the list, whatever its letters' case and the
/// spaces around it.
pub fn is_common(input: &str) -> bool {
    COMMON.contains(input.trim().to_lowercase().as_str())
}

/// A password a person chose (or an administrator set): long enough, not
/// too long, and not a common one.
pub fn chosen(input: &str) -> Result<Password, ServiceError> {
    let password = Password::parse(input)?;
    if is_common(input) {
        return Err(
            ServiceError::invalid(MSG_PASSWORD_TOO_COMMON).because(REASON_PASSWORD_TOO_COMMON)
        );
    }
    Ok(password)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_holds_thousands_and_no_header() {
        assert!(COMMON.len() > 8000, "{}", COMMON.len());
        assert!(!COMMON.iter().any(|p| p.starts_with("# ")));
    }

    #[test]
    fn a_common_password_is_refused_whatever_its_case() {
        for common in ["password", "Password1", " QWERTYUIOP ", "12345678"] {
            let refused = chosen(common).unwrap_err();
            assert_eq!(refused.to_string(), MSG_PASSWORD_TOO_COMMON, "{common}");
            assert_eq!(refused.reason(), Some(REASON_PASSWORD_TOO_COMMON));
        }
    }

    #[test]
    fn an_uncommon_password_passes_and_length_still_counts() {
        assert!(chosen("ромашка-в-ординаторской").is_ok());
        assert!(chosen("correct horse battery staple").is_ok());
        assert_eq!(
            chosen("1234").unwrap_err().to_string(),
            crate::domain::password::MSG_PASSWORD_TOO_SHORT
        );
    }
}
