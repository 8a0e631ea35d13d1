//! Public-API tests of secondary indexes: maintained atomically with the
//! item on put, update, delete and TTL deletion; sparse; projections;
//! Query and Scan on an index ("Global secondary indexes", "Local
//! secondary indexes").
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use ttlstream_engine::{
    AttributeValue, Engine, GlobalSecondaryIndex, ManualClock, Projection, QueryInput, ReadError,
    ScalarAttributeType, ScanInput, StreamViewType, TableDefinition, TableError,
    TimeToLiveSpecification, UpdateItemInput, WriteError,
};

fn table(engine: &Engine) {
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "UserName", ScalarAttributeType::S)
                .with_sort_key("SessionId", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages)
                .with_global_secondary_index(
                    GlobalSecondaryIndex::new("ByDevice", "Device", ScalarAttributeType::S)
                        .with_sort_key(TTL_ATTR, ScalarAttributeType::N),
                )
                .with_global_secondary_index(
                    GlobalSecondaryIndex::new("ByRegion", "Region", ScalarAttributeType::S)
                        .with_projection(Projection::KeysOnly),
                )
                .with_local_secondary_index(
                    "ByStarted",
                    "Started",
                    ScalarAttributeType::N,
                    Projection::Include(vec!["Data".into()]),
                ),
        )
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
}

fn row(user: &str, session: &str, device: Option<&str>, expiry: i64) -> ttlstream_engine::Item {
    let mut i = item(&[
        ("UserName", s(user)),
        ("SessionId", s(session)),
        (TTL_ATTR, n(expiry)),
        ("Region", s("eu")),
        ("Started", n(expiry - 1000)),
        ("Data", s("payload")),
        ("Other", s("not projected")),
    ]);
    if let Some(d) = device {
        i.insert("Device".into(), s(d));
    }
    i
}

fn query_index(
    engine: &Engine,
    index: &str,
    kc: &str,
    v: AttributeValue,
) -> Vec<ttlstream_engine::Item> {
    let mut q = QueryInput::new(TABLE, kc);
    q.index_name = Some(index.into());
    q.expression_attribute_values = HashMap::from([(":v".to_string(), v)]);
    engine.dynamodb().query_with(q).unwrap().items
}

#[test]
fn index_follows_put_update_delete_and_is_sparse() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    table(&engine);
    engine
        .dynamodb()
        .put_item(TABLE, row("alice", "s2", Some("phone"), START_SECS + 200))
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, row("bob", "s1", Some("phone"), START_SECS + 100))
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, row("carol", "s1", None, START_SECS + 100))
        .unwrap();
    // Sort-key order of the index (expiry), sparse (carol has no Device).
    let phones = query_index(&engine, "ByDevice", "Device = :v", s("phone"));
    let users: Vec<_> = phones.iter().map(|i| i.get("UserName").cloned()).collect();
    assert_eq!(users, [Some(s("bob")), Some(s("alice"))]);
    assert_eq!(phones[0].get("Other"), Some(&s("not projected"))); // ALL
    // KEYS_ONLY and INCLUDE projections.
    let mut q = QueryInput::new(TABLE, "#r = :v");
    q.index_name = Some("ByRegion".into());
    q.expression_attribute_names = HashMap::from([("#r".to_string(), "Region".to_string())]);
    q.expression_attribute_values = HashMap::from([(":v".to_string(), s("eu"))]);
    let eu = engine.dynamodb().query_with(q).unwrap().items;
    assert_eq!(eu.len(), 3);
    assert!(eu.iter().all(|i| i.len() == 3 && !i.contains_key("Data")));
    let lsi = query_index(&engine, "ByStarted", "UserName = :v", s("alice"));
    assert_eq!(lsi.len(), 1);
    assert!(lsi[0].contains_key("Data") && !lsi[0].contains_key("Other"));
    // Update moves the entry; delete removes it.
    engine
        .dynamodb()
        .update_item_with(UpdateItemInput {
            table_name: TABLE.into(),
            key: item(&[("UserName", s("bob")), ("SessionId", s("s1"))]),
            update_expression: Some("SET Device = :d".into()),
            expression_attribute_values: HashMap::from([(":d".to_string(), s("laptop"))]),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        query_index(&engine, "ByDevice", "Device = :v", s("phone")).len(),
        1
    );
    assert_eq!(
        query_index(&engine, "ByDevice", "Device = :v", s("laptop")).len(),
        1
    );
    engine
        .dynamodb()
        .delete_item(
            TABLE,
            &item(&[("UserName", s("alice")), ("SessionId", s("s2"))]),
        )
        .unwrap();
    assert!(query_index(&engine, "ByDevice", "Device = :v", s("phone")).is_empty());
    // A mistyped index key attribute is rejected, nothing written.
    let mut bad = row("dave", "s1", None, START_SECS);
    bad.insert("Device".into(), n(1));
    assert!(matches!(
        engine.dynamodb().put_item(TABLE, bad),
        Err(WriteError::Validation { .. })
    ));
    // Unknown index.
    let mut q = QueryInput::new(TABLE, "Device = :v");
    q.index_name = Some("Nope".into());
    q.expression_attribute_values = HashMap::from([(":v".to_string(), s("x"))]);
    assert!(matches!(
        engine.dynamodb().query_with(q),
        Err(ReadError::Validation { .. })
    ));
}

