//! Tablestore model: options, version window, visibility, sweeper.
#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::tablestore::{
    PutColumn, ReadOptions, TablestoreOptions, TablestoreTableDefinition, TimeRange,
};
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, EventName, Item, ManualClock, ScalarAttributeType,
    StreamPosition, StreamViewType, TableError, WriteError,
};

const NOW: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

fn setup(options: TablestoreOptions) -> (tempfile::TempDir, Arc<ManualClock>, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(NOW));
    let engine = Engine::open(
        dir.path(),
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    engine
        .tablestore()
        .create_table(
            TablestoreTableDefinition::new("T", "id", ScalarAttributeType::S)
                .with_options(options)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .unwrap();
    (dir, clock, engine)
}

fn pk(id: &str) -> Item {
    HashMap::from([("id".to_string(), AttributeValue::S(id.into()))]).into()
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn ttl_day(max_versions: u32) -> TablestoreOptions {
    TablestoreOptions {
        time_to_live_secs: 86_400,
        max_versions,
        max_time_deviation_secs: 86_400,
    }
}

#[test]
fn invalid_options_name_the_option_and_range() {
    let (_d, _c, engine) = setup(TablestoreOptions::default());
    let err = engine
        .tablestore()
        .update_table_options("T", TablestoreOptions::with_time_to_live_secs(100))
        .unwrap_err();
    assert!(
        matches!(&err, TableError::Invalid { message, .. } if message.contains("time_to_live") && message.contains("86400"))
    );
    let err = engine
        .tablestore()
        .update_table_options(
            "T",
            TablestoreOptions {
                max_versions: 0,
                ..TablestoreOptions::default()
            },
        )
        .unwrap_err();
    assert!(
        matches!(&err, TableError::Invalid { message, .. } if message.contains("max_versions") && message.contains("at least 1"))
    );
}

#[test]
fn version_outside_window_is_rejected_naming_column_and_range() {
    let (_d, _c, engine) = setup(ttl_day(1));
    let err = engine
        .tablestore()
        .put_row("T", pk("a"), vec![PutColumn::at("col", n(1), NOW + DAY)])
        .unwrap_err();
    let expected = format!("[{}, {}) ms", NOW - DAY, NOW + DAY);
    assert!(
        matches!(&err, WriteError::Validation { message, .. } if message.contains("column `col`") && message.contains(&expected)),
        "{err}"
    );
    let err = engine
        .tablestore()
        .put_row(
            "T",
            pk("a"),
            vec![PutColumn::at("col", n(1), NOW - DAY - 1)],
        )
        .unwrap_err();
    assert!(matches!(err, WriteError::Validation { .. }));
    engine
        .tablestore()
        .put_row("T", pk("a"), vec![PutColumn::at("col", n(1), NOW - DAY)])
        .unwrap();
}

#[test]
fn expired_versions_are_hidden_before_deletion() {
    let (_d, clock, engine) = setup(ttl_day(1));
    engine
        .tablestore()
        .put_row("T", pk("a"), vec![PutColumn::new("col", n(1))])
        .unwrap();
    clock.advance(Duration::from_millis(DAY as u64 + 1));
    assert_eq!(
        engine
            .tablestore()
            .get_row("T", &pk("a"), ReadOptions::default())
            .unwrap(),
        None
    );
    assert!(
        engine
            .tablestore()
            .scan_rows("T", ReadOptions::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn reads_hide_versions_beyond_max_versions_and_can_ask_for_several() {
    let (_d, _c, engine) = setup(ttl_day(2));
    let cols = vec![
        PutColumn::at("col", n(1), NOW - 3),
        PutColumn::at("col", n(2), NOW - 2),
        PutColumn::at("col", n(3), NOW - 1),
    ];
    engine.tablestore().put_row("T", pk("a"), cols).unwrap();
    let read = ReadOptions {
        max_versions: 10,
        time_range: None,
    };
    let row = engine
        .tablestore()
        .get_row("T", &pk("a"), read)
        .unwrap()
        .unwrap();
    let got: Vec<i64> = row.columns["col"]
        .iter()
        .map(|c| c.version_millis)
        .collect();
    assert_eq!(got, vec![NOW - 1, NOW - 2]);
    let one = engine
        .tablestore()
        .get_row("T", &pk("a"), ReadOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!(one.columns["col"].len(), 1);
    let ranged = ReadOptions {
        max_versions: 10,
        time_range: Some(TimeRange {
            start_millis: NOW - 2,
            end_millis: NOW - 1,
        }),
    };
    let row = engine
        .tablestore()
        .get_row("T", &pk("a"), ranged)
        .unwrap()
        .unwrap();
    assert_eq!(row.columns["col"].len(), 1);
    assert_eq!(row.columns["col"][0].value, n(2));
}

#[test]
fn raising_ttl_reveals_versions_not_yet_deleted() {
    let (_d, clock, engine) = setup(ttl_day(1));
    engine
        .tablestore()
        .put_row("T", pk("a"), vec![PutColumn::new("col", n(1))])
        .unwrap();
    clock.advance(Duration::from_millis(2 * DAY as u64));
    assert!(
        engine
            .tablestore()
            .get_row("T", &pk("a"), ReadOptions::default())
            .unwrap()
            .is_none()
    );
    engine
        .tablestore()
        .update_table_options(
            "T",
            TablestoreOptions {
                time_to_live_secs: 5 * 86_400,
                ..ttl_day(1)
            },
        )
        .unwrap();
    let row = engine
        .tablestore()
        .get_row("T", &pk("a"), ReadOptions::default())
        .unwrap();
    assert!(row.is_some());
}

#[test]
fn sweeper_deletes_fully_expired_row_with_one_system_record() {
    let (_d, clock, engine) = setup(ttl_day(1));
    engine
        .tablestore()
        .put_row("T", pk("a"), vec![PutColumn::new("col", n(1))])
        .unwrap();
    engine
        .tablestore()
        .put_row(
            "T",
            pk("b"),
            vec![PutColumn::at("col", n(1), NOW + 10 * 3_600_000)],
        )
        .unwrap();
    clock.advance(Duration::from_millis(DAY as u64 + 1));
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    let records = engine
        .tablestore()
        .read_stream("T", StreamPosition::TrimHorizon, 10)
        .unwrap();
    let removes: Vec<_> = records
        .iter()
        .filter(|r| r.event_name == EventName::Remove)
        .collect();
    assert_eq!(removes.len(), 1);
    assert!(removes[0].is_ttl_delete());
    assert_eq!(removes[0].keys, pk("a"));
    assert!(
        engine
            .tablestore()
            .get_row("T", &pk("b"), ReadOptions::default())
            .unwrap()
            .is_some()
    );
}

#[test]
fn sweeper_prunes_old_versions_without_a_record_and_user_delete_is_untagged() {
    let (_d, _c, engine) = setup(ttl_day(1));
    engine
        .tablestore()
        .put_row(
            "T",
            pk("a"),
            vec![
                PutColumn::at("col", n(1), NOW - 2),
                PutColumn::at("col", n(2), NOW - 1),
            ],
        )
        .unwrap();
    engine
        .tablestore()
        .update_table_options(
            "T",
            TablestoreOptions {
                max_versions: 5,
                ..ttl_day(1)
            },
        )
        .unwrap();
    let read = ReadOptions {
        max_versions: 5,
        time_range: None,
    };
    assert_eq!(
        engine
            .tablestore()
            .get_row("T", &pk("a"), read)
            .unwrap()
            .unwrap()
            .columns["col"]
            .len(),
        2
    );
    engine
        .tablestore()
        .update_table_options("T", ttl_day(1))
        .unwrap();
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    engine
        .tablestore()
        .update_table_options(
            "T",
            TablestoreOptions {
                max_versions: 5,
                ..ttl_day(1)
            },
        )
        .unwrap();
    assert_eq!(
        engine
            .tablestore()
            .get_row("T", &pk("a"), read)
            .unwrap()
            .unwrap()
            .columns["col"]
            .len(),
        1
    );
    assert!(engine.tablestore().delete_row("T", &pk("a")).unwrap());
    let records = engine
        .tablestore()
        .read_stream("T", StreamPosition::TrimHorizon, 10)
        .unwrap();
    assert_eq!(records.len(), 2);
    assert!(records[1].event_name == EventName::Remove && records[1].user_identity.is_none());
}
