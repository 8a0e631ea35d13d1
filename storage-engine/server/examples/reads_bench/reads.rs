//! Foreground reads while a large backlog is swept: GetItem p50 / p99 over
//! loopback HTTP through the engine's DynamoDB API (the server `ttlstream
//! serve` runs, on its own runtime), during the sweep of `items` expired
//! items, against the same reads with the sweeper paused (not started), in
//! the same round. The sweeper has `ttlstream serve`'s settings (1 s
//! interval, the default 10,000 deletions per pass).
//!
//! Reads are open-loop: a GetItem of a random live item is due every
//! 1/[`READS_PER_SEC`] s, and its latency counts from when it was due, so a
//! stalled server shows in the figures instead of slowing the requests down.
//! A table `Small` with 10 expired items is swept beside the backlog; the
//! round reports how many of the backlog's deletions came before Small's
//! last (by the REMOVE records' sequence numbers).

use super::measure::{MIN_PHASE, millis, percentile};
use super::support::{START_MILLIS, TABLE, item, open};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use ttlstream_engine::{
    Engine, ManualClock, ScalarAttributeType, SequenceNumber, StreamPosition, StreamViewType,
    SweeperOptions, TableDefinition, TimeToLiveSpecification,
};
use ttlstream_server::{Server, ServerOptions};

/// The offered read load.
pub const READS_PER_SEC: u64 = 1_000;
/// Items that never expire, the reads' keys.
const LIVE: usize = 100_000;

/// One round's figures.
pub struct Round {
    /// Read latencies with the sweeper paused, sorted.
    pub paused: Vec<Duration>,
    /// Read latencies during the sweep, sorted.
    pub sweeping: Vec<Duration>,
    /// Reads that failed or found no item, in both phases.
    pub errors: usize,
    /// How long the sweep of the backlog took.
    pub sweep: Duration,
    /// The backlog's deletions before Small's last.
    pub backlog_before_small: usize,
}

/// Reads until `done` says stop (checked at every tick); sorted latencies
/// and the count of errors.
async fn read(url: &str, done: &(dyn Fn() -> bool + Sync)) -> (Vec<Duration>, usize) {
    let client = reqwest::Client::new();
    let period = Duration::from_nanos(1_000_000_000 / READS_PER_SEC);
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut tasks = Vec::new();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    while !done() {
        let due = ticks.tick().await;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let body = format!(
            r#"{{"TableName":"{TABLE}","Key":{{"UserName":{{"S":"live{:06}"}}}}}}"#,
            rng % LIVE as u64
        );
        let request = client
            .post(url)
            .header("X-Amz-Target", "DynamoDB_20120810.GetItem")
            .header("Content-Type", "application/x-amz-json-1.0")
            .body(body);
        tasks.push(tokio::spawn(async move {
            let ok = match request.send().await {
                Ok(r) if r.status().is_success() => {
                    r.text().await.is_ok_and(|t| t.contains("\"Item\""))
                }
                _ => false,
            };
            (due.elapsed(), ok)
        }));
    }
    let mut latencies = Vec::with_capacity(tasks.len());
    let mut errors = 0;
    for task in tasks {
        let (latency, ok) = task.await.unwrap();
        latencies.push(latency);
        errors += usize::from(!ok);
    }
    latencies.sort_unstable();
    (latencies, errors)
}

/// Sequence numbers of `table`'s TTL REMOVE records after `after`.
fn removes(
    engine: &Engine,
    table: &str,
    after: SequenceNumber,
    limit: usize,
) -> Vec<SequenceNumber> {
    engine
        .dynamodb()
        .read_stream(table, StreamPosition::AfterSequenceNumber(after), limit)
        .unwrap()
        .into_iter()
        .filter(|r| r.is_ttl_delete())
        .map(|r| r.sequence_number)
        .collect()
}

