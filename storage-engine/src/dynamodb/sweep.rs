//! The DynamoDB model's part of a sweep pass (`sweeper/pass.rs`): finds
//! expired items through the expiry index and deletes them as system deletions ("Using time to live (TTL) in DynamoDB",
//! "DynamoDB Streams and Time to Live").
//!
//! One pass: for each table with TTL enabled, read expiry-index entries in
//! `[now - 5y, now)` (never the table itself), then, under the write lock,
//! re-check each candidate: if the item still exists and its *current* TTL
//! value still gives that same, expired, second, delete the item, its index
//! entry, and append a REMOVE record carrying
//! [`UserIdentity::dynamodb_ttl`]. A stale entry (item gone, or TTL moved or
//! removed by an update) is simply removed. Entries added behind the scan
//! position during a pass (an update moving an expiry earlier) are found by
//! the next pass. Deletions are committed in
//! batches of up to [`SWEEP_CHUNK`](crate::SWEEP_CHUNK) items (or the sweeper's `batch_size`),
//! each batch atomic, so each item is always atomic with its index entry and
//! change record; a crash between batches loses nothing and repeats nothing,
//! because the next pass starts again from the expiry index, which holds
//! exactly the items not yet deleted.
//!
//! Order of the REMOVE records: batches follow the expiry index (a batch
//! holds the earliest expiries not yet swept), but within one batch the
//! items are deleted, and their records numbered, in primary-key order:
//! the point reads and item tombstones then walk the items keyspace in its
//! own order (about 10 % less sweep CPU than expiry order; reading in key
//! order but staging in expiry order gained nothing). DynamoDB states no
//! order: expired items are deleted "on a best-effort basis", "typically
//! within two days of expiration" (UpdateTimeToLive, DynamoDB API
//! Reference); every item of a batch is already expired, and each item's
//! own records stay in order.
//!
//! Reading the item: its bytes are read once. For a table without secondary
//! indexes (whose entries' keys need the decoded item) and whose TTL
//! attribute is not a key attribute, the item is not decoded: the TTL
//! value and the key attributes are located in the bytes
//! (`codec::encoded_attributes`, no allocation) and the deletion is staged
//! from them ([`DynamoDb::stage_stored_removal`](crate::DynamoDb::stage_stored_removal)), the REMOVE record's Keys and
//! OldImage copied from the stored bytes. The entries are the same, byte for
//! byte, as decoding the item and staging through
//! [`DynamoDb::stage_change`](crate::DynamoDb::stage_change) (proptest `stored_removals_match_decoded_removals`
//! below, every stream view, with and without a sort key, stale entries
//! included); corrupt bytes fail the same way. Other tables take that
//! decoding path.
//!

use super::DynamoDb;
use crate::dynamodb::meta::TableMeta;
use crate::dynamodb::table::TimeToLiveSpecification;
use crate::dynamodb::ttl::{
    expired_range_secs, is_expired_at, item_expiry_epoch_secs, number_expiry_secs,
};
use crate::dynamodb::write::{Change, StoredRemoval, decode_stored_item};
use crate::error::StorageError;
use crate::storage::{ITEMS, corrupt, decode_expiry_key, expiry_bound, item_key};
use crate::stream::record::UserIdentity;
use crate::sweeper::lag_histogram::LagHistogram;
use crate::sweeper::pass::Pass;
use std::ops::Bound;

