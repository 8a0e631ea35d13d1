//! A table's expiry index brought in line with its TTL setting in the
//! background, so that [`DynamoDb::update_time_to_live`](crate::DynamoDb::update_time_to_live) returns at once, as
//! DynamoDB's does ("UpdateTimeToLive", DynamoDB API Reference: "It can take
//! up to one hour for the change to fully process"), however many items
//! the table holds. Two jobs, each a marker in the table's metadata with a
//! cursor, advanced by every sweep pass before it deletes
//! ([`DynamoDb::advance_ttl_indexes`](crate::DynamoDb::advance_ttl_indexes)), a chunk per atomic batch:
//!
//! * the **build** ([`TtlIndexBuild`]), when TTL is enabled on a table
//!   holding items: in primary-key order, it writes the entry of each item
//!   whose TTL value is eligible;
//! * the **purge** ([`TtlIndexPurge`]), when TTL is disabled on a table
//!   with entries: in expiry-key order, it removes every entry that does not
//!   match its item under the current setting: all of them while TTL stays
//!   off; if TTL is enabled again meanwhile, those of the old setting only.
//!
//! Why that is enough:
//!
//! * A chunk runs under the write lock: it reads the next items (or
//!   entries) after its cursor, writes (or removes) entries, and moves the
//!   cursor past them, in one batch. A write comes before or after a whole
//!   chunk, so a chunk sees each item as it is; a writer waits for at most
//!   one chunk.
//! * While TTL is enabled, every write keeps the entry of the item it
//!   writes, whichever side of a cursor it lies: the build only adds the
//!   entry an item already has or should have, the purge only removes
//!   entries that match no item, so neither undoes a write.
//! * A crash loses nothing: a cursor moves in the batch that does the work
//!   it covers, and the first pass after the engine is opened resumes after
//!   it.
//! * Disabling drops the build (the next chunk, which reads the metadata
//!   under the lock, finds none and stops); enabling again starts a new
//!   build at the first item beside a purge still running.
//! * The sweeper deletes only indexed items, each after re-reading its
//!   current TTL value, as for every entry: an item the build indexed and a
//!   user then changed, or whose TTL was removed, is not deleted, and an
//!   entry the purge has not reached yet deletes nothing it should not.
//!
//! The expired items a build finds are deleted by the same passes, within
//! their budget, like any others. While a build runs,
//! [`DynamoDb::expired_backlog`](crate::DynamoDb::expired_backlog) and [`DynamoDb::sweeper_lag_millis`](crate::DynamoDb::sweeper_lag_millis) see only
//! the items indexed so far; while a purge runs after TTL was enabled again,
//! they also count the old setting's entries it has not reached.

use super::DynamoDb;
use crate::dynamodb::meta::{TableMeta, TtlIndexBuild, TtlIndexPurge, table_meta_key};
use crate::dynamodb::ttl::item_expiry_epoch_secs;
use crate::dynamodb::write::decode_stored_item;
use crate::error::{StorageError, SweepError, TableError};
use crate::storage::{decode_expiry_key, encode_json, expiry_key, expiry_table_prefix, item_key};
use std::ops::Bound;

