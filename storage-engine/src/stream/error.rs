//! The error of change-stream reads ([`StreamError`]), beside the stream it
//! describes.

use crate::error::StorageError;
use crate::stream::record::SequenceNumber;

/// Errors from change-stream reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// No table with this name exists.
    #[error("table `{table}` not found")]
    TableNotFound {
        /// Table name.
        table: String,
    },
    /// The table was created without a `stream_view_type`, so it has no stream.
    #[error("table `{table}` has no stream (stream_view_type is not set)")]
    StreamNotEnabled {
        /// Table name.
        table: String,
    },
    /// No stream has this StreamArn (never existed, or removed after its
    /// retention) (DynamoDB Streams `ResourceNotFoundException`).
    #[error("stream {stream_arn} not found")]
    StreamNotFound {
        /// The StreamArn asked for.
        stream_arn: String,
    },
    /// The stream has no shard with this ShardId (never existed, or trimmed
    /// away) (`ResourceNotFoundException`).
    #[error("shard {shard_id} not found in stream {stream_arn}")]
    ShardNotFound {
        /// The StreamArn.
        stream_arn: String,
        /// The ShardId asked for.
        shard_id: String,
    },
    /// Not a StreamArn this engine could have made (`ValidationException`).
    #[error("invalid StreamArn {stream_arn:?}: {message}")]
    InvalidStreamArn {
        /// What was given.
        stream_arn: String,
        /// What is wrong with it.
        message: String,
    },
    /// A sequence number that does not lie in the shard's
    /// SequenceNumberRange (`ValidationException`).
    #[error("SequenceNumber {sequence_number} is outside shard {shard_id} (range {range})")]
    SequenceNumberOutsideShard {
        /// The ShardId.
        shard_id: String,
        /// The sequence number asked for.
        sequence_number: SequenceNumber,
        /// The shard's range, `start..=end` or `start..` while open.
        range: String,
    },
    /// The position asked for lies below the trim horizon: records after it
    /// have already been removed by retention, so reading on would skip them
    /// (DynamoDB Streams `TrimmedDataAccessException`).
    #[error(
        "table `{table}`: the data you are trying to access has been trimmed (position {position}, records trimmed through {trimmed_through})"
    )]
    TrimmedDataAccess {
        /// The table.
        table: String,
        /// The position asked for (`AT_SEQUENCE_NUMBER n` / `AFTER_SEQUENCE_NUMBER n`).
        position: String,
        /// The highest sequence number removed by retention.
        trimmed_through: SequenceNumber,
    },
    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<fjall::Error> for StreamError {
    fn from(e: fjall::Error) -> Self {
        StreamError::Storage(StorageError::Io(e))
    }
}