impl DynamoDb<'_> {
    pub(crate) fn sweep_table(
        &self,
        meta: &TableMeta,
        pass: Pass,
        lag: &mut LagHistogram,
    ) -> Result<u64, StorageError> {
        let Pass {
            now_millis,
            budget,
            batch: chunk,
        } = pass;
        let store = &self.inner.store;
        let (low, high) = expired_range_secs(now_millis);
        let mut deleted = 0u64;
        let ttl_identity = UserIdentity::dynamodb_ttl();
        // Resume after the last entry examined: entries before it were removed,
        // and rescanning their tombstones would make a pass quadratic.
        let window_start = expiry_bound(meta.id, low);
        let window_end = expiry_bound(meta.id, high);
        let mut from = Bound::Included(window_start.clone());
        let to = Bound::Excluded(window_end.clone());
        loop {
            let remaining = budget.map_or(chunk, |b| b.saturating_sub(deleted as usize));
            if remaining == 0 {
                return Ok(deleted);
            }
            // Scanned under the write lock, so no write can add an entry
            // between the scan and the deletions (see `SweptFloors`).
            let mut state = self.inner.lock_writes();
            // A pass starts at the table's swept floor when it knows one
            // (no entry of the window lies below it, while the lock is
            // held), not at the window's start: with a budget, each pass
            // would otherwise step over the tombstones of every entry the
            // passes before it deleted (until fjall compacts them), a cost
            // growing with the backlog swept so far: 1,000,000 expired items
            // took 140 to 183 s to sweep that way in `engine_bench`'s read
            // phase, 25 to 29 s from the floor.
            if let Bound::Included(start) = &from
                && let Some(floor) = self.cache.swept_floors.get(meta.id)
                && floor > *start
            {
                if floor >= window_end {
                    return Ok(deleted);
                }
                from = Bound::Included(floor);
            }
            let mut candidates = Vec::new();
            for guard in store
                .expiry
                .range((from.clone(), to.clone()))
                .take(remaining.min(chunk))
            {
                candidates.push(guard.key()?);
            }
            // Where the scan began, and whether nothing of the window lies
            // below it (the window's start, or the floor read above).
            let (scan_from, nothing_below) = match &from {
                Bound::Excluded(k) => (k.clone(), false),
                Bound::Included(k) => (k.clone(), true),
                Bound::Unbounded => (window_start.clone(), true),
            };
            let Some(last) = candidates.last() else {
                self.cache.swept_floors.swept(
                    meta.id,
                    &scan_from,
                    nothing_below,
                    None,
                    &window_end,
                );
                return Ok(deleted);
            };
            let last = last.to_vec();
            let batch_millis = self.inner.clock.now_millis();
            // Re-read the setting under the lock: TTL may have been disabled.
            let Some(current) = self.table_meta(&meta.definition.table_name) else {
                return Ok(deleted);
            };
            let Some(spec) = current.ttl_enabled() else {
                return Ok(deleted);
            };
            let wanted = removal_attributes(&current, spec);
            let stored = stored_removal_names(&current, spec);
            // The batch's entries in primary-key order (one atomic write, all
            // already expired; DynamoDB gives TTL deletions no order): point
            // reads and item tombstones then follow the items keyspace's
            // order, and two entries of one item (a stale one left behind)
            // are neighbours.
            let mut entries = Vec::with_capacity(candidates.len());
            for index_key in &candidates {
                let (secs, pk) = decode_expiry_key(index_key)?;
                entries.push((pk, secs, index_key));
            }
            entries.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
            let mut batch = store.db.batch();
            let mut seq = state.alloc();
            // The key deleted last in this batch: an item is deleted once.
            let mut last_deleted: Option<&[u8]> = None;
            let mut deleted_here = 0u64;
            for &(pk, secs, index_key) in &entries {
                let key = item_key(current.id, pk);
                let bytes = if last_deleted == Some(pk) {
                    None
                } else {
                    store.items.get(&key)?
                };
                // Without secondary indexes, an item is deleted from its
                // bytes, undecoded (the same entries, byte for byte).
                if let (Some(names), Some(bytes)) = (&stored, &bytes) {
                    let [hash, range, ttl] = crate::stream::codec::encoded_attributes(bytes, names)
                        .map_err(|m| corrupt(ITEMS, "item", m))?;
                    let due = ttl
                        .and_then(crate::stream::codec::encoded_number)
                        .and_then(number_expiry_secs)
                        == Some(secs)
                        && is_expired_at(secs, now_millis);
                    if !due {
                        batch.remove(&store.expiry, index_key.clone());
                        continue;
                    }
                    // (A key attribute missing from a stored item is not
                    // expected; the decoding path below handles it as before.)
                    let keys = match (hash, range, current.definition.sort_key.is_some()) {
                        (Some(h), _, false) => Some(([(names[0], h), (names[0], h)], 1)),
                        (Some(h), Some(r), true) => Some(([(names[0], h), (names[1], r)], 2)),
                        _ => None,
                    };
                    if let Some((keys, key_count)) = &keys {
                        let removal = StoredRemoval {
                            pk,
                            item_key: key,
                            expiry_secs: secs,
                            bytes,
                            keys: &keys[..*key_count],
                            user_identity: &ttl_identity,
                        };
                        self.stage_stored_removal(&mut batch, &mut seq, &current, removal)?;
                        last_deleted = Some(pk);
                        deleted_here += 1;
                        lag.record(batch_millis.saturating_sub(secs.saturating_mul(1000)));
                        continue;
                    }
                }
                let item = match bytes {
                    Some(v) => Some((decode_stored_item(&v, Some(&wanted))?, v)),
                    None => None,
                };
                let due = item.as_ref().is_some_and(|(i, _)| {
                    item_expiry_epoch_secs(i, Some(spec)) == Some(secs)
                        && is_expired_at(secs, now_millis)
                });
                match item {
                    Some((old, bytes)) if due => {
                        let change = Change {
                            pk,
                            old: Some(&old),
                            old_bytes: Some(&bytes),
                            new: None,
                            user_identity: Some(&ttl_identity),
                        };
                        self.stage_change(&mut batch, &mut seq, &current, change)?;
                        last_deleted = Some(pk);
                        deleted_here += 1;
                        lag.record(batch_millis.saturating_sub(secs.saturating_mul(1000)));
                    }
                    // Item gone, or its TTL was moved or removed: stale entry.
                    _ => batch.remove(&store.expiry, index_key.clone()),
                }
            }
            batch.commit()?;
            let allocated = seq.finish();
            state.apply(allocated);
            self.cache.swept_floors.swept(
                meta.id,
                &scan_from,
                nothing_below,
                Some(&last),
                &window_end,
            );
            from = Bound::Excluded(last);
            drop(state);
            deleted += deleted_here;
        }
    }
}

