//! The sweeper's Tablestore part: removes versions reads can no longer see
//! (expired, or beyond `max_versions`), and deletes rows left without cells
//! with a REMOVE record tagged [`UserIdentity::dynamodb_ttl`].
//!
//! Tablestore expiry depends on options that can change at any time, so
//! there is no expiry index: a pass scans each table in primary-key order,
//! the sweeper's batch size in rows per atomic batch, re-reading each row and the options
//! under the write lock before changing it. The pass limits, fairness and
//! lag histogram are the sweeper's, shared by every model (`sweeper/pass.rs`).

use super::Tablestore;
use super::options::TablestoreOptions;
use super::row::StoredRow;
use crate::error::StorageError;
use crate::storage::{ITEMS, decode_json};
use crate::stream::record::UserIdentity;
use crate::sweeper::lag_histogram::LagHistogram;
use crate::sweeper::pass::Pass;
use std::ops::Bound;

impl Tablestore<'_> {
    /// One table's part of a sweep pass (see `sweeper/pass.rs`): at most
    /// `pass.budget` rows deleted, `pass.batch` rows examined per atomic
    /// batch; each deletion's lag (now minus the instant its newest version
    /// expired) goes into `lag`. Returns the rows deleted.
    pub(crate) fn sweep_tablestore_table(
        &self,
        table: &str,
        pass: Pass,
        lag: &mut LagHistogram,
    ) -> Result<u64, StorageError> {
        let budget = pass.budget;
        let store = &self.inner.store;
        let Some(meta) = super::load(store, table)? else {
            return Ok(0);
        };
        let prefix = meta.id.to_be_bytes().to_vec();
        let end = (meta.id.saturating_add(1)).to_be_bytes().to_vec();
        // Where the last pass stopped short (see `sweeper/resume.rs`).
        let mut from = self
            .inner
            .sweep_resume
            .take(meta.id)
            .unwrap_or(Bound::Included(prefix));
        // The start of the batch just handled: its rows past the budget were
        // left, so the next pass starts there again.
        let mut batch_from = from.clone();
        let mut deleted = 0u64;
        loop {
            if budget.is_some_and(|b| deleted as usize >= b) {
                self.inner.sweep_resume.stopped_at(meta.id, batch_from);
                return Ok(deleted);
            }
            batch_from = from.clone();
            let now = self.inner.clock.now_millis();
            // Find rows with something to remove, without the lock.
            let mut candidates = Vec::new();
            let mut last = None;
            for guard in store
                .items
                .range((from.clone(), Bound::Excluded(end.clone())))
                .take(pass.batch)
            {
                let (key, value) = guard.into_inner()?;
                let mut row: StoredRow = decode_json(ITEMS, "Tablestore row", &value)?;
                if row.prune(&meta.definition.options, now) > 0 {
                    candidates.push(key.to_vec());
                }
                last = Some(key.to_vec());
            }
            let Some(last) = last else {
                return Ok(deleted);
            };
            from = Bound::Excluded(last);
            if candidates.is_empty() {
                continue;
            }
            let mut state = self.inner.lock_writes();
            // Re-read the options: they may have changed since the scan.
            let Some(current) = super::load(store, table)? else {
                return Ok(deleted);
            };
            let options = current.definition.options;
            let mut batch = store.db.batch();
            let mut alloc = state.alloc();
            for key in &candidates {
                let Some(pk) = key.get(4..) else { continue };
                let Some(old) = self.load_stored_row(current.id, pk)? else {
                    continue;
                };
                let mut new = old.clone();
                if new.prune(&options, now) == 0 {
                    continue;
                }
                if new.columns.is_empty() {
                    if budget.is_some_and(|b| deleted as usize >= b) {
                        continue;
                    }
                    let ttl = Some(UserIdentity::dynamodb_ttl());
                    self.stage_row(&mut batch, &mut alloc, &current, pk, Some(&old), None, ttl)?;
                    deleted += 1;
                    if let Some(expired_at) = row_expired_at(&old, &options) {
                        lag.record(now.saturating_sub(expired_at));
                    }
                } else {
                    // Only invisible versions go: no change record (reads see
                    // the same row before and after).
                    let mut no_stream = current.clone();
                    no_stream.definition.stream_view_type = None;
                    self.stage_row(
                        &mut batch,
                        &mut alloc,
                        &no_stream,
                        pk,
                        Some(&old),
                        Some(&new),
                        None,
                    )?;
                }
            }
            batch.commit()?;
            let done = alloc.finish();
            state.apply(done);
        }
    }
}

/// When the last visible version of `row` expired (epoch ms): its newest
/// version's timestamp plus `time_to_live`; `None` if nothing expires.
fn row_expired_at(row: &StoredRow, options: &TablestoreOptions) -> Option<i64> {
    let ttl = options.time_to_live_millis()?;
    let newest = row
        .columns
        .values()
        .filter_map(|versions| versions.first())
        .map(|c| c.version_millis)
        .max()?;
    Some(newest.saturating_add(ttl))
}
