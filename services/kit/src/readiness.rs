//! Whether a service replica can serve, as [`crate::serve::serve_grpc`] tells it in
//! `grpc.health.v1` under two names:
//!
//! - the empty name is **liveness**: SERVING while the process serves gRPC, until it
//!   drains. Kubernetes' startup and liveness probes ask it. Nothing outside the
//!   process (its database, another service) ever makes it NOT_SERVING: a failed
//!   liveness probe restarts the pod, and a restart cures neither.
//! - the service's own name (`portal.auth.v1.AuthService`) is **readiness**: SERVING
//!   while the replica can serve calls, i.e. it is not draining and its database
//!   answers. Kubernetes' readiness probe and the gateways' upstream watches
//!   (`gateway/src/upstream`) ask it, so a replica whose database is away leaves the
//!   rotation and comes back by itself once it answers again.
//!
//! A PostgreSQL database is watched on a connection of its own, pinged every
//! [`CHECK_INTERVAL`]: never one of the pool's, so the check neither waits behind
//! the load (a busy pool is not a database away) nor takes a connection from a
//! call. SQLite is a file of this very process, always there.

use std::str::FromStr;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use tokio::sync::watch;

use crate::db::Backend;

/// How often the database is asked, and so how soon readiness follows it.
const CHECK_INTERVAL: Duration = Duration::from_secs(1);
/// How long connecting or one ping may take before the database counts as away
/// (a host that vanished answers nothing, not even a refusal).
const CHECK_TIMEOUT: Duration = Duration::from_secs(1);

/// Whether the replica's dependencies let it serve, as it changes.
#[derive(Clone, Debug)]
pub struct Readiness {
    serves: watch::Receiver<bool>,
}

impl Readiness {
    /// Nothing to follow: ready while not draining.
    pub fn always() -> Readiness {
        let (_, serves) = watch::channel(true);
        Readiness { serves }
    }

    /// Ready while the database at `url` answers. The replica has just
    /// connected to it, so it starts ready. Must run inside a Tokio runtime
    /// (the watch's task, which ends once every clone is dropped).
    pub fn of_database(url: &str) -> Readiness {
        if Backend::of_url(url) != Some(Backend::Postgres) {
            return Readiness::always();
        }
        let options = match PgConnectOptions::from_str(url) {
            Ok(options) => options,
            Err(error) => {
                // The pool connected with this very URL, so this cannot happen;
                // if it did, a replica that never stops serving is the lesser harm.
                tracing::error!(%error, "cannot watch the database: its URL does not parse");
                return Readiness::always();
            }
        };
        let (reachable, serves) = watch::channel(true);
        tokio::spawn(watch_database(options, reachable));
        Readiness { serves }
    }

    /// Whether the replica can serve now.
    pub fn now(&mut self) -> bool {
        *self.serves.borrow_and_update()
    }

    /// Resolves when [`Readiness::now`] may have changed; never, for one that
    /// has nothing to follow.
    pub async fn changed(&mut self) {
        if self.serves.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Pings the database every [`CHECK_INTERVAL`] on a connection of its own,
/// opened again whenever one fails, and says whether it answered.
async fn watch_database(options: PgConnectOptions, reachable: watch::Sender<bool>) {
    let database = options.get_database().unwrap_or_default().to_owned();
    let mut connection = None;
    let mut ticks = tokio::time::interval(CHECK_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = reachable.closed() => return,
        }
        let answered = ping(&mut connection, &options).await;
        if let Err(error) = &answered {
            connection = None;
            if *reachable.borrow() {
                tracing::warn!(%database, %error, "database unreachable: not ready until it answers");
            }
        } else if !*reachable.borrow() {
            tracing::info!(%database, "database answers again: ready");
        }
        reachable.send_if_modified(|now| std::mem::replace(now, answered.is_ok()) != *now);
    }
}

/// One ping on `connection`, connecting first if there is none.
async fn ping(
    connection: &mut Option<PgConnection>,
    options: &PgConnectOptions,
) -> Result<(), String> {
    let within = |what: &str| format!("no answer to {what} within {CHECK_TIMEOUT:?}");
    let open = match connection {
        Some(open) => open,
        None => {
            let opened = tokio::time::timeout(CHECK_TIMEOUT, PgConnection::connect_with(options))
                .await
                .map_err(|_| within("connecting"))?
                .map_err(|error| error.to_string())?;
            connection.insert(opened)
        }
    };
    tokio::time::timeout(CHECK_TIMEOUT, open.ping())
        .await
        .map_err(|_| within("a ping"))?
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sqlite_and_nothing_to_follow_are_always_ready() {
        for mut readiness in [
            Readiness::always(),
            Readiness::of_database("sqlite::memory:"),
        ] {
            assert!(readiness.now());
            let changed = tokio::time::timeout(Duration::from_millis(50), readiness.changed());
            assert!(changed.await.is_err(), "nothing changes");
        }
    }
}
