//! DynamoDB Streams over the engine: shard rotation by record count and by
//! age, parent/child lineage, GetRecords limits (1,000 records, 1 MB),
//! iterator positions, disabling and re-enabling a stream, and rotation
//! state across a reopen. Retention and trimming: `stream_retention.rs`.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::{
    Clock, Engine, EngineOptions, GetRecordsOutput, MAX_GET_RECORDS, MAX_GET_RECORDS_BYTES,
    ManualClock, SequenceNumber, Shard, StreamError, StreamOptions, StreamPosition, StreamStatus,
    StreamViewType, TableError,
};

fn open_with(dir: &Path, clock: &Arc<ManualClock>, stream: StreamOptions) -> Engine {
    let options = EngineOptions {
        clock: clock.clone(),
        stream,
        ..EngineOptions::default()
    };
    Engine::open(dir, options).unwrap()
}

fn records_per_shard(n: u64) -> StreamOptions {
    StreamOptions {
        max_records_per_shard: n,
        ..StreamOptions::default()
    }
}

fn arn(engine: &Engine) -> String {
    engine
        .streams()
        .latest_stream(TABLE)
        .unwrap()
        .unwrap()
        .stream_arn
}

fn shards(engine: &Engine) -> Vec<Shard> {
    engine
        .streams()
        .describe_stream(&arn(engine))
        .unwrap()
        .shards
}

fn put(engine: &Engine, users: std::ops::Range<u32>) {
    for u in users {
        engine
            .dynamodb()
            .put_item(TABLE, session(&format!("u{u}"), START_SECS + 9_999))
            .unwrap();
    }
}

/// Every record of a shard, reading until the shard is drained or caught up.
fn drain(engine: &Engine, shard: &Shard) -> (Vec<SequenceNumber>, bool) {
    drain_in(engine, &arn(engine), shard)
}

/// [`drain`] for a shard of stream `arn`.
fn drain_in(engine: &Engine, arn: &str, shard: &Shard) -> (Vec<SequenceNumber>, bool) {
    let mut position = StreamPosition::TrimHorizon;
    let mut seqs = Vec::new();
    loop {
        let GetRecordsOutput {
            records,
            next_position,
        } = engine
            .streams()
            .get_records(arn, &shard.shard_id, position, 1000)
            .unwrap();
        let empty = records.is_empty();
        seqs.extend(records.iter().map(|r| r.sequence_number));
        match next_position {
            None => return (seqs, true),
            Some(_) if empty => return (seqs, false),
            Some(next) => position = next,
        }
    }
}

#[test]
fn shards_rotate_by_record_count_with_lineage() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock, records_per_shard(3));
    session_table(&engine, StreamViewType::KeysOnly);
    put(&engine, 0..7);
    let shards = shards(&engine);
    assert_eq!(shards.len(), 3, "{shards:?}");
    assert_eq!(shards[0].parent_shard_id, None);
    assert_eq!(
        shards[1].parent_shard_id.as_ref(),
        Some(&shards[0].shard_id)
    );
    assert_eq!(
        shards[2].parent_shard_id.as_ref(),
        Some(&shards[1].shard_id)
    );
    let held: Vec<_> = shards.iter().map(|s| drain(&engine, s)).collect();
    assert_eq!(held[0].0.len(), 3);
    assert_eq!(held[1].0.len(), 3);
    assert_eq!(held[2].0.len(), 1);
    assert_eq!((held[0].1, held[1].1, held[2].1), (true, true, false));
    for (shard, (seqs, _)) in shards.iter().zip(&held) {
        let range = shard.sequence_number_range;
        assert!(range.starting_sequence_number <= seqs[0]);
        if let Some(end) = range.ending_sequence_number {
            assert_eq!(
                Some(&end),
                seqs.last(),
                "a closed shard ends at its last record"
            );
        }
        assert!(shard.shard_id.starts_with("shardId-00000001700000000000-"));
        assert_eq!(shard.shard_id.len(), 37);
    }
    // A rotated shard starts at its first record.
    assert_eq!(
        shards[1].sequence_number_range.starting_sequence_number,
        held[1].0[0]
    );
    assert_eq!(shards[2].sequence_number_range.ending_sequence_number, None);
}

