//! Stream retention: records older than the retention (engine clock against
//! ApproximateCreationDateTime) are removed; reads below the trim horizon
//! fail with TrimmedDataAccess; closed shards and DISABLED streams disappear
//! once empty; trimmed sequence numbers are never handed out again.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use ttlstream_engine::{
    Engine, EngineOptions, ManualClock, SequenceNumber, StreamError, StreamOptions, StreamPosition,
    StreamViewType, SweeperOptions,
};

const HOUR: Duration = Duration::from_secs(3600);

fn open_with(dir: &Path, clock: &Arc<ManualClock>, max_records_per_shard: u64) -> Engine {
    let options = EngineOptions {
        clock: clock.clone(),
        stream: StreamOptions {
            retention: HOUR,
            max_records_per_shard,
            ..StreamOptions::default()
        },
        ..EngineOptions::default()
    };
    Engine::open(dir, options).unwrap()
}

fn put(engine: &Engine, users: std::ops::Range<u32>) {
    for u in users {
        engine
            .dynamodb()
            .put_item(TABLE, session(&format!("u{u}"), START_SECS + 999_999))
            .unwrap();
    }
}

fn all_seqs(engine: &Engine) -> Vec<SequenceNumber> {
    engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap()
        .iter()
        .map(|r| r.sequence_number)
        .collect()
}

fn trimmed(result: Result<impl std::fmt::Debug, StreamError>) -> bool {
    matches!(result, Err(StreamError::TrimmedDataAccess { .. }))
}

#[test]
fn old_records_are_trimmed_and_reads_below_the_horizon_fail() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock, 100);
    session_table(&engine, StreamViewType::KeysOnly);
    put(&engine, 0..3);
    clock.advance(HOUR / 2);
    put(&engine, 3..5);
    let before = all_seqs(&engine);
    // Exactly one hour old is not older than the retention.
    clock.advance(HOUR / 2);
    assert_eq!(engine.trim_streams().unwrap().records_trimmed, 0);
    clock.advance(Duration::from_millis(1));
    let report = engine.trim_streams().unwrap();
    assert_eq!(report.records_trimmed, 3);
    assert_eq!(all_seqs(&engine), before[3..]);

    let stream = engine
        .streams()
        .latest_stream(TABLE)
        .unwrap()
        .unwrap()
        .stream_arn;
    let shard = engine.streams().describe_stream(&stream).unwrap().shards[0]
        .shard_id
        .clone();
    let read = |p| engine.streams().get_records(&stream, &shard, p, 1000);
    // TRIM_HORIZON starts at the oldest record kept.
    let kept = read(StreamPosition::TrimHorizon).unwrap().records;
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[0].sequence_number, before[3]);
    // Positions whose next record was trimmed fail instead of skipping.
    assert!(trimmed(read(StreamPosition::AfterSequenceNumber(
        before[0]
    ))));
    assert!(trimmed(read(StreamPosition::AtSequenceNumber(before[2]))));
    assert!(trimmed(engine.streams().shard_iterator(
        &stream,
        &shard,
        StreamPosition::AtSequenceNumber(before[1])
    )));
    assert!(trimmed(engine.dynamodb().read_stream(
        TABLE,
        StreamPosition::AfterSequenceNumber(before[1]),
        10
    )));
    // After the last trimmed record nothing is lost: reads go on.
    assert_eq!(
        read(StreamPosition::AfterSequenceNumber(before[2]))
            .unwrap()
            .records
            .len(),
        2
    );
    let err = read(StreamPosition::AfterSequenceNumber(before[0])).unwrap_err();
    assert!(err.to_string().contains("trimmed"), "{err}");
}

#[test]
fn closed_shards_and_disabled_streams_disappear_after_retention() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock, 2);
    session_table(&engine, StreamViewType::KeysOnly);
    put(&engine, 0..5);
    let stream = engine
        .streams()
        .latest_stream(TABLE)
        .unwrap()
        .unwrap()
        .stream_arn;
    let shards = engine.streams().describe_stream(&stream).unwrap().shards;
    assert_eq!(shards.len(), 3);
    clock.advance(2 * HOUR);
    let report = engine.trim_streams().unwrap();
    assert_eq!(report.records_trimmed, 5);
    assert_eq!(report.shards_removed, 2, "the two closed shards");
    let left = engine.streams().describe_stream(&stream).unwrap().shards;
    assert_eq!(left.len(), 1, "the open shard stays, empty");
    assert_eq!(left[0].shard_id, shards[2].shard_id);
    assert_eq!(left[0].parent_shard_id.as_ref(), Some(&shards[1].shard_id));
    assert!(matches!(
        engine.streams().get_records(
            &stream,
            &shards[0].shard_id,
            StreamPosition::TrimHorizon,
            10
        ),
        Err(StreamError::ShardNotFound { .. })
    ));

    // Disabled: its closed shard and then the stream go after the retention.
    engine.dynamodb().update_stream(TABLE, None).unwrap();
    clock.advance(HOUR / 2);
    assert_eq!(engine.trim_streams().unwrap().streams_removed, 0);
    assert!(
        engine.streams().describe_stream(&stream).is_ok(),
        "readable within retention"
    );
    clock.advance(HOUR);
    let report = engine.trim_streams().unwrap();
    assert_eq!((report.shards_removed, report.streams_removed), (1, 1));
    assert!(matches!(
        engine.streams().describe_stream(&stream),
        Err(StreamError::StreamNotFound { .. })
    ));
    assert!(engine.streams().list_streams(None).unwrap().is_empty());
    assert_eq!(engine.streams().latest_stream(TABLE).unwrap(), None);
}

