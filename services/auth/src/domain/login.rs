//! A user's login: what people type to sign in.
//!
//! A new login is NFKC-normalised (fullwidth `ｎｕｒｓｅ` is `nurse`) and made of
//! the letters of one alphabet, Latin or Cyrillic, digits and `. _ - @`; its key
//! folds case and the letters and digits that look alike (Cyrillic `а` and Latin
//! `a`, `0` and `o`), so no login can pass for another.

use std::fmt;

use portal_kit::ServiceError;
use unicode_normalization::UnicodeNormalization;

pub const MAX_LOGIN_CHARS: usize = 64;

pub const MSG_LOGIN_REQUIRED: &str = "Введите логин";
pub const MSG_LOGIN_TOO_LONG: &str = "Логин не должен превышать 64 символа";
pub const MSG_LOGIN_WHITESPACE: &str = "Логин не должен содержать пробелов и служебных символов";
pub const MSG_LOGIN_CHARACTERS: &str = "Логин может содержать только буквы одного алфавита (латиница или кириллица), цифры и знаки . _ - @";

/// A login as the user chose it (trimmed, NFKC), plus its key: the folded form
/// that is unique among users and that sign-in matches, so `Ivanova`, `ivanova`
/// and `іvаnоva` written with Cyrillic letters are one account.
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
        let display: String = input.trim().nfkc().collect();
        if display.is_empty() {
            return Err(ServiceError::invalid(MSG_LOGIN_REQUIRED));
        }
        if display.chars().count() > MAX_LOGIN_CHARS {
            return Err(ServiceError::invalid(MSG_LOGIN_TOO_LONG));
        }
        if display.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ServiceError::invalid(MSG_LOGIN_WHITESPACE));
        }
        if !of_one_alphabet(&display) {
            return Err(ServiceError::invalid(MSG_LOGIN_CHARACTERS));
        }
        Ok(Login {
            key: LoginKey::of(&display),
            display,
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    Latin,
    Cyrillic,
}

fn alphabet(c: char) -> Option<Alphabet> {
    match c {
        'a'..='z' | 'A'..='Z' => Some(Alphabet::Latin),
        'а'..='я' | 'А'..='Я' | 'ё' | 'Ё' => Some(Alphabet::Cyrillic),
        _ => None,
    }
}

/// Letters of one alphabet, digits and `. _ - @`.
fn of_one_alphabet(login: &str) -> bool {
    let allowed = login
        .chars()
        .all(|c| alphabet(c).is_some() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-' | '@'));
    let mut alphabets = login.chars().filter_map(alphabet);
    let first = alphabets.next();
    allowed && alphabets.all(|a| Some(a) == first)
}

/// The Latin letter or digit a lower-case character passes for, if another.
fn lookalike(c: char) -> char {
    match c {
        'а' => 'a',
        'в' | 'ь' => 'b',
        'е' | 'ё' => 'e',
        'к' => 'k',
        'м' => 'm',
        'н' => 'h',
        'о' | '0' => 'o',
        'п' => 'n',
        'р' => 'p',
        'с' => 'c',
        'т' => 't',
        'у' => 'y',
        'х' => 'x',
        'з' => '3',
        '1' => 'l',
        other => other,
    }
}

impl LoginKey {
    /// The key of whatever was typed into the sign-in form. Sign-in does not
    /// validate logins: an impossible one simply matches nobody.
    pub fn of(input: &str) -> LoginKey {
        let folded = input
            .trim()
            .nfkc()
            .flat_map(char::to_lowercase)
            .map(lookalike)
            .collect();
        LoginKey(folded)
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
    fn lookalike_logins_share_a_key_so_none_can_pass_for_another() {
        // Fullwidth letters are the letters they show.
        let fullwidth = Login::parse("ｎｕｒｓｅ").unwrap();
        assert_eq!(fullwidth.as_str(), "nurse");
        assert_eq!(fullwidth.key(), &LoginKey::of("nurse"));
        // A whole login in Cyrillic lookalikes, and digits that pass for letters.
        assert_eq!(Login::parse("рор").unwrap().key(), &LoginKey::of("pop"));
        assert_eq!(LoginKey::of("adm1n0"), LoginKey::of("admlno"));
        assert_ne!(LoginKey::of("ivanova"), LoginKey::of("petrova"));
    }

    #[test]
    fn a_login_mixing_alphabets_or_with_hidden_or_odd_characters_is_refused() {
        assert_eq!(message("nurѕe"), MSG_LOGIN_CHARACTERS);
        assert_eq!(message("аdmin"), MSG_LOGIN_CHARACTERS);
        assert_eq!(message("admin\u{200B}"), MSG_LOGIN_CHARACTERS);
        assert_eq!(message("ad\u{202E}min"), MSG_LOGIN_CHARACTERS);
        assert_eq!(message("admin!"), MSG_LOGIN_CHARACTERS);
        assert_eq!(message("αdmin"), MSG_LOGIN_CHARACTERS);
        assert!(Login::parse("o.smirnova_2@ward-3").is_ok());
        assert!(Login::parse("смирнова.о").is_ok());
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