#[test]
fn shards_rotate_by_age_at_the_next_record() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let options = StreamOptions {
        max_shard_age: Duration::from_secs(3600),
        ..StreamOptions::default()
    };
    let engine = open_with(dir.path(), &clock, options);
    session_table(&engine, StreamViewType::KeysOnly);
    clock.advance(Duration::from_secs(1800));
    put(&engine, 0..1);
    clock.advance(Duration::from_secs(1799));
    put(&engine, 1..2);
    assert_eq!(shards(&engine).len(), 1, "not yet an hour old");
    clock.advance(Duration::from_secs(2));
    put(&engine, 2..3);
    let shards = shards(&engine);
    assert_eq!(shards.len(), 2);
    assert_eq!(
        shards[1].parent_shard_id.as_ref(),
        Some(&shards[0].shard_id)
    );
    assert_eq!(shards[1].creation_millis, clock.now_millis());
    assert_eq!(drain(&engine, &shards[0]).0.len(), 2);
    assert_eq!(drain(&engine, &shards[1]).0.len(), 1);
}

#[test]
fn an_empty_shard_is_not_closed_by_age() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let options = StreamOptions {
        max_shard_age: Duration::from_secs(3600),
        ..StreamOptions::default()
    };
    let engine = open_with(dir.path(), &clock, options);
    session_table(&engine, StreamViewType::KeysOnly);
    clock.advance(Duration::from_secs(7200));
    put(&engine, 0..1);
    assert_eq!(
        shards(&engine).len(),
        1,
        "the first record goes to the idle shard"
    );
    put(&engine, 1..2);
    assert_eq!(shards(&engine).len(), 2, "then the old shard closes");
}

#[test]
fn get_records_returns_at_most_1000_records() {
    let (_dir, _clock, engine) = setup(StreamViewType::KeysOnly);
    let items = (0..1500)
        .map(|i| session(&format!("u{i}"), START_SECS + 9_999))
        .collect();
    engine.dynamodb().put_items(TABLE, items).unwrap();
    let shard = &shards(&engine)[0];
    let first = engine
        .streams()
        .get_records(
            &arn(&engine),
            &shard.shard_id,
            StreamPosition::TrimHorizon,
            5_000,
        )
        .unwrap();
    assert_eq!(first.records.len(), MAX_GET_RECORDS);
    let next = first.next_position.unwrap();
    let second = engine
        .streams()
        .get_records(&arn(&engine), &shard.shard_id, next, 5_000)
        .unwrap();
    assert_eq!(second.records.len(), 500);
    assert!(second.records[0].sequence_number > first.records[999].sequence_number);
    // A smaller limit is honoured.
    let few = engine
        .streams()
        .get_records(
            &arn(&engine),
            &shard.shard_id,
            StreamPosition::TrimHorizon,
            7,
        )
        .unwrap();
    assert_eq!(few.records.len(), 7);
}

#[test]
fn get_records_returns_at_most_1_mb_of_size_bytes() {
    let (_dir, _clock, engine) = setup(StreamViewType::NewImage);
    let big = "x".repeat(200_000);
    for i in 0..10 {
        let mut item = session(&format!("u{i}"), START_SECS + 9_999);
        item.insert("Data".to_string(), s(&big));
        engine.dynamodb().put_item(TABLE, item).unwrap();
    }
    let shard = &shards(&engine)[0];
    let out = engine
        .streams()
        .get_records(
            &arn(&engine),
            &shard.shard_id,
            StreamPosition::TrimHorizon,
            1000,
        )
        .unwrap();
    let bytes: u64 = out.records.iter().map(|r| r.size_bytes).sum();
    assert!(bytes <= MAX_GET_RECORDS_BYTES, "{bytes}");
    assert_eq!(
        out.records.len(),
        5,
        "five 200 KB records fit in 1 MB, six do not"
    );
    let rest = engine
        .streams()
        .get_records(
            &arn(&engine),
            &shard.shard_id,
            out.next_position.unwrap(),
            1000,
        )
        .unwrap();
    assert_eq!(rest.records.len(), 5);
}

