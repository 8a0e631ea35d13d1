//! Unit tests of `ttl_index.rs`: the build, step by step, against writes,
//! TTL changes and a crash between chunks; the purge's are in
//! `ttl_index_purge_tests.rs`, with this file's helpers.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::Engine;
use crate::sweeper::pass::PassLimits;
use crate::{
    AttributeValue, EngineOptions, Item, ManualClock, ScalarAttributeType, StreamPosition,
    StreamViewType, TableDefinition, TimeToLiveSpecification, Update, UserIdentity,
};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

const TABLE: &str = "Tbl";
/// The clock's start, epoch seconds; the items expire a second before.
const NOW_SECS: i64 = 1_000_000;

fn item(pk: &str, ttl: Option<i64>) -> Item {
    let mut item = HashMap::from([("pk".to_string(), AttributeValue::S(pk.into()))]);
    if let Some(ttl) = ttl {
        item.insert("ttl".to_string(), AttributeValue::N(ttl.to_string()));
    }
    item.into()
}

fn key(pk: &str) -> Item {
    item(pk, None)
}

fn enabled() -> TimeToLiveSpecification {
    TimeToLiveSpecification::enabled("ttl")
}

fn disabled() -> TimeToLiveSpecification {
    TimeToLiveSpecification {
        attribute_name: "ttl".into(),
        enabled: false,
    }
}

/// An engine with `Tbl` (key `pk`, a KEYS_ONLY stream, TTL off) holding
/// `k000` to `k099`, all expired at the clock's time.
fn table_of_100(dir: &std::path::Path) -> (Engine, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(NOW_SECS * 1000));
    let engine = open(dir, &clock);
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "pk", ScalarAttributeType::S)
                .with_stream(StreamViewType::KeysOnly),
        )
        .unwrap();
    let items = (0..100)
        .map(|i| item(&format!("k{i:03}"), Some(NOW_SECS - 1)))
        .collect();
    engine.dynamodb().put_items(TABLE, items).unwrap();
    (engine, clock)
}

fn open(dir: &std::path::Path, clock: &Arc<ManualClock>) -> Engine {
    let options = EngineOptions {
        clock: clock.clone(),
        ..Default::default()
    };
    Engine::open(dir, options).unwrap()
}

/// One explicit step: a pass that may delete nothing and index at most
/// `items` items. Returns whether the build is left unfinished.
fn build_step(engine: &Engine, items: usize) -> bool {
    let limits = PassLimits {
        max_deletes: Some(0),
        max_indexed: Some(items),
        batch: 7,
        first: 0,
    };
    let pass = engine.sweep(limits).unwrap();
    assert_eq!(pass.report.deleted, 0);
    pass.more
}

/// The table's expiry entries, as (expiry second, encoded key).
fn index(engine: &Engine) -> BTreeSet<(i64, Vec<u8>)> {
    let id = engine.dynamodb().table_meta(TABLE).unwrap().id;
    let prefix = crate::storage::expiry_table_prefix(id);
    engine
        .inner
        .store
        .expiry
        .prefix(prefix)
        .map(|g| {
            let key = g.key().unwrap();
            let (secs, pk) = crate::storage::decode_expiry_key(&key).unwrap();
            (secs, pk.to_vec())
        })
        .collect()
}

/// The entries the index must hold: one per item with an eligible TTL,
/// derived from the items themselves.
fn derived_index(engine: &Engine) -> BTreeSet<(i64, Vec<u8>)> {
    let meta = engine.dynamodb().table_meta(TABLE).unwrap();
    engine
        .dynamodb()
        .scan(TABLE)
        .unwrap()
        .iter()
        .filter_map(|i| {
            let secs = crate::dynamodb::ttl::item_expiry_epoch_secs(i, meta.ttl_enabled())?;
            Some((
                secs,
                crate::dynamodb::item::primary_key_bytes(&meta.definition, i).unwrap(),
            ))
        })
        .collect()
}

/// Keys of the table's TTL REMOVE records, and how many records it has.
fn ttl_removed(engine: &Engine) -> (Vec<String>, usize) {
    let records = engine
        .dynamodb()
        .read_stream(TABLE, StreamPosition::TrimHorizon, usize::MAX)
        .unwrap();
    let removed = records
        .iter()
        .filter(|r| r.user_identity == Some(UserIdentity::dynamodb_ttl()))
        .map(|r| match &r.keys["pk"] {
            AttributeValue::S(k) => k.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    (removed, records.len())
}

#[test]
fn enabling_returns_before_indexing_and_a_pass_builds_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _clock) = table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    assert!(
        engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert!(index(&engine).is_empty(), "nothing indexed by the call");
    assert!(build_step(&engine, 40));
    assert_eq!(index(&engine).len(), 40);
    assert!(!build_step(&engine, 1_000), "the build is done");
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert_eq!(index(&engine), derived_index(&engine));
}

#[test]
fn enabling_on_an_empty_table_starts_no_build() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(NOW_SECS * 1000));
    let engine = open(dir.path(), &clock);
    let table = TableDefinition::new(TABLE, "pk", ScalarAttributeType::S);
    engine.dynamodb().create_table(table).unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    engine
        .dynamodb()
        .put_item(TABLE, item("k", Some(NOW_SECS - 1)))
        .unwrap();
    assert_eq!(index(&engine), derived_index(&engine));
    assert_eq!(index(&engine).len(), 1);
}

