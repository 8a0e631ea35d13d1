//! Sources: where change records come from.
//!
//! A source reads batches of [`Record`]s at a position the pipeline gives it; the
//! pipeline alone keeps the checkpoint, so every source gets the same
//! at-least-once delivery and crash replay.
//!
//! Sources whose position is not one `SequenceNumber` (DynamoDB Streams shards,
//! a file's byte offset) implement [`Source::read_checkpointed`]: they read from
//! the whole [`Checkpoint`] and say which partition a batch advances
//! ([`PartitionProgress`]); the pipeline still writes the in-flight range and
//! commits, so the checkpoint mechanism stays one.

pub mod dynamodb_streams;
pub mod engine;
mod engine_encode;
pub mod event_record;
pub mod file;

use std::future::Future;
use std::pin::Pin;

use crate::checkpoint::{Checkpoint, PartitionProgress};
use crate::error::SourceError;
use crate::record::Record;

/// A batch of a partitioned source.
#[derive(Clone, Debug, Default)]
pub struct SourceBatch {
    /// The records, in stream order within the partition; may be empty while
    /// `progress` still moves (a closed shard drained; skipped lines).
    pub records: Vec<Record>,
    /// The partition this batch advances; `None`: nothing moved.
    pub progress: Option<PartitionProgress>,
}

/// How much one read of a partitioned source may return. Its read is one
/// batch ([`Source::read_checkpointed`]), so the pipeline passes the tightest
/// batch limits of the sinks (and `[batch] max_records`) here, and the
/// sinks' `max_records` and `max_bytes` hold as they do for other sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Records. A source may pass it by the records of one indivisible unit
    /// (a replay line holding a whole `{"Records":[...]}` event).
    pub max_records: usize,
    /// Bytes of the records' JSON, one newline each (the NDJSON a sink
    /// writes), counted as for a sink batch; the read stops after the record
    /// that reaches it. Sources that cannot tell (DynamoDB Streams, whose
    /// GetRecords has its own 1 MB limit) ignore it.
    pub max_bytes: usize,
}

/// A boxed future, as sources and sinks return them so they can be `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a read starts when there is no checkpoint yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StartingPosition {
    /// The oldest record the stream still holds (DynamoDB's `TRIM_HORIZON`).
    #[default]
    TrimHorizon,
    /// Only records written after the processor first started (`LATEST`).
    Latest,
}

/// What to read next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadFrom {
    /// From the start of the stream.
    TrimHorizon,
    /// Records after this `SequenceNumber`.
    After(String),
    /// Exactly the records from `first` to `last` inclusive: the replay of a batch
    /// that was in flight when the process stopped.
    Range {
        /// First `SequenceNumber` of the range.
        first: String,
        /// Last `SequenceNumber` of the range.
        last: String,
    },
}

/// A stream of change records.
pub trait Source: Send {
    /// A stable name for this source, used for its checkpoint file.
    fn id(&self) -> &str;

    /// Tables this source reads, so metrics can publish explicit zeros for them.
    fn tables(&self) -> Vec<String>;

    /// Reads at most `max_records` records from `from`, in `SequenceNumber` order.
    /// An empty batch means the source has nothing new now.
    fn read<'a>(
        &'a mut self,
        from: &'a ReadFrom,
        max_records: usize,
    ) -> BoxFuture<'a, Result<Vec<Record>, SourceError>>;

    /// The `SequenceNumber` of the newest record now, for a `LATEST` start.
    fn latest(&mut self) -> BoxFuture<'_, Result<Option<String>, SourceError>>;

    /// For partitioned sources: reads the next batch, within `limits`, from
    /// the positions in `checkpoint`; when `checkpoint.in_flight` names a
    /// partition, reads exactly that batch again. `None` (the default): the
    /// source is not partitioned and the pipeline calls [`Source::read`].
    fn read_checkpointed<'a>(
        &'a mut self,
        checkpoint: &'a Checkpoint,
        limits: ReadLimits,
    ) -> Option<BoxFuture<'a, Result<SourceBatch, SourceError>>> {
        let _ = (checkpoint, limits);
        None
    }

    /// Tells the source that no route matches a record whose `eventName` is
    /// not in `names` (called once, before the first read, when the routes'
    /// patterns all require one of a set). A source may then return such
    /// records with [`Record::unmatched`] set and no JSON, saving the
    /// encoding; their `SequenceNumber`s, times and kinds must still be
    /// right. Default: ignored.
    fn route_event_names(&mut self, names: &std::collections::BTreeSet<String>) {
        let _ = names;
    }

    /// Whether the source has ended for good (a file or stdin read to its end):
    /// the pipeline's `run` then returns after the last batch. Default false.
    fn exhausted(&self) -> bool {
        false
    }

    /// The source's view of how far behind it is: items already expired but not
    /// yet deleted (the engine's sweeper lag), when the source can tell.
    fn expired_backlog(&self) -> Option<u64> {
        None
    }

    /// Per table: milliseconds the oldest expired, not yet deleted item has
    /// waited for the TTL process (the engine's sweeper lag), when the source
    /// can tell. Empty by default.
    fn sweeper_lag_millis(&self) -> Vec<(String, u64)> {
        Vec::new()
    }

    /// The clock the source's records are timestamped with; metric periods close
    /// by it. Default: the system clock.
    fn clock(&self) -> std::sync::Arc<dyn ttlstream_engine::Clock> {
        std::sync::Arc::new(ttlstream_engine::SystemClock)
    }
}
