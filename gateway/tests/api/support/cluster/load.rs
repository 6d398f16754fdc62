//! Writers that keep a topology busy while it is changed, and what they saw.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What steady writers saw, each entry with the writer's number: what each
/// acknowledged write created (`A`), and each refusal (`R`).
pub struct Load<A, R> {
    pub acknowledged: Vec<(usize, A)>,
    pub refused: Vec<(usize, R)>,
    /// Per writer, its first acknowledged write after the mark.
    pub first_success_after: std::collections::BTreeMap<usize, Instant>,
    /// Refusals after their writer's first success after the mark.
    pub refused_after_recovery: usize,
}

impl<A, R> Default for Load<A, R> {
    fn default() -> Self {
        Load {
            acknowledged: Vec::new(),
            refused: Vec::new(),
            first_success_after: Default::default(),
            refused_after_recovery: 0,
        }
    }
}

/// A steady write load: writers that each send one write after another.
pub struct Writers<A, R> {
    count: usize,
    load: Arc<Mutex<Load<A, R>>>,
    mark: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    tasks: tokio::task::JoinSet<()>,
}

impl<A: Send + 'static, R: std::fmt::Debug + Send + 'static> Writers<A, R> {
    /// `count` writers, writer `w` sending `write(w, n)` for n = 1, 2, … with
    /// 10 ms between, until stopped.
    pub fn start<F, Written>(count: usize, write: F) -> Writers<A, R>
    where
        F: Fn(usize, usize) -> Written + Send + Sync + 'static,
        Written: Future<Output = Result<A, R>> + Send + 'static,
    {
        let write = Arc::new(write);
        let load = Arc::new(Mutex::new(Load::default()));
        let mark = Arc::new(Mutex::new(None::<Instant>));
        let stop = Arc::new(AtomicBool::new(false));
        let mut tasks = tokio::task::JoinSet::new();
        for writer in 0..count {
            let (write, load, mark, stop) =
                (write.clone(), load.clone(), mark.clone(), stop.clone());
            tasks.spawn(async move {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let answer = write(writer, n).await;
                    let now = Instant::now();
                    {
                        let mut load = load.lock().unwrap();
                        match answer {
                            Ok(created) => {
                                load.acknowledged.push((writer, created));
                                if mark.lock().unwrap().is_some_and(|m| now > m) {
                                    load.first_success_after.entry(writer).or_insert(now);
                                }
                            }
                            Err(refusal) => {
                                if load.first_success_after.contains_key(&writer) {
                                    load.refused_after_recovery += 1;
                                }
                                load.refused.push((writer, refusal));
                            }
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            });
        }
        Writers {
            count,
            load,
            mark,
            stop,
            tasks,
        }
    }

    /// Waits until every writer has had a write acknowledged.
    pub async fn wait_writing(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            {
                let load = self.load.lock().unwrap();
                let writing: std::collections::HashSet<usize> = load
                    .acknowledged
                    .iter()
                    .map(|(writer, _)| *writer)
                    .collect();
                if writing.len() == self.count {
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "not writing: {:?}",
                    load.refused.first()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn refused(&self) -> usize {
        self.load.lock().unwrap().refused.len()
    }

    /// Waits until every writer has had `writes` more writes acknowledged
    /// than when it was called.
    pub async fn wait_more_writes(&self, writes: usize) {
        let acknowledged = |load: &Load<A, R>, writer: usize| {
            load.acknowledged
                .iter()
                .filter(|(w, _)| *w == writer)
                .count()
        };
        let before: Vec<usize> = {
            let load = self.load.lock().unwrap();
            (0..self.count)
                .map(|writer| acknowledged(&load, writer))
                .collect()
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            {
                let load = self.load.lock().unwrap();
                if (0..self.count)
                    .all(|writer| acknowledged(&load, writer) >= before[writer] + writes)
                {
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "writes stalled: {:?}",
                    load.refused.last()
                );
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// From now on, each writer's first acknowledged write is noted.
    pub fn mark(&self) -> Instant {
        let now = Instant::now();
        *self.mark.lock().unwrap() = Some(now);
        now
    }

    /// Whether every writer has had a write acknowledged since the mark.
    pub fn all_back(&self) -> bool {
        self.load.lock().unwrap().first_success_after.len() == self.count
    }

    pub async fn stop(mut self) -> Load<A, R> {
        self.stop.store(true, Ordering::Relaxed);
        while self.tasks.join_next().await.is_some() {}
        std::mem::take(&mut *self.load.lock().unwrap())
    }
}
