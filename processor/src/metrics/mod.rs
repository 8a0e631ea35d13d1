//! Metrics: `TimeToLiveDeletedItemCount` per table per period, and the pipeline's
//! own counters.
//!
//! The pipeline instruments once, through the `metrics` crate ([`names`]); the
//! exporters read what it recorded: Prometheus text on `/metrics`
//! ([`prometheus`]), CloudWatch Embedded Metric Format lines on stdout
//! ([`emf`]) and CloudWatch `PutMetricData` ([`cloudwatch`]), the latter two
//! from a [`SnapshotRecorder`] flushed once per metric period.

pub mod cloudwatch;
pub mod emf;
pub mod exporters;
pub mod names;
pub mod prometheus;
mod snapshot;
mod ttl_deleted;

pub use snapshot::{MetricDatum, SnapshotRecorder};
pub use ttl_deleted::{
    Datapoint, SPANNER_DELETED_ROWS, TABLESTORE_DELETED_ROWS, TIME_TO_LIVE_DELETED_ITEM_COUNT,
    TtlDeletionCounter,
};

/// Counters of one pipeline since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PipelineStats {
    /// Records read from the source.
    pub records_read: u64,
    /// Records that matched at least one route.
    pub records_matched: u64,
    /// Record deliveries acknowledged by sinks (a record sent to two sinks counts twice).
    pub records_delivered: u64,
    /// TTL deletions seen on the stream.
    pub ttl_deletions: u64,
    /// Batches whose checkpoint was committed.
    pub batches_committed: u64,
    /// Records written to the dead-letter sink (one per failed sink).
    pub records_dead_lettered: u64,
}
