//! Request bodies that stop arriving (issue 37): a client that sends its
//! headers and then a byte now and then would hold a connection, a request
//! and whatever waits on its body for as long as it likes, since a request in
//! flight is not idle. Two bounds, neither on a body's total time (a 500 MiB
//! video on a slow ward link takes what it takes):
//!
//! - progress: each [`MIN_PROGRESS_BYTES`] of a body must arrive within
//!   `PORTAL_HTTP_BODY_TIMEOUT` of the last; otherwise the body fails with
//!   [`BodyStalled`] (REST answers 408) and hyper closes the connection;
//! - per client address, at most `PORTAL_HTTP_MAX_BODIES_PER_ADDRESS`
//!   bodies arriving at once; one more is refused at once (429), so a few
//!   hundred trickling connections from one address are not all waited on.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use tokio::time::{Instant, Sleep};

/// How much of a body must arrive within the progress time-out: a
/// trickle of single bytes is no progress, a slow link's packets are.
pub const MIN_PROGRESS_BYTES: usize = 1024;

pub const MSG_BODY_STALLED: &str =
    "Запрос не дошёл целиком: данные перестали поступать. Проверьте связь и повторите";
pub const MSG_TOO_MANY_BODIES: &str =
    "С вашего адреса уже идёт слишком много загрузок. Дождитесь их окончания и повторите";

/// Why a body failed: too little of it arrived in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body stopped arriving")]
pub struct BodyStalled;

/// Whether `error`, or an error it was made from, is [`BodyStalled`].
pub fn stalled(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<BodyStalled>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// The bodies arriving now, by client address.
#[derive(Clone, Default)]
pub struct OpenBodies(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl OpenBodies {
    /// A place for one more body from `client`, if it has fewer than `cap`.
    pub fn open(&self, client: IpAddr, cap: usize) -> Option<BodySlot> {
        let mut open = self.lock();
        let count = open.entry(client).or_default();
        if *count >= cap {
            return None;
        }
        *count += 1;
        Some(BodySlot {
            bodies: self.clone(),
            client,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        // A panic while holding the lock leaves a map that is still usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[cfg(test)]
    fn count(&self, client: IpAddr) -> usize {
        self.lock().get(&client).copied().unwrap_or(0)
    }
}

/// One body arriving from a client; its place is given back when dropped.
pub struct BodySlot {
    bodies: OpenBodies,
    client: IpAddr,
}

impl Drop for BodySlot {
    fn drop(&mut self) {
        let mut open = self.bodies.lock();
        if let Some(count) = open.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// A request body held to the progress time-out, holding its place until
/// it has all arrived, failed or been dropped.
pub struct Watched<B = Incoming> {
    inner: B,
    slot: Option<BodySlot>,
    timeout: Duration,
    deadline: Pin<Box<Sleep>>,
    since_progress: usize,
}

impl<B> Watched<B> {
    pub fn new(inner: B, slot: BodySlot, timeout: Duration) -> Watched<B> {
        Watched {
            inner,
            slot: Some(slot),
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
            since_progress: 0,
        }
    }
}

impl<B> http_body::Body for Watched<B>
where
    B: http_body::Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.since_progress += data.len();
                    if this.since_progress >= MIN_PROGRESS_BYTES {
                        this.since_progress = 0;
                        let next = Instant::now() + this.timeout;
                        this.deadline.as_mut().reset(next);
                    }
                }
                if this.inner.is_end_stream() {
                    this.slot = None;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => {
                this.slot = None;
                Poll::Ready(Some(Err(error.into())))
            }
            Poll::Ready(None) => {
                this.slot = None;
                Poll::Ready(None)
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.slot = None;
                    tracing::info!("a request body stopped arriving; closing its connection");
                    Poll::Ready(Some(Err(Box::new(BodyStalled))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, StreamBody};

    type Chunks = StreamBody<
        tokio_stream::wrappers::ReceiverStream<Result<Frame<Bytes>, std::convert::Infallible>>,
    >;

    fn body() -> (
        tokio::sync::mpsc::Sender<Result<Frame<Bytes>, std::convert::Infallible>>,
        Chunks,
    ) {
        let (send, receive) = tokio::sync::mpsc::channel(16);
        (
            send,
            StreamBody::new(tokio_stream::wrappers::ReceiverStream::new(receive)),
        )
    }

    const CLIENT: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 7));

    #[tokio::test(start_paused = true)]
    async fn a_trickle_fails_after_the_time_out_a_slow_steady_link_does_not() {
        let bodies = OpenBodies::default();
        let timeout = Duration::from_secs(30);

        let (send, inner) = body();
        let mut trickle = Watched::new(inner, bodies.open(CLIENT, 2).unwrap(), timeout);
        tokio::spawn(async move {
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_secs(10)).await;
                let byte = Frame::data(Bytes::from_static(b"x"));
                if send.send(Ok(byte)).await.is_err() {
                    return;
                }
            }
        });
        let started = Instant::now();
        let failed = loop {
            match trickle.frame().await {
                Some(Ok(_)) => continue,
                Some(Err(error)) => break error,
                None => panic!("the trickle ended"),
            }
        };
        assert!(stalled(failed.as_ref()), "{failed}");
        assert_eq!(started.elapsed(), timeout);
        assert_eq!(bodies.count(CLIENT), 0, "its place is given back");

        // 2 KiB every 20 s: slow, but never 30 s without a KiB.
        let (send, inner) = body();
        let steady = Watched::new(inner, bodies.open(CLIENT, 2).unwrap(), timeout);
        tokio::spawn(async move {
            for _ in 0..10 {
                tokio::time::sleep(Duration::from_secs(20)).await;
                let chunk = Frame::data(Bytes::from(vec![0; 2048]));
                send.send(Ok(chunk)).await.unwrap();
            }
        });
        let all = steady.collect().await.unwrap().to_bytes();
        assert_eq!(all.len(), 20 * 1024);
        assert_eq!(bodies.count(CLIENT), 0);
    }

    #[test]
    fn an_address_has_at_most_its_cap_of_bodies_at_once_others_are_not_counted() {
        let bodies = OpenBodies::default();
        let first = bodies.open(CLIENT, 2).unwrap();
        let _second = bodies.open(CLIENT, 2).unwrap();
        assert!(bodies.open(CLIENT, 2).is_none());
        let colleague = IpAddr::V4(std::net::Ipv4Addr::new(198, 51, 100, 8));
        assert!(bodies.open(colleague, 2).is_some());
        drop(first);
        assert!(bodies.open(CLIENT, 2).is_some());
    }
}
