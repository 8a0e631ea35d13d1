//! The background sweeper thread: paced passes of [`Engine::sweep_now`](crate::Engine::sweep_now)'s
//! code, each followed by a stream retention pass ([`Engine::trim_streams`](crate::Engine::trim_streams)'s
//! code, at most 100,000 records), a lag histogram, and a trigger that wakes
//! it at once.
//!
//! Each pass deletes at most [`SweeperOptions::max_deletes_per_sweep`]
//! (default [`DEFAULT_MAX_DELETES_PER_SWEEP`]), shared fairly across tables
//! (see `pass.rs`). A pass that spent its whole budget, or left an
//! expiry-index build or purge unfinished, is followed by the next at once rather
//! than after the interval: the budget bounds how long another table's
//! expired items wait behind a large backlog (one pass), not how fast the
//! backlog goes.

use crate::error::{StorageError, SweepError};
use crate::stream::shards::TrimReport;
use crate::sweeper::lag_histogram::LagHistogram;
use crate::sweeper::pass::{PassLimits, PassOutcome, SWEEP_CHUNK};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Most stream records one pass of the thread trims (retention; see
/// [`Engine::trim_streams`](crate::Engine::trim_streams)).
const TRIM_PER_PASS: usize = 100_000;

/// The default of [`SweeperOptions::max_deletes_per_sweep`]: deletions per
/// pass, all tables together. About 40 ms of sweeping on one core at the
/// engine bench's rate, so a table's few expired items wait about that long
/// behind another table's backlog, while the per-pass costs (listing the
/// tables, the retention pass) stay well under 1 % of a pass.
pub const DEFAULT_MAX_DELETES_PER_SWEEP: usize = 10_000;

/// Options for [`Engine::start_sweeper`](crate::Engine::start_sweeper).
#[derive(Clone, Debug)]
pub struct SweeperOptions {
    /// Real time between the end of one pass and the start of the next
    /// (a [`Sweeper::trigger`] starts the next pass at once, and so does a
    /// pass that spent its whole `max_deletes_per_sweep` or left an
    /// expiry-index build or purge unfinished, unless `max_deletes_per_sec`
    /// held it back). Default: 100 ms.
    pub interval: Duration,
    /// At most this many deletions per pass (items and rows of every TTL
    /// model together), shared fairly across tables; also the most items
    /// (entries) an expiry-index build (purge) handles per pass and table
    /// (see [`DynamoDb::update_time_to_live`](crate::DynamoDb::update_time_to_live)). `None` = unbounded: one pass
    /// deletes every backlog, table after table. Default:
    /// `Some(`[`DEFAULT_MAX_DELETES_PER_SWEEP`]`)` (10,000).
    pub max_deletes_per_sweep: Option<usize>,
    /// Pacing: at most this many deletions (items and rows of every TTL
    /// model together) per second of real time, on
    /// average (a token bucket holding at most one second's worth, so a burst
    /// is at most this many); `None` = as fast as the engine can.
    /// `Some(0)` deletes nothing. Default: `None`.
    pub max_deletes_per_sec: Option<u64>,
    /// Items or rows deleted per atomic batch (each with its index entries
    /// and change record), in every TTL model; 0 is taken as 1. Default:
    /// [`SWEEP_CHUNK`] (1,024).
    pub batch_size: usize,
}

impl Default for SweeperOptions {
    fn default() -> Self {
        Self {
            interval: Duration::from_millis(100),
            max_deletes_per_sweep: Some(DEFAULT_MAX_DELETES_PER_SWEEP),
            max_deletes_per_sec: None,
            batch_size: SWEEP_CHUNK,
        }
    }
}

/// A running background sweeper thread. [`Sweeper::stop`] or dropping it
/// stops the thread and waits for the current pass to finish. The thread
/// holds only a weak reference to the engine: once every [`Engine`](crate::Engine) clone is
/// dropped, it exits by itself.
#[derive(Debug)]
pub struct Sweeper {
    wake_tx: Option<mpsc::Sender<()>>,
    handle: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    deleted_total: AtomicU64,
    lag: Mutex<LagHistogram>,
}

impl Sweeper {
    /// Items deleted by this sweeper since it started.
    pub fn deleted_total(&self) -> u64 {
        self.shared.deleted_total.load(Ordering::Relaxed)
    }

    /// The lag of every deletion this sweeper made, in all three TTL models:
    /// time from the item's or row's expiry instant to its deletion (engine
    /// clock, ms; see [`SweepReport::lag`](crate::SweepReport::lag)).
    pub fn lag_histogram(&self) -> LagHistogram {
        *self
            .shared
            .lag
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// "Sweep now": wakes the thread so the next pass starts at once instead
    /// of after the interval (still within the pacing budget). Returns
    /// whether the thread was running to receive it.
    pub fn trigger(&self) -> bool {
        self.wake_tx.as_ref().is_some_and(|tx| tx.send(()).is_ok())
    }

    /// Stops the thread and waits for it to exit.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        drop(self.wake_tx.take());
        if let Some(handle) = self.handle.take()
            && handle.join().is_err()
        {
            tracing::error!("TTL sweeper thread panicked");
        }
    }
}

impl Drop for Sweeper {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// What the sweeper thread needs from the engine that owns it: a pass and a
/// stream retention pass. The crate root implements it (`models.rs`).
pub(crate) trait SweptEngine {
    /// One pass ([`crate::sweeper::pass::sweep`]).
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table.
    fn sweep(&self, limits: PassLimits) -> Result<PassOutcome, SweepError>;

    /// One retention pass removing at most about `max_records` records.
    ///
    /// # Errors
    ///
    /// [`StorageError`]; batches committed before it stay committed.
    fn trim(&self, max_records: usize) -> Result<TrimReport, StorageError>;
}

impl Sweeper {
    /// A handle with no thread behind it (the OS refused to spawn one).
    pub(crate) fn inert() -> Sweeper {
        Sweeper {
            wake_tx: None,
            handle: None,
            shared: Arc::default(),
        }
    }

    /// Spawns the sweeper thread. It calls `upgrade` before each pass and
    /// stops once that returns `None` (the engine was dropped), so the
    /// thread never keeps the data directory open.
    ///
    /// # Errors
    ///
    /// The I/O error from [`std::thread::Builder::spawn`].
    pub(crate) fn spawn<E: SweptEngine>(
        upgrade: impl Fn() -> Option<E> + Send + 'static,
        options: SweeperOptions,
    ) -> std::io::Result<Sweeper> {
        let (wake_tx, wake_rx) = mpsc::channel::<()>();
        let shared = Arc::new(Shared::default());
        let for_thread = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("ttl-sweeper".into())
            .spawn(move || sweeper_loop(&upgrade, &wake_rx, &options, &for_thread))?;
        Ok(Sweeper {
            wake_tx: Some(wake_tx),
            handle: Some(handle),
            shared,
        })
    }
}

/// Deletions allowed now by a token bucket of `rate` per second holding at
/// most one second's worth.
struct Pacer {
    rate: Option<u64>,
    tokens: f64,
    last: Instant,
}

impl Pacer {
    fn new(rate: Option<u64>) -> Self {
        Self {
            rate,
            tokens: rate.map_or(0.0, |r| r as f64),
            last: Instant::now(),
        }
    }

    fn budget(&mut self) -> Option<usize> {
        let rate = self.rate? as f64;
        let now = Instant::now();
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + rate * elapsed).min(rate);
        Some(self.tokens.max(0.0) as usize)
    }

    fn spend(&mut self, deleted: u64) {
        if self.rate.is_some() {
            self.tokens -= deleted as f64;
        }
    }
}

fn sweeper_loop<E: SweptEngine>(
    upgrade: &impl Fn() -> Option<E>,
    wake_rx: &mpsc::Receiver<()>,
    options: &SweeperOptions,
    shared: &Shared,
) {
    let mut pacer = Pacer::new(options.max_deletes_per_sec);
    let mut pass = 0usize;
    loop {
        let paced = pacer.budget();
        let cap = options.max_deletes_per_sweep;
        let max_deletes = match (cap, paced) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The pacer, not the per-pass budget, limits this pass.
        let held_back = paced.is_some_and(|p| cap.is_none_or(|c| p < c));
        let Some(engine) = upgrade() else {
            return;
        };
        let limits = PassLimits {
            max_deletes,
            max_indexed: cap,
            batch: options.batch_size,
            first: pass,
        };
        pass = pass.wrapping_add(1);
        let mut at_once = false;
        match engine.sweep(limits) {
            Ok(outcome) => {
                let report = outcome.report;
                at_once = outcome.more && !held_back;
                pacer.spend(report.deleted);
                shared
                    .deleted_total
                    .fetch_add(report.deleted, Ordering::Relaxed);
                shared
                    .lag
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .merge(&report.lag);
                if report.deleted > 0 {
                    tracing::debug!(deleted = report.deleted, "TTL sweep pass");
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "TTL sweep pass failed; retrying next interval")
            }
        }
        // Stream retention rides on the same thread and interval (not on the
        // deletion budget: trimming is not a TTL deletion).
        if let Err(e) = engine.trim(TRIM_PER_PASS) {
            tracing::warn!(error = %e, "stream retention pass failed; retrying next interval");
        }
        drop(engine);
        if at_once {
            // Work is left: the next pass now, unless the sweeper was stopped.
            if let Err(TryRecvError::Disconnected) = wake_rx.try_recv() {
                return;
            }
            continue;
        }
        match wake_rx.recv_timeout(options.interval) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
