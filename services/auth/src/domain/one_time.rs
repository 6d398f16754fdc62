//! The one-time credentials that set a password without an administrator
//! typing it (issue 39.3): a reset link, an invitation's link and a printed
//! first sign-in code. All three are kept only as a SHA-256, good once and
//! for a while; what differs is their [`Purpose`].

use rand::Rng;

use super::secret::SecretToken;

/// What a one-time token is for, as `password_reset_tokens.purpose` and
/// `password_reset_requests.purpose` name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// «Забыли пароль?»: a link by e-mail, 30 minutes.
    Reset,
    /// An invitation by e-mail: a link, 72 hours.
    Invitation,
    /// «Код для первого входа»: printed and handed over, 72 hours; good only
    /// with its person's login.
    FirstSignInCode,
}

const HOUR_MILLIS: i64 = 60 * 60 * 1000;

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Reset => "reset",
            Purpose::Invitation => "invitation",
            Purpose::FirstSignInCode => "first-sign-in-code",
        }
    }

    pub fn parse(stored: &str) -> Option<Purpose> {
        [
            Purpose::Reset,
            Purpose::Invitation,
            Purpose::FirstSignInCode,
        ]
        .into_iter()
        .find(|p| p.as_str() == stored)
    }

    /// How long a token of this purpose works.
    pub fn lifetime_millis(self) -> i64 {
        match self {
            Purpose::Reset => HOUR_MILLIS / 2,
            // A weekend's handover: sent on Friday, opened on Monday.
            Purpose::Invitation | Purpose::FirstSignInCode => 72 * HOUR_MILLIS,
        }
    }
}

/// The characters of a printed code: no 0/O, 1/I/L to confuse on paper.
const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/// 12 characters of 31: about 59 bits, beyond guessing within the limits
/// however many addresses a guesser has.
const CODE_CHARS: usize = 12;
const CODE_GROUP: usize = 4;

/// A first sign-in code as printed: `7KQM-3XPA-WN4D`.
pub fn new_code() -> String {
    let mut rng = rand::rngs::OsRng;
    let chars: Vec<char> = (0..CODE_CHARS)
        .map(|_| char::from(CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())]))
        .collect();
    chars
        .chunks(CODE_GROUP)
        .map(|group| group.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// A code as a person typed it, as it is hashed: case, spaces and dashes
/// aside, so `7kqm 3xpa wn4d` is the printed `7KQM-3XPA-WN4D`.
pub fn typed_code(input: &str) -> SecretToken {
    let normal: String = input
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_uppercase)
        .collect();
    SecretToken::from_client(&normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_three_groups_of_four_unambiguous_characters() {
        let code = new_code();
        assert_eq!(code.len(), 14, "{code}");
        let groups: Vec<&str> = code.split('-').collect();
        assert_eq!(groups.len(), 3);
        assert!(
            code.chars()
                .filter(|c| *c != '-')
                .all(|c| CODE_ALPHABET.contains(&(c as u8)))
        );
        assert_ne!(new_code(), code);
    }

    #[test]
    fn a_code_typed_loosely_is_the_printed_one() {
        assert_eq!(
            typed_code(" 7kqm 3xpa-wn4d ").hash(),
            typed_code("7KQM-3XPA-WN4D").hash()
        );
        assert_ne!(
            typed_code("7KQM-3XPA-WN4E").hash(),
            typed_code("7KQM-3XPA-WN4D").hash()
        );
    }

    #[test]
    fn each_purpose_reads_back_and_lasts_as_promised() {
        for purpose in [
            Purpose::Reset,
            Purpose::Invitation,
            Purpose::FirstSignInCode,
        ] {
            assert_eq!(Purpose::parse(purpose.as_str()), Some(purpose));
        }
        assert_eq!(Purpose::Reset.lifetime_millis(), 30 * 60 * 1000);
        assert_eq!(Purpose::Invitation.lifetime_millis(), 72 * 60 * 60 * 1000);
        assert_eq!(Purpose::parse("other"), None);
    }
}