#[test]
fn writes_during_a_build_leave_the_index_the_items_derive() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, clock) = table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    assert!(build_step(&engine, 40)); // k000 to k039 indexed
    let (_, records_before) = ttl_removed(&engine);
    // On each side of the build's marker: an expiry moved to the future,
    // a TTL removed, an item deleted by the user, a new expired item.
    let later = Update::default().set("ttl", AttributeValue::N((NOW_SECS + 3_600).to_string()));
    for k in ["k010", "k060"] {
        engine
            .dynamodb()
            .update_item(TABLE, &key(k), later.clone())
            .unwrap();
    }
    for k in ["k020", "k070"] {
        engine
            .dynamodb()
            .update_item(TABLE, &key(k), Update::default().remove("ttl"))
            .unwrap();
    }
    for k in ["k030", "k080"] {
        engine.dynamodb().delete_item(TABLE, &key(k)).unwrap();
    }
    for k in ["k0005", "k0995"] {
        engine
            .dynamodb()
            .put_item(TABLE, item(k, Some(NOW_SECS - 1)))
            .unwrap();
    }
    let (_, records) = ttl_removed(&engine);
    assert_eq!(
        records,
        records_before + 8,
        "one record per write, none from the build"
    );
    assert!(!build_step(&engine, 1_000), "the build is done");
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert_eq!(index(&engine), derived_index(&engine));

    // The sweep deletes every expired item once, and none whose TTL
    // moved or went.
    clock.advance(Duration::from_secs(1));
    let deleted = engine.sweep_now().unwrap().deleted;
    let (removed, _) = ttl_removed(&engine);
    let expected: BTreeSet<String> = (0..100)
        .map(|i| format!("k{i:03}"))
        .filter(|k| !["k010", "k060", "k020", "k070", "k030", "k080"].contains(&k.as_str()))
        .chain(["k0005".into(), "k0995".into()])
        .collect();
    assert_eq!(deleted as usize, expected.len());
    assert_eq!(removed.len(), expected.len(), "one REMOVE per deletion");
    assert_eq!(removed.into_iter().collect::<BTreeSet<_>>(), expected);
    let left: BTreeSet<String> = engine
        .dynamodb()
        .scan(TABLE)
        .unwrap()
        .iter()
        .map(|i| match &i["pk"] {
            AttributeValue::S(k) => k.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        left,
        ["k010", "k020", "k060", "k070"].map(String::from).into()
    );
}

#[test]
fn disabling_during_a_build_stops_it_and_enabling_again_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, clock) = table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    assert!(build_step(&engine, 30));
    engine
        .dynamodb()
        .update_time_to_live(TABLE, disabled())
        .unwrap();
    assert!(
        !engine
            .dynamodb()
            .time_to_live_index_building(TABLE)
            .unwrap()
    );
    assert_eq!(index(&engine).len(), 30, "the call removes nothing");
    assert!(!build_step(&engine, 1_000), "no build while TTL is off");
    assert!(index(&engine).is_empty(), "the pass purged what was built");
    // Written while TTL is off: no entry, until a build indexes it.
    engine
        .dynamodb()
        .put_item(TABLE, item("k0005", Some(NOW_SECS - 1)))
        .unwrap();
    clock.advance(Duration::from_secs(1));
    assert_eq!(engine.sweep_now().unwrap().deleted, 0);

    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    let meta = engine.dynamodb().table_meta(TABLE).unwrap();
    assert_eq!(
        meta.time_to_live_index_build,
        Some(TtlIndexBuild::default()),
        "from the first item again"
    );
    assert!(!build_step(&engine, 1_000), "the build is done");
    assert_eq!(index(&engine).len(), 101);
    assert_eq!(index(&engine), derived_index(&engine));
    assert_eq!(engine.sweep_now().unwrap().deleted, 101);
}

#[test]
fn a_build_cut_short_by_a_crash_resumes_when_the_engine_is_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, clock) = table_of_100(dir.path());
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    assert!(build_step(&engine, 35));
    engine
        .dynamodb()
        .put_item(TABLE, item("k0995", Some(NOW_SECS - 1)))
        .unwrap();
    // Each chunk is one atomic batch, so a crash leaves the engine as it
    // is between two chunks: as here, closed after the 35th item.
    drop(engine);
    let engine = open(dir.path(), &clock);
    let meta = engine.dynamodb().table_meta(TABLE).unwrap();
    let build = meta.time_to_live_index_build.clone().unwrap();
    let mut k034 = Vec::new();
    crate::storage::key::encode_key_value(
        ScalarAttributeType::S,
        &AttributeValue::S("k034".into()),
        &mut k034,
    )
    .unwrap();
    assert_eq!(build.indexed_through_key, Some(k034));
    assert_eq!(index(&engine).len(), 36, "35 built, 1 written");
    clock.advance(Duration::from_secs(1));
    assert_eq!(engine.sweep_now().unwrap().deleted, 101);
    let (removed, _) = ttl_removed(&engine);
    assert_eq!(removed.len(), 101, "each item deleted once");
    assert!(index(&engine).is_empty());
}

#[test]
fn items_in_other_tables_are_not_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _clock) = table_of_100(dir.path());
    // A table created after `Tbl`: its items follow `Tbl`'s in key order.
    engine
        .dynamodb()
        .create_table(TableDefinition::new("Next", "pk", ScalarAttributeType::S))
        .unwrap();
    engine
        .dynamodb()
        .put_item("Next", item("n", Some(NOW_SECS - 1)))
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, enabled())
        .unwrap();
    assert!(!build_step(&engine, 1_000), "the build is done");
    assert_eq!(index(&engine), derived_index(&engine));
    assert_eq!(index(&engine).len(), 100);
    assert_eq!(engine.dynamodb().expired_backlog("Next").unwrap(), 0);
}

#[path = "ttl_index_purge_tests.rs"]
mod purge;
