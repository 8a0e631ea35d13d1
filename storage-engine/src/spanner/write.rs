//! Spanner table administration, and the one-row writes, each a commit of
//! one mutation (`mutation.rs`: under the engine's write lock, rows, index
//! entries, policy entries and data change records in one atomic batch).

use super::Spanner;
use super::ddl::RowDeletionPolicy;
use super::mutation::{MutationError, SpannerMutation};
use super::schema::{SpannerRow, SpannerTableDefinition, check_policy};
use super::value::SpannerValue;
use super::{SpannerMeta, load, meta_key};
use crate::error::{StorageError, TableError, WriteError};
use crate::storage::{ITEMS, decode_json, encode_json, expiry_key, expiry_table_prefix, item_key};
use crate::stream::shards::alloc::SeqAlloc;
use crate::stream::shards::lifecycle::stage_stream_start;
use crate::stream::shards::meta::StreamKind;
use fjall::OwnedWriteBatch;

impl Spanner<'_> {
    /// Creates a Spanner-model table (`CREATE TABLE`, with its indexes and
    /// optional row deletion policy and interleaving).
    ///
    /// # Errors
    ///
    /// [`TableError::Invalid`] (bad name, column, key, index, policy column
    /// not a TIMESTAMP, missing parent or key not extending the parent's);
    /// [`TableError::AlreadyExists`]; [`TableError::Storage`].
    pub fn create_table(&self, definition: SpannerTableDefinition) -> Result<(), TableError> {
        let table = definition.table_name.clone();
        let mut state = self.inner.lock_writes();
        let store = &self.inner.store;
        if load(store, &table)?.is_some() {
            return Err(TableError::AlreadyExists { table });
        }
        let parent = match &definition.interleave_in_parent {
            Some(p) => load(store, p)?.map(|m| m.definition),
            None => None,
        };
        definition
            .validate(parent.as_ref())
            .map_err(|message| TableError::Invalid {
                table: table.clone(),
                message,
            })?;
        let id = state.next_table_id;
        let n = definition.indexes.len() as u32;
        let meta = SpannerMeta {
            id,
            index_ids: (1..=n).map(|i| id.saturating_add(i)).collect(),
            definition,
        };
        // The table and, with a change stream, its stream and first shard
        // (partition): one batch.
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.insert(
            &store.meta,
            meta_key(&table),
            encode_json("Spanner table metadata", &meta)?,
        );
        self.stage_change_stream_start(&mut batch, &mut alloc, &meta)?;
        batch.commit().map_err(StorageError::from)?;
        let done = alloc.finish();
        state.apply(done);
        state.next_table_id = id.saturating_add(n + 1);
        Ok(())
    }

    /// The definition (with the current policy) of a Spanner table.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Storage`].
    pub fn describe_table(&self, table: &str) -> Result<SpannerTableDefinition, TableError> {
        Ok(self.spanner_meta(table)?.definition)
    }

    /// Replaces (`Some`) or drops (`None`) a table's row deletion policy
    /// (`ALTER TABLE … REPLACE | DROP ROW DELETION POLICY`). Rows already in
    /// the table are indexed under the new policy at once.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Invalid`] if the column is not
    /// a TIMESTAMP column; [`TableError::Storage`].
    pub fn set_row_deletion_policy(
        &self,
        table: &str,
        policy: Option<RowDeletionPolicy>,
    ) -> Result<(), TableError> {
        let _state = self.inner.lock_writes();
        let mut meta = self.spanner_meta(table)?;
        if let Some(p) = &policy {
            check_policy(&meta.definition, p).map_err(|message| TableError::Invalid {
                table: table.to_string(),
                message,
            })?;
        }
        meta.definition.row_deletion_policy = policy;
        self.reindex_policy(&meta)?;
        self.commit_spanner_meta(&meta)
    }

    /// Adds a row deletion policy from DDL (`ALTER TABLE … ADD ROW DELETION
    /// POLICY`): GoogleSQL `ROW DELETION POLICY (OLDER_THAN(col, INTERVAL n
    /// DAY))` or PostgreSQL `TTL INTERVAL '3 DAYS' ON col`.
    ///
    /// # Errors
    ///
    /// [`TableError::Invalid`] with the [`DdlError`](super::DdlError) text,
    /// or if the table already has a policy (one at most) or the column is
    /// not a TIMESTAMP; [`TableError::NotFound`]; [`TableError::Storage`].
    pub fn add_row_deletion_policy(&self, table: &str, ddl: &str) -> Result<(), TableError> {
        let invalid = |message: String| TableError::Invalid {
            table: table.to_string(),
            message,
        };
        let policy = RowDeletionPolicy::parse(ddl).map_err(|e| invalid(e.to_string()))?;
        if self
            .spanner_meta(table)?
            .definition
            .row_deletion_policy
            .is_some()
        {
            return Err(invalid(
                "the table already has a row deletion policy (one at most); replace or drop it"
                    .into(),
            ));
        }
        self.set_row_deletion_policy(table, Some(policy))
    }

    /// Inserts a row (Spanner `INSERT`): [`Spanner::commit`] of one
    /// `insert` mutation. Rows whose policy column is already past the
    /// policy are accepted (and deleted by the next sweep).
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for an
    /// unknown column, a value of the wrong type, a NULL or missing key
    /// column, a row that already exists (Spanner `ALREADY_EXISTS`), or an
    /// interleaved row whose parent row does not exist; [`WriteError::Storage`].
    pub fn insert_row(&self, table: &str, row: SpannerRow) -> Result<(), WriteError> {
        self.commit(&[SpannerMutation::Insert {
            table: table.to_string(),
            row,
        }])
        .map_err(MutationError::into_write_error)
    }

    /// Deletes a row by primary key (values in key order), with its
    /// interleaved child rows: [`Spanner::commit`] of one `delete`
    /// mutation. Returns whether the row existed. Its records have
    /// `is_system_transaction: false`.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad
    /// key; [`WriteError::Storage`].
    pub fn delete_row(&self, table: &str, key: &[SpannerValue]) -> Result<bool, WriteError> {
        let deleted = self
            .apply(&[SpannerMutation::Delete {
                table: table.to_string(),
                keys: vec![key.to_vec()],
            }])
            .map_err(MutationError::into_write_error)?;
        Ok(deleted > 0)
    }

    /// Stages the change stream of a new table with a `value_capture_type`:
    /// its stream and first shard (`stream/shards/lifecycle.rs`).
    pub(crate) fn stage_change_stream_start(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        meta: &SpannerMeta,
    ) -> Result<(), StorageError> {
        if meta.definition.value_capture_type.is_none() {
            return Ok(());
        }
        let now = self.inner.clock.now_millis();
        let (store, name) = (&self.inner.store, &meta.definition.table_name);
        stage_stream_start(store, batch, alloc, meta.id, name, StreamKind::Spanner, now)
    }

    pub(crate) fn spanner_meta(&self, table: &str) -> Result<SpannerMeta, TableError> {
        load(&self.inner.store, table)?.ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })
    }

    pub(crate) fn commit_spanner_meta(&self, meta: &SpannerMeta) -> Result<(), TableError> {
        let key = meta_key(&meta.definition.table_name);
        Ok(self
            .inner
            .store
            .put_meta("Spanner table metadata", key, meta)?)
    }

    /// Clears the table's policy entries and re-adds one per row with a
    /// non-NULL policy timestamp under `meta`'s policy.
    fn reindex_policy(&self, meta: &SpannerMeta) -> Result<(), StorageError> {
        let store = &self.inner.store;
        let mut batch = store.db.batch();
        for guard in store.expiry.prefix(expiry_table_prefix(meta.id)) {
            batch.remove(&store.expiry, guard.key()?);
        }
        for guard in store.items.prefix(meta.id.to_be_bytes()) {
            let (key, value) = guard.into_inner()?;
            let row: SpannerRow = decode_json(ITEMS, "Spanner row", &value)?;
            if let (Some(ms), Some(enc)) = (meta.definition.policy_timestamp(&row), key.get(4..)) {
                batch.insert(
                    &store.expiry,
                    expiry_key(meta.id, ms, enc),
                    Vec::<u8>::new(),
                );
            }
        }
        batch.commit()?;
        Ok(())
    }

    /// The stored row with encoded key `key` of table `id`.
    pub(crate) fn load_spanner_row(
        &self,
        id: u32,
        key: &[u8],
    ) -> Result<Option<SpannerRow>, StorageError> {
        match self.inner.store.items.get(item_key(id, key))? {
            Some(v) => Ok(Some(decode_json(ITEMS, "Spanner row", &v)?)),
            None => Ok(None),
        }
    }
}
