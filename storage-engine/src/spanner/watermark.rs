//! The Spanner model's processed watermark and table list, as Cloud
//! Monitoring reports them ("Spanner: TTL metrics and monitoring":
//! `row_deletion_policy/processed_watermark_age` is the time since the
//! watermark). The watermark itself is kept by the sweeper
//! (`sweeper/watermark.rs`).

use super::Spanner;
use crate::error::ReadError;
use crate::sweeper::watermark::UndeletableRows;

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
        Ok(self
            .policy_table_id(table)?
            .and_then(|id| self.inner.processed_watermarks.get(id)))
    }

    /// The rows due under `table`'s row deletion policy that the last
    /// complete sweep pass could not delete, because deleting one (with its
    /// interleaved descendants and their index entries) exceeds
    /// [`MAX_MUTATIONS_PER_COMMIT`](super::MAX_MUTATIONS_PER_COMMIT): such a
    /// row is never half deleted, it stays until it fits (Spanner's
    /// `row_deletion_policy/undeletable_rows` and
    /// `SPANNER_SYS.ROW_DELETION_POLICIES.UNDELETABLE_ROWS`, "Spanner: TTL
    /// metrics and monitoring"). `None` until a pass has gone through every
    /// row due since this engine was opened, or when the table has no policy.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`] when no Spanner table has that name;
    /// [`ReadError::Storage`].
    pub fn undeletable_rows(&self, table: &str) -> Result<Option<UndeletableRows>, ReadError> {
        Ok(self
            .policy_table_id(table)?
            .and_then(|id| self.inner.processed_watermarks.undeletable_rows(id)))
    }

    /// The id of Spanner table `table` if it has a row deletion policy.
    fn policy_table_id(&self, table: &str) -> Result<Option<u32>, ReadError> {
        let meta =
            super::load(&self.inner.store, table)?.ok_or_else(|| ReadError::TableNotFound {
                table: table.to_string(),
            })?;
        Ok(meta
            .definition
            .row_deletion_policy
            .is_some()
            .then_some(meta.id))
    }
}
