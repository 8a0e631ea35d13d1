//! A stream found in a snapshot with the shards of its range: the shard
//! lookup and trim check every read of a shard makes (`read.rs`, `table.rs`).

use super::SequenceNumberRange;
use super::Shard;
use super::meta::{StoredShard, StoredStream};
use crate::stream::error::StreamError;
use crate::stream::record::{SequenceNumber, StreamPosition};

/// A stream found (by ARN, or by table and shard), with the shards of its
/// range.
pub(super) struct Found {
    pub(super) stream: StoredStream,
    pub(super) shards: Vec<StoredShard>,
    /// The highest sequence number trimmed from its table.
    pub(super) trimmed: Option<u64>,
}

impl Found {
    /// The shard with this id and the last sequence number it can hold now
    /// (its ending if closed; else the end of its stream's range).
    pub(super) fn shard(
        &self,
        stream_arn: &str,
        shard_id: &str,
    ) -> Result<(&StoredShard, u64), StreamError> {
        let i = self
            .shards
            .iter()
            .position(|s| s.entry.shard_id == shard_id)
            .ok_or_else(|| StreamError::ShardNotFound {
                stream_arn: stream_arn.to_string(),
                shard_id: shard_id.to_string(),
            })?;
        let shard = &self.shards[i];
        let last = match (shard.entry.ending, self.shards.get(i + 1)) {
            (Some(end), _) => end,
            (None, Some(next)) => next.start.saturating_sub(1),
            (None, None) => u64::MAX,
        };
        Ok((shard, last))
    }

    /// [`StreamError::TrimmedDataAccess`] if records at or after `position`
    /// have been trimmed.
    pub(super) fn check_trim(&self, position: StreamPosition) -> Result<(), StreamError> {
        let Some(t) = self.trimmed else {
            return Ok(());
        };
        let (first, text) = match position {
            StreamPosition::AtSequenceNumber(s) => (s.0, format!("AT_SEQUENCE_NUMBER {s}")),
            StreamPosition::AfterSequenceNumber(s) => {
                (s.0.saturating_add(1), format!("AFTER_SEQUENCE_NUMBER {s}"))
            }
            _ => return Ok(()),
        };
        if first <= t {
            return Err(StreamError::TrimmedDataAccess {
                table: self.stream.entry.table_name.clone(),
                position: text,
                trimmed_through: SequenceNumber(t),
            });
        }
        Ok(())
    }
}

/// A stored shard in DynamoDB Streams' `Shard` shape.
pub(super) fn shard_shape(s: &StoredShard) -> Shard {
    Shard {
        shard_id: s.entry.shard_id.clone(),
        parent_shard_id: s.entry.parent_shard_id.clone(),
        sequence_number_range: SequenceNumberRange {
            starting_sequence_number: SequenceNumber(s.start),
            ending_sequence_number: s.entry.ending.map(SequenceNumber),
        },
        creation_millis: s.entry.created_millis,
    }
}