#[test]
fn iterator_positions() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open_with(dir.path(), &clock, records_per_shard(4));
    session_table(&engine, StreamViewType::KeysOnly);
    put(&engine, 0..3);
    let arn = arn(&engine);
    let shard = shards(&engine)[0].clone();
    let all = drain(&engine, &shard).0;
    let read = |p| {
        engine
            .streams()
            .get_records(&arn, &shard.shard_id, p, 1000)
            .unwrap()
            .records
            .iter()
            .map(|r| r.sequence_number)
            .collect::<Vec<_>>()
    };
    assert_eq!(read(StreamPosition::TrimHorizon), all);
    assert_eq!(read(StreamPosition::AtSequenceNumber(all[1])), all[1..]);
    assert_eq!(read(StreamPosition::AfterSequenceNumber(all[1])), all[2..]);
    // LATEST: nothing now; the records written after it are read.
    let latest = engine
        .streams()
        .shard_iterator(&arn, &shard.shard_id, StreamPosition::Latest)
        .unwrap();
    assert_eq!(latest, StreamPosition::AfterSequenceNumber(all[2]));
    assert!(read(latest).is_empty());
    put(&engine, 3..4);
    assert_eq!(read(latest).len(), 1);
    // The shard is now full: the next record closes it; a drained closed
    // shard has no next position (NextShardIterator null).
    put(&engine, 4..5);
    let closed = engine
        .streams()
        .get_records(&arn, &shard.shard_id, latest, 1000)
        .unwrap();
    assert_eq!(closed.records.len(), 1);
    assert_eq!(closed.next_position, None);
    let end = engine
        .streams()
        .get_records(&arn, &shard.shard_id, StreamPosition::Latest, 1000)
        .unwrap();
    assert!(end.records.is_empty());
    assert_eq!(end.next_position, None);
    // Bad requests.
    let child = shards(&engine)[1].clone();
    assert!(matches!(
        engine.streams().shard_iterator(
            &arn,
            &child.shard_id,
            StreamPosition::AtSequenceNumber(all[0])
        ),
        Err(StreamError::SequenceNumberOutsideShard { .. })
    ));
    assert!(matches!(
        engine.streams().shard_iterator(
            &arn,
            "shardId-00000000000000000000-00000000",
            StreamPosition::TrimHorizon
        ),
        Err(StreamError::ShardNotFound { .. })
    ));
    assert!(matches!(
        engine.streams().describe_stream("arn:aws:dynamodb:ddblocal:000000000000:table/SessionData/stream/2000-01-01T00:00:00.000"),
        Err(StreamError::StreamNotFound { .. })
    ));
    assert!(matches!(
        engine.streams().describe_stream("not-an-arn"),
        Err(StreamError::InvalidStreamArn { .. })
    ));
}

