//! An authenticator app for the tests of two-step sign-in: the RFC 6238
//! code (SHA-1, six digits, 30-second steps, as auth's enrolment promises)
//! of a base32 secret the service gave, at the clock's step or one beside it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use totp_rs::{Algorithm, Builder, Secret};

/// The seconds of a TOTP step.
const STEP_SECONDS: u64 = 30;

fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

/// The authenticator's code `offset` steps from now (0: the current one;
/// -1: the one before, which a service still takes) for the base32 `secret`.
pub fn totp_code(secret: &str, offset: i64) -> String {
    let bytes = Secret::try_from_base32(secret)
        .expect("a base32 secret")
        .as_bytes()
        .to_vec();
    let totp = Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(6)
        .with_step_duration(STEP_SECONDS)
        .with_secret(bytes)
        .build()
        .expect("an RFC 6238 authenticator");
    let step = i64::try_from(STEP_SECONDS).expect("a small step");
    totp.generate(unix_seconds().saturating_add_signed(offset * step))
        .to_string()
}

/// Waits out the last seconds of a step, so the codes a test computes are
/// still within one step of the service's clock when they land.
pub async fn away_from_a_step_edge() {
    let into = unix_seconds() % STEP_SECONDS;
    if into >= STEP_SECONDS - 5 {
        tokio::time::sleep(Duration::from_secs(STEP_SECONDS + 1 - into)).await;
    }
}
