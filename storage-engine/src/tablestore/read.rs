//! Tablestore reads (`GetRow`, a full-table scan) and the table's change
//! stream. Reads take no lock and apply the table's current options.

use super::Tablestore;
use super::row::{ReadOptions, Row, StoredRow};
use super::{TablestoreMeta, load};
use crate::error::ReadError;
use crate::storage::{ITEMS, decode_json};
use crate::stream::error::StreamError;
use crate::stream::keys::decode_record;
use crate::stream::record::{ChangeRecord, SequenceNumber, StreamPosition};
use crate::stream::table_read::read_table_records;
use serde_dynamo::Item;

impl Tablestore<'_> {
    /// Reads one row (Tablestore `GetRow`): for each attribute column, up to
    /// `read.max_versions` visible versions (newest first), limited to
    /// `read.time_range` if given. `None` if the row does not exist, or all
    /// its cells are expired or beyond `max_versions` (even before the
    /// sweeper has removed them).
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for a bad
    /// primary key; [`ReadError::Storage`].
    pub fn get_row(
        &self,
        table: &str,
        primary_key: &Item,
        read: ReadOptions,
    ) -> Result<Option<Row>, ReadError> {
        let meta = self.tablestore_read_meta(table)?;
        let pk =
            meta.definition
                .encode_key(primary_key)
                .map_err(|message| ReadError::Validation {
                    table: table.to_string(),
                    message,
                })?;
        let now = self.inner.clock.now_millis();
        Ok(self
            .load_stored_row(meta.id, &pk)?
            .and_then(|r| r.read(&meta.definition.options, now, &read)))
    }

    /// Every visible row of a Tablestore table, in primary-key order, each
    /// as [`Tablestore::get_row`](crate::Tablestore::get_row) would return it.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Storage`].
    pub fn scan_rows(&self, table: &str, read: ReadOptions) -> Result<Vec<Row>, ReadError> {
        let meta = self.tablestore_read_meta(table)?;
        let now = self.inner.clock.now_millis();
        let mut out = Vec::new();
        for guard in self.inner.store.items.prefix(meta.id.to_be_bytes()) {
            let value = guard.value()?;
            let row: StoredRow = decode_json(ITEMS, "Tablestore row", &value)?;
            out.extend(row.read(&meta.definition.options, now, &read));
        }
        Ok(out)
    }

    /// Reads a Tablestore table's change stream, like
    /// [`DynamoDb::read_stream`](crate::DynamoDb::read_stream): records in sequence order from `from`, at
    /// most `limit`.
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`];
    /// [`StreamError::TrimmedDataAccess`] for a position the retention has
    /// removed (records are kept as long as DynamoDB-model records,
    /// [`StreamOptions::retention`](crate::StreamOptions::retention));
    /// [`StreamError::Storage`].
    pub fn read_stream(
        &self,
        table: &str,
        from: StreamPosition,
        limit: usize,
    ) -> Result<Vec<ChangeRecord>, StreamError> {
        let id = self.stream_table_id(table)?;
        read_table_records(&self.inner.store, table, id, from, limit, |_, value| {
            Ok(decode_record(value)?)
        })
    }

    /// The `SequenceNumber` of `table`'s newest change record, `None` when
    /// it has none: where a reader starting at `LATEST` begins.
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`];
    /// [`StreamError::Storage`].
    pub fn latest_sequence_number(
        &self,
        table: &str,
    ) -> Result<Option<SequenceNumber>, StreamError> {
        let id = self.stream_table_id(table)?;
        Ok(crate::stream::keys::last_sequence_number(
            &self.inner.store,
            id,
        )?)
    }

    /// The id of Tablestore table `table`, which must have a stream.
    pub(super) fn stream_table_id(&self, table: &str) -> Result<u32, StreamError> {
        let meta = load(&self.inner.store, table)?.ok_or_else(|| StreamError::TableNotFound {
            table: table.to_string(),
        })?;
        if meta.definition.stream_view_type.is_none() {
            return Err(StreamError::StreamNotEnabled {
                table: table.to_string(),
            });
        }
        Ok(meta.id)
    }

    fn tablestore_read_meta(&self, table: &str) -> Result<TablestoreMeta, ReadError> {
        load(&self.inner.store, table)?.ok_or_else(|| ReadError::TableNotFound {
            table: table.to_string(),
        })
    }
}
