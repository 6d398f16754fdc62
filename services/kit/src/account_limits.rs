//! Per-service-account request limits (issue 21): one token bucket per
//! account in each replica of a service, so one runaway integration cannot
//! starve the wards. People are never limited by it, and one account's bucket
//! never touches another's.
//!
//! A bucket holds up to `burst` calls and refills at `rate` calls a second;
//! a call finding it empty is refused RESOURCE_EXHAUSTED (reason
//! `RATE_LIMITED`) with the wait until the next call fits (`retry-after`,
//! `google.rpc.RetryInfo`; the gateway answers 429 with `Retry-After`). The
//! limit holds per replica: N replicas of a service let an account make N ×
//! `rate` calls a second to it in all.
//!
//! [`crate::serve::serve_grpc`] puts the replica's [`AccountLimiter`] on every
//! request; the token interceptor, which knows the caller, spends from it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use clap::Args;
use tokio::time::Instant;

use crate::ServiceError;

pub const MSG_TOO_MANY_CALLS: &str =
    "Внешняя система отправляет слишком много запросов. Повторите позже.";

/// How fast each service account may call each replica of a service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Args)]
pub struct ServiceAccountLimits {
    /// Calls a second each service account may make to each replica of a
    /// service, on average.
    #[arg(
        long = "service-account-rate",
        env = "PORTAL_SERVICE_ACCOUNT_RATE",
        value_name = "PORTAL_SERVICE_ACCOUNT_RATE",
        default_value_t = 50,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub rate: u32,
    /// Calls a service account may make at once, beyond its rate, before it
    /// is held to the rate.
    #[arg(
        long = "service-account-burst",
        env = "PORTAL_SERVICE_ACCOUNT_BURST",
        value_name = "PORTAL_SERVICE_ACCOUNT_BURST",
        default_value_t = 100,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub burst: u32,
}

impl Default for ServiceAccountLimits {
    fn default() -> Self {
        ServiceAccountLimits {
            rate: 50,
            burst: 100,
        }
    }
}

/// One replica's buckets, one per service account that called it; shared by
/// every request (a clone is the same buckets).
#[derive(Clone, Debug)]
pub struct AccountLimiter {
    limits: ServiceAccountLimits,
    buckets: Arc<Mutex<HashMap<i64, Bucket>>>,
}

#[derive(Debug)]
struct Bucket {
    calls: f64,
    at: Instant,
}

impl AccountLimiter {
    pub fn new(limits: ServiceAccountLimits) -> Self {
        AccountLimiter {
            limits,
            buckets: Arc::default(),
        }
    }

    /// Spends one call of `account`'s bucket, or refuses with the wait until
    /// one fits.
    pub fn spend(&self, account: i64) -> Result<(), ServiceError> {
        let now = Instant::now();
        let rate = f64::from(self.limits.rate);
        let burst = f64::from(self.limits.burst);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let bucket = buckets.entry(account).or_insert(Bucket {
            calls: burst,
            at: now,
        });
        bucket.calls =
            (bucket.calls + now.duration_since(bucket.at).as_secs_f64() * rate).min(burst);
        bucket.at = now;
        if bucket.calls >= 1.0 {
            bucket.calls -= 1.0;
            return Ok(());
        }
        let wait = Duration::from_secs_f64((1.0 - bucket.calls) / rate);
        tracing::warn!(
            service_account = account,
            wait_ms = wait.as_millis(),
            "service account over its request limit"
        );
        Err(ServiceError::RateLimited {
            message: MSG_TOO_MANY_CALLS.into(),
            retry_after: wait,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(rate: u32, burst: u32) -> AccountLimiter {
        AccountLimiter::new(ServiceAccountLimits { rate, burst })
    }

    fn wait_of(refusal: ServiceError) -> Duration {
        match refusal {
            ServiceError::RateLimited { retry_after, .. } => retry_after,
            other => panic!("a rate limit, got {other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_is_spent_then_the_rate_refills_it() {
        let limiter = limiter(2, 3);
        for _ in 0..3 {
            limiter.spend(7).unwrap();
        }
        let wait = wait_of(limiter.spend(7).unwrap_err());
        assert_eq!(wait, Duration::from_millis(500));
        tokio::time::advance(wait).await;
        limiter.spend(7).unwrap();
        assert!(limiter.spend(7).is_err());
        // Idle long enough, the whole burst is back, never more.
        tokio::time::advance(Duration::from_secs(60)).await;
        for _ in 0..3 {
            limiter.spend(7).unwrap();
        }
        assert!(limiter.spend(7).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn one_accounts_limit_never_touches_anothers() {
        let limiter = limiter(1, 1);
        limiter.spend(1).unwrap();
        assert!(limiter.spend(1).is_err());
        limiter.clone().spend(2).unwrap();
    }

    #[test]
    fn the_settings_default_to_50_a_second_and_100_at_once_and_refuse_zero() {
        let limits: ServiceAccountLimits = crate::config::parse_args(&[]).unwrap();
        assert_eq!(limits, ServiceAccountLimits::default());
        assert_eq!((limits.rate, limits.burst), (50, 100));
        let err =
            crate::config::parse_args::<ServiceAccountLimits>(&["--service-account-rate", "0"])
                .unwrap_err();
        assert!(err.contains("PORTAL_SERVICE_ACCOUNT_RATE"), "{err}");
    }
}
