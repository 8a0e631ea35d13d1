//! Reads: GetItem, Query, Scan, the change stream and the sweeper backlog.
//! None of them takes the write lock.

use super::DynamoDb;
use crate::dynamodb::item::decode_item;
use crate::dynamodb::item::key_only_bytes;
use crate::dynamodb::meta::TableMeta;
use crate::dynamodb::ttl::expired_range_secs;
use crate::error::ReadError;
use crate::storage::key::encode_key_value;
use crate::storage::{expiry_bound, item_key};
use crate::stream::error::StreamError;
use crate::stream::keys::decode_record;
use crate::stream::record::{ChangeRecord, SequenceNumber, StreamPosition};
use crate::stream::table_read::read_table_records;
use serde_dynamo::{AttributeValue, Item};
use std::sync::Arc;

impl DynamoDb<'_> {
    /// Reads one item by its key (DynamoDB `GetItem`). `key` holds exactly
    /// the key attributes. Expired items not yet swept are still returned
    /// ("Using time to live (TTL) in DynamoDB").
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] for a missing,
    /// mistyped or extra key attribute; [`ReadError::Storage`].
    pub fn get_item(&self, table: &str, key: &Item) -> Result<Option<Item>, ReadError> {
        let meta = self.read_meta(table)?;
        let pk =
            key_only_bytes(&meta.definition, key).map_err(|message| ReadError::Validation {
                table: table.to_string(),
                message,
            })?;
        let store = &self.inner.store;
        match store.items.get(item_key(meta.id, &pk))? {
            Some(v) => Ok(Some(decode_item(&v)?)),
            None => Ok(None),
        }
    }

    /// All items with partition key `partition_key`, in sort-key order
    /// (DynamoDB `Query` with only a key condition on the partition key,
    /// `ScanIndexForward = true`): Numbers numerically, Strings and Binary
    /// bytewise. No pagination in this slice: the whole partition is returned.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Validation`] if the value
    /// does not match the partition key type; [`ReadError::Storage`].
    pub fn query(
        &self,
        table: &str,
        partition_key: &AttributeValue,
    ) -> Result<Vec<Item>, ReadError> {
        let meta = self.read_meta(table)?;
        let pk_attr = &meta.definition.partition_key;
        let mut prefix = meta.id.to_be_bytes().to_vec();
        encode_key_value(pk_attr.attribute_type, partition_key, &mut prefix).map_err(|m| {
            ReadError::Validation {
                table: table.to_string(),
                message: format!("partition key `{}` {m}", pk_attr.attribute_name),
            }
        })?;
        self.collect_items(&prefix)
    }

    /// Every item of the table, in primary-key order (DynamoDB `Scan`,
    /// without pagination in this slice). Includes expired items not yet swept.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Storage`].
    pub fn scan(&self, table: &str) -> Result<Vec<Item>, ReadError> {
        let meta = self.read_meta(table)?;
        self.collect_items(&meta.id.to_be_bytes())
    }

    /// How many items are already expired per the clock but not yet deleted:
    /// the number of expiry-index entries in `[now - 5y, now)` (the sweeper's
    /// lag, in items). 0 when TTL is disabled. May briefly over-count by
    /// index entries an update has just made stale.
    ///
    /// # Errors
    ///
    /// [`ReadError::TableNotFound`]; [`ReadError::Storage`].
    pub fn expired_backlog(&self, table: &str) -> Result<u64, ReadError> {
        let meta = self.read_meta(table)?;
        if meta.ttl_enabled().is_none() {
            return Ok(0);
        }
        let (low, high) = expired_range_secs(self.inner.clock.now_millis());
        let range = expiry_bound(meta.id, low)..expiry_bound(meta.id, high);
        let mut n = 0u64;
        for guard in self.inner.store.expiry.range(range) {
            guard.key()?;
            n += 1;
        }
        Ok(n)
    }

    /// Up to `limit` change records of `table`, oldest first, starting at
    /// `from`, across every shard and every stream of the table (sequence
    /// order is parent-before-child order). A convenience for tests and
    /// in-process readers that do not care about shards; the DynamoDB
    /// Streams reads are [`Streams::get_records`](crate::Streams::get_records) and its siblings. `Latest`
    /// returns nothing; keep the last sequence number seen and continue with
    /// `AfterSequenceNumber`. No 1,000-record or 1 MB cap.
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`] if
    /// the table has no `stream_view_type`; [`StreamError::TrimmedDataAccess`]
    /// when records at or after an `AtSequenceNumber` / `AfterSequenceNumber`
    /// position have been removed by retention; [`StreamError::Storage`].
    pub fn read_stream(
        &self,
        table: &str,
        from: StreamPosition,
        limit: usize,
    ) -> Result<Vec<ChangeRecord>, StreamError> {
        let meta = self.stream_meta(table)?;
        read_table_records(
            &self.inner.store,
            table,
            meta.id,
            from,
            limit,
            |_, value| Ok(decode_record(value)?),
        )
    }

    /// The sequence number of the newest record of `table`'s stream, or
    /// `None` if it has none yet.
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`];
    /// [`StreamError::Storage`].
    pub fn latest_sequence_number(
        &self,
        table: &str,
    ) -> Result<Option<SequenceNumber>, StreamError> {
        let meta = self.stream_meta(table)?;
        Ok(crate::stream::keys::last_sequence_number(
            &self.inner.store,
            meta.id,
        )?)
    }

    /// The metadata of DynamoDB table `table`, or [`ReadError::TableNotFound`].
    pub(crate) fn read_meta(&self, table: &str) -> Result<Arc<TableMeta>, ReadError> {
        self.table_meta(table)
            .ok_or_else(|| ReadError::TableNotFound {
                table: table.to_string(),
            })
    }

    fn stream_meta(&self, table: &str) -> Result<Arc<TableMeta>, StreamError> {
        let meta = self
            .table_meta(table)
            .ok_or_else(|| StreamError::TableNotFound {
                table: table.to_string(),
            })?;
        if meta.definition.stream_view_type.is_none() {
            return Err(StreamError::StreamNotEnabled {
                table: table.to_string(),
            });
        }
        Ok(meta)
    }

    fn collect_items(&self, prefix: &[u8]) -> Result<Vec<Item>, ReadError> {
        let mut out = Vec::new();
        for guard in self.inner.store.items.prefix(prefix) {
            let value = guard.value()?;
            out.push(decode_item(&value)?);
        }
        Ok(out)
    }
}
