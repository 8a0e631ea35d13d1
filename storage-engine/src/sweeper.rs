//! The TTL sweeper: finds expired items through the expiry index and deletes
//! them as system deletions ("Using time to live (TTL) in DynamoDB",
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
//! batches of up to [`SWEEP_CHUNK`] items, each batch atomic, so each item
//! is always atomic with its index entry and change record.

use crate::engine::{Engine, Inner};
use crate::error::{StorageError, SweepError};
use crate::storage::{TableMeta, decode_expiry_key, expiry_bound};
use crate::stream::UserIdentity;
use crate::ttl::{expired_range_secs, is_expired_at, item_expiry_epoch_secs};
use std::collections::HashSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

/// Most index entries examined (and items deleted) per atomic batch.
pub const SWEEP_CHUNK: usize = 1024;

/// Options for [`Engine::start_sweeper`].
#[derive(Clone, Debug)]
pub struct SweeperOptions {
    /// Real time between the end of one pass and the start of the next.
    /// Default: 1 second.
    pub interval: Duration,
    /// At most this many deletions per pass (pacing, like DynamoDB's
    /// best-effort deletion); `None` = unbounded. Default: `None`.
    pub max_deletes_per_sweep: Option<usize>,
}

impl Default for SweeperOptions {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(1),
            max_deletes_per_sweep: None,
        }
    }
}

/// The outcome of one sweep pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Items deleted by TTL in this pass (each with one REMOVE record if the
    /// table has a stream).
    pub deleted: u64,
}

/// A running background sweeper thread. [`Sweeper::stop`] or dropping it
/// stops the thread and waits for the current pass to finish. The thread
/// holds only a weak reference to the engine: once every [`Engine`] clone is
/// dropped, it exits by itself.
#[derive(Debug)]
pub struct Sweeper {
    stop_tx: Option<mpsc::Sender<()>>,
    handle: Option<JoinHandle<()>>,
    deleted_total: Arc<AtomicU64>,
}

impl Sweeper {
    /// Items deleted by this sweeper since it started.
    pub fn deleted_total(&self) -> u64 {
        self.deleted_total.load(Ordering::Relaxed)
    }

    /// Stops the thread and waits for it to exit.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        drop(self.stop_tx.take());
        if let Some(handle) = self.handle.take()
            && handle.join().is_err()
        {
            tracing::error!("TTL sweeper thread panicked");
        }
    }
}

impl Drop for Sweeper {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Engine {
    /// Deletes everything expired per the clock, now, on the calling thread
    /// (deterministic tests; the background [`Sweeper`] calls the same code).
    ///
    /// # Errors
    ///
    /// [`SweepError::Storage`] naming the table; deletions committed before
    /// the failure stay committed.
    pub fn sweep_now(&self) -> Result<SweepReport, SweepError> {
        self.sweep(None)
    }

