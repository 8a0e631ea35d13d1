//! The processed watermark of each Spanner table's row deletion policy: the
//! read time of the sweeper's last pass that went through every row due at
//! that time ("Spanner: TTL metrics and monitoring": `PROCESSED_WATERMARK`,
//! "this policy has run against all rows in the table as of this time";
//! Cloud Monitoring's `row_deletion_policy/processed_watermark_age` is the
//! time since). In memory only: none after a restart until a pass completes.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::engine::Engine;
use crate::error::ReadError;

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

    fn get(&self, id: u32) -> Option<i64> {
        self.map().get(&id).copied()
    }
}

impl Engine {
    /// The names of the Spanner-model tables, in name order.
    ///
    /// # Errors
    ///
    /// [`ReadError::Storage`].
    pub fn list_spanner_tables(&self) -> Result<Vec<String>, ReadError> {
        Ok(super::load_all(&self.inner.store)?
            .into_iter()
            .map(|meta| meta.definition.table_name)
            .collect())
    }

    /// The processed watermark of `table`'s row deletion policy, epoch ms:
    /// the read time of the last sweep pass that deleted every row due at
    /// that time. `None` until such a pass since this engine was opened, or
    /// when the table has no policy.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`] when no Spanner table has that name;
    /// [`ReadError::Storage`].
    pub fn spanner_processed_watermark_millis(
        &self,
        table: &str,
    ) -> Result<Option<i64>, ReadError> {
        let meta =
            super::load(&self.inner.store, table)?.ok_or_else(|| ReadError::TableNotFound {
                table: table.to_string(),
            })?;
        if meta.definition.row_deletion_policy.is_none() {
            return Ok(None);
        }
        Ok(self.inner.spanner_watermarks.get(meta.id))
    }
}
