//! Unit tests of the DynamoDB model's sweep (`sweep.rs`): expiry order, stored
//! removals against decoded ones, the swept floor, stale index entries.

#![allow(clippy::unwrap_used)]
use super::*;
use crate::storage::{expiry_key, item_key};
use crate::sweeper::pass::PassLimits;
use crate::testing::{engine_with_table, item};
use crate::{AttributeValue, Item, ScalarAttributeType, TableDefinition};
use std::collections::HashMap;

/// A pass without limits, deleting `batch` items per atomic batch.
fn unbounded(batch: usize) -> PassLimits {
    PassLimits {
        max_deletes: None,
        max_indexed: None,
        batch,
        first: 0,
    }
}

#[test]
fn batches_follow_expiry_order_and_delete_in_key_order_within() {
    let dir = tempfile::tempdir().unwrap();
    let table = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S)
        .with_stream(crate::StreamViewType::KeysOnly);
    let (engine, clock) = engine_with_table(dir.path(), table);
    // Expiries run against key order: d first, a last.
    for (pk, ttl) in [("a", 1_040), ("b", 1_030), ("c", 1_020), ("d", 1_010)] {
        engine.dynamodb().put_item("Tbl", item(pk, ttl)).unwrap();
    }
    clock.advance(std::time::Duration::from_secs(100));
    let position = crate::StreamPosition::TrimHorizon;
    let before = engine
        .dynamodb()
        .read_stream("Tbl", position, usize::MAX)
        .unwrap()
        .len();

    // Two batches of two: {d, c} (the earliest expiries), then {b, a}.
    assert_eq!(engine.sweep(unbounded(2)).unwrap().report.deleted, 4);
    let removed: Vec<AttributeValue> = engine
        .dynamodb()
        .read_stream("Tbl", position, usize::MAX)
        .unwrap()
        .into_iter()
        .skip(before)
        .map(|r| r.keys["pk"].clone())
        .collect();
    let expected = ["c", "d", "a", "b"].map(|k| AttributeValue::S(k.into()));
    assert_eq!(removed, expected);
}

/// A keyspace's entries, in key order.
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// Every entry of `ks`, in key order.
fn dump(ks: &fjall::Keyspace) -> Entries {
    ks.iter()
        .map(|g| {
            let (k, v) = g.into_inner().unwrap();
            (k.to_vec(), v.to_vec())
        })
        .collect()
}

/// The items, expiry entries and the sweep's own stream records left by
/// sweeping `items` (plus `ghosts`, stale expiry entries of missing
/// items) on a fresh engine, decoding every item when `strict`.
///
/// The records written while `items` are put are checked to be left as
/// they were, but not returned: a put that replaces an item writes its
/// MODIFY record's OldImage from the decoded item, a `HashMap`, so the
/// order of its attributes differs from one engine to the next (both
/// are the same DynamoDB map).
fn swept_state(
    view: crate::StreamViewType,
    sorted: bool,
    items: &[Item],
    ghosts: &[(String, i64)],
    batch: usize,
    strict: bool,
) -> (u64, [Entries; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let mut table = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S).with_stream(view);
    if sorted {
        table = table.with_sort_key("sk", ScalarAttributeType::N);
    }
    let (engine, clock) = engine_with_table(dir.path(), table);
    for item in items {
        engine.dynamodb().put_item("Tbl", item.clone()).unwrap();
    }
    let meta = engine.dynamodb().table_meta("Tbl").unwrap();
    let store = &engine.inner.store;
    for (pk, secs) in ghosts {
        let mut key = Vec::new();
        crate::storage::key::encode_key_value(
            ScalarAttributeType::S,
            &AttributeValue::S(pk.clone()),
            &mut key,
        )
        .unwrap();
        store
            .expiry
            .insert(expiry_key(meta.id, *secs, &key), b"")
            .unwrap();
    }
    let before = dump(&store.stream);
    clock.advance(std::time::Duration::from_secs(1));
    STRICT_SWEEP.set(strict);
    let deleted = engine.sweep(unbounded(batch)).unwrap().report.deleted;
    STRICT_SWEEP.set(false);
    let (kept, swept): (Entries, Entries) = dump(&store.stream)
        .into_iter()
        .partition(|entry| before.binary_search(entry).is_ok());
    assert_eq!(kept, before, "the sweep changed records written before it");
    (deleted, [dump(&store.items), dump(&store.expiry), swept])
}

fn arb_value() -> impl proptest::strategy::Strategy<Value = AttributeValue> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        "\\PC{0,12}".prop_map(AttributeValue::S),
        (-10_000i64..10_000).prop_map(|n| AttributeValue::N(n.to_string())),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(AttributeValue::B),
        any::<bool>().prop_map(AttributeValue::Bool),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(AttributeValue::L),
            proptest::collection::hash_map("[a-z]{1,4}", inner, 0..3).prop_map(AttributeValue::M),
        ]
    })
}

