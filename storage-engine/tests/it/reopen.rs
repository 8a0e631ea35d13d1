//! Durability: close and reopen, and a child process killed with SIGKILL.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::{
    EventName, ManualClock, SequenceNumber, StreamPosition, StreamViewType, TimeToLiveSpecification,
};

#[test]
fn a_directory_open_elsewhere_is_in_use_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let first = open(dir.path(), &clock);
    let second = ttlstream_engine::Engine::open(dir.path(), Default::default());
    match second {
        Err(ttlstream_engine::OpenError::InUse { path }) => {
            assert_eq!(path, dir.path().display().to_string());
        }
        other => panic!("expected InUse, got {:?}", other.map(|_| "an engine")),
    }
    drop(first);
}

#[test]
fn reopen_keeps_items_ttl_settings_stream_and_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let (before, last_seq) = {
        let engine = open(dir.path(), &clock);
        session_table(&engine, StreamViewType::NewAndOldImages);
        engine
            .dynamodb()
            .put_item(TABLE, session("a", START_SECS + 10))
            .unwrap();
        engine
            .dynamodb()
            .put_item(TABLE, session("b", START_SECS + 1000))
            .unwrap();
        engine
            .dynamodb()
            .put_item(TABLE, session("a", START_SECS + 20))
            .unwrap();
        let records = engine
            .dynamodb()
            .read_stream(TABLE, StreamPosition::TrimHorizon, 100)
            .unwrap();
        let last = engine
            .dynamodb()
            .latest_sequence_number(TABLE)
            .unwrap()
            .unwrap();
        engine.close().unwrap();
        (records, last)
    };
    assert_eq!(before.len(), 3);

    let engine = open(dir.path(), &clock);
    assert_eq!(
        engine.dynamodb().list_tables().unwrap(),
        vec![TABLE.to_string()]
    );
    assert_eq!(
        engine.dynamodb().describe_time_to_live(TABLE).unwrap(),
        Some(TimeToLiveSpecification::enabled(TTL_ATTR))
    );
    assert_eq!(engine.dynamodb().scan(TABLE).unwrap().len(), 2);
    let after = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, 100)
        .unwrap();
    assert_eq!(after, before);
    assert_eq!(
        engine.dynamodb().latest_sequence_number(TABLE).unwrap(),
        Some(last_seq)
    );

    // New records continue the sequence; the sweeper works after reopen.
    engine
        .dynamodb()
        .put_item(TABLE, session("c", START_SECS + 5))
        .unwrap();
    clock.advance(Duration::from_secs(30));
    assert_eq!(engine.sweep_now().unwrap().deleted, 2);
    let new = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::AfterSequenceNumber(last_seq), 100)
        .unwrap();
    assert_eq!(new.len(), 3);
    assert!(new.iter().all(|r| r.sequence_number > last_seq));
    assert!(
        new.windows(2)
            .all(|w| w[0].sequence_number < w[1].sequence_number)
    );
    assert_eq!(new[0].event_name, EventName::Insert);
    assert_eq!(new.iter().filter(|r| r.is_ttl_delete()).count(), 2);
    let users: Vec<String> = engine
        .dynamodb()
        .scan(TABLE)
        .unwrap()
        .iter()
        .map(user_of)
        .collect();
    assert_eq!(users, vec!["b".to_string()]);
}

#[test]
fn sequence_numbers_are_engine_wide_and_recovered_across_tables() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    {
        let engine = open(dir.path(), &clock);
        session_table(&engine, StreamViewType::KeysOnly);
        engine
            .dynamodb()
            .create_table(
                ttlstream_engine::TableDefinition::new(
                    "Other",
                    "id",
                    ttlstream_engine::ScalarAttributeType::N,
                )
                .with_stream(StreamViewType::KeysOnly),
            )
            .unwrap();
        engine.dynamodb().put_item(TABLE, session("a", 1)).unwrap();
        engine
            .dynamodb()
            .put_item("Other", item(&[("id", n(1))]))
            .unwrap();
        engine
            .dynamodb()
            .put_item("Other", item(&[("id", n(2))]))
            .unwrap();
    }
    let engine = open(dir.path(), &clock);
    engine.dynamodb().put_item(TABLE, session("b", 1)).unwrap();
    let seqs: Vec<SequenceNumber> = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, 10)
        .unwrap()
        .iter()
        .map(|r| r.sequence_number)
        .collect();
    // 1 and 2 are the two streams' reserved starts (their first shards'
    // StartingSequenceNumber); 3 is "a", 4 and 5 are Other's, 6 is "b".
    assert_eq!(seqs, vec![SequenceNumber(3), SequenceNumber(6)]);
}

/// Child half of `acknowledged_writes_survive_sigkill`: writes forever,
/// printing each acknowledged key. Does nothing unless run by the parent.
#[test]
fn sigkill_child_writer() {
    let Ok(dir) = std::env::var("TTLSTREAM_ENGINE_KILL_DIR") else {
        return;
    };
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(std::path::Path::new(&dir), &clock);
    session_table(&engine, StreamViewType::NewImage);
    for i in 0.. {
        engine
            .dynamodb()
            .put_item(TABLE, session(&format!("k{i}"), START_SECS + 10))
            .unwrap();
        println!("ACK k{i}");
    }
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "reopen::sigkill_child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TTLSTREAM_ENGINE_KILL_DIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut acked = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(k) = line.strip_prefix("ACK ") {
            acked.push(k.to_string());
            if acked.len() == 300 {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    assert_eq!(acked.len(), 300, "child did not acknowledge enough writes");

    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    for k in &acked {
        assert!(
            engine
                .dynamodb()
                .get_item(TABLE, &key(k))
                .unwrap()
                .is_some(),
            "{k} lost"
        );
    }
    let records = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    assert!(records.len() >= acked.len());
    // The sweeper resumes on the recovered data.
    clock.advance(Duration::from_secs(11));
    let deleted = engine.sweep_now().unwrap().deleted;
    assert!(deleted as usize >= acked.len());
    assert!(engine.dynamodb().scan(TABLE).unwrap().is_empty());
}
