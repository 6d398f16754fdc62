//! A real SMTP server for tests (issue 24): it takes what a relay would and
//! keeps it, so a test reads what arrived. It can refuse the next messages
//! with a transient `451`, as a relay under trouble does, and hold its
//! answers to messages, as a slow relay does.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

/// One message as the sink received it.
#[derive(Clone, Debug)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent (headers and MIME parts), dots unstuffed.
    pub data: String,
}

impl Mail {
    /// Every part's body decoded (base64, quoted-printable) after the raw
    /// headers: what a reader sees, to search in.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut encoding = String::new();
        let mut in_part_headers = false;
        let mut body = String::new();
        for line in self.data.lines() {
            if line.starts_with("--") {
                flush(&mut out, &mut body, &encoding);
                in_part_headers = true;
                encoding.clear();
                continue;
            }
            if in_part_headers {
                if line.is_empty() {
                    in_part_headers = false;
                } else if let Some(value) = line
                    .to_ascii_lowercase()
                    .strip_prefix("content-transfer-encoding:")
                {
                    encoding = value.trim().to_owned();
                }
                out.push_str(line);
                out.push('\n');
                continue;
            }
            body.push_str(line);
            body.push('\n');
        }
        flush(&mut out, &mut body, &encoding);
        out
    }
}

fn flush(out: &mut String, body: &mut String, encoding: &str) {
    match encoding {
        "base64" => {
            let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(compact)
                .unwrap_or_default();
            out.push_str(&String::from_utf8_lossy(&bytes));
        }
        "quoted-printable" => out.push_str(&quoted_printable(body)),
        _ => out.push_str(body),
    }
    out.push('\n');
    body.clear();
}

fn quoted_printable(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[i], hex) {
            (b'=', Some(byte)) => {
                decoded.push(byte);
                i += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// The sink; it stops when dropped.
pub struct SmtpSink {
    pub addr: SocketAddr,
    mails: Arc<Mutex<Vec<Mail>>>,
    refusals: Arc<AtomicUsize>,
    /// Whether answers to messages wait ([`SmtpSink::hold`]).
    held: watch::Sender<bool>,
    _stop: DropGuard,
}

impl SmtpSink {
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the sink");
        let addr = listener.local_addr().expect("the sink's address");
        let mails = Arc::new(Mutex::new(Vec::new()));
        let refusals = Arc::new(AtomicUsize::new(0));
        let stop = CancellationToken::new();
        let (kept, refused, stopped) = (mails.clone(), refusals.clone(), stop.clone());
        let (held, holding) = watch::channel(false);
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    () = stopped.cancelled() => break,
                    accepted = listener.accept() => accepted,
                };
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(session(
                        stream,
                        kept.clone(),
                        refused.clone(),
                        holding.clone(),
                    ));
                }
            }
        });
        SmtpSink {
            addr,
            mails,
            refusals,
            held,
            _stop: stop.drop_guard(),
        }
    }

    /// `PORTAL_SMTP_URL` for the sink.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// What arrived so far.
    pub fn mails(&self) -> Vec<Mail> {
        self.mails
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The next `count` messages are refused with `451` at the end of DATA.
    pub fn refuse_next(&self, count: usize) {
        self.refusals.store(count, Ordering::SeqCst);
    }

    /// Messages are kept (they count as arrived) but not answered until
    /// [`SmtpSink::release`]: a sender waits at the end of DATA.
    pub fn hold(&self) {
        self.held.send_replace(true);
    }

    /// Answers the held messages and those to come.
    pub fn release(&self) {
        self.held.send_replace(false);
    }

    /// Waits until at least `count` messages arrived, at most `limit`.
    pub async fn wait_for(&self, count: usize, limit: Duration) -> Vec<Mail> {
        let start = Instant::now();
        loop {
            let mails = self.mails();
            if mails.len() >= count || start.elapsed() > limit {
                return mails;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn session(
    stream: TcpStream,
    mails: Arc<Mutex<Vec<Mail>>>,
    refusals: Arc<AtomicUsize>,
    mut held: watch::Receiver<bool>,
) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut from = String::new();
    let mut to = Vec::new();
    if write.write_all(b"220 sink ESMTP\r\n").await.is_err() {
        return;
    }
    while let Ok(Some(line)) = lines.next_line().await {
        let upper = line.to_ascii_uppercase();
        let answer: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            b"250-sink\r\n250 8BITMIME\r\n"
        } else if upper.starts_with("MAIL FROM:") {
            from = address(&line);
            to.clear();
            b"250 OK\r\n"
        } else if upper.starts_with("RCPT TO:") {
            to.push(address(&line));
            b"250 OK\r\n"
        } else if upper == "DATA" {
            if write.write_all(b"354 go ahead\r\n").await.is_err() {
                return;
            }
            let mut data = String::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if line == "." {
                    break;
                }
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
                data.push('\n');
            }
            let refuse = refusals
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
            let answer: &[u8] = if refuse {
                b"451 4.3.0 try again later\r\n"
            } else {
                mails
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(Mail {
                        from: from.clone(),
                        to: to.clone(),
                        data,
                    });
                b"250 OK queued\r\n"
            };
            // A held message is kept (a test sees it arrived) and answered later.
            if held.wait_for(|held| !held).await.is_err() {
                return;
            }
            answer
        } else if upper == "QUIT" {
            let _ = write.write_all(b"221 bye\r\n").await;
            return;
        } else {
            b"250 OK\r\n"
        };
        if write.write_all(answer).await.is_err() {
            return;
        }
    }
}

/// The address in `MAIL FROM:<a@b>` or `RCPT TO:<a@b>`.
fn address(line: &str) -> String {
    line.split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(address, _)| address.to_owned())
        .unwrap_or_default()
}