#[test]
fn ttl_deletion_removes_index_entries_in_the_same_batch() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    {
        let engine = open(dir.path(), &clock);
        table(&engine);
        engine
            .dynamodb()
            .put_item(TABLE, row("alice", "s1", Some("phone"), START_SECS + 10))
            .unwrap();
        engine
            .dynamodb()
            .put_item(TABLE, row("bob", "s1", Some("phone"), START_SECS + 1000))
            .unwrap();
        clock.advance(Duration::from_secs(11));
        assert_eq!(
            query_index(&engine, "ByDevice", "Device = :v", s("phone")).len(),
            2
        );
        assert_eq!(engine.sweep_now().unwrap().deleted, 1);
        let left = query_index(&engine, "ByDevice", "Device = :v", s("phone"));
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].get("UserName"), Some(&s("bob")));
        assert_eq!(
            query_index(&engine, "ByStarted", "UserName = :v", s("alice")).len(),
            0
        );
        engine.close().unwrap();
    }
    // Index definitions and entries survive a reopen.
    let engine = open(dir.path(), &clock);
    let scan = engine
        .dynamodb()
        .scan_with(ScanInput {
            table_name: TABLE.into(),
            index_name: Some("ByRegion".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(scan.items.len(), 1);
    assert_eq!(
        engine
            .dynamodb()
            .describe_table(TABLE)
            .unwrap()
            .global_secondary_indexes
            .len(),
        2
    );
}

#[test]
fn index_pagination_and_invalid_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    table(&engine);
    for i in 0..5 {
        engine
            .dynamodb()
            .put_item(
                TABLE,
                row(&format!("u{i}"), "s", Some("phone"), START_SECS + i),
            )
            .unwrap();
    }
    let mut start = None;
    let mut seen = 0;
    loop {
        let mut q = QueryInput::new(TABLE, "Device = :v");
        q.index_name = Some("ByDevice".into());
        q.expression_attribute_values = HashMap::from([(":v".to_string(), s("phone"))]);
        q.limit = Some(2);
        q.exclusive_start_key = start.take();
        let out = engine.dynamodb().query_with(q).unwrap();
        seen += out.items.len();
        match out.last_evaluated_key {
            Some(k) => start = Some(k),
            None => break,
        }
    }
    assert_eq!(seen, 5);
    let lsi_without_sort_key = TableDefinition::new("NoSort", "pk", ScalarAttributeType::S)
        .with_local_secondary_index("ByX", "x", ScalarAttributeType::S, Projection::All);
    assert!(matches!(
        engine.dynamodb().create_table(lsi_without_sort_key),
        Err(TableError::Invalid { .. })
    ));
    let clash =
        TableDefinition::new("Clash", "pk", ScalarAttributeType::S).with_global_secondary_index(
            GlobalSecondaryIndex::new("ByPk", "pk", ScalarAttributeType::N),
        );
    assert!(matches!(
        engine.dynamodb().create_table(clash),
        Err(TableError::Invalid { .. })
    ));
}

#[test]
fn enabling_ttl_on_a_table_with_expired_items_deletes_them() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "UserName", ScalarAttributeType::S)
                .with_stream(StreamViewType::KeysOnly),
        )
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, session("old", START_SECS - 3600))
        .unwrap();
    engine
        .dynamodb()
        .put_item(TABLE, session("future", START_SECS + 3600))
        .unwrap();
    assert_eq!(engine.sweep_now().unwrap().deleted, 0); // TTL not enabled yet
    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
    assert_eq!(engine.sweep_now().unwrap().deleted, 1);
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("old"))
            .unwrap()
            .is_none()
    );
    assert!(
        engine
            .dynamodb()
            .get_item(TABLE, &key("future"))
            .unwrap()
            .is_some()
    );
    let records = engine
        .dynamodb()
        .read_stream(TABLE, ttlstream_engine::StreamPosition::TrimHorizon, 10)
        .unwrap();
    assert!(records.last().unwrap().is_ttl_delete());
}
