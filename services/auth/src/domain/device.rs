//! Device tokens: the browser holding one has signed in as its people before
//! (see [`super::rate_limit`]), and stays known while someone signs in on it
//! at least once a year.

use std::time::Duration;

/// How long a device nobody signs in on stays known, and so how long its
/// browser keeps the token.
pub const DEVICE_TOKEN_TTL: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// The last use, in Unix milliseconds, before which a device is forgotten at `now`.
pub fn forgotten_before(now_millis: i64) -> i64 {
    now_millis.saturating_sub(i64::try_from(DEVICE_TOKEN_TTL.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_forgotten_after_a_year_unused() {
        let day = 24 * 3600 * 1000;
        assert_eq!(forgotten_before(400 * day), 35 * day);
    }
}
