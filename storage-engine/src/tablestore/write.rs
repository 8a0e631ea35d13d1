//! Tablestore table administration and row writes (`CreateTable`,
//! `UpdateTable`, `PutRow`, `UpdateRow`, `DeleteRow`).
//!
//! Each write runs under the engine's write lock and commits the row and its
//! change record in one atomic batch.

use super::Tablestore;
use super::change::{ColumnChange, RowExistence};
use super::row::StoredRow;
use super::{TablestoreMeta, TablestoreOptions, TablestoreTableDefinition, load, meta_key};
use crate::error::{StorageError, TableError, WriteError};
use crate::storage::{ITEMS, decode_json, encode_json, item_key};
use crate::stream::keys::stream_key;
use crate::stream::record::{RecordInput, SequenceNumber, UserIdentity, build_record};
use crate::stream::shards::alloc::SeqAlloc;
use crate::stream::shards::lifecycle::stage_stream_start;
use crate::stream::shards::meta::StreamKind;
use fjall::OwnedWriteBatch;
use serde_dynamo::{AttributeValue, Item};

/// One attribute-column value to write.
#[derive(Clone, Debug, PartialEq)]
pub struct PutColumn {
    /// Column name (1 to 255 bytes, not a primary key column).
    pub name: String,
    /// The value.
    pub value: AttributeValue,
    /// The version, epoch **milliseconds**; `None` = the engine clock's now.
    pub version_millis: Option<i64>,
}

impl PutColumn {
    /// A value whose version is assigned from the clock at write time.
    pub fn new(name: impl Into<String>, value: AttributeValue) -> Self {
        Self {
            name: name.into(),
            value,
            version_millis: None,
        }
    }

    /// A value with an explicit version (epoch ms).
    pub fn at(name: impl Into<String>, value: AttributeValue, version_millis: i64) -> Self {
        Self {
            name: name.into(),
            value,
            version_millis: Some(version_millis),
        }
    }
}