pub fn round(items: usize) -> Round {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), clock.clone());
    let now_secs = START_MILLIS / 1000;
    for first in (0..LIVE).step_by(1000) {
        let batch = (first..LIVE.min(first + 1000))
            .map(|i| {
                let mut it = item(i, now_secs + 86_400);
                it.insert(
                    "UserName".into(),
                    ttlstream_engine::AttributeValue::S(format!("live{i:06}")),
                );
                it
            })
            .collect();
        engine.dynamodb().put_items(TABLE, batch).unwrap();
    }
    for first in (0..items).step_by(1000) {
        let batch = (first..items.min(first + 1000))
            .map(|i| item(i, now_secs + 1 + (i % 3600) as i64))
            .collect();
        engine.dynamodb().put_items(TABLE, batch).unwrap();
    }
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Small", "UserName", ScalarAttributeType::S)
                .with_stream(StreamViewType::KeysOnly),
        )
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live("Small", TimeToLiveSpecification::enabled("ExpirationTime"))
        .unwrap();
    engine
        .dynamodb()
        .put_items("Small", (0..10).map(|i| item(i, now_secs + 1)).collect())
        .unwrap();
    let before_sweep = engine
        .dynamodb()
        .read_stream("Small", StreamPosition::TrimHorizon, 100)
        .unwrap()
        .last()
        .unwrap()
        .sequence_number;
    clock.advance(Duration::from_secs(3601));

    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = server_rt
        .block_on(Server::bind(
            engine.clone(),
            ServerOptions {
                listen: "127.0.0.1:0".parse().unwrap(),
                ..ServerOptions::default()
            },
        ))
        .unwrap();
    let url = format!("http://{}", server.local_addr().unwrap());
    server_rt.spawn(server.run(std::future::pending()));
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();

    let started = Instant::now();
    let (paused, paused_errors) =
        client_rt.block_on(read(&url, &|| started.elapsed() >= MIN_PHASE));
    let swept = Arc::new(AtomicBool::new(false));
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_secs(1),
        ..SweeperOptions::default()
    });
    let started = Instant::now();
    let total = items as u64 + 10;
    let (sweeping, sweeping_errors) = client_rt.block_on(read(&url, &|| {
        swept.load(Ordering::Relaxed) || {
            let done = sweeper.deleted_total() >= total;
            swept.store(done, Ordering::Relaxed);
            done
        }
    }));
    let sweep = started.elapsed();
    sweeper.stop();
    let small = removes(&engine, "Small", before_sweep, 100);
    let small_last = *small.last().unwrap();
    let backlog_before_small = removes(&engine, TABLE, before_sweep, 100_000)
        .into_iter()
        .filter(|s| *s < small_last)
        .count();
    Round {
        paused,
        sweeping,
        errors: paused_errors + sweeping_errors,
        sweep,
        backlog_before_small,
    }
}

pub fn report(items: usize, rounds: &[Round]) {
    use super::measure::median;
    for (i, r) in rounds.iter().enumerate() {
        println!(
            "  round {}: paused p50 {} p99 {} ({} reads); sweeping {items} items in {:.2} s: p50 {} p99 {} ({} reads); p99 ratio {:.2}; errors {}; backlog deletions before Small's last: {}",
            i + 1,
            millis(percentile(&r.paused, 0.5)),
            millis(percentile(&r.paused, 0.99)),
            r.paused.len(),
            r.sweep.as_secs_f64(),
            millis(percentile(&r.sweeping, 0.5)),
            millis(percentile(&r.sweeping, 0.99)),
            r.sweeping.len(),
            percentile(&r.sweeping, 0.99).as_secs_f64() / percentile(&r.paused, 0.99).as_secs_f64(),
            r.errors,
            r.backlog_before_small,
        );
    }
    let med = |f: &dyn Fn(&Round) -> f64| median(rounds.iter().map(f).collect());
    println!(
        "GetItem at {READS_PER_SEC}/s over loopback HTTP: paused p50 {:.2} ms p99 {:.2} ms; during a {items}-item sweep p50 {:.2} ms p99 {:.2} ms; p99 ratio (median of rounds) {:.2} (goal <= 2); sweep {:.0} items/s",
        med(&|r| percentile(&r.paused, 0.5).as_secs_f64() * 1e3),
        med(&|r| percentile(&r.paused, 0.99).as_secs_f64() * 1e3),
        med(&|r| percentile(&r.sweeping, 0.5).as_secs_f64() * 1e3),
        med(&|r| percentile(&r.sweeping, 0.99).as_secs_f64() * 1e3),
        med(&|r| percentile(&r.sweeping, 0.99).as_secs_f64()
            / percentile(&r.paused, 0.99).as_secs_f64()),
        med(&|r| items as f64 / r.sweep.as_secs_f64()),
    );
}
