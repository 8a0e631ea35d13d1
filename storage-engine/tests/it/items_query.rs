//! Items, key validation and Query order.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use std::sync::Arc;
use ttlstream_engine::{
    AttributeValue, ManualClock, ReadError, ScalarAttributeType, TableDefinition, TableError,
    Update, WriteError,
};

fn events_table() -> (tempfile::TempDir, ttlstream_engine::Engine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path(), &Arc::new(ManualClock::new(START_MILLIS)));
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Events", "device", ScalarAttributeType::S)
                .with_sort_key("at", ScalarAttributeType::N),
        )
        .unwrap();
    (dir, engine)
}

fn sort_values(items: &[ttlstream_engine::Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i.get("at") {
            Some(AttributeValue::N(v)) => v.clone(),
            other => panic!("bad sort key {other:?}"),
        })
        .collect()
}

#[test]
fn query_orders_number_sort_keys_numerically() {
    let (_dir, engine) = events_table();
    let values = [
        "100", "2", "-7.5", "10", "0", "-100", "2.25", "1e3", "0.001", "-0.5",
    ];
    for v in values {
        engine
            .dynamodb()
            .put_item("Events", item(&[("device", s("d1")), ("at", n(v))]))
            .unwrap();
    }
    engine
        .dynamodb()
        .put_item("Events", item(&[("device", s("d2")), ("at", n(5))]))
        .unwrap();
    let got = engine.dynamodb().query("Events", &s("d1")).unwrap();
    assert_eq!(
        sort_values(&got),
        [
            // `1e3` is stored in DynamoDB's canonical form.
            "-100", "-7.5", "-0.5", "0", "0.001", "2", "2.25", "10", "100", "1000"
        ]
    );
    assert_eq!(
        engine.dynamodb().query("Events", &s("d2")).unwrap().len(),
        1
    );
    assert!(
        engine
            .dynamodb()
            .query("Events", &s("d3"))
            .unwrap()
            .is_empty()
    );
    assert_eq!(engine.dynamodb().scan("Events").unwrap().len(), 11);
}

#[test]
fn numerically_equal_sort_keys_are_the_same_item() {
    let (_dir, engine) = events_table();
    engine
        .dynamodb()
        .put_item(
            "Events",
            item(&[("device", s("d")), ("at", n("1")), ("v", n(1))]),
        )
        .unwrap();
    let old = engine
        .dynamodb()
        .put_item(
            "Events",
            item(&[("device", s("d")), ("at", n("1.0")), ("v", n(2))]),
        )
        .unwrap();
    assert!(old.is_some());
    assert_eq!(engine.dynamodb().query("Events", &s("d")).unwrap().len(), 1);
}