impl Tablestore<'_> {
    /// Creates a Tablestore-model table (Tablestore `CreateTable`).
    ///
    /// # Errors
    ///
    /// [`TableError::Invalid`] for a bad name, primary key or option (the
    /// message names the option and its allowed range);
    /// [`TableError::AlreadyExists`]; [`TableError::Storage`].
    pub fn create_table(&self, definition: TablestoreTableDefinition) -> Result<(), TableError> {
        let table = definition.table_name.clone();
        definition
            .validate()
            .map_err(|message| TableError::Invalid {
                table: table.clone(),
                message,
            })?;
        let mut state = self.inner.lock_writes();
        if load(&self.inner.store, &table)?.is_some() {
            return Err(TableError::AlreadyExists { table });
        }
        let meta = TablestoreMeta {
            id: state.next_table_id,
            definition,
        };
        // The table and, with a stream, its stream and first shard: one batch.
        let store = &self.inner.store;
        let mut alloc = state.alloc();
        let mut batch = store.db.batch();
        batch.insert(
            &store.meta,
            meta_key(&table),
            encode_json("Tablestore table metadata", &meta)?,
        );
        if meta.definition.stream_view_type.is_some() {
            let now = self.inner.clock.now_millis();
            let kind = StreamKind::Tablestore;
            stage_stream_start(store, &mut batch, &mut alloc, meta.id, &table, kind, now)?;
        }
        batch.commit().map_err(StorageError::from)?;
        let done = alloc.finish();
        state.apply(done);
        state.next_table_id = state.next_table_id.saturating_add(1);
        Ok(())
    }

    /// The definition (with current options) of a Tablestore table
    /// (Tablestore `DescribeTable`).
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Storage`].
    pub fn describe_table(&self, table: &str) -> Result<TablestoreTableDefinition, TableError> {
        load(&self.inner.store, table)?
            .map(|m| m.definition)
            .ok_or_else(|| TableError::NotFound {
                table: table.to_string(),
            })
    }

    /// Replaces a Tablestore table's options (Tablestore `UpdateTable`).
    /// Reads use the new options at once: raising `time_to_live_secs` or
    /// `max_versions` makes versions the sweeper has not yet removed readable
    /// again; lowering them hides versions at once.
    ///
    /// # Errors
    ///
    /// [`TableError::NotFound`]; [`TableError::Invalid`] naming the option
    /// and its allowed range; [`TableError::Storage`].
    pub fn update_table_options(
        &self,
        table: &str,
        options: TablestoreOptions,
    ) -> Result<(), TableError> {
        options.validate().map_err(|e| TableError::Invalid {
            table: table.to_string(),
            message: e.to_string(),
        })?;
        let _state = self.inner.lock_writes();
        let mut meta = load(&self.inner.store, table)?.ok_or_else(|| TableError::NotFound {
            table: table.to_string(),
        })?;
        meta.definition.options = options;
        self.commit_tablestore_meta(&meta)
    }

    /// Writes a row, replacing every column of any existing row with that
    /// primary key (Tablestore `PutRow`). Appends INSERT or MODIFY.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad
    /// primary key or column, or a version outside the allowed range (the
    /// message names the column and the range in ms); [`WriteError::Storage`].
    pub fn put_row(
        &self,
        table: &str,
        primary_key: Item,
        columns: Vec<PutColumn>,
    ) -> Result<(), WriteError> {
        self.write_row(table, primary_key, columns, true)
    }

    /// Adds versions to a row's columns, creating the row if absent
    /// (Tablestore `UpdateRow` with PUT actions). A version equal to a stored
    /// one replaces it.
    ///
    /// # Errors
    ///
    /// As [`Tablestore::put_row`](crate::Tablestore::put_row).
    pub fn update_row(
        &self,
        table: &str,
        primary_key: Item,
        columns: Vec<PutColumn>,
    ) -> Result<(), WriteError> {
        self.write_row(table, primary_key, columns, false)
    }

    /// Deletes a row (Tablestore `DeleteRow`); returns whether it existed.
    /// Appends a REMOVE record without `user_identity`.
    ///
    /// # Errors
    ///
    /// [`WriteError::TableNotFound`]; [`WriteError::Validation`] for a bad
    /// primary key; [`WriteError::Storage`].
    pub fn delete_row(&self, table: &str, primary_key: &Item) -> Result<bool, WriteError> {
        self.delete_row_if(table, primary_key, RowExistence::Ignore)
    }

    /// PutRow (`replace`) or UpdateRow with PUT actions only, unconditional.
    fn write_row(
        &self,
        table: &str,
        primary_key: Item,
        columns: Vec<PutColumn>,
        replace: bool,
    ) -> Result<(), WriteError> {
        let changes = columns.into_iter().map(ColumnChange::Put).collect();
        self.change_row(table, primary_key, changes, replace, RowExistence::Ignore)
    }

    fn commit_tablestore_meta(&self, meta: &TablestoreMeta) -> Result<(), TableError> {
        let key = meta_key(&meta.definition.table_name);
        Ok(self
            .inner
            .store
            .put_meta("Tablestore table metadata", key, meta)?)
    }

    /// The stored row with encoded primary key `pk` of table `id`.
    pub(crate) fn load_stored_row(
        &self,
        id: u32,
        pk: &[u8],
    ) -> Result<Option<StoredRow>, StorageError> {
        match self.inner.store.items.get(item_key(id, pk))? {
            Some(v) => Ok(Some(decode_json(ITEMS, "Tablestore row", &v)?)),
            None => Ok(None),
        }
    }

    /// Stages a row change (either side may be absent) and, if the table has
    /// a stream, its change record, numbered (and its shard rotated) by
    /// `alloc`. Caller holds the write lock, commits, then applies `alloc`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn stage_row(
        &self,
        batch: &mut OwnedWriteBatch,
        alloc: &mut SeqAlloc<'_>,
        meta: &TablestoreMeta,
        pk: &[u8],
        old: Option<&StoredRow>,
        new: Option<&StoredRow>,
        user_identity: Option<UserIdentity>,
    ) -> Result<(), StorageError> {
        let store = &self.inner.store;
        let key = item_key(meta.id, pk);
        match new {
            Some(row) => batch.insert(&store.items, key, encode_json("Tablestore row", row)?),
            None => batch.remove(&store.items, key),
        }
        let (Some(view), Some(any)) = (meta.definition.stream_view_type, new.or(old)) else {
            return Ok(());
        };
        let now_millis = self.inner.clock.now_millis();
        let options = &self.inner.stream_options;
        let seq = SequenceNumber(alloc.record(store, batch, options, meta.id, now_millis)?);
        let old_image = old.map(StoredRow::latest_image);
        let new_image = new.map(StoredRow::latest_image);
        let record = build_record(RecordInput {
            table_name: &meta.definition.table_name,
            sequence_number: seq,
            now_millis,
            view,
            keys: any.primary_key.clone(),
            old: old_image.as_ref(),
            new: new_image.as_ref(),
            user_identity,
        });
        let bytes = crate::stream::codec::encode_change(&record);
        batch.insert(&store.stream, stream_key(meta.id, seq), bytes);
        Ok(())
    }
}
