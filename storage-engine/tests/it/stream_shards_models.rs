//! A Tablestore table's stream and a Spanner table's change stream are
//! sharded by the same machinery as a DynamoDB table's stream: a first shard
//! at create, rotation after `max_records_per_shard` records, closed shards
//! with EndingSequenceNumber and their child naming them as parent
//! (Tablestore `StreamShard.parent_id`, Spanner `parent_partition_tokens`),
//! the open shard restored on reopen, and closed shards trimmed by the same
//! retention. The DynamoDB Streams API does not list them.
#![allow(clippy::unwrap_used)]

use crate::common::*;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::spanner::{
    SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue, ValueCaptureType,
};
use ttlstream_engine::tablestore::{PutColumn, TablestoreTableDefinition};
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, ManualClock, ScalarAttributeType, SequenceNumber,
    SequenceNumberRange, StreamError, StreamOptions, StreamPosition, StreamViewType,
};

const HOUR: Duration = Duration::from_secs(3600);

fn open_with(dir: &Path, clock: &Arc<ManualClock>) -> Engine {
    let stream = StreamOptions {
        retention: HOUR,
        max_records_per_shard: 3,
        ..StreamOptions::default()
    };
    let options = EngineOptions {
        clock: clock.clone(),
        stream,
        ..EngineOptions::default()
    };
    Engine::open(dir, options).unwrap()
}

/// Tablestore table `Ts`, Spanner table `Sp` and DynamoDB table
/// `SessionData`, each with a stream.
fn create_tables(engine: &Engine) {
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
    session_table(engine, StreamViewType::KeysOnly);
}

/// One record in each table's stream.
fn write(engine: &Engine, i: i64) {
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
    engine
        .dynamodb()
        .put_item(TABLE, session(&format!("u{i}"), START_SECS + 99_999))
        .unwrap();
}

/// (id, parent id, range) of each shard of the three tables' streams, in
/// the order each API gives them.
type Chain = Vec<(String, Option<String>, SequenceNumberRange)>;

fn tablestore_chain(engine: &Engine) -> Chain {
    let shards = engine.tablestore().describe_stream("Ts").unwrap();
    shards
        .into_iter()
        .map(|s| (s.shard_id, s.parent_id, s.sequence_number_range))
        .collect()
}

fn spanner_chain(engine: &Engine) -> Chain {
    let partitions = engine.spanner().change_stream_partitions("Sp").unwrap();
    partitions
        .into_iter()
        .map(|p| {
            assert!(p.parent_partition_tokens.len() <= 1, "a chain, no merges");
            let parent = p.parent_partition_tokens.into_iter().next();
            (p.token, parent, p.sequence_number_range)
        })
        .collect()
}

fn dynamodb_chain(engine: &Engine) -> Chain {
    let arn = engine.streams().latest_stream(TABLE).unwrap().unwrap();
    let d = engine.streams().describe_stream(&arn.stream_arn).unwrap();
    d.shards
        .into_iter()
        .map(|s| (s.shard_id, s.parent_shard_id, s.sequence_number_range))
        .collect()
}

/// Every record of a Tablestore shard and of a Spanner partition, read
/// with the model's own shard read until it is drained or caught up:
/// (sequence numbers, whether the shard ended drained).
fn tablestore_shard(engine: &Engine, shard: &str) -> (Vec<SequenceNumber>, bool) {
    let mut position = StreamPosition::TrimHorizon;
    let mut out = Vec::new();
    loop {
        let got = engine
            .tablestore()
            .get_stream_record("Ts", shard, position, 2)
            .unwrap();
        let n = got.records.len();
        out.extend(got.records.iter().map(|r| r.sequence_number));
        match got.next_position {
            None => return (out, true),
            Some(_) if n == 0 => return (out, false),
            Some(next) => position = next,
        }
    }
}