#[test]
fn string_sort_keys_sort_bytewise() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path(), &Arc::new(ManualClock::new(0)));
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("T_S", "pk", ScalarAttributeType::N)
                .with_sort_key("sk", ScalarAttributeType::S),
        )
        .unwrap();
    for v in ["b", "a", "B", "ab", "a\u{0}"] {
        engine
            .dynamodb()
            .put_item("T_S", item(&[("pk", n(1)), ("sk", s(v))]))
            .unwrap();
    }
    let got: Vec<String> = engine
        .dynamodb()
        .query("T_S", &n("1.0"))
        .unwrap()
        .iter()
        .map(|i| match i.get("sk") {
            Some(AttributeValue::S(v)) => v.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(got, ["B", "a", "a\u{0}", "ab", "b"]);
}

#[test]
fn key_validation_names_table_and_attribute() {
    let (_dir, engine) = events_table();
    let err = engine
        .dynamodb()
        .put_item("Events", item(&[("device", s("d"))]))
        .unwrap_err();
    assert!(
        matches!(&err, WriteError::Validation { table, message } if table == "Events" && message.contains("Missing the key at in the item")),
        "{err}"
    );
    let err = engine
        .dynamodb()
        .put_item("Events", item(&[("device", n(1)), ("at", n(1))]))
        .unwrap_err();
    assert!(
        matches!(&err, WriteError::Validation { message, .. } if message.contains("Type mismatch for key device expected: S actual: N"))
    );
    let err = engine
        .dynamodb()
        .put_item("Events", item(&[("device", s("d")), ("at", n("NaN"))]))
        .unwrap_err();
    assert!(matches!(err, WriteError::Validation { .. }));
    let err = engine.dynamodb().put_item("Nope", item(&[])).unwrap_err();
    assert!(matches!(err, WriteError::TableNotFound { table } if table == "Nope"));
    let err = engine
        .dynamodb()
        .get_item("Events", &item(&[("device", s("d"))]))
        .unwrap_err();
    assert!(matches!(err, ReadError::Validation { .. }));
    let err = engine.dynamodb().query("Events", &n(1)).unwrap_err();
    assert!(matches!(err, ReadError::Validation { .. }));
    // A bad item in a bulk put writes nothing.
    let err = engine
        .dynamodb()
        .put_items(
            "Events",
            vec![
                item(&[("device", s("d")), ("at", n(1))]),
                item(&[("device", s("d"))]),
            ],
        )
        .unwrap_err();
    assert!(matches!(&err, WriteError::Validation { message, .. } if message.contains("item 1")));
    assert!(engine.dynamodb().scan("Events").unwrap().is_empty());
}

#[test]
fn update_is_an_upsert_and_protects_key_attributes() {
    let (_dir, engine) = events_table();
    let k = item(&[("device", s("d")), ("at", n(1))]);
    let created = engine
        .dynamodb()
        .update_item(
            "Events",
            &k,
            Update::default().set("v", n(1)).set("w", s("x")),
        )
        .unwrap();
    assert_eq!(created.len(), 4);
    let updated = engine
        .dynamodb()
        .update_item("Events", &k, Update::default().set("v", n(2)).remove("w"))
        .unwrap();
    assert_eq!(updated.get("v"), Some(&n(2)));
    assert!(!updated.contains_key("w"));
    assert_eq!(
        engine.dynamodb().get_item("Events", &k).unwrap(),
        Some(updated)
    );
    let err = engine
        .dynamodb()
        .update_item("Events", &k, Update::default().set("at", n(5)))
        .unwrap_err();
    assert!(matches!(&err, WriteError::Validation { message, .. } if message.contains("`at`")));
    let err = engine
        .dynamodb()
        .update_item("Events", &k, Update::default().set("v", n(1)).remove("v"))
        .unwrap_err();
    assert!(matches!(err, WriteError::Validation { .. }));
}

#[test]
fn delete_returns_old_item_and_tolerates_missing() {
    let (_dir, engine) = events_table();
    let k = item(&[("device", s("d")), ("at", n(1))]);
    engine.dynamodb().put_item("Events", k.clone()).unwrap();
    assert_eq!(
        engine.dynamodb().delete_item("Events", &k).unwrap(),
        Some(k.clone())
    );
    assert_eq!(engine.dynamodb().delete_item("Events", &k).unwrap(), None);
}

#[test]
fn table_administration() {
    let (_dir, engine) = events_table();
    let err = engine
        .dynamodb()
        .create_table(TableDefinition::new("Events", "x", ScalarAttributeType::S))
        .unwrap_err();
    assert!(matches!(err, TableError::AlreadyExists { table } if table == "Events"));
    let err = engine
        .dynamodb()
        .create_table(TableDefinition::new("a", "x", ScalarAttributeType::S))
        .unwrap_err();
    assert!(matches!(err, TableError::Invalid { .. }));
    engine
        .dynamodb()
        .create_table(TableDefinition::new("Alpha", "x", ScalarAttributeType::B))
        .unwrap();
    assert_eq!(
        engine.dynamodb().list_tables().unwrap(),
        ["Alpha", "Events"]
    );
    assert_eq!(
        engine.dynamodb().describe_time_to_live("Alpha").unwrap(),
        None
    );
    assert!(matches!(
        engine.dynamodb().describe_table("Zed").unwrap_err(),
        TableError::NotFound { .. }
    ));
    let def = engine.dynamodb().describe_table("Events").unwrap();
    assert_eq!(def.sort_key.unwrap().attribute_name, "at");
}
