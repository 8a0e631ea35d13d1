//! Listing and deleting Tablestore tables (Tablestore `ListTable`,
//! `DeleteTable`).

use super::Tablestore;
use super::{load, load_all, meta_key};
use crate::error::TableError;
use crate::stream::shards::lifecycle::stage_stream_end;

/// Rows removed per atomic batch when a table is deleted.
const DELETE_CHUNK: usize = 1_000;

impl Tablestore<'_> {
    /// The names of every Tablestore table, in name order (Tablestore
    /// `ListTable`).
    ///
    /// # Errors
    ///
    /// [`TableError::Storage`].
    pub fn list_tables(&self) -> Result<Vec<String>, TableError> {
        Ok(load_all(&self.inner.store)?
            .into_iter()
            .map(|m| m.definition.table_name)
            .collect())
    }

    /// Deletes a Tablestore table with its rows (Tablestore `DeleteTable`).
    /// Rows go first, in chunks, and the metadata last, so a crash part-way
    /// leaves the table listed with part of its rows; deleting it again
    /// finishes the job. No change record is appended for the rows; the
    /// table's stream is disabled (its open shard closed) in the last batch,
    /// and its records stay until retention removes them.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Storage`].
    pub fn delete_table(&self, table: &str) -> Result<(), TableError> {
        let mut state = self.inner.lock_writes();
        let store = &self.inner.store;
        let meta = load(store, table)?.ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        let mut batch = store.db.batch();
        for guard in store.items.prefix(meta.id.to_be_bytes()) {
            batch.remove(&store.items, guard.key()?);
            if batch.len() >= DELETE_CHUNK {
                std::mem::replace(&mut batch, store.db.batch()).commit()?;
            }
        }
        batch.remove(&store.meta, meta_key(table));
        // The stream ends with the table (its open shard closed), and is
        // trimmed by retention like any other.
        let mut alloc = state.alloc();
        if meta.definition.stream_view_type.is_some() {
            let now = self.inner.clock.now_millis();
            stage_stream_end(store, &mut batch, &mut alloc, meta.id, now)?;
        }
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        Ok(())
    }
}
