//! A table's shards and their reads by table id rather than by StreamArn:
//! what the Tablestore model's stream API (`Tablestore::describe_stream`,
//! `Tablestore::get_stream_record`) and the Spanner model's change stream
//! partitions (`Spanner::change_stream_partitions`,
//! `Spanner::read_partition`) are built on. Same snapshot, shard lookup,
//! trim check and GetRecords limits as the DynamoDB Streams reads
//! (`read.rs`), whose code this calls.

use super::found::{Found, shard_shape};
use super::meta::{load_shards, load_streams, trimmed_through};
use super::{GetRecordsOutput, Shard, Streams};
use crate::error::StorageError;
use crate::stream::error::StreamError;
use crate::stream::record::{SequenceNumber, StreamPosition};
use fjall::{Guard, Snapshot};

impl Streams<'_> {
    /// Every shard kept of table `table_id`'s streams, older stream first,
    /// each stream's shards parent before child (ascending
    /// StartingSequenceNumber): the order its records must be read in.
    ///
    /// # Errors
    ///
    /// [`StreamError::Storage`].
    pub(crate) fn table_shards(&self, table_id: u32) -> Result<Vec<Shard>, StreamError> {
        let snapshot = self.store.db.snapshot();
        let shards = load_shards(&snapshot, &self.store.shards, table_id, 0, None)?;
        Ok(shards.iter().map(shard_shape).collect())
    }

    /// Up to `limit` records of shard `shard_id` of table `table_id` from
    /// `position`, as [`Streams::get_records`] reads a DynamoDB stream's
    /// shard (≤ 1,000 records, ≤ 1 MB; `next_position: None` once a closed
    /// shard is drained); `read` turns each stored record into an `R` with
    /// its size and `SequenceNumber`. `table` names the table in errors.
    ///
    /// # Errors
    ///
    /// [`StreamError::ShardNotFound`] (its `stream_arn` is the table name);
    /// [`StreamError::TrimmedDataAccess`]; [`StreamError::Storage`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read_table_shard<R>(
        &self,
        table_id: u32,
        table: &str,
        shard_id: &str,
        position: StreamPosition,
        limit: usize,
        read: impl Fn(Guard) -> Result<(u64, SequenceNumber, R), StorageError>,
    ) -> Result<GetRecordsOutput<R>, StreamError> {
        let snapshot = self.store.db.snapshot();
        let found = self.find_table_shard(&snapshot, table_id, table, shard_id)?;
        self.read_in(&snapshot, &found, table, shard_id, position, limit, read)
    }

    /// The stream of table `table_id` that holds shard `shard_id`.
    fn find_table_shard(
        &self,
        snapshot: &Snapshot,
        table_id: u32,
        table: &str,
        shard_id: &str,
    ) -> Result<Found, StreamError> {
        let ks = &self.store.shards;
        let streams: Vec<_> = load_streams(snapshot, ks)?
            .into_iter()
            .filter(|s| s.table_id == table_id)
            .collect();
        for (i, stream) in streams.iter().enumerate() {
            let end = streams.get(i + 1).map(|next| next.start);
            let shards = load_shards(snapshot, ks, table_id, stream.start, end)?;
            if shards.iter().any(|s| s.entry.shard_id == shard_id) {
                return Ok(Found {
                    stream: stream.clone(),
                    shards,
                    trimmed: trimmed_through(snapshot, ks, table_id)?,
                });
            }
        }
        Err(StreamError::ShardNotFound {
            stream_arn: table.to_string(),
            shard_id: shard_id.to_string(),
        })
    }
}
