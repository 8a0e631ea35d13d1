//! Table administration beyond creation: DeleteTable and the stream part of
//! UpdateTable (DynamoDB API Reference, "DeleteTable" and "UpdateTable").

use crate::engine::Engine;
use crate::error::TableError;
use crate::storage::{expiry_table_prefix, table_meta_key};
use crate::table::TableDefinition;
use fjall::Keyspace;
use std::sync::Arc;

/// Keys removed per batch when a table's entries are deleted.
const DELETE_CHUNK: usize = 10_000;

impl Engine {
    /// Deletes `table` (DynamoDB `DeleteTable`): its metadata, items,
    /// expiry-index entries, secondary-index entries and change records,
    /// under the write lock, and returns the definition it had. The table
    /// is gone for every later call at once (DynamoDB reports `DELETING` for
    /// a while; the server reports that status in the answer).
    ///
    /// The table's stream is not deleted: as in DynamoDB, it becomes
    /// DISABLED (its open shard closed, in the batch that removes the
    /// metadata) and stays readable until retention removes it ("DeleteTable":
    /// the stream is deleted 24 hours after). Entries are removed first and
    /// the metadata last, so a crash part-way leaves the table listed with
    /// part of its items; deleting it again finishes the job.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Storage`].
    pub fn delete_table(&self, table: &str) -> Result<TableDefinition, TableError> {
        let mut state = self.lock_writes();
        let meta = self.table_meta(table).ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        let store = &self.inner.store;
        let prefix = meta.id.to_be_bytes();
        self.inner.swept_floors.forget(meta.id);
        for keyspace in [&store.items, &store.indexes] {
            self.remove_prefix(keyspace, &prefix)?;
        }
        self.remove_prefix(&store.expiry, &expiry_table_prefix(meta.id))?;
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.remove(&store.meta, table_meta_key(table));
        if meta.definition.stream_view_type.is_some() {
            let now = self.inner.clock.now_millis();
            self.stage_stream_disable(&mut batch, &mut alloc, meta.id, now)?;
        }
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        self.uncache_meta(table);
        tracing::debug!(table, "table deleted");
        Ok(meta.definition.clone())
    }

    /// When TTL on `table` was last enabled or disabled (engine clock,
    /// epoch milliseconds); `None` if never. The server reports
    /// `ENABLING` / `DISABLING` for a while after it ("UpdateTimeToLive":
    /// the change takes up to an hour to process in DynamoDB).
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`].
    pub fn time_to_live_updated_at_millis(&self, table: &str) -> Result<Option<i64>, TableError> {
        self.table_meta(table)
            .map(|m| m.time_to_live_updated_at_millis)
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Removes every key of `keyspace` starting with `prefix`, in chunks.
    fn remove_prefix(&self, keyspace: &Keyspace, prefix: &[u8]) -> Result<(), TableError> {
        let store = &self.inner.store;
        let mut batch = store.db.batch();
        for guard in keyspace.prefix(prefix) {
            batch.remove(keyspace, guard.key()?);
            if batch.len() >= DELETE_CHUNK {
                std::mem::replace(&mut batch, store.db.batch()).commit()?;
            }
        }
        batch.commit()?;
        Ok(())
    }

    fn uncache_meta(&self, table: &str) {
        let mut tables = self
            .inner
            .tables
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _removed: Option<Arc<_>> = tables.remove(table);
    }
}
