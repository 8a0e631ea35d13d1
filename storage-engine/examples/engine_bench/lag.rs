//! Expiry lag: items expiring at a steady [`RATE_PER_SEC`] for [`SECS`] s
//! of real time (an accelerated clock at 1x), deleted by a background
//! sweeper with the library's defaults; each deletion's lag is its REMOVE
//! record's time minus the item's expiry instant. Target p99 < 1 s; the
//! baseline is the sweeper's pass interval.

use super::support::{START_MILLIS, TABLE, item, open};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ttlstream_engine::{AcceleratedClock, AttributeValue, StreamPosition, SweeperOptions};

pub const RATE_PER_SEC: usize = 50_000;
pub const SECS: usize = 6;

/// One round: the deletions' lags (ms, sorted) and the sweeper's interval.
pub fn round() -> (Vec<i64>, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AcceleratedClock::paused(START_MILLIS, 1.0));
    let engine = open(dir.path(), clock.clone());
    let total = RATE_PER_SEC * SECS;
    let first_secs = START_MILLIS / 1000 + 1;
    for first in (0..total).step_by(1000) {
        let batch = (first..total.min(first + 1000))
            .map(|i| item(i, first_secs + (i / RATE_PER_SEC) as i64))
            .collect();
        engine.dynamodb().put_items(TABLE, batch).unwrap();
    }
    let options = SweeperOptions::default();
    let interval = options.interval;
    clock.start();
    let sweeper = engine.start_sweeper(options);
    let deadline = Instant::now() + Duration::from_secs(SECS as u64 + 30);
    while sweeper.deleted_total() < total as u64 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    sweeper.stop();
    let mut lags: Vec<i64> = engine
        .dynamodb()
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
    assert_eq!(lags.len(), total, "not every item was deleted in time");
    lags.sort_unstable();
    (lags, interval)
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or(0)
}

pub fn report(rounds: &[(Vec<i64>, Duration)]) {
    use super::measure::median;
    for (i, (lags, _)) in rounds.iter().enumerate() {
        println!(
            "  round {}: p50 {} ms, p99 {} ms, max {} ms",
            i + 1,
            percentile(lags, 0.5),
            percentile(lags, 0.99),
            lags.last().copied().unwrap_or(0)
        );
    }
    let p99 = median(
        rounds
            .iter()
            .map(|(l, _)| percentile(l, 0.99) as f64)
            .collect(),
    );
    let interval = rounds.first().map_or(Duration::ZERO, |r| r.1);
    println!(
        "expiry lag at {RATE_PER_SEC}/s for {SECS} s: p50 {:.0} ms, p99 {p99:.0} ms (medians of rounds); baseline sweeper interval {} ms; p99 ratio {:.2} (target p99 < 1000 ms)",
        median(
            rounds
                .iter()
                .map(|(l, _)| percentile(l, 0.5) as f64)
                .collect()
        ),
        interval.as_millis(),
        p99 / interval.as_millis() as f64
    );
}
