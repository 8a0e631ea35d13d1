//! The engine's speed figures, each beside a baseline measured in the same
//! run (issue 4, "Speed"). Run with `--release`:
//!
//! `cargo run --release -p ttlstream-engine --example engine_bench -- [items]`
//!
//! 1. **Writes**: `put_items` of N items (hash key, a TTL Number, 100 bytes
//!    of data) with TTL enabled and a `NEW_AND_OLD_IMAGES` stream, against
//!    raw fjall batch inserts (1,000 per batch) of the same key and item
//!    bytes (the item's DynamoDB JSON). Target ratio >= 0.5. A second
//!    baseline writes the same three entries per item the engine writes.
//! 2. **Sweep**: one `sweep_now` over N expired items (each deleted with its
//!    expiry entry and REMOVE record), against raw fjall batch removes of the
//!    same N keys. Target >= 200,000 items/s.
//!    Writes and sweep also print the CPU time of the thread doing them
//!    (Linux), steadier than wall time on a busy machine.
//! 3. **Expiry lag**: items expiring at a steady 50,000/s for 6 s of real
//!    time, deleted by the background sweeper; the lag of each deletion is
//!    its REMOVE record's time minus the item's expiry instant. Target p99
//!    < 1 s; the baseline is the sweeper's pass interval.
#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{START_MILLIS, TABLE, item, open};
use ttlstream_engine::{
    AcceleratedClock, AttributeValue, Item, ManualClock, StreamPosition, SweeperOptions,
};

const LAG_RATE_PER_SEC: usize = 50_000;
const LAG_SECS: usize = 6;

/// CPU time of the calling thread (Linux: `/proc/thread-self/schedstat`),
/// so a run on a busy machine still shows what the engine itself spent.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// `" (thread CPU x s = y items per CPU-second)"`, or nothing off Linux.
fn cpu_note(n: usize, before: Option<Duration>, after: Option<Duration>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => {
            let cpu = a.saturating_sub(b);
            format!(
                " (thread CPU {:.2} s = {:.0} items per CPU-second)",
                cpu.as_secs_f64(),
                per_sec(n, cpu)
            )
        }
        _ => String::new(),
    }
}

