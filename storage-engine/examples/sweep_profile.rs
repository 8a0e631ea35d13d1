//! `engine_bench`'s write and sweep steps alone, repeated, for profilers and
//! for a busy machine: per run, the wall time, the calling thread's CPU time,
//! its wait for a core and its sleep (wall minus both; Linux,
//! `/proc/thread-self/schedstat`). Not a benchmark (no baseline): count
//! its instructions under callgrind, which a busy machine does not move:
//!
//! ```sh
//! cargo build --release -p ttlstream-engine --example sweep_profile
//! valgrind --tool=callgrind --toggle-collect='ttlstream_engine::sweeper::pass::*sweep' \
//!   target/release/examples/sweep_profile 50000 1
//! target/release/examples/sweep_profile [items, default 200000] [runs, default 3]
//! ```
#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{START_MILLIS, TABLE, item, open};
use ttlstream_engine::{Item, ManualClock};

/// Seconds on a core and waiting for one, of the calling thread; zeros off
/// Linux.
fn sched() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let mut fields = stat
        .split_whitespace()
        .map(|x| x.parse::<f64>().unwrap_or(0.0) / 1e9);
    (fields.next().unwrap_or(0.0), fields.next().unwrap_or(0.0))
}

/// `wall W s, cpu C s, waiting W s, asleep S s, R items/s (P per CPU-second)`.
fn line(n: usize, wall: f64, before: (f64, f64), after: (f64, f64)) -> String {
    let cpu = after.0 - before.0;
    let wait = after.1 - before.1;
    format!(
        "wall {wall:.3} s, cpu {cpu:.3} s, waiting {wait:.3} s, asleep {:.3} s, {:.0} items/s ({:.0} per CPU-second)",
        wall - cpu - wait,
        n as f64 / wall,
        n as f64 / cpu
    )
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let n = args.next().flatten().unwrap_or(200_000);
    let runs = args.next().flatten().unwrap_or(3);
    let items: Vec<Item> = (0..n)
        .map(|i| item(i, START_MILLIS / 1000 + (i % 3600) as i64))
        .collect();
    for _ in 0..runs {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(START_MILLIS));
        let engine = open(dir.path(), clock.clone());

        let (start, t) = (sched(), Instant::now());
        for chunk in items.chunks(1000) {
            engine.dynamodb().put_items(TABLE, chunk.to_vec()).unwrap();
        }
        let writes = line(n, t.elapsed().as_secs_f64(), start, sched());
        clock.advance(Duration::from_secs(3601));
        let (start, t) = (sched(), Instant::now());
        let deleted = engine.sweep_now().unwrap().deleted;
        let sweep = line(n, t.elapsed().as_secs_f64(), start, sched());
        assert_eq!(deleted as usize, n, "sweep deleted the wrong count");
        println!("writes: {writes}\nsweep:  {sweep}");
    }
}