impl DynamoDb<'_> {
    /// Whether the expiry index of `table` is still being built after TTL
    /// was enabled: its items written before are not all indexed yet, so
    /// some of them cannot expire yet. `false` once the build is done, and
    /// while TTL is disabled.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn time_to_live_index_building(&self, table: &str) -> Result<bool, TableError> {
        self.table_meta(table)
            .map(|m| m.time_to_live_index_build.is_some())
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Advances the purge and the build of every table that has them: at
    /// most `limit` entries or items per job and table (`None`: to its
    /// end), `chunk` (at least 1) per atomic batch. Returns whether a job
    /// is left unfinished.
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table; chunks committed before the
    /// failure stay committed, and the next call resumes after them.
    pub(crate) fn advance_ttl_indexes(
        &self,
        limit: Option<usize>,
        chunk: usize,
    ) -> Result<bool, SweepError> {
        let mut unfinished = false;
        for meta in self.all_table_metas() {
            let table = &meta.definition.table_name;
            let jobs = [
                (meta.time_to_live_index_purge.is_some(), Job::Purge),
                (meta.time_to_live_index_build.is_some(), Job::Build),
            ];
            for (_, job) in jobs.into_iter().filter(|(pending, _)| *pending) {
                let mut done = 0usize;
                loop {
                    let max = limit.map_or(chunk, |l| chunk.min(l.saturating_sub(done)));
                    if max == 0 {
                        unfinished = true;
                        break;
                    }
                    let more = match job {
                        Job::Purge => self.purge_chunk(table, max),
                        Job::Build => self.index_chunk(table, max),
                    };
                    let more = more.map_err(|source| SweepError::Storage {
                        table: table.clone(),
                        source,
                    })?;
                    if !more {
                        break;
                    }
                    done += max;
                }
            }
        }
        Ok(unfinished)
    }

    /// One chunk of `table`'s build, under the write lock: the entries of up
    /// to `max` items after the marker, and the marker moved past them (or
    /// removed, when fewer than `max` were left), in one batch. Returns
    /// whether the build goes on (`false`: done, TTL disabled, or the table
    /// deleted).
    fn index_chunk(&self, table: &str, max: usize) -> Result<bool, StorageError> {
        let _state = self.inner.lock_writes();
        let Some(meta) = self.table_meta(table) else {
            return Ok(false);
        };
        let (Some(build), Some(spec)) = (&meta.time_to_live_index_build, meta.ttl_enabled()) else {
            return Ok(false);
        };
        let store = &self.inner.store;
        let prefix = meta.id.to_be_bytes();
        let from = match &build.indexed_through_key {
            Some(pk) => Bound::Excluded(item_key(meta.id, pk)),
            None => Bound::Included(prefix.to_vec()),
        };
        let attribute = [spec.attribute_name.as_str()];
        let mut batch = store.db.batch();
        let mut read = 0usize;
        let mut last: Option<Vec<u8>> = None;
        for guard in store
            .items
            .range::<Vec<u8>, _>((from, Bound::Unbounded))
            .take(max)
        {
            let (key, value) = guard.into_inner()?;
            let Some(pk) = key.strip_prefix(&prefix[..]) else {
                break;
            };
            let item = decode_stored_item(&value, Some(&attribute))?;
            if let Some(secs) = item_expiry_epoch_secs(&item, Some(spec)) {
                let entry = expiry_key(meta.id, secs, pk);
                self.cache.swept_floors.lower(meta.id, &entry);
                batch.insert(&store.expiry, entry, Vec::<u8>::new());
            }
            read += 1;
            last = Some(pk.to_vec());
        }
        let done = read < max;
        let mut new_meta = (*meta).clone();
        new_meta.time_to_live_index_build = (!done).then(|| TtlIndexBuild {
            indexed_through_key: last.or_else(|| build.indexed_through_key.clone()),
        });
        self.commit_with_meta(batch, new_meta)?;
        if done {
            tracing::debug!(table, "TTL expiry index built");
        }
        Ok(!done)
    }

    /// One chunk of `table`'s purge, under the write lock: of up to `max`
    /// entries after the cursor, the removal of those that do not match
    /// their item under the current setting (all of them while TTL is off),
    /// and the cursor moved past them (or removed, when fewer than `max`
    /// were left), in one batch. Returns whether the purge goes on.
    fn purge_chunk(&self, table: &str, max: usize) -> Result<bool, StorageError> {
        let _state = self.inner.lock_writes();
        let Some(meta) = self.table_meta(table) else {
            return Ok(false);
        };
        let Some(purge) = &meta.time_to_live_index_purge else {
            return Ok(false);
        };
        let store = &self.inner.store;
        let prefix = expiry_table_prefix(meta.id);
        let from = match &purge.purged_through_key {
            Some(key) => Bound::Excluded(key.clone()),
            None => Bound::Included(prefix.clone()),
        };
        let spec = meta.ttl_enabled();
        let mut batch = store.db.batch();
        let mut read = 0usize;
        let mut last: Option<Vec<u8>> = None;
        for guard in store
            .expiry
            .range::<Vec<u8>, _>((from, Bound::Unbounded))
            .take(max)
        {
            let key = guard.key()?;
            if !key.starts_with(&prefix) {
                break;
            }
            let current = match spec {
                None => false,
                Some(spec) => {
                    let (secs, pk) = decode_expiry_key(&key)?;
                    let attribute = [spec.attribute_name.as_str()];
                    match store.items.get(item_key(meta.id, pk))? {
                        Some(bytes) => {
                            let item = decode_stored_item(&bytes, Some(&attribute))?;
                            item_expiry_epoch_secs(&item, Some(spec)) == Some(secs)
                        }
                        None => false,
                    }
                }
            };
            if !current {
                batch.remove(&store.expiry, key.clone());
            }
            read += 1;
            last = Some(key.to_vec());
        }
        let done = read < max;
        let mut new_meta = (*meta).clone();
        new_meta.time_to_live_index_purge = (!done).then(|| TtlIndexPurge {
            purged_through_key: last.or_else(|| purge.purged_through_key.clone()),
        });
        self.commit_with_meta(batch, new_meta)?;
        if done {
            tracing::debug!(table, "TTL expiry index purged");
        }
        Ok(!done)
    }

    /// Commits `batch` with the table metadata `meta`, then caches it
    /// (write lock held).
    fn commit_with_meta(
        &self,
        mut batch: fjall::OwnedWriteBatch,
        meta: TableMeta,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        let key = table_meta_key(&meta.definition.table_name);
        batch.insert(&store.meta, key, encode_json("table metadata", &meta)?);
        batch.commit()?;
        self.cache_meta(meta);
        Ok(())
    }
}

/// A background job on a table's expiry index.
#[derive(Clone, Copy)]
enum Job {
    /// Removing entries that match no item (after TTL was disabled).
    Purge,
    /// Writing the entries of the items already there (after TTL was enabled).
    Build,
}

#[cfg(test)]
#[path = "ttl_index_tests.rs"]
mod tests;