/// An item of `Tbl` at 1,000 s: its TTL due (990 to 1,000 s, some
/// fractional), in the future, of another type, or absent.
fn arb_item() -> impl proptest::strategy::Strategy<Value = Item> {
    use proptest::prelude::*;
    let ttl = prop_oneof![
        (990i64..1_000).prop_map(|s| Some(AttributeValue::N(s.to_string()))),
        (990i64..1_000).prop_map(|s| Some(AttributeValue::N(format!("00{s}.75")))),
        (1_001i64..1_100).prop_map(|s| Some(AttributeValue::N(s.to_string()))),
        (990i64..1_000).prop_map(|s| Some(AttributeValue::S(s.to_string()))),
        Just(None),
    ];
    (
        "\\PC{1,6}",
        -5i64..5,
        ttl,
        proptest::collection::hash_map("[a-z]{1,5}", arb_value(), 0..4),
    )
        .prop_map(|(pk, sk, ttl, extra)| {
            let mut item: HashMap<String, AttributeValue> = extra;
            item.insert("pk".into(), AttributeValue::S(pk));
            item.insert("sk".into(), AttributeValue::N(sk.to_string()));
            match ttl {
                Some(v) => item.insert("ttl".into(), v),
                None => item.remove("ttl"),
            };
            item.into()
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// A TTL deletion staged from the stored bytes leaves the same
    /// items, expiry entries and stream records, byte for byte, as one
    /// staged from the decoded item, in every stream view, with and
    /// without a sort key, with stale entries among them. (Records of
    /// the puts before the sweep are only checked to be kept; see
    /// `swept_state`.)
    #[test]
    fn stored_removals_match_decoded_removals(
        view in proptest::sample::select(vec![
            crate::StreamViewType::KeysOnly,
            crate::StreamViewType::NewImage,
            crate::StreamViewType::OldImage,
            crate::StreamViewType::NewAndOldImages,
        ]),
        sorted in proptest::prelude::any::<bool>(),
        items in proptest::collection::vec(arb_item(), 1..12),
        ghosts in proptest::collection::vec(("\\PC{1,6}", 990i64..1_000), 0..3),
        batch in 1usize..5,
    ) {
        let strict = swept_state(view, sorted, &items, &ghosts, batch, true);
        let stored = swept_state(view, sorted, &items, &ghosts, batch, false);
        proptest::prop_assert_eq!(stored, strict);
    }
}

#[test]
fn a_pass_starts_at_the_swept_floor_and_finds_what_was_written_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let table = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S)
        .with_stream(crate::StreamViewType::KeysOnly);
    let (engine, clock) = engine_with_table(dir.path(), table);
    let items = (0..30).map(|i| item(&format!("k{i:02}"), 1_050)).collect();
    engine.dynamodb().put_items("Tbl", items).unwrap();
    clock.advance(std::time::Duration::from_secs(100)); // 1,100 s
    let pass = |max| {
        let limits = PassLimits {
            max_deletes: Some(max),
            max_indexed: None,
            batch: 4,
            first: 0,
        };
        engine.sweep(limits).unwrap().report.deleted
    };
    assert_eq!(pass(10), 10);
    let id = engine.dynamodb().table_meta("Tbl").unwrap().id;
    let floor = engine.dynamodb.swept_floors.get(id).unwrap();
    // Written behind the floor between two passes: below it, and at the
    // key the last pass deleted last.
    engine.dynamodb().put_item("Tbl", item("a", 1_020)).unwrap();
    engine
        .dynamodb()
        .put_item("Tbl", item("k09", 1_050))
        .unwrap();
    assert!(engine.dynamodb.swept_floors.get(id).unwrap() < floor);
    assert_eq!(pass(100), 22);
    assert!(engine.dynamodb().scan("Tbl").unwrap().is_empty());
    // Nothing left in the window: the next pass starts at its end.
    assert_eq!(pass(100), 0);
    let end = crate::storage::expiry_bound(id, 1_100);
    assert_eq!(engine.dynamodb.swept_floors.get(id), Some(end));
}

#[test]
fn stale_index_entries_are_removed_without_deleting_items() {
    let dir = tempfile::tempdir().unwrap();
    let table = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S);
    let (engine, _clock) = engine_with_table(dir.path(), table);
    engine
        .dynamodb()
        .put_item("Tbl", item("live", 5_000))
        .unwrap();
    let meta = engine.dynamodb().table_meta("Tbl").unwrap();
    let mut pk = Vec::new();
    crate::storage::key::encode_key_value(
        ScalarAttributeType::S,
        &AttributeValue::S("live".into()),
        &mut pk,
    )
    .unwrap();
    let mut ghost = Vec::new();
    crate::storage::key::encode_key_value(
        ScalarAttributeType::S,
        &AttributeValue::S("ghost".into()),
        &mut ghost,
    )
    .unwrap();
    let store = &engine.inner.store;
    // A stale entry for an existing item (wrong second) and one for a missing item.
    store
        .expiry
        .insert(expiry_key(meta.id, 10, &pk), b"")
        .unwrap();
    store
        .expiry
        .insert(expiry_key(meta.id, 11, &ghost), b"")
        .unwrap();
    assert_eq!(engine.dynamodb().expired_backlog("Tbl").unwrap(), 2);

    assert_eq!(engine.sweep_now().unwrap().deleted, 0);
    assert_eq!(engine.dynamodb().expired_backlog("Tbl").unwrap(), 0);
    assert!(store.items.get(item_key(meta.id, &pk)).unwrap().is_some());
    // The item's real entry (5000 s) is untouched and still works.
    assert!(
        store
            .expiry
            .get(expiry_key(meta.id, 5_000, &pk))
            .unwrap()
            .is_some()
    );
}
