//! The `portal` binary as a process of its own: started, and stopped as
//! Kubernetes stops it.

use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// A started `portal`: `command` spawned on a free loopback port, once its
/// `/readyz` answers 200.
pub async fn start_ready(mut command: Command, data: &std::path::Path) -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = command
        .env("PORTAL_HTTP_ADDR", format!("127.0.0.1:{port}"))
        .env("PORTAL_WEB_DIR", data)
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let ready_url = format!("{base}/readyz");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if reqwest::get(&ready_url)
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "portal exited before it was ready"
        );
        assert!(Instant::now() < deadline, "portal not ready in 60 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, base)
}

/// Sends `child` SIGTERM (what Kubernetes sends) and waits for it to exit,
/// at most 20 s; its exit status.
pub async fn stop(child: &mut Child) -> ExitStatus {
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("portal did not stop within 20 s of SIGTERM");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
