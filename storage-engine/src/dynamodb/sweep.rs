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
use crate::dynamodb::stage::{Change, StoredRemoval};
use crate::dynamodb::table::TimeToLiveSpecification;
use crate::dynamodb::ttl::{
    expired_range_secs, is_expired_at, item_expiry_epoch_secs, number_expiry_secs,
};
use crate::dynamodb::write::decode_stored_item;
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
#[path = "sweep_tests.rs"]
mod tests;