/// The attributes a TTL deletion reads from the stored item: the table's
/// key, the TTL attribute and every secondary-index key (to find the index
/// entries to remove). The OldImage is copied from the stored bytes.
fn removal_attributes<'a>(meta: &'a TableMeta, spec: &'a TimeToLiveSpecification) -> Vec<&'a str> {
    let def = &meta.definition;
    let mut names: Vec<&str> = def
        .key_attributes()
        .map(|k| k.attribute_name.as_str())
        .collect();
    names.push(&spec.attribute_name);
    for g in &def.global_secondary_indexes {
        names.push(&g.partition_key.attribute_name);
        names.extend(g.sort_key.as_ref().map(|k| k.attribute_name.as_str()));
    }
    for l in &def.local_secondary_indexes {
        names.push(&l.sort_key.attribute_name);
    }
    names
}

/// The names [`crate::stream::codec::encoded_attributes`] looks up for a TTL
/// deletion from the stored bytes (partition key, sort key or the partition
/// key again, TTL attribute), or `None` when the item must be decoded: the
/// table has secondary indexes, or its TTL attribute is a key attribute.
fn stored_removal_names<'a>(
    meta: &'a TableMeta,
    spec: &'a TimeToLiveSpecification,
) -> Option<[&'a str; 3]> {
    let def = &meta.definition;
    let hash = def.partition_key.attribute_name.as_str();
    let range = def.sort_key.as_ref().map(|k| k.attribute_name.as_str());
    let ttl = spec.attribute_name.as_str();
    let indexed =
        !def.global_secondary_indexes.is_empty() || !def.local_secondary_indexes.is_empty();
    if indexed || ttl == hash || Some(ttl) == range || strict_sweep() {
        return None;
    }
    Some([hash, range.unwrap_or(hash), ttl])
}

