//! Refresh tokens: a [`SecretToken`](super::secret::SecretToken) per session.
//! Each sign-in starts a family; every refresh replaces the token with the next
//! one of its family, and a token presented twice reveals a copy, so its whole
//! family is revoked.

use std::time::Duration;

pub const REFRESH_TOKEN_TTL: Duration = Duration::from_secs(14 * 24 * 60 * 60);

/// The expiry, in Unix milliseconds, of a refresh token issued at `now`.
pub fn expires_at(now_millis: i64) -> i64 {
    now_millis.saturating_add(i64::try_from(REFRESH_TOKEN_TTL.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_lives_fourteen_days() {
        assert_eq!(expires_at(1_000), 1_000 + 14 * 24 * 3600 * 1000);
    }
}