fn per_sec(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or(0)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let items: Vec<Item> = (0..n)
        .map(|i| item(i, START_MILLIS / 1000 + (i % 3600) as i64))
        .collect();

    // Baselines: the same key and item bytes, raw fjall batches of 1,000.
    let base_dir = tempfile::tempdir().unwrap();
    let db = fjall::Database::builder(base_dir.path()).open().unwrap();
    let ks = db
        .keyspace("items", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    let encoded: Vec<(Vec<u8>, Vec<u8>)> = items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            (
                format!("user{i:08}").into_bytes(),
                serde_json::to_vec(it).unwrap(),
            )
        })
        .collect();
    let t = Instant::now();
    for chunk in encoded.chunks(1000) {
        let mut b = db.batch();
        for (k, v) in chunk {
            b.insert(&ks, k.as_slice(), v.as_slice());
        }
        b.commit().unwrap();
    }
    let raw_put = t.elapsed();
    let t = Instant::now();
    for chunk in encoded.chunks(1000) {
        let mut b = db.batch();
        for (k, _) in chunk {
            b.remove(&ks, k.as_slice());
        }
        b.commit().unwrap();
    }
    let raw_remove = t.elapsed();
    drop((ks, db));

    // A second baseline: raw fjall writing the same three entries per item
    // the engine writes (item, expiry-index key, stream record with the
    // image), so the engine's own overhead over fjall shows.
    let base3_dir = tempfile::tempdir().unwrap();
    let db = fjall::Database::builder(base3_dir.path()).open().unwrap();
    let [ks_items, ks_expiry, ks_stream] = ["items", "expiry", "stream"].map(|name| {
        db.keyspace(name, fjall::KeyspaceCreateOptions::default)
            .unwrap()
    });
    let t = Instant::now();
    for (c, chunk) in encoded.chunks(1000).enumerate() {
        let mut b = db.batch();
        for (j, (k, v)) in chunk.iter().enumerate() {
            let seq = (c * 1000 + j) as u64;
            b.insert(&ks_items, k.as_slice(), v.as_slice());
            let mut ek = (seq % 3600).to_be_bytes().to_vec();
            ek.extend_from_slice(k);
            b.insert(&ks_expiry, ek, b"");
            b.insert(&ks_stream, seq.to_be_bytes(), v.as_slice());
        }
        b.commit().unwrap();
    }
    let raw3_put = t.elapsed();
    drop((ks_items, ks_expiry, ks_stream, db));

    // 1. Writes and 2. sweep on the engine.
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), clock.clone());
    let chunks: Vec<Vec<Item>> = items.chunks(1000).map(<[Item]>::to_vec).collect();
    let (t, cpu) = (Instant::now(), thread_cpu());
    for chunk in chunks {
        engine.put_items(TABLE, chunk).unwrap();
    }
    let put = t.elapsed();
    let put_cpu = cpu_note(n, cpu, thread_cpu());
    clock.advance(Duration::from_secs(3601));
    let (t, cpu) = (Instant::now(), thread_cpu());
    let deleted = engine.sweep_now().unwrap().deleted;
    let sweep = t.elapsed();
    let sweep_cpu = cpu_note(n, cpu, thread_cpu());
    assert_eq!(deleted as usize, n, "sweep deleted the wrong count");
    drop(engine);

    // 3. Expiry lag under a steady 50,000 expirations per second.
    let lag_dir = tempfile::tempdir().unwrap();
    let lag_clock = Arc::new(AcceleratedClock::paused(START_MILLIS, 1.0));
    let engine = open(lag_dir.path(), lag_clock.clone());
    let total = LAG_RATE_PER_SEC * LAG_SECS;
    let first_secs = START_MILLIS / 1000 + 1;
    let lag_items: Vec<Item> = (0..total)
        .map(|i| item(i, first_secs + (i / LAG_RATE_PER_SEC) as i64))
        .collect();
    for chunk in lag_items.chunks(1000) {
        engine.put_items(TABLE, chunk.to_vec()).unwrap();
    }
    let options = SweeperOptions::default();
    let interval = options.interval;
    lag_clock.start();
    let sweeper = engine.start_sweeper(options);
    let deadline = Instant::now() + Duration::from_secs(LAG_SECS as u64 + 30);
    while sweeper.deleted_total() < total as u64 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let hist = sweeper.lag_histogram();
    sweeper.stop();
    let mut lags: Vec<i64> = engine
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap()
        .iter()
        .filter(|r| r.is_ttl_delete())
        .filter_map(|r| {
            let expiry = match r.old_image.as_ref()?.get("ExpirationTime")? {
                AttributeValue::N(s) => s.parse::<i64>().ok()?,
                _ => return None,
            };
            Some(r.approximate_creation_date_time_millis - expiry * 1000)
        })
        .collect();
    lags.sort_unstable();

    println!("ttlstream-engine bench, {n} items of ~150 bytes (release build)");
    println!(
        "writes (TTL + expiry index + stream): {:>9.0} items/s   baseline raw fjall batch insert {:>9.0}/s   ratio {:.2} (target >= 0.50)",
        per_sec(n, put),
        per_sec(n, raw_put),
        raw_put.as_secs_f64() / put.as_secs_f64()
    );
    println!(
        "  vs raw fjall writing the same 3 entries per item (item, expiry key, record) {:>9.0}/s   ratio {:.2}",
        per_sec(n, raw3_put),
        raw3_put.as_secs_f64() / put.as_secs_f64()
    );
    println!(
        "sweep (item + index + REMOVE record): {:>9.0} items/s   baseline raw fjall batch remove {:>9.0}/s   ratio {:.2}; vs target 200,000/s: {:.2}",
        per_sec(n, sweep),
        per_sec(n, raw_remove),
        raw_remove.as_secs_f64() / sweep.as_secs_f64(),
        per_sec(n, sweep) / 200_000.0
    );
    println!("  writes{put_cpu}; sweep{sweep_cpu}");
    println!(
        "expiry lag at {LAG_RATE_PER_SEC}/s for {LAG_SECS} s: {} of {total} deleted, p50 {} ms, p99 {} ms, max {} ms   baseline sweeper interval {} ms   p99 ratio {:.2} (target p99 < 1000 ms)",
        lags.len(),
        percentile(&lags, 0.5),
        percentile(&lags, 0.99),
        lags.last().copied().unwrap_or(0),
        interval.as_millis(),
        percentile(&lags, 0.99) as f64 / interval.as_millis() as f64
    );
    println!(
        "  the sweeper's own lag histogram (bucket upper bounds): p50 <= {:?} ms, p99 <= {:?} ms over {} deletions",
        hist.quantile_upper_bound_millis(0.5),
        hist.quantile_upper_bound_millis(0.99),
        hist.count()
    );
}
