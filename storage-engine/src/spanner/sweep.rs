//! The sweeper's Spanner part: deletes rows past their table's row deletion
//! policy through the policy index (the expiry index, `storage/expiry_key.rs`:
//! table id ++ policy timestamp ms ++ encoded key), in batches of up to the sweeper's batch size.
//! Each batch is one atomic write and one system transaction: the rows, their
//! index and policy entries, their interleaved children, and the DELETE data
//! change records with `transaction_tag: "RowDeletionPolicy"`. A row whose
//! deletion would exceed Spanner's mutation limit for one commit is not
//! deleted at all, never half: it is counted as undeletable
//! ([`Spanner::undeletable_rows`]) and stays, as on Spanner ("Spanner: TTL
//! metrics and monitoring", undeletable rows). The pass limits, fairness and
//! lag histogram are the sweeper's, shared by every model
//! (`sweeper/pass.rs`).

use super::load_all;
use super::record::ROW_DELETION_POLICY_TAG;
use super::stage::Txn;
use super::{Spanner, SpannerMeta};
use crate::error::StorageError;
use crate::storage::item_key;
use crate::storage::{decode_expiry_key, expiry_bound};
use crate::sweeper::lag_histogram::LagHistogram;
use crate::sweeper::pass::Pass;
use std::ops::Bound;

/// Spanner's limit on the mutations of one commit, secondary-index updates
/// included ("Spanner: Quotas and limits": mutations per commit, 80,000).
/// A row whose deletion counts more ([`Spanner::undeletable_rows`]) is
/// undeletable by its row deletion policy.
pub const MAX_MUTATIONS_PER_COMMIT: u64 = 80_000;

impl Spanner<'_> {
    /// The mutations deleting the row at `key` of `meta` counts: one for the
    /// row, whatever interleaved rows its `ON DELETE CASCADE` removes
    /// ("Spanner: Insert, update, and delete data using mutations": a
    /// cascading delete is one mutation), plus one per secondary-index entry
    /// removed, of the row and of every descendant (index updates count
    /// toward the limit). Stops counting past [`MAX_MUTATIONS_PER_COMMIT`].
    fn delete_mutations(
        &self,
        all: &[SpannerMeta],
        meta: &SpannerMeta,
        key: &[u8],
    ) -> Result<u64, StorageError> {
        let mut count = 1 + meta.index_ids.len() as u64;
        self.count_descendant_index_entries(all, meta, key, &mut count)?;
        Ok(count)
    }

    fn count_descendant_index_entries(
        &self,
        all: &[SpannerMeta],
        meta: &SpannerMeta,
        key: &[u8],
        count: &mut u64,
    ) -> Result<(), StorageError> {
        for child in all.iter().filter(|c| {
            c.definition.interleave_in_parent.as_deref() == Some(&meta.definition.table_name)
        }) {
            for guard in self.inner.store.items.prefix(item_key(child.id, key)) {
                if *count > MAX_MUTATIONS_PER_COMMIT {
                    return Ok(());
                }
                let child_key = guard.key()?;
                *count += child.index_ids.len() as u64;
                if let Some(encoded) = child_key.get(4..) {
                    self.count_descendant_index_entries(all, child, encoded, count)?;
                }
            }
        }
        Ok(())
    }

    /// One table's part of a sweep pass (see `sweeper/pass.rs`): at most
    /// `pass.budget` rows deleted (interleaved children not counted),
    /// `pass.batch` policy entries per atomic batch; each deletion's lag (now
    /// minus the policy timestamp plus the policy's days) goes into `lag`.
    /// Returns the rows deleted.
    pub(crate) fn sweep_spanner_table(
        &self,
        table: &str,
        pass: Pass,
        lag: &mut LagHistogram,
    ) -> Result<u64, StorageError> {
        let budget = pass.budget;
        let store = &self.inner.store;
        let mut deleted = 0u64;
        let mut from: Option<Vec<u8>> = None;
        let mut resumed = None;
        // Whether this pass began at the table's first policy entry: only
        // then has it gone through every row due (the processed watermark)
        // as of its first read time (later batches read on from a cursor).
        let mut from_first_key = true;
        let mut pass_began_millis = None;
        loop {
            let remaining = budget.map_or(pass.batch, |b| b.saturating_sub(deleted as usize));
            if remaining == 0 {
                if let (Some(id), Some(key)) = (resumed, from) {
                    self.inner.sweep_resume.stopped_at(id, Bound::Excluded(key));
                }
                return Ok(deleted);
            }
            let now = self.inner.clock.now_millis();
            let pass_began = *pass_began_millis.get_or_insert(now);
            let Some(meta) = super::load(store, table)? else {
                return Ok(deleted);
            };
            let Some(policy) = meta.definition.row_deletion_policy.clone() else {
                return Ok(deleted);
            };
            let cutoff = now.saturating_sub(policy.interval_millis());
            // The first batch goes on where the last pass stopped short
            // (see `sweeper/resume.rs`).
            if resumed.is_none() {
                resumed = Some(meta.id);
                if let Some(Bound::Excluded(k)) = self.inner.sweep_resume.take(meta.id) {
                    from = Some(k);
                    from_first_key = false;
                } else {
                    self.inner.processed_watermarks.begin(meta.id);
                }
            }
            let lo = match &from {
                Some(k) => Bound::Excluded(k.clone()),
                None => Bound::Included(expiry_bound(meta.id, i64::MIN)),
            };
            let hi = Bound::Excluded(expiry_bound(meta.id, cutoff));
            let mut candidates = Vec::new();
            for guard in store.expiry.range((lo, hi)).take(remaining.min(pass.batch)) {
                candidates.push(guard.key()?);
            }
            let Some(last) = candidates.last() else {
                if from_first_key {
                    // Every row due when the pass began is deleted.
                    self.inner
                        .processed_watermarks
                        .processed(meta.id, pass_began);
                }
                return Ok(deleted);
            };
            from = Some(last.to_vec());
            let mut state = self.inner.lock_writes();
            // Re-read under the lock: the policy may have changed or gone.
            let Some(meta) = super::load(store, table)? else {
                return Ok(deleted);
            };
            if meta.definition.row_deletion_policy.as_ref() != Some(&policy) {
                continue;
            }
            let all = load_all(store)?;
            let mut batch = store.db.batch();
            let mut txn = Txn::default();
            for entry in &candidates {
                let (ms, key) = decode_expiry_key(entry)?;
                let row = self.load_spanner_row(meta.id, key)?;
                match row {
                    Some(row)
                        if meta.definition.policy_timestamp(&row) == Some(ms) && ms < cutoff =>
                    {
                        if self.delete_mutations(&all, &meta, key)? > MAX_MUTATIONS_PER_COMMIT {
                            // Left whole, with its entry: counted, not half deleted.
                            self.inner.processed_watermarks.undeletable(meta.id, ms);
                            continue;
                        }
                        self.stage_spanner_delete(&mut batch, &all, &meta, key, &row, &mut txn)?;
                        deleted += 1;
                        let expired_at = ms.saturating_add(policy.interval_millis());
                        lag.record(now.saturating_sub(expired_at));
                    }
                    // Row gone or its timestamp changed: a stale entry.
                    _ => batch.remove(&store.expiry, entry.clone()),
                }
            }
            let mut alloc = state.alloc();
            self.stage_spanner_records(&mut batch, &mut alloc, txn, true, ROW_DELETION_POLICY_TAG)?;
            batch.commit()?;
            let done = alloc.finish();
            state.apply(done);
        }
    }
}
