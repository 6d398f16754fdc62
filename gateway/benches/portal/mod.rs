//! The release `portal` binary started for a bench, on free loopback ports, with
//! its data in a temporary directory; stopped when dropped.

#![allow(dead_code)] // each bench uses its own part of the harness

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const PORTAL: &str = env!("CARGO_BIN_EXE_portal");

pub struct Portal {
    child: Child,
    pub base: String,
    /// The auth service's own port inside `all` (`PORTAL_LOOPBACK_PORT`).
    pub auth: String,
    _data: tempfile::TempDir,
}

impl Portal {
    /// Starts the release binary (target `all`) with `env` on top of the
    /// defaults here, and waits until it is ready.
    pub async fn start(env: &[(&str, &str)]) -> Portal {
        let data = tempfile::tempdir().expect("temp dir");
        // The four services' loopback ports, then the gateway's.
        let loopback = free_ports(5);
        let port = loopback + 4;
        let mut command = Command::new(PORTAL);
        command
            .env("PORTAL_DATA_DIR", data.path())
            .env("PORTAL_WEB_DIR", data.path())
            .env("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}"))
            .env("PORTAL_LOOPBACK_PORT", loopback.to_string())
            .env("PORTAL_ADMIN_PASSWORD", "bench-admin-password")
            .env("PORTAL_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let child = command.spawn().expect("spawn portal");
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while !reqwest::get(format!("{base}/readyz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            assert!(Instant::now() < deadline, "portal not ready in 60 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Portal {
            child,
            base,
            auth: format!("http://127.0.0.1:{loopback}"),
            _data: data,
        }
    }

    /// Resident memory now.
    pub fn rss_mib(&self) -> f64 {
        self.status_mib("VmRSS:")
    }

    /// The highest resident memory since the start.
    pub fn peak_rss_mib(&self) -> f64 {
        self.status_mib("VmHWM:")
    }

    fn status_mib(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status");
        let kib: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a memory figure");
        kib / 1024.0
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first of `count` consecutive ports free on loopback right now.
pub fn free_ports(count: u16) -> u16 {
    loop {
        let first = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let Some(last) = first.checked_add(count - 1) else {
            continue;
        };
        let listeners: Result<Vec<_>, _> = (first..=last)
            .map(|port| std::net::TcpListener::bind(("127.0.0.1", port)))
            .collect();
        if listeners.is_ok() {
            return first;
        }
    }
}
