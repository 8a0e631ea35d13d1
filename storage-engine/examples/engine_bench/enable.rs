//! UpdateTimeToLive on a table that already holds `items` items.
//!
//! The call itself (enabling commits the setting; the index of the items
//! already there is built by the sweeper, `ttl_index.rs`); then the build,
//! by a sweeper with `ttlstream serve`'s settings, while one writer puts
//! items one by one, beside the same writer for the same time without a
//! build (the baseline: what a writer waits for in a build); then disabling,
//! which clears the index under the write lock. Single events, not rates:
//! the build and the calls last what they last.

use super::measure::{MIN_PHASE, millis, percentile};
use super::support::{START_MILLIS, TABLE, item};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ttlstream_engine::{
    Engine, EngineOptions, ManualClock, ScalarAttributeType, StreamViewType, SweeperOptions,
    TableDefinition, TimeToLiveSpecification,
};

/// One round's figures.
pub struct Round {
    /// The enabling call.
    pub call: Duration,
    /// From the call to the index built.
    pub build: Duration,
    /// A writer's put_item latencies during the build, sorted.
    pub put_during: Vec<Duration>,
    /// The same writer's latencies without a build, sorted.
    pub put_idle: Vec<Duration>,
    /// The disabling call.
    pub disable: Duration,
}

/// Puts items one at a time (keys `w{first}`...) until `until` says stop;
/// the latencies, sorted.
fn writer(engine: &Engine, first: usize, until: impl Fn() -> bool) -> Vec<Duration> {
    let mut latencies = Vec::new();
    let expiry = START_MILLIS / 1000 + 86_400;
    for i in first.. {
        if until() {
            break;
        }
        let mut it = item(i, expiry);
        it.insert(
            "UserName".into(),
            ttlstream_engine::AttributeValue::S(format!("w{i:08}")),
        );
        let started = Instant::now();
        engine.dynamodb().put_item(TABLE, it).unwrap();
        latencies.push(started.elapsed());
    }
    latencies.sort_unstable();
    latencies
}

pub fn round(items: usize) -> Round {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let options = EngineOptions {
        clock: clock.clone(),
        ..Default::default()
    };
    let engine = Engine::open(dir.path(), options).unwrap();
    let table = TableDefinition::new(TABLE, "UserName", ScalarAttributeType::S)
        .with_stream(StreamViewType::NewAndOldImages);
    engine.dynamodb().create_table(table).unwrap();
    // None expires: the build is the only work the sweeper finds.
    let expiry = START_MILLIS / 1000 + 86_400;
    for first in (0..items).step_by(1000) {
        let batch = (first..items.min(first + 1000))
            .map(|i| item(i, expiry))
            .collect();
        engine.dynamodb().put_items(TABLE, batch).unwrap();
    }

    let spec = TimeToLiveSpecification::enabled("ExpirationTime");
    let started = Instant::now();
    engine.dynamodb().update_time_to_live(TABLE, spec).unwrap();
    let call = started.elapsed();
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_secs(1),
        ..SweeperOptions::default()
    });
    let put_during = writer(&engine, 0, || {
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    });
    let build = started.elapsed();
    sweeper.stop();
    let idle_for = build.max(MIN_PHASE);
    let idle_started = Instant::now();
    let put_idle = writer(&engine, put_during.len(), || {
        idle_started.elapsed() >= idle_for
    });

    let off = TimeToLiveSpecification {
        attribute_name: "ExpirationTime".into(),
        enabled: false,
    };
    let started = Instant::now();
    engine.dynamodb().update_time_to_live(TABLE, off).unwrap();
    let disable = started.elapsed();
    Round {
        call,
        build,
        put_during,
        put_idle,
        disable,
    }
}

pub fn report(items: usize, rounds: &[Round]) {
    use super::measure::median;
    for (i, r) in rounds.iter().enumerate() {
        println!(
            "  round {}: enable call {}; index built in {:.2} s; put_item during the build p50 {} p99 {} max {} ({} puts), without p50 {} p99 {} max {} ({} puts); disable call {}",
            i + 1,
            millis(r.call),
            r.build.as_secs_f64(),
            millis(percentile(&r.put_during, 0.5)),
            millis(percentile(&r.put_during, 0.99)),
            millis(r.put_during.last().copied().unwrap_or_default()),
            r.put_during.len(),
            millis(percentile(&r.put_idle, 0.5)),
            millis(percentile(&r.put_idle, 0.99)),
            millis(r.put_idle.last().copied().unwrap_or_default()),
            r.put_idle.len(),
            millis(r.disable),
        );
    }
    let med = |f: &dyn Fn(&Round) -> Duration| {
        Duration::from_secs_f64(median(rounds.iter().map(|r| f(r).as_secs_f64()).collect()))
    };
    println!(
        "UpdateTimeToLive on {items} items: enable call median {} (baseline: the index build it no longer waits for, {:.2} s; ratio {:.5}); put_item p99 during the build {} vs {} without; disable call {}",
        millis(med(&|r| r.call)),
        med(&|r| r.build).as_secs_f64(),
        med(&|r| r.call).as_secs_f64() / med(&|r| r.build).as_secs_f64(),
        millis(med(&|r| percentile(&r.put_during, 0.99))),
        millis(med(&|r| percentile(&r.put_idle, 0.99))),
        millis(med(&|r| r.disable)),
    );
}