#[cfg(test)]
thread_local! {
    /// Tests: sweep by decoding every item (the path the stored-bytes
    /// deletions are compared against).
    static STRICT_SWEEP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn strict_sweep() -> bool {
    #[cfg(test)]
    if STRICT_SWEEP.get() {
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::Engine;
    use crate::storage::{expiry_key, item_key};
    use crate::sweeper::pass::PassLimits;
    use crate::{
        AttributeValue, EngineOptions, Item, ManualClock, ScalarAttributeType, TableDefinition,
        TimeToLiveSpecification,
    };
    use std::collections::HashMap;
    use std::sync::Arc;

    /// A pass without limits, deleting `batch` items per atomic batch.
    fn unbounded(batch: usize) -> PassLimits {
        PassLimits {
            max_deletes: None,
            max_indexed: None,
            batch,
            first: 0,
        }
    }

    fn item(pk: &str, ttl: i64) -> Item {
        HashMap::from([
            ("pk".to_string(), AttributeValue::S(pk.into())),
            ("ttl".to_string(), AttributeValue::N(ttl.to_string())),
        ])
        .into()
    }

    /// An engine at epoch 1,000,000 ms (the returned clock moves it) with
    /// table `Tbl` (String key `pk`, TTL attribute `ttl`).
    fn engine_with_table(
        dir: &std::path::Path,
        table: TableDefinition,
    ) -> (Engine, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let options = EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        };
        let engine = Engine::open(dir, options).unwrap();
        engine.dynamodb().create_table(table).unwrap();
        engine
            .dynamodb()
            .update_time_to_live("Tbl", TimeToLiveSpecification::enabled("ttl"))
            .unwrap();
        (engine, clock)
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
                proptest::collection::hash_map("[a-z]{1,4}", inner, 0..3)
                    .prop_map(AttributeValue::M),
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
    fn each_pass_lets_another_table_lead_and_reports_work_left() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_000_000));
        let options = EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        };
        let engine = Engine::open(dir.path(), options).unwrap();
        let tables = ["Aaa", "Bbb", "Ccc"];
        for table in tables {
            engine
                .dynamodb()
                .create_table(TableDefinition::new(table, "pk", ScalarAttributeType::S))
                .unwrap();
            engine
                .dynamodb()
                .update_time_to_live(table, TimeToLiveSpecification::enabled("ttl"))
                .unwrap();
            let items = (0..10).map(|i| item(&format!("k{i}"), 999)).collect();
            engine.dynamodb().put_items(table, items).unwrap();
        }
        // Passes of 2 deletions over 3 tables: a share of 1 each, so one
        // table is left out of each pass; a different one each time.
        for first in 0..3 {
            let limits = PassLimits {
                max_deletes: Some(2),
                max_indexed: None,
                batch: 1024,
                first,
            };
            let pass = engine.sweep(limits).unwrap();
            assert_eq!(pass.report.deleted, 2);
            assert!(pass.more, "a pass that spent its budget reports work left");
        }
        for table in tables {
            assert_eq!(engine.dynamodb().scan(table).unwrap().len(), 8, "{table}");
        }
        let rest = PassLimits {
            max_deletes: Some(100),
            max_indexed: None,
            batch: 1024,
            first: 3,
        };
        let pass = engine.sweep(rest).unwrap();
        assert_eq!(pass.report.deleted, 24);
        assert!(!pass.more, "nothing left");
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
    fn one_budget_is_shared_across_the_three_models() {
        use crate::spanner::{
            RowDeletionPolicy, SpannerRow, SpannerTableDefinition, SpannerType, SpannerValue,
        };
        use crate::tablestore::{
            PutColumn, ReadOptions, TablestoreOptions, TablestoreTableDefinition,
        };
        const DAY_MILLIS: u64 = 86_400_000;
        let dir = tempfile::tempdir().unwrap();
        let table = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S);
        let (engine, clock) = engine_with_table(dir.path(), table);
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
        let items = (0..300).map(|i| item(&format!("k{i:03}"), 999)).collect();
        engine.dynamodb().put_items("Tbl", items).unwrap();
        for i in 0..10 {
            let key: Item =
                HashMap::from([("id".to_string(), AttributeValue::S(format!("r{i}")))]).into();
            let column = PutColumn::new("col", AttributeValue::N(i.to_string()));
            engine
                .tablestore()
                .put_row("Ts", key, vec![column])
                .unwrap();
            let row = SpannerRow::from([
                ("Id".to_string(), SpannerValue::Int64(i)),
                ("CreatedAt".to_string(), SpannerValue::Timestamp(1_000_000)),
            ]);
            engine.spanner().insert_row("Sp", row).unwrap();
        }
        clock.advance(std::time::Duration::from_millis(DAY_MILLIS + 2_000));
        let limits = PassLimits {
            max_deletes: Some(100),
            max_indexed: None,
            batch: crate::SWEEP_CHUNK,
            first: 0,
        };
        let pass = engine.sweep(limits).unwrap();
        assert_eq!(pass.report.deleted, 100);
        // A third of the budget each first: the two small tables are emptied
        // although the big DynamoDB table comes first; it gets the rest.
        assert!(
            engine
                .tablestore()
                .scan_rows("Ts", ReadOptions::default())
                .unwrap()
                .is_empty()
        );
        assert!(engine.spanner().scan_table("Sp").unwrap().is_empty());
        assert_eq!(engine.dynamodb().scan("Tbl").unwrap().len(), 220);
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
}
