//! The Spanner model's processed watermark and table list, as Cloud
//! Monitoring reports them ("Spanner: TTL metrics and monitoring":
//! `row_deletion_policy/processed_watermark_age` is the time since the
//! watermark). The watermark itself is kept by the sweeper
//! (`sweeper/watermark.rs`).

use super::Spanner;
use crate::error::ReadError;

impl Spanner<'_> {
    /// The names of the Spanner-model tables, in name order.
    ///
    /// # Errors
    ///
    /// [`ReadError::Storage`].
    pub fn list_tables(&self) -> Result<Vec<String>, ReadError> {
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
    pub fn processed_watermark_millis(&self, table: &str) -> Result<Option<i64>, ReadError> {
        let meta =
            super::load(&self.inner.store, table)?.ok_or_else(|| ReadError::TableNotFound {
                table: table.to_string(),
            })?;
        if meta.definition.row_deletion_policy.is_none() {
            return Ok(None);
        }
        Ok(self.inner.processed_watermarks.get(meta.id))
    }
}
