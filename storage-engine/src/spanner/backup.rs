//! Backup and restore, modelled as a table copy: "Spanner: About TTL" —
//! a database restored from a backup comes back with its row deletion
//! policies dropped, so restored rows are not deleted before you re-add one.

use super::Spanner;
use super::SpannerMeta;
use super::schema::SpannerRow;
use super::stage::Txn;
use crate::error::TableError;
use crate::storage::{ITEMS, decode_json};

impl Spanner<'_> {
    /// Restores `source` as a new table `target`: same columns, key, indexes
    /// and change stream setting (a new stream, with its first shard), a
    /// copy of every row (with index entries),
    /// **no row deletion policy**, and no interleaving (the copy is a
    /// top-level table). No change records are written for the copy. The
    /// whole restore is one atomic batch.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`] for `source`; [`TableError::AlreadyExists`]
    /// for `target`; [`TableError::Invalid`] for a bad target name;
    /// [`TableError::Storage`].
    pub fn restore_table_from_backup(&self, source: &str, target: &str) -> Result<(), TableError> {
        let mut state = self.inner.lock_writes();
        let store = &self.inner.store;
        let src = self.spanner_meta(source)?;
        if super::load(store, target)?.is_some() {
            return Err(TableError::AlreadyExists {
                table: target.to_string(),
            });
        }
        let mut definition = src.definition.clone();
        definition.table_name = target.to_string();
        definition.row_deletion_policy = None;
        definition.interleave_in_parent = None;
        definition
            .validate(None)
            .map_err(|message| TableError::Invalid {
                table: target.to_string(),
                message,
            })?;
        let id = state.next_table_id;
        let n = definition.indexes.len() as u32;
        let meta = SpannerMeta {
            id,
            index_ids: (1..=n).map(|i| id.saturating_add(i)).collect(),
            definition,
        };
        let mut batch = store.db.batch();
        let mut txn = Txn::default();
        for guard in store.items.prefix(src.id.to_be_bytes()) {
            let (key, value) = guard.into_inner()?;
            let row: SpannerRow = decode_json(ITEMS, "Spanner row", &value)?;
            if let Some(enc) = key.get(4..) {
                self.stage_spanner_insert(&mut batch, &meta, enc, &row, &mut txn)?;
            }
        }
        batch.insert(
            &store.meta,
            super::meta_key(target),
            crate::storage::encode_json("Spanner table metadata", &meta)?,
        );
        let mut alloc = state.alloc();
        self.stage_change_stream_start(&mut batch, &mut alloc, &meta)?;
        batch.commit()?;
        let done = alloc.finish();
        state.apply(done);
        state.next_table_id = id.saturating_add(n + 1);
        Ok(())
    }
}
