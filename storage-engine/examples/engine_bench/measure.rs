//! Clocks and statistics every phase of the bench uses.

use std::time::{Duration, Instant};

/// Every rate is measured over timed work of at least this long (summed
/// over repeats of the work).
pub const MIN_PHASE: Duration = Duration::from_secs(5);

/// CPU time of every thread of this process (Linux: the sum of
/// `/proc/self/task/*/schedstat`), fjall's flush and compaction workers and
/// the server's runtime included; zero elsewhere. A thread that exits
/// between two readings takes its time with it (the bench's threads live
/// as long as their phase).
pub fn process_cpu() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    let nanos: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(nanos)
}

/// Work timed in pieces: items handled, wall time and process CPU time of
/// the timed pieces only (preparing their input is outside).
#[derive(Clone, Copy, Debug, Default)]
pub struct Phase {
    pub items: u64,
    pub wall: Duration,
    pub cpu: Duration,
}

impl Phase {
    /// Times `work`, which handles `items` items, into the phase.
    pub fn time<T>(&mut self, items: u64, work: impl FnOnce() -> T) -> T {
        let (cpu, started) = (process_cpu(), Instant::now());
        let out = work();
        self.wall += started.elapsed();
        self.cpu += process_cpu().saturating_sub(cpu);
        self.items += items;
        out
    }

    /// Whether the timed pieces add up to [`MIN_PHASE`].
    pub fn long_enough(&self) -> bool {
        self.wall >= MIN_PHASE
    }

    /// Items per second of wall time.
    pub fn rate(&self) -> f64 {
        self.items as f64 / self.wall.as_secs_f64()
    }

    /// Microseconds of CPU (all threads) per item.
    pub fn cpu_micros_per_item(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.items as f64
    }
}

/// The median of `values` (the mean of the two middle ones for an even
/// count; 0 for none).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The `p`-quantile (0..=1) of `sorted` by nearest rank; zero when empty.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Milliseconds with two decimals.
pub fn millis(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}
