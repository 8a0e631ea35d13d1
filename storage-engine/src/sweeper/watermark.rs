//! What the sweeper's last complete pass over each table's row deletion
//! policy found, as Spanner reports it per table in
//! `SPANNER_SYS.ROW_DELETION_POLICIES` ("Spanner: TTL metrics and
//! monitoring"): `PROCESSED_WATERMARK`, the read time (epoch ms) of the last
//! pass that went through every row due at that time ("this policy has run
//! against all rows in the table as of this time"), and `UNDELETABLE_ROWS` /
//! `MIN_UNDELETABLE_TIMESTAMP`, the rows due that pass could not delete.
//! Written by the Spanner model's sweep, read through
//! [`Spanner::processed_watermark_millis`](crate::Spanner::processed_watermark_millis)
//! and [`Spanner::undeletable_rows`](crate::Spanner::undeletable_rows).
//! In memory only: nothing after a restart until a pass completes.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Rows due under a row deletion policy that the sweeper could not delete
/// (a cascade over Spanner's per-commit mutation limit), as of the last
/// complete pass over the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UndeletableRows {
    /// How many (`UNDELETABLE_ROWS`).
    pub rows: u64,
    /// The oldest policy timestamp among them, epoch ms
    /// (`MIN_UNDELETABLE_TIMESTAMP`); `None` when `rows` is 0.
    pub min_timestamp_millis: Option<i64>,
}

impl UndeletableRows {
    fn add(&mut self, policy_timestamp_millis: i64) {
        self.rows += 1;
        self.min_timestamp_millis = Some(
            self.min_timestamp_millis
                .map_or(policy_timestamp_millis, |m| m.min(policy_timestamp_millis)),
        );
    }
}

/// Per table id: the last complete pass's findings, and the pass under way.
#[derive(Debug, Default)]
pub(crate) struct ProcessedWatermarks(Mutex<HashMap<u32, TablePasses>>);

#[derive(Clone, Copy, Debug, Default)]
struct TablePasses {
    watermark_millis: Option<i64>,
    undeletable: UndeletableRows,
    counting: UndeletableRows,
}

impl ProcessedWatermarks {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<u32, TablePasses>> {
        // Plain values, each replaced whole: consistent even after a panic.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A pass over table `id` starts at its first policy entry.
    pub(crate) fn begin(&self, id: u32) {
        self.map().entry(id).or_default().counting = UndeletableRows::default();
    }

    /// The pass under way found a row due (policy timestamp
    /// `policy_timestamp_millis`) that it cannot delete.
    pub(crate) fn undeletable(&self, id: u32, policy_timestamp_millis: i64) {
        self.map()
            .entry(id)
            .or_default()
            .counting
            .add(policy_timestamp_millis);
    }

    /// The pass under way, begun at the first entry, went through every row
    /// due as of `read_millis`.
    pub(crate) fn processed(&self, id: u32, read_millis: i64) {
        let mut map = self.map();
        let passes = map.entry(id).or_default();
        passes.watermark_millis = Some(read_millis);
        passes.undeletable = passes.counting;
    }

    pub(crate) fn get(&self, id: u32) -> Option<i64> {
        self.map().get(&id).and_then(|p| p.watermark_millis)
    }

    /// The last complete pass's undeletable rows; `None` before one.
    pub(crate) fn undeletable_rows(&self, id: u32) -> Option<UndeletableRows> {
        self.map()
            .get(&id)
            .filter(|p| p.watermark_millis.is_some())
            .map(|p| p.undeletable)
    }
}
