//! Sources: where change records come from.
//!
//! A source reads batches of [`Record`]s from a [`Checkpoint`] the pipeline
//! gives it ([`Source::read`]); the pipeline alone keeps the checkpoint, so
//! every source gets the same at-least-once delivery and crash replay. A
//! source whose position is one `SequenceNumber` (the engine) reads after
//! `Checkpoint::sequence_number`; one whose positions are per partition
//! (DynamoDB Streams shards, a file's byte offset) reads from
//! `Checkpoint::partitions` and says which partition a batch advances
//! ([`PartitionProgress`]). Either way the pipeline writes the in-flight
//! range and commits, so the checkpoint mechanism stays one.
//!
//! What a source's database knows beyond its stream (the engine's sweeper
//! lag) comes from whoever owns that database ([`crate::engine`]), not
//! through this trait.

pub mod dynamodb_streams;
pub mod engine;
pub mod event_record;
pub mod file;

use std::future::Future;
use std::pin::Pin;

use crate::checkpoint::{Checkpoint, PartitionProgress};
use crate::error::SourceError;
use crate::record::Record;

/// What one [`Source::read`] returned.
#[derive(Clone, Debug, Default)]
pub struct SourceBatch {
    /// The records, in stream order (within the partition); may be empty
    /// while `progress` still moves (a closed shard drained; skipped lines).
    pub records: Vec<Record>,
    /// The partition this batch advances, for a partitioned source; `None`:
    /// no partition moved (a source whose position is the records'
    /// `SequenceNumber`s returns `None`).
    pub progress: Option<PartitionProgress>,
}

/// How much one [`Source::read`] may return: the tightest batch limits of
/// the sinks and `[batch] max_records`. A partitioned source's read is one
/// batch, so the sinks' `max_records` and `max_bytes` hold for it as they
/// do for other sources (whose reads the pipeline's batcher splits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Records. A source may pass it by the records of one indivisible unit
    /// (a replay line holding a whole `{"Records":[...]}` event).
    pub max_records: usize,
    /// Bytes of the records' JSON, one newline each (the NDJSON a sink
    /// writes), counted as for a sink batch; the read stops after the record
    /// that reaches it. Sources that cannot tell (DynamoDB Streams, whose
    /// GetRecords has its own 1 MB limit) and sources whose reads the
    /// pipeline's batcher splits (the engine) ignore it.
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

/// A stream of change records.
pub trait Source: Send {
    /// A stable name for this source, used for its checkpoint file.
    fn id(&self) -> &str;

    /// Tables this source reads, so metrics can publish explicit zeros for them.
    fn tables(&self) -> Vec<String>;

    /// The metric its TTL deletions are counted under (per `TableName`):
    /// the name the table's service publishes. Default
    /// [`TIME_TO_LIVE_DELETED_ITEM_COUNT`](crate::metrics::TIME_TO_LIVE_DELETED_ITEM_COUNT)
    /// (DynamoDB).
    fn ttl_metric_name(&self) -> &'static str {
        crate::metrics::TIME_TO_LIVE_DELETED_ITEM_COUNT
    }

    /// Reads the next batch, within `limits`, from `checkpoint`: after its
    /// `sequence_number` or from its partitions' positions (from the start
    /// of the stream when it has neither). When `checkpoint.in_flight` is
    /// set, reads exactly that batch again (the replay of a batch that was
    /// in flight when the process stopped, or whose write failed). An empty
    /// batch without progress means the source has nothing new now.
    fn read<'a>(
        &'a mut self,
        checkpoint: &'a Checkpoint,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<SourceBatch, SourceError>>;

    /// For a source configured to start at `LATEST` whose position is one
    /// `SequenceNumber`: the `SequenceNumber` of the newest record now,
    /// which the pipeline then saves as the checkpoint to read after.
    /// `None` (the default): start at the oldest record the stream holds,
    /// or the source applies its starting position itself (per shard).
    fn latest(&mut self) -> BoxFuture<'_, Result<Option<String>, SourceError>> {
        Box::pin(async { Ok(None) })
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

    /// The clock the source's records are timestamped with; metric periods close
    /// by it. Default: the system clock.
    fn clock(&self) -> std::sync::Arc<dyn ttlstream_engine::Clock> {
        std::sync::Arc::new(ttlstream_engine::SystemClock)
    }
}
