//! How long a call may wait for its answer, decided in one place for every
//! call the portal makes: REST's calls and health checks, forwarded gRPC, and
//! one service's call to another on behalf of its caller.
//!
//! The limit travels as `grpc-timeout`: the calling channel enforces it and the
//! called service hears it, so both stop. A call made while answering another
//! gets what is left of the incoming one's, so it cannot outlive the caller
//! who is waiting for it.

use std::time::Duration;

use http::{HeaderMap, HeaderValue};
use tokio::time::Instant;
use tonic::metadata::MetadataMap;

pub const GRPC_TIMEOUT: &str = "grpc-timeout";

/// How long a call waits for its answer when nothing shorter was asked: the
/// default of the gateway's `PORTAL_UPSTREAM_CALL_TIMEOUT`.
pub const DEFAULT_CALL_LIMIT: Duration = Duration::from_secs(60);

/// The protocol's bound on a `grpc-timeout` amount: 8 digits.
const MAX_AMOUNT: u128 = 99_999_999;

/// `request` must be answered within `limit`.
pub fn limit<T>(request: &mut tonic::Request<T>, limit: Duration) {
    request.set_timeout(limit);
}

/// Puts `limit` in a forwarded request's `grpc-timeout` unless the client
/// asked for less.
pub fn cap(headers: &mut HeaderMap, limit: Duration) {
    let asked = headers
        .get(GRPC_TIMEOUT)
        .and_then(|value| value.to_str().ok())
        .and_then(parse);
    if asked.is_some_and(|asked| asked <= limit) {
        return;
    }
    let millis = limit.as_millis().min(MAX_AMOUNT);
    if let Ok(value) = HeaderValue::try_from(format!("{millis}m")) {
        headers.insert(GRPC_TIMEOUT, value);
    }
}

/// A `grpc-timeout` value: up to 8 digits and a unit (gRPC over HTTP/2).
pub fn parse(value: &str) -> Option<Duration> {
    let (digits, unit) = value.split_at_checked(value.len().checked_sub(1)?)?;
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount * 3600),
        "M" => Duration::from_secs(amount * 60),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

/// When an incoming call must be answered: its caller's `grpc-timeout` from
/// the moment it arrived, or [`DEFAULT_CALL_LIMIT`] when the caller set none
/// (an upload, which the gateway sends on without a limit).
#[derive(Clone, Copy, Debug)]
pub struct Deadline(Instant);

impl Deadline {
    /// Read at the start of the call, before anything else takes time.
    pub fn of_call(metadata: &MetadataMap) -> Deadline {
        let asked = metadata
            .get(GRPC_TIMEOUT)
            .and_then(|value| value.to_str().ok())
            .and_then(parse);
        Deadline(Instant::now() + asked.unwrap_or(DEFAULT_CALL_LIMIT))
    }

    /// A deadline `limit` from now, for work no incoming call bounds (a
    /// stream's each step).
    pub fn within(limit: Duration) -> Deadline {
        Deadline(Instant::now() + limit)
    }

    /// What is left of the call's time; nothing once it has passed.
    pub fn remaining(self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    /// `request`, made while answering the call, must be answered within
    /// what is left of it.
    pub fn bound<T>(self, request: &mut tonic::Request<T>) {
        limit(request, self.remaining());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capped(asked: Option<&str>) -> String {
        let mut headers = HeaderMap::new();
        if let Some(asked) = asked {
            headers.insert(GRPC_TIMEOUT, HeaderValue::from_str(asked).unwrap());
        }
        cap(&mut headers, Duration::from_secs(60));
        headers[GRPC_TIMEOUT].to_str().unwrap().to_owned()
    }

    #[test]
    fn a_shorter_deadline_stays_and_a_longer_or_unreadable_one_becomes_the_limit() {
        assert_eq!(capped(Some("900000u")), "900000u");
        assert_eq!(capped(Some("1M")), "1M");
        assert_eq!(capped(Some("2M")), "60000m");
        assert_eq!(capped(Some("1H")), "60000m");
        assert_eq!(capped(None), "60000m");
        for unreadable in ["", "m", "5", "123456789S", "5x", "-5S"] {
            assert_eq!(capped(Some(unreadable)), "60000m", "{unreadable}");
        }
    }

    #[test]
    fn every_unit_of_the_protocol_is_read() {
        assert_eq!(parse("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(parse("3M"), Some(Duration::from_secs(180)));
        assert_eq!(parse("4S"), Some(Duration::from_secs(4)));
        assert_eq!(parse("5m"), Some(Duration::from_millis(5)));
        assert_eq!(parse("6u"), Some(Duration::from_micros(6)));
        assert_eq!(parse("99999999n"), Some(Duration::from_nanos(99_999_999)));
        assert_eq!(parse("100000000n"), None);
    }

    #[test]
    fn a_limit_is_written_as_the_channel_reads_it_back() {
        let mut request = tonic::Request::new(());
        limit(&mut request, Duration::from_millis(1500));
        let written = request.metadata().get(GRPC_TIMEOUT).unwrap();
        assert_eq!(
            parse(written.to_str().unwrap()),
            Some(Duration::from_millis(1500))
        );
    }

    fn incoming(timeout: Option<&str>) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        if let Some(timeout) = timeout {
            metadata.insert(GRPC_TIMEOUT, timeout.parse().unwrap());
        }
        metadata
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_made_on_the_way_gets_what_is_left_of_the_incoming_one() {
        let deadline = Deadline::of_call(&incoming(Some("500m")));
        tokio::time::advance(Duration::from_millis(200)).await;
        assert_eq!(deadline.remaining(), Duration::from_millis(300));
        let mut request = tonic::Request::new(());
        deadline.bound(&mut request);
        assert_eq!(request.metadata().get(GRPC_TIMEOUT).unwrap(), "300000u");

        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(deadline.remaining(), Duration::ZERO, "none once passed");
    }

    #[tokio::test(start_paused = true)]
    async fn an_incoming_call_without_a_limit_gets_the_default_one() {
        for unlimited in [None, Some("soon")] {
            let deadline = Deadline::of_call(&incoming(unlimited));
            assert_eq!(deadline.remaining(), DEFAULT_CALL_LIMIT, "{unlimited:?}");
        }
    }
}