fn spanner_partition(engine: &Engine, token: &str) -> (Vec<SequenceNumber>, bool) {
    let mut position = StreamPosition::TrimHorizon;
    let mut out = Vec::new();
    loop {
        let got = engine
            .spanner()
            .read_partition("Sp", token, position, 2)
            .unwrap();
        let n = got.records.len();
        out.extend(got.records.iter().map(|e| e.sequence_number));
        match got.next_position {
            None => return (out, true),
            Some(_) if n == 0 => return (out, false),
            Some(next) => position = next,
        }
    }
}

/// The chain is a lineage (each shard's parent is the one before; only the
/// last is open, every other closed with an EndingSequenceNumber), and the
/// records read shard by shard are `all`, in order, each in exactly the
/// shard whose range holds it. Returns the records per shard.
fn check_chain(
    chain: &Chain,
    read: impl Fn(&str) -> (Vec<SequenceNumber>, bool),
    all: &[SequenceNumber],
) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut counts = Vec::new();
    for (i, (id, parent, range)) in chain.iter().enumerate() {
        let expected_parent = i.checked_sub(1).map(|p| chain[p].0.clone());
        assert_eq!(parent, &expected_parent, "shard {i}'s parent");
        let last = i + 1 == chain.len();
        assert_eq!(range.ending_sequence_number.is_none(), last, "shard {i}");
        let (records, drained) = read(id);
        assert_eq!(drained, !last, "a closed shard ends drained");
        for r in &records {
            assert!(*r >= range.starting_sequence_number, "shard {i}: {r}");
            assert!(range.ending_sequence_number.is_none_or(|end| *r <= end));
        }
        counts.push(records.len());
        seen.extend(records);
    }
    assert_eq!(seen, all, "every record in exactly one shard, in order");
    counts
}

fn tablestore_records(engine: &Engine) -> Vec<SequenceNumber> {
    let all = engine
        .tablestore()
        .read_stream("Ts", StreamPosition::TrimHorizon, 100);
    all.unwrap().iter().map(|r| r.sequence_number).collect()
}

fn spanner_records(engine: &Engine) -> Vec<SequenceNumber> {
    let all = engine
        .spanner()
        .read_change_stream("Sp", None, 100)
        .unwrap();
    all.iter().map(|e| e.sequence_number).collect()
}

/// With 3 records per shard, 10 records rotate each table's stream three
/// times, as a DynamoDB table's: shards of 3, 3, 3 and 1 records, chained
/// parent to child. After a reopen the open shard is restored with its
/// count: 5 more records fill it to 3 and rotate once more.
#[test]
fn tablestore_and_spanner_streams_rotate_and_chain_like_dynamodbs() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock);
    create_tables(&engine);
    for i in 0..10 {
        write(&engine, i);
    }
    let ts = tablestore_chain(&engine);
    let sp = spanner_chain(&engine);
    let ts_read = |id: &str| tablestore_shard(&engine, id);
    let sp_read = |id: &str| spanner_partition(&engine, id);
    let counts = check_chain(&ts, ts_read, &tablestore_records(&engine));
    assert_eq!(counts, [3, 3, 3, 1]);
    let counts = check_chain(&sp, sp_read, &spanner_records(&engine));
    assert_eq!(counts, [3, 3, 3, 1]);
    assert_eq!(dynamodb_chain(&engine).len(), 4, "the same as DynamoDB's");
    // Only the DynamoDB table's stream is a DynamoDB Streams stream.
    let listed = engine.streams().list_streams(None).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].table_name, TABLE);
    assert!(
        engine
            .streams()
            .list_streams(Some("Ts"))
            .unwrap()
            .is_empty()
    );

    engine.close().unwrap();
    let engine = open_with(dir.path(), &clock);
    for i in 10..15 {
        write(&engine, i);
    }
    let ts = tablestore_chain(&engine);
    let sp = spanner_chain(&engine);
    let ts_read = |id: &str| tablestore_shard(&engine, id);
    let sp_read = |id: &str| spanner_partition(&engine, id);
    let counts = check_chain(&ts, ts_read, &tablestore_records(&engine));
    assert_eq!(counts, [3, 3, 3, 3, 3]);
    let counts = check_chain(&sp, sp_read, &spanner_records(&engine));
    assert_eq!(counts, [3, 3, 3, 3, 3]);
    assert!(matches!(
        engine.tablestore().describe_stream("Sp"),
        Err(StreamError::TableNotFound { .. })
    ));
    assert!(matches!(
        engine
            .tablestore()
            .get_stream_record("Ts", "shardId-x", StreamPosition::TrimHorizon, 1),
        Err(StreamError::ShardNotFound { .. })
    ));
}

