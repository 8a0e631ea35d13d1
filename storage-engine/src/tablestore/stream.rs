//! A Tablestore table's stream by shard ("Tablestore: DescribeStream",
//! "Tablestore: StreamShard", "Tablestore: GetStreamRecord"): the shards of
//! the stream the table was created with, parent first ("Read all data from
//! a parent shard before reading data from its child shards"), and reads of
//! one shard. The shards are the engine's one stream machinery
//! (`stream/shards/`): rotated after
//! [`StreamOptions::max_records_per_shard`](crate::StreamOptions::max_records_per_shard)
//! records or [`StreamOptions::max_shard_age`](crate::StreamOptions::max_shard_age),
//! trimmed by [`StreamOptions::retention`](crate::StreamOptions::retention),
//! as a DynamoDB table's; the DynamoDB Streams API ([`crate::Streams`]) does
//! not list them.

use super::Tablestore;
use crate::stream::codec::StoredEntry;
use crate::stream::error::StreamError;
use crate::stream::keys::{decode_record, stored_entry};
use crate::stream::record::{ChangeRecord, EventName, StreamPosition};
use crate::stream::shards::{GetRecordsOutput, SequenceNumberRange, Streams};

/// One shard of a Tablestore table's stream (Tablestore `StreamShard`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamShard {
    /// `shard_id`: `shardId-<20-digit creation epoch ms>-<8 hex>`.
    pub shard_id: String,
    /// `parent_id`: the shard this one follows (read it first); `None` for
    /// the stream's first shard, and lineage is a chain (no
    /// `parent_sibling_id`: a shard never merges two).
    pub parent_id: Option<String>,
    /// Its sequence numbers: an open shard has a start only.
    pub sequence_number_range: SequenceNumberRange,
}

impl Tablestore<'_> {
    /// The shards kept of `table`'s stream, parent before child (Tablestore
    /// `DescribeStream`'s `shards`, whole).
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`];
    /// [`StreamError::Storage`].
    pub fn describe_stream(&self, table: &str) -> Result<Vec<StreamShard>, StreamError> {
        let id = self.stream_table_id(table)?;
        let shards = self.streams().table_shards(id)?;
        Ok(shards
            .into_iter()
            .map(|s| StreamShard {
                shard_id: s.shard_id,
                parent_id: s.parent_shard_id,
                sequence_number_range: s.sequence_number_range,
            })
            .collect())
    }

    /// Up to `limit` records of shard `shard_id` of `table`'s stream from
    /// `position` (Tablestore `GetStreamRecord`; limits and positions as
    /// [`Streams::get_records`]: at most 1,000 records and 1 MB;
    /// `next_position: None` once a closed shard is drained, then read its
    /// child).
    ///
    /// # Errors
    ///
    /// [`StreamError::TableNotFound`]; [`StreamError::StreamNotEnabled`];
    /// [`StreamError::ShardNotFound`]; [`StreamError::TrimmedDataAccess`];
    /// [`StreamError::Storage`].
    pub fn get_stream_record(
        &self,
        table: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
    ) -> Result<GetRecordsOutput<ChangeRecord>, StreamError> {
        let id = self.stream_table_id(table)?;
        self.streams()
            .read_table_shard(id, table, shard_id, position, limit, |guard| {
                let record = decode_record(&guard.value()?)?;
                Ok((record.size_bytes, record.sequence_number, record))
            })
    }

    /// [`Tablestore::get_stream_record`] with each record as stored, for
    /// readers that write records in their own shape: as
    /// [`Streams::get_stored_records_of`], a record whose `eventName` `full`
    /// rejects comes as its header only.
    ///
    /// # Errors
    ///
    /// As [`Tablestore::get_stream_record`].
    pub fn get_stored_stream_records_of(
        &self,
        table: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
        full: impl Fn(EventName) -> bool,
    ) -> Result<GetRecordsOutput<StoredEntry>, StreamError> {
        let id = self.stream_table_id(table)?;
        self.streams()
            .read_table_shard(id, table, shard_id, position, limit, |guard| {
                let (size, entry) = stored_entry(guard.value()?, &full)?;
                Ok((size, entry.sequence_number(), entry))
            })
    }

    fn streams(&self) -> Streams<'_> {
        Streams {
            store: &self.inner.store,
        }
    }
}