#[test]
fn trimmed_sequence_numbers_are_not_reused_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let highest = {
        let engine = open_with(dir.path(), &clock, 100);
        session_table(&engine, StreamViewType::KeysOnly);
        put(&engine, 0..4);
        let highest = *all_seqs(&engine).last().unwrap();
        engine.dynamodb().update_stream(TABLE, None).unwrap();
        clock.advance(2 * HOUR);
        let report = engine.trim_streams().unwrap();
        assert_eq!(report.records_trimmed, 4);
        assert_eq!(report.streams_removed, 1);
        highest
    };
    let engine = open_with(dir.path(), &clock, 100);
    engine
        .dynamodb()
        .update_stream(TABLE, Some(StreamViewType::KeysOnly))
        .unwrap();
    put(&engine, 10..11);
    let seqs = all_seqs(&engine);
    assert_eq!(seqs.len(), 1);
    assert!(
        seqs[0] > highest,
        "{:?} reused a trimmed number ({highest})",
        seqs[0]
    );
}

#[test]
fn the_sweeper_thread_trims() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock, 100);
    session_table(&engine, StreamViewType::KeysOnly);
    put(&engine, 0..3);
    clock.advance(2 * HOUR);
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(5),
        ..SweeperOptions::default()
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while !all_seqs(&engine).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the sweeper thread never trimmed"
        );
        sweeper.trigger();
        std::thread::sleep(Duration::from_millis(5));
    }
    sweeper.stop();
}

/// Tablestore and Spanner change records follow the same retention, with
/// the same trimmed-through mark: reads below it fail, and the numbers are
/// not handed out again after a reopen.
#[test]
fn tablestore_and_spanner_records_are_trimmed_by_the_same_retention() {
    use ttlstream_engine::spanner::{
        SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue, ValueCaptureType,
    };
    use ttlstream_engine::tablestore::{PutColumn, TablestoreTableDefinition};
    use ttlstream_engine::{AttributeValue, ScalarAttributeType};
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock, 100_000);
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new("Ts", "id", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .unwrap();
    engine
        .spanner()
        .create_table(
            SpannerTableDefinition::new("Sp")
                .column("Id", SpannerType::Int64)
                .primary_key(["Id"])
                .change_stream(ValueCaptureType::OldAndNewValues),
        )
        .unwrap();
    let write = |i: i64| {
        engine
            .tablestore()
            .put_row(
                "Ts",
                item(&[("id", s(&format!("r{i}")))]),
                vec![PutColumn::new("col", AttributeValue::N(i.to_string()))],
            )
            .unwrap();
        engine
            .spanner()
            .insert_row(
                "Sp",
                SpannerRow::from([("Id".to_string(), SpannerValue::Int64(i))]),
            )
            .unwrap();
    };
    write(1);
    write(2);
    let old_ts = engine
        .tablestore()
        .read_stream("Ts", StreamPosition::TrimHorizon, 10)
        .unwrap();
    let old_sp = engine.spanner().read_change_stream("Sp", None, 10).unwrap();
    assert_eq!((old_ts.len(), old_sp.len()), (2, 2));
    // Half the retention: nothing goes.
    clock.advance(HOUR / 2);
    assert_eq!(engine.trim_streams().unwrap().records_trimmed, 0);
    clock.advance(HOUR);
    write(3);
    assert_eq!(engine.trim_streams().unwrap().records_trimmed, 4);
    let ts = engine
        .tablestore()
        .read_stream("Ts", StreamPosition::TrimHorizon, 10)
        .unwrap();
    assert_eq!(ts.len(), 1);
    assert!(ts[0].sequence_number > old_ts[1].sequence_number);
    assert!(matches!(
        engine.tablestore().read_stream(
            "Ts",
            StreamPosition::AtSequenceNumber(old_ts[0].sequence_number),
            10
        ),
        Err(StreamError::TrimmedDataAccess { .. })
    ));
    let sp = engine.spanner().read_change_stream("Sp", None, 10).unwrap();
    assert_eq!(sp.len(), 1);
    assert!(matches!(
        engine
            .spanner()
            .read_change_stream("Sp", Some(old_sp[0].sequence_number), 10),
        Err(StreamError::TrimmedDataAccess { .. })
    ));
    // Continuing after the last record read before the trim still works.
    let after = engine
        .spanner()
        .read_change_stream("Sp", Some(old_sp[1].sequence_number), 10)
        .unwrap();
    assert_eq!(after.len(), 1);
    // Everything trimmed, then a reopen: numbering continues above the mark.
    let newest = sp[0].sequence_number.max(ts[0].sequence_number);
    clock.advance(HOUR * 2);
    engine.trim_streams().unwrap();
    assert!(
        engine
            .spanner()
            .read_change_stream("Sp", None, 10)
            .unwrap()
            .is_empty()
    );
    engine.close().unwrap();
    let engine = open_with(dir.path(), &clock, 100_000);
    engine
        .spanner()
        .insert_row(
            "Sp",
            SpannerRow::from([("Id".to_string(), SpannerValue::Int64(9))]),
        )
        .unwrap();
    let again = engine.spanner().read_change_stream("Sp", None, 10).unwrap();
    assert_eq!(again.len(), 1);
    assert!(again[0].sequence_number > newest);
}