    /// Starts a background sweeper thread: a pass at once, then one every
    /// `options.interval`. If the OS refuses to spawn a thread, the error is
    /// logged and the returned handle is inert; use
    /// [`Engine::try_start_sweeper`] to handle that case.
    pub fn start_sweeper(&self, options: SweeperOptions) -> Sweeper {
        match self.try_start_sweeper(options) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the TTL sweeper thread");
                Sweeper {
                    stop_tx: None,
                    handle: None,
                    deleted_total: Arc::default(),
                }
            }
        }
    }

    /// Like [`Engine::start_sweeper`], reporting a failure to spawn.
    ///
    /// # Errors
    ///
    /// The I/O error from [`std::thread::Builder::spawn`].
    pub fn try_start_sweeper(&self, options: SweeperOptions) -> std::io::Result<Sweeper> {
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let deleted_total = Arc::new(AtomicU64::new(0));
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let counter = Arc::clone(&deleted_total);
        let handle = std::thread::Builder::new()
            .name("ttl-sweeper".into())
            .spawn(move || sweeper_loop(&weak, &stop_rx, &options, &counter))?;
        Ok(Sweeper {
            stop_tx: Some(stop_tx),
            handle: Some(handle),
            deleted_total,
        })
    }

    /// One pass over all three TTL models, deleting at most `max` items or
    /// rows. Fair across models: each first gets up to a third of `max`,
    /// then what is left goes round again in the same order.
    pub(crate) fn sweep(&self, max: Option<usize>) -> Result<SweepReport, SweepError> {
        let share = max.map(|m| m.div_ceil(3));
        let mut report = SweepReport::default();
        for round in 0..2 {
            for model in 0..3 {
                let left = max.map(|m| m.saturating_sub(report.deleted as usize));
                let cap = match (left, share) {
                    (Some(l), Some(s)) if round == 0 => Some(l.min(s)),
                    _ => left,
                };
                if cap == Some(0) {
                    continue;
                }
                report.deleted += match model {
                    0 => self.sweep_dynamodb(cap)?.deleted,
                    1 => self.sweep_tablestore(cap)?,
                    _ => self.sweep_spanner(cap)?,
                };
            }
            if max.is_none() {
                break;
            }
        }
        Ok(report)
    }

    /// One pass over every TTL-enabled DynamoDB table, deleting at most `max` items.
    fn sweep_dynamodb(&self, max: Option<usize>) -> Result<SweepReport, SweepError> {
        let now_millis = self.inner.clock.now_millis();
        let mut report = SweepReport::default();
        for meta in self.all_table_metas() {
            if meta.ttl_enabled().is_none() {
                continue;
            }
            let budget = max.map(|m| m.saturating_sub(report.deleted as usize));
            if budget == Some(0) {
                break;
            }
            let deleted = self
                .sweep_table(&meta, now_millis, budget)
                .map_err(|source| SweepError::Storage {
                    table: meta.definition.table_name.clone(),
                    source,
                })?;
            report.deleted += deleted;
        }
        Ok(report)
    }

    fn sweep_table(
        &self,
        meta: &TableMeta,
        now_millis: i64,
        budget: Option<usize>,
    ) -> Result<u64, StorageError> {
        let store = &self.inner.store;
        let (low, high) = expired_range_secs(now_millis);
        let mut deleted = 0u64;
        // Resume after the last entry examined: entries before it were removed,
        // and rescanning their tombstones would make a pass quadratic.
        let mut from = Bound::Included(expiry_bound(meta.id, low));
        let to = Bound::Excluded(expiry_bound(meta.id, high));
        loop {
            let remaining = budget.map_or(SWEEP_CHUNK, |b| b.saturating_sub(deleted as usize));
            if remaining == 0 {
                return Ok(deleted);
            }
            let mut candidates = Vec::new();
            for guard in store
                .expiry
                .range((from.clone(), to.clone()))
                .take(remaining.min(SWEEP_CHUNK))
            {
                candidates.push(guard.key()?);
            }
            let Some(last) = candidates.last() else {
                return Ok(deleted);
            };
            from = Bound::Excluded(last.to_vec());
            let mut state = self.lock_writes();
            // Re-read the setting under the lock: TTL may have been disabled.
            let Some(current) = self.table_meta(&meta.definition.table_name) else {
                return Ok(deleted);
            };
            let Some(spec) = current.ttl_enabled() else {
                return Ok(deleted);
            };
            let mut batch = store.db.batch();
            let mut seq = state.next_sequence_number;
            let mut done: HashSet<Vec<u8>> = HashSet::new();
            let mut deleted_here = 0u64;
            for index_key in &candidates {
                let (secs, pk) = decode_expiry_key(index_key)?;
                let item = if done.contains(pk) {
                    None
                } else {
                    self.load_item(&current, pk)?
                };
                let due = item.as_ref().is_some_and(|i| {
                    item_expiry_epoch_secs(i, Some(spec)) == Some(secs)
                        && is_expired_at(secs, now_millis)
                });
                match item {
                    Some(old) if due => {
                        let ttl = Some(UserIdentity::dynamodb_ttl());
                        self.stage(&mut batch, &mut seq, &current, pk, Some(&old), None, ttl)?;
                        done.insert(pk.to_vec());
                        deleted_here += 1;
                    }
                    // Item gone, or its TTL was moved or removed: stale entry.
                    _ => batch.remove(&store.expiry, index_key.clone()),
                }
            }
            batch.commit()?;
            state.next_sequence_number = seq;
            drop(state);
            deleted += deleted_here;
        }
    }
}

fn sweeper_loop(
    weak: &Weak<Inner>,
    stop_rx: &mpsc::Receiver<()>,
    options: &SweeperOptions,
    deleted_total: &AtomicU64,
) {
    loop {
        {
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let engine = Engine { inner };
            match engine.sweep(options.max_deletes_per_sweep) {
                Ok(report) => {
                    deleted_total.fetch_add(report.deleted, Ordering::Relaxed);
                    if report.deleted > 0 {
                        tracing::debug!(deleted = report.deleted, "TTL sweep pass");
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "TTL sweep pass failed; retrying next interval")
                }
            }
        }
        match stop_rx.recv_timeout(options.interval) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::{expiry_key, item_key};
    use crate::{
        AttributeValue, EngineOptions, Item, ManualClock, ScalarAttributeType, TableDefinition,
        TimeToLiveSpecification,
    };
    use std::collections::HashMap;

    fn item(pk: &str, ttl: i64) -> Item {
        HashMap::from([
            ("pk".to_string(), AttributeValue::S(pk.into())),
            ("ttl".to_string(), AttributeValue::N(ttl.to_string())),
        ])
        .into()
    }

    #[test]
    fn stale_index_entries_are_removed_without_deleting_items() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_000_000));
        let engine = Engine::open(dir.path(), EngineOptions { clock }).unwrap();
        engine
            .create_table(TableDefinition::new("Tbl", "pk", ScalarAttributeType::S))
            .unwrap();
        engine
            .update_time_to_live("Tbl", TimeToLiveSpecification::enabled("ttl"))
            .unwrap();
        engine.put_item("Tbl", item("live", 5_000)).unwrap();
        let meta = engine.table_meta("Tbl").unwrap();
        let mut pk = Vec::new();
        crate::key::encode_key_value(
            ScalarAttributeType::S,
            &AttributeValue::S("live".into()),
            &mut pk,
        )
        .unwrap();
        let mut ghost = Vec::new();
        crate::key::encode_key_value(
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
        assert_eq!(engine.expired_backlog("Tbl").unwrap(), 2);

        assert_eq!(engine.sweep_now().unwrap().deleted, 0);
        assert_eq!(engine.expired_backlog("Tbl").unwrap(), 0);
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
