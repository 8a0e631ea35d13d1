//! Spanner reads: a row by key, a secondary index, a scan, and the table's
//! change stream of [`DataChangeRecord`](super::DataChangeRecord)s. Reads take
//! no lock; a row past its policy stays readable until the sweeper deletes it.

use super::Spanner;
use super::record::SpannerStreamEntry;
use super::schema::SpannerRow;
use super::value::SpannerValue;
use crate::error::{ReadError, TableError};
use crate::storage::{ITEMS, STREAM, decode_json};
use crate::stream::error::StreamError;
use crate::stream::keys::decode_stream_key;
use crate::stream::record::{SequenceNumber, StreamPosition};
use crate::stream::table_read::read_table_records;

fn read_err(e: TableError) -> ReadError {
    match e {
        TableError::Storage(s) => ReadError::Storage(s),
        TableError::NotFound { table } => ReadError::TableNotFound { table },
        other => ReadError::Validation {
            table: String::new(),
            message: other.to_string(),
        },
    }
}

impl Spanner<'_> {
    /// Reads one row by primary key (values in key order).
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for a bad key;
    /// [`ReadError::Storage`].
    pub fn read_row(
        &self,
        table: &str,
        key: &[SpannerValue],
    ) -> Result<Option<SpannerRow>, ReadError> {
        let meta = self.spanner_meta(table).map_err(read_err)?;
        let enc = meta
            .definition
            .encode_key(key)
            .map_err(|message| ReadError::Validation {
                table: table.to_string(),
                message,
            })?;
        Ok(self.load_spanner_row(meta.id, &enc)?)
    }

    /// Every row of a Spanner table, in primary-key order.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Storage`].
    pub fn scan_table(&self, table: &str) -> Result<Vec<SpannerRow>, ReadError> {
        let meta = self.spanner_meta(table).map_err(read_err)?;
        let mut out = Vec::new();
        for guard in self.inner.store.items.prefix(meta.id.to_be_bytes()) {
            out.push(decode_json(ITEMS, "Spanner row", &guard.value()?)?);
        }
        Ok(out)
    }

    /// The rows whose indexed columns equal `values` (a prefix of the
    /// index's columns), found through secondary index `index`.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for an
    /// unknown index or too many values; [`ReadError::Storage`].
    pub fn read_index(
        &self,
        table: &str,
        index: &str,
        values: &[SpannerValue],
    ) -> Result<Vec<SpannerRow>, ReadError> {
        let meta = self.spanner_meta(table).map_err(read_err)?;
        let Some((ix, id)) = meta
            .definition
            .indexes
            .iter()
            .zip(&meta.index_ids)
            .find(|(ix, _)| ix.index_name == index)
        else {
            return Err(ReadError::Validation {
                table: table.to_string(),
                message: format!("no index `{index}`"),
            });
        };
        if values.len() > ix.columns.len() {
            return Err(ReadError::Validation {
                table: table.to_string(),
                message: format!("index `{index}` has {} columns", ix.columns.len()),
            });
        }
        let mut prefix = id.to_be_bytes().to_vec();
        for v in values {
            v.encode_key(&mut prefix);
        }
        // Entries found by the index prefix; rows are matched to them by
        // re-encoding each row's entry (keys are not decoded back).
        let mut out = std::collections::HashSet::new();
        for guard in self.inner.store.items.prefix(&prefix) {
            out.insert(guard.key()?.to_vec());
        }
        if out.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows = Vec::new();
        for row in self.scan_table(table)? {
            let mut k = id.to_be_bytes().to_vec();
            for c in &ix.columns {
                row.get(c).unwrap_or(&SpannerValue::Null).encode_key(&mut k);
            }
            if let Ok(enc) = meta.definition.encode_key_of(&row) {
                k.extend_from_slice(&enc);
            }
            if out.contains(&k) {
                rows.push(row);
            }
        }
        Ok(rows)
    }

    /// Reads a Spanner table's change stream: entries with sequence numbers
    /// after `after` (all if `None`), in order, at most `limit`.
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`] if the
    /// table has no `value_capture_type`; [`StreamError::TrimmedDataAccess`]
    /// when entries after `after` were removed by retention (kept as long as
    /// DynamoDB-model records, [`StreamOptions::retention`](crate::StreamOptions::retention);
    /// Spanner's own change streams keep one day by default, "Change streams
    /// overview", data retention); [`StreamError::Storage`].
    pub fn read_change_stream(
        &self,
        table: &str,
        after: Option<SequenceNumber>,
        limit: usize,
    ) -> Result<Vec<SpannerStreamEntry>, StreamError> {
        let id = self.change_stream_table_id(table)?;
        let from = match after {
            None => StreamPosition::TrimHorizon,
            Some(s) => StreamPosition::AfterSequenceNumber(s),
        };
        read_table_records(&self.inner.store, table, id, from, limit, |key, value| {
            Ok(SpannerStreamEntry {
                sequence_number: decode_stream_key(key)?,
                record: decode_json(STREAM, "data change record", value)?,
            })
        })
    }

    /// The sequence number of `table`'s newest change-stream entry, `None`
    /// when it has none: where a reader starting at `LATEST` begins.
    ///
    /// # Errors
    ///
    /// As [`Spanner::read_change_stream`], without `TrimmedDataAccess`.
    pub fn latest_sequence_number(
        &self,
        table: &str,
    ) -> Result<Option<SequenceNumber>, StreamError> {
        let id = self.change_stream_table_id(table)?;
        Ok(crate::stream::keys::last_sequence_number(
            &self.inner.store,
            id,
        )?)
    }

    /// The id of Spanner table `table`, which must have a change stream.
    pub(super) fn change_stream_table_id(&self, table: &str) -> Result<u32, StreamError> {
        let meta = self.spanner_meta(table).map_err(|e| match e {
            TableError::Storage(s) => StreamError::Storage(s),
            _ => StreamError::TableNotFound {
                table: table.to_string(),
            },
        })?;
        if meta.definition.value_capture_type.is_none() {
            return Err(StreamError::StreamNotEnabled {
                table: table.to_string(),
            });
        }
        Ok(meta.id)
    }
}
