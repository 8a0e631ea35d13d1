//! The background sweeper's controls: fairness across tables, pacing,
//! the "sweep now" trigger and the lag histogram. Waits are bounded polls
//! of the sweeper's counters, never timed assertions.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::time::{Duration, Instant};
use ttlstream_engine::{
    Engine, ScalarAttributeType, SequenceNumber, StreamPosition, StreamViewType, Sweeper,
    SweeperOptions, TableDefinition, TimeToLiveSpecification,
};

const HOUR: Duration = Duration::from_secs(3600);

fn wait_for(sweeper: &Sweeper, deleted: u64) {
    for _ in 0..2_000 {
        if sweeper.deleted_total() >= deleted {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("sweeper deleted {} of {deleted}", sweeper.deleted_total());
}

fn fill(engine: &Engine, table: &str, n: usize) {
    let items = (0..n)
        .map(|i| session(&format!("{table}-{i}"), START_SECS + 1))
        .collect();
    engine.dynamodb().put_items(table, items).unwrap();
}

/// The sequence numbers of `table`'s TTL REMOVE records (one engine-wide
/// counter: they order deletions across tables).
fn ttl_removes(engine: &Engine, table: &str) -> Vec<SequenceNumber> {
    engine
        .dynamodb()
        .read_stream(table, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap()
        .into_iter()
        .filter(|r| r.is_ttl_delete())
        .map(|r| r.sequence_number)
        .collect()
}

#[test]
fn a_pass_budget_is_shared_fairly_across_tables() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Small", "UserName", ScalarAttributeType::S)
                .with_stream(StreamViewType::KeysOnly),
        )
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live("Small", TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
    fill(&engine, TABLE, 300);
    fill(&engine, "Small", 10);
    clock.advance(Duration::from_secs(2));
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: HOUR,
        max_deletes_per_sweep: Some(100),
        ..SweeperOptions::default()
    });
    wait_for(&sweeper, 310);
    sweeper.stop();
    // Small's 10 went in the first pass (its share), although the big table
    // comes first: fewer than one pass of the big table's deletions precede
    // Small's last.
    let small = ttl_removes(&engine, "Small");
    assert_eq!(small.len(), 10);
    let big = ttl_removes(&engine, TABLE);
    assert_eq!(big.len(), 300);
    let before = big.iter().filter(|s| **s < small[9]).count();
    assert!(
        before < 100,
        "{before} of the big table's deletions came first"
    );
}

#[test]
fn pacing_bounds_deletions_per_second() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    fill(&engine, TABLE, 200);
    clock.advance(Duration::from_secs(2));
    let started = Instant::now();
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(5),
        max_deletes_per_sec: Some(40),
        batch_size: 7,
        ..SweeperOptions::default()
    });
    wait_for(&sweeper, 40);
    sweeper.stop();
    let deleted = 200 - engine.dynamodb().scan(TABLE).unwrap().len() as u64;
    // A full bucket (40) plus 40 per second of real time since the start.
    let allowed = 40 + (40.0 * started.elapsed().as_secs_f64()).ceil() as u64;
    assert!(deleted <= allowed, "{deleted} > {allowed}");
    assert!(deleted >= 40);
}

#[test]
fn trigger_wakes_the_sweeper_and_lag_is_recorded() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    fill(&engine, TABLE, 5);
    clock.advance(Duration::from_secs(3)); // 2 s past the expiry instant
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: HOUR,
        ..SweeperOptions::default()
    });
    wait_for(&sweeper, 5);
    engine
        .dynamodb()
        .put_item(TABLE, session("late", START_SECS + 3))
        .unwrap();
    clock.advance(Duration::from_secs(1));
    // Without the trigger the next pass would come in an hour.
    assert!(sweeper.trigger());
    wait_for(&sweeper, 6);
    let lag = sweeper.lag_histogram();
    sweeper.stop();
    assert_eq!(lag.count(), 6);
    assert_eq!(lag.quantile_upper_bound_millis(1.0), Some(2_000));
    assert!(engine.dynamodb().scan(TABLE).unwrap().is_empty());
}

#[test]
fn sweep_now_reports_lag_and_never_deletes_early() {
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    fill(&engine, TABLE, 3);
    clock.advance(Duration::from_millis(1_000)); // exactly the expiry instant
    let report = engine.sweep_now().unwrap();
    assert_eq!(report.deleted, 0);
    clock.advance(Duration::from_millis(1));
    let report = engine.sweep_now().unwrap();
    assert_eq!(report.deleted, 3);
    assert_eq!(report.lag.quantile_upper_bound_millis(0.5), Some(1));
}

#[test]
fn one_sweeper_and_one_lag_histogram_cover_all_three_models() {
    use ttlstream_engine::spanner::{
        RowDeletionPolicy, SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue,
    };
    use ttlstream_engine::tablestore::{
        PutColumn, ReadOptions, TablestoreOptions, TablestoreTableDefinition,
    };
    const DAY_MILLIS: u64 = 86_400_000;
    let (_dir, clock, engine) = setup(StreamViewType::KeysOnly);
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new("Ts", "id", ScalarAttributeType::S)
                .with_options(TablestoreOptions::with_time_to_live_secs(86_400)),
        )
        .unwrap();
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Sp")
                .column("Id", SpannerType::Int64)
                .column("CreatedAt", SpannerType::Timestamp)
                .primary_key(["Id"])
                .row_deletion_policy(RowDeletionPolicy::older_than("CreatedAt", 1)),
        )
        .unwrap();
    fill(&engine, TABLE, 300);
    for i in 0..10 {
        engine
            .tablestore()
            .put_row(
                "Ts",
                item(&[("id", s(&format!("r{i}")))]),
                vec![PutColumn::new("col", n(i))],
            )
            .unwrap();
        engine
            .spanner()
            .insert_row(
                "Sp",
                SpannerRow::from([
                    ("Id".to_string(), SpannerValue::Int64(i)),
                    (
                        "CreatedAt".to_string(),
                        SpannerValue::Timestamp(START_MILLIS),
                    ),
                ]),
            )
            .unwrap();
    }
    // Tablestore versions and Spanner rows expired 2 s ago (written at the
    // start, one day to live); the DynamoDB items a day and a second ago.
    clock.advance(Duration::from_millis(DAY_MILLIS + 2_000));
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: HOUR,
        max_deletes_per_sweep: Some(100),
        ..SweeperOptions::default()
    });
    wait_for(&sweeper, 320);
    let lag = sweeper.lag_histogram();
    sweeper.stop();
    // (How one pass's budget is shared across the three models: the unit
    // test `one_budget_is_shared_across_the_three_models` in `dynamodb/sweep.rs`.)
    assert!(
        engine
            .tablestore()
            .scan_rows("Ts", ReadOptions::default())
            .unwrap()
            .is_empty()
    );
    assert!(engine.spanner().scan_table("Sp").unwrap().is_empty());
    assert!(engine.dynamodb().scan(TABLE).unwrap().is_empty());
    // One histogram: 20 rows 2 s late, 300 items more than an hour late.
    assert_eq!(lag.count(), 320);
    let counted: Vec<_> = lag.buckets().filter(|(_, c)| *c > 0).collect();
    assert_eq!(counted, vec![(Some(2_000), 20), (None, 300)]);
}