/// Retention trims the records of every model's stream and then the closed
/// shards left empty, as it does DynamoDB's: 7 records (shards of 3, 3, 1)
/// two hours old go, with the two closed shards of each table; the open
/// shard stays, still naming its trimmed parent; a read below the trim
/// horizon is TrimmedDataAccess.
#[test]
fn retention_trims_tablestore_and_spanner_shards_as_dynamodbs() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock);
    create_tables(&engine);
    for i in 0..7 {
        write(&engine, i);
    }
    let old_ts = tablestore_chain(&engine);
    let old_sp = spanner_chain(&engine);
    assert_eq!((old_ts.len(), old_sp.len()), (3, 3));
    let first_ts = tablestore_records(&engine)[0];
    clock.advance(2 * HOUR);
    write(&engine, 7);
    let report = engine.trim_streams().unwrap();
    assert_eq!(report.records_trimmed, 3 * 7);
    assert_eq!(report.shards_removed, 3 * 2);
    for chain in [
        tablestore_chain(&engine),
        spanner_chain(&engine),
        dynamodb_chain(&engine),
    ] {
        assert_eq!(chain.len(), 1, "{chain:?}");
        assert!(
            chain[0].1.is_some(),
            "the open shard still names its parent"
        );
        assert!(chain[0].2.ending_sequence_number.is_none());
    }
    assert_eq!(tablestore_chain(&engine)[0].0, old_ts[2].0);
    assert_eq!(spanner_chain(&engine)[0].0, old_sp[2].0);
    assert_eq!(tablestore_shard(&engine, &old_ts[2].0).0.len(), 1);
    assert_eq!(spanner_partition(&engine, &old_sp[2].0).0.len(), 1);
    assert!(matches!(
        engine.tablestore().get_stream_record(
            "Ts",
            &old_ts[2].0,
            StreamPosition::AtSequenceNumber(first_ts),
            10
        ),
        Err(StreamError::TrimmedDataAccess { .. })
    ));
    assert!(matches!(
        engine
            .spanner()
            .read_partition("Sp", &old_sp[0].0, StreamPosition::TrimHorizon, 10),
        Err(StreamError::ShardNotFound { .. })
    ));
}

/// Deleting a Tablestore table ends its stream: the open shard is closed,
/// and retention removes it once its records are gone.
#[test]
fn a_deleted_tablestore_tables_stream_is_trimmed_away() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock);
    create_tables(&engine);
    for i in 0..4 {
        write(&engine, i);
    }
    engine.tablestore().delete_table("Ts").unwrap();
    clock.advance(2 * HOUR);
    let report = engine.trim_streams().unwrap();
    // Tablestore: 4 records, 2 shards and its stream; Spanner and DynamoDB:
    // 4 records and 1 closed shard each.
    assert_eq!(report.records_trimmed, 3 * 4);
    assert_eq!(report.shards_removed, 2 + 1 + 1);
    assert_eq!(report.streams_removed, 1);
    engine.close().unwrap();
    // Reopening does not look for the deleted table's open shard.
    let engine = open_with(dir.path(), &clock);
    write_spanner_only(&engine);
}

fn write_spanner_only(engine: &Engine) {
    engine
        .spanner()
        .insert_row(
            "Sp",
            SpannerRow::from([("Id".to_string(), SpannerValue::Int64(100))]),
        )
        .unwrap();
}
