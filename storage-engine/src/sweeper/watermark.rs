//! The processed watermark of each table's row deletion policy: the read
//! time (epoch ms) of the sweeper's last pass that went through every row
//! due at that time ("Spanner: TTL metrics and monitoring":
//! `PROCESSED_WATERMARK`, "this policy has run against all rows in the table
//! as of this time"). Written by the Spanner model's sweep, read through
//! [`Spanner::processed_watermark_millis`](crate::Spanner::processed_watermark_millis).
//! In memory only: none after a restart until a pass completes.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Per table id, the read time (epoch ms) of its last complete pass.
#[derive(Debug, Default)]
pub(crate) struct ProcessedWatermarks(Mutex<HashMap<u32, i64>>);

impl ProcessedWatermarks {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<u32, i64>> {
        // Plain values, each replaced whole: consistent even after a panic.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A pass over table `id` deleted every row due as of `read_millis`.
    pub(crate) fn processed(&self, id: u32, read_millis: i64) {
        self.map().insert(id, read_millis);
    }

    pub(crate) fn get(&self, id: u32) -> Option<i64> {
        self.map().get(&id).copied()
    }
}
