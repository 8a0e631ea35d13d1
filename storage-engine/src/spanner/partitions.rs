//! A Spanner table's change stream by partition ("Spanner: Change stream
//! partitions, records, and queries"): each partition is a shard of the
//! engine's one stream machinery (`stream/shards/`), so a partition ends
//! after [`StreamOptions::max_records_per_shard`](crate::StreamOptions::max_records_per_shard)
//! records or [`StreamOptions::max_shard_age`](crate::StreamOptions::max_shard_age)
//! and its one child partition names it in `parent_partition_tokens` (as a
//! `ChildPartitionsRecord`'s child partition does); partitions are trimmed
//! by [`StreamOptions::retention`](crate::StreamOptions::retention) (Spanner
//! keeps change records one day by default). Read a parent partition
//! before its child. The DynamoDB Streams API ([`crate::Streams`]) does not
//! list them.

use super::Spanner;
use super::record::SpannerStreamEntry;
use crate::storage::{STREAM, decode_json};
use crate::stream::error::StreamError;
use crate::stream::keys::decode_stream_key;
use crate::stream::record::StreamPosition;
use crate::stream::shards::{GetRecordsOutput, SequenceNumberRange, Streams};

/// One partition of a Spanner table's change stream (a `ChildPartition` of
/// Spanner's `ChildPartitionsRecord`: `token`, `parent_partition_tokens`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeStreamPartition {
    /// `token`: the partition's id (`shardId-<20-digit creation epoch
    /// ms>-<8 hex>`, the engine's shard id).
    pub token: String,
    /// `parent_partition_tokens`: the partition this one follows (read it
    /// first); empty for the change stream's first partition. Never more
    /// than one: partitions form a chain (no merges).
    pub parent_partition_tokens: Vec<String>,
    /// The sequence numbers of its records: an open partition has a start
    /// only.
    pub sequence_number_range: SequenceNumberRange,
}

impl Spanner<'_> {
    /// The partitions kept of `table`'s change stream, parent before child.
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`]
    /// if the table has no `value_capture_type`; [`StreamError::Storage`].
    pub fn change_stream_partitions(
        &self,
        table: &str,
    ) -> Result<Vec<ChangeStreamPartition>, StreamError> {
        let id = self.change_stream_table_id(table)?;
        let shards = self.streams().table_shards(id)?;
        Ok(shards
            .into_iter()
            .map(|s| ChangeStreamPartition {
                token: s.shard_id,
                parent_partition_tokens: s.parent_shard_id.into_iter().collect(),
                sequence_number_range: s.sequence_number_range,
            })
            .collect())
    }

    /// Up to `limit` data change records of partition `partition_token` of
    /// `table`'s change stream from `position`, in order (limits and
    /// positions as [`Streams::get_records`]: at most 1,000 records and
    /// 1 MB of record JSON; `next_position: None` once an ended partition
    /// is drained, then read its child).
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`];
    /// [`StreamError::ShardNotFound`] for an unknown token;
    /// [`StreamError::TrimmedDataAccess`]; [`StreamError::Storage`].
    pub fn read_partition(
        &self,
        table: &str,
        partition_token: &str,
        position: StreamPosition,
        limit: usize,
    ) -> Result<GetRecordsOutput<SpannerStreamEntry>, StreamError> {
        let id = self.change_stream_table_id(table)?;
        self.streams()
            .read_table_shard(id, table, partition_token, position, limit, |guard| {
                let (key, value) = guard.into_inner()?;
                let sequence_number = decode_stream_key(&key)?;
                let record = decode_json(STREAM, "data change record", &value)?;
                let size = u64::try_from(value.len()).unwrap_or(u64::MAX);
                let entry = SpannerStreamEntry {
                    sequence_number,
                    record,
                };
                Ok((size, sequence_number, entry))
            })
    }

    fn streams(&self) -> Streams<'_> {
        Streams {
            store: &self.inner.store,
        }
    }
}