#[test]
fn disabling_closes_the_shard_and_enabling_makes_a_new_stream() {
    let (_dir, _clock, engine) = setup(StreamViewType::KeysOnly);
    put(&engine, 0..2);
    let first = engine.streams().latest_stream(TABLE).unwrap().unwrap();
    assert!(first.stream_arn.starts_with(
        "arn:aws:dynamodb:ddblocal:000000000000:table/SessionData/stream/2023-11-14T22:13:20.000"
    ));
    assert!(matches!(
        engine
            .dynamodb()
            .update_stream(TABLE, Some(StreamViewType::NewImage)),
        Err(TableError::Invalid { .. })
    ));
    engine.dynamodb().update_stream(TABLE, None).unwrap();
    assert!(matches!(
        engine.dynamodb().update_stream(TABLE, None),
        Err(TableError::Invalid { .. })
    ));
    assert_eq!(
        engine
            .dynamodb()
            .describe_table(TABLE)
            .unwrap()
            .stream_view_type,
        None
    );
    let old = engine.streams().describe_stream(&first.stream_arn).unwrap();
    assert_eq!(old.stream_status, StreamStatus::Disabled);
    let (held, drained) = drain_in(&engine, &first.stream_arn, &old.shards[0]);
    assert_eq!(held.len(), 2);
    assert!(drained, "the open shard was closed");
    assert_eq!(
        old.shards[0].sequence_number_range.ending_sequence_number,
        held.last().copied()
    );
    // Writes while disabled make no record.
    put(&engine, 2..3);
    // Re-enabling (same clock millisecond) makes a new stream with a new label.
    engine
        .dynamodb()
        .update_stream(TABLE, Some(StreamViewType::NewAndOldImages))
        .unwrap();
    put(&engine, 3..4);
    let second = engine.streams().latest_stream(TABLE).unwrap().unwrap();
    assert_ne!(second.stream_arn, first.stream_arn);
    assert_eq!(second.stream_label, "2023-11-14T22:13:20.001");
    let streams = engine.streams().list_streams(Some(TABLE)).unwrap();
    assert_eq!(streams, vec![first.clone(), second.clone()]);
    let new = engine
        .streams()
        .describe_stream(&second.stream_arn)
        .unwrap();
    assert_eq!(new.stream_status, StreamStatus::Enabled);
    assert_eq!(new.stream_view_type, StreamViewType::NewAndOldImages);
    assert_eq!(new.shards.len(), 1);
    assert_eq!(new.shards[0].parent_shard_id, None);
    let seqs = drain(&engine, &new.shards[0]).0;
    assert_eq!(seqs.len(), 1);
    assert!(seqs[0] > held[1]);
    // The old stream is still readable, unchanged.
    assert_eq!(drain_in(&engine, &first.stream_arn, &old.shards[0]).0, held);
    assert!(
        engine
            .streams()
            .list_streams(Some("NoSuchTable"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn rotation_state_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    {
        let engine = open_with(dir.path(), &clock, records_per_shard(3));
        session_table(&engine, StreamViewType::KeysOnly);
        put(&engine, 0..2);
    }
    let engine = open_with(dir.path(), &clock, records_per_shard(3));
    put(&engine, 2..4);
    let shards = shards(&engine);
    assert_eq!(shards.len(), 2, "the count went on from 2 after reopening");
    assert_eq!(drain(&engine, &shards[0]).0.len(), 3);
    assert_eq!(drain(&engine, &shards[1]).0.len(), 1);
    drop(engine);
    // A disabled stream stays disabled and closed after a reopen.
    let engine = open_with(dir.path(), &clock, records_per_shard(3));
    engine.dynamodb().update_stream(TABLE, None).unwrap();
    drop(engine);
    let engine = open_with(dir.path(), &clock, records_per_shard(3));
    let d = engine.streams().describe_stream(&arn(&engine)).unwrap();
    assert_eq!(d.stream_status, StreamStatus::Disabled);
    assert!(
        d.shards
            .iter()
            .all(|s| s.sequence_number_range.ending_sequence_number.is_some())
    );
}

#[test]
fn deleting_a_table_leaves_its_stream_disabled_and_readable() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let stream = {
        let engine = open_with(dir.path(), &clock, StreamOptions::default());
        session_table(&engine, StreamViewType::KeysOnly);
        put(&engine, 0..2);
        let stream = engine.streams().latest_stream(TABLE).unwrap().unwrap();
        engine.dynamodb().delete_table(TABLE).unwrap();
        stream
    };
    // After a reopen a new table of the same name gets a new stream; the
    // old one is DISABLED, closed and still holds its records.
    let engine = open_with(dir.path(), &clock, StreamOptions::default());
    session_table(&engine, StreamViewType::KeysOnly);
    put(&engine, 5..6);
    let old = engine
        .streams()
        .describe_stream(&stream.stream_arn)
        .unwrap();
    assert_eq!(old.stream_status, StreamStatus::Disabled);
    let (held, drained) = drain_in(&engine, &stream.stream_arn, &old.shards[0]);
    assert_eq!((held.len(), drained), (2, true));
    let new = engine.streams().latest_stream(TABLE).unwrap().unwrap();
    assert_ne!(new.stream_arn, stream.stream_arn);
    let shard = &engine
        .streams()
        .describe_stream(&new.stream_arn)
        .unwrap()
        .shards[0];
    let (seqs, _) = drain_in(&engine, &new.stream_arn, shard);
    assert_eq!(
        seqs.len(),
        1,
        "the new table's stream holds only its own record"
    );
    assert_eq!(
        engine
            .dynamodb()
            .read_stream(TABLE, StreamPosition::TrimHorizon, 10)
            .unwrap()
            .len(),
        1,
        "the new table does not inherit the old table's records"
    );
}
