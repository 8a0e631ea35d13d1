//! Injected clocks: the engine never reads the system time directly.
//!
//! TTL expiry, change-record timestamps and the sweeper's notion of "now" all
//! come from a [`Clock`], so tests can move time deterministically
//! ([`ManualClock`]) and the demo can run days in minutes ([`AcceleratedClock`]).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A source of the current time in epoch milliseconds (UTC).
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Milliseconds since 1970-01-01T00:00:00Z. May be negative only for
    /// test clocks set before the epoch.
    fn now_millis(&self) -> i64;
}

/// The real wall clock ([`SystemTime::now`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        system_now_millis()
    }
}

fn system_now_millis() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_millis()).map_or(i64::MIN, |m| -m),
    }
}

/// A clock that only moves when told to; for tests.
///
/// ```
/// use std::time::Duration;
/// use ttlstream_engine::{Clock, ManualClock};
/// let clock = ManualClock::new(1_000);
/// clock.advance(Duration::from_secs(2));
/// assert_eq!(clock.now_millis(), 3_000);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    millis: AtomicI64,
}

impl ManualClock {
    /// A clock reading `start_millis` (epoch milliseconds) until moved.
    pub fn new(start_millis: i64) -> Self {
        Self {
            millis: AtomicI64::new(start_millis),
        }
    }

    /// Sets the time to `millis` (epoch milliseconds); may move backwards.
    pub fn set_millis(&self, millis: i64) {
        self.millis.store(millis, Ordering::SeqCst);
    }

    /// Moves the time forward by `by` (saturating at `i64::MAX` milliseconds).
    pub fn advance(&self, by: Duration) {
        let delta = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let _ = self
            .millis
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |m| {
                Some(m.saturating_add(delta))
            });
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.millis.load(Ordering::SeqCst)
    }
}

/// A clock that starts at a chosen epoch time and runs `factor` times faster
/// than real time: `start_millis + real_elapsed * factor`. Used by the demo so
/// that a day of TTL passes in seconds.
///
/// A clock made with [`AcceleratedClock::paused`] reads `start_millis` until
/// [`AcceleratedClock::start`] is called, so a bulk load takes no simulated time.
#[derive(Debug)]
pub struct AcceleratedClock {
    start_millis: i64,
    factor: f64,
    started: OnceLock<Instant>,
}

impl AcceleratedClock {
    /// `start_millis`: epoch milliseconds now; `factor`: speed-up (1.0 = real
    /// time). Runs from creation. A non-finite or negative factor is treated as
    /// 0 (a frozen clock) rather than panicking.
    pub fn new(start_millis: i64, factor: f64) -> Self {
        let clock = Self::paused(start_millis, factor);
        clock.start();
        clock
    }

    /// Like [`AcceleratedClock::new`], but held at `start_millis` until
    /// [`AcceleratedClock::start`].
    pub fn paused(start_millis: i64, factor: f64) -> Self {
        let factor = if factor.is_finite() && factor > 0.0 {
            factor
        } else {
            0.0
        };
        Self {
            start_millis,
            factor,
            started: OnceLock::new(),
        }
    }

    /// Lets a paused clock run from `start_millis`, beginning now. Does nothing
    /// on a running clock.
    pub fn start(&self) {
        let _ = self.started.set(Instant::now());
    }
}

impl Clock for AcceleratedClock {
    fn now_millis(&self) -> i64 {
        let Some(started) = self.started.get() else {
            return self.start_millis;
        };
        let elapsed_millis = started.elapsed().as_secs_f64() * 1000.0 * self.factor;
        // `as` saturates for floats; the sum saturates too.
        self.start_millis.saturating_add(elapsed_millis as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paused_accelerated_clock_holds_until_started() {
        let c = AcceleratedClock::paused(1_000, 1_000_000.0);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(c.now_millis(), 1_000);
        c.start();
        std::thread::sleep(Duration::from_millis(2));
        assert!(c.now_millis() >= 1_000 + 2_000_000);
    }

    #[test]
    fn manual_clock_sets_and_advances() {
        let c = ManualClock::new(5);
        c.advance(Duration::from_millis(10));
        assert_eq!(c.now_millis(), 15);
        c.set_millis(-3);
        assert_eq!(c.now_millis(), -3);
    }

    #[test]
    fn accelerated_clock_never_goes_below_start() {
        let c = AcceleratedClock::new(1_000, 3600.0);
        assert!(c.now_millis() >= 1_000);
        let frozen = AcceleratedClock::new(7, f64::NAN);
        assert_eq!(frozen.now_millis(), 7);
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now_millis() > 1_577_836_800_000);
    }
}
