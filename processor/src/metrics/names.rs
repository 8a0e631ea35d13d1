//! The metric names ttlstream emits through the `metrics` crate, in CloudWatch's
//! style (PascalCase, the unit in the name where it is not Count).

/// Records read from the source (Count).
pub const RECORDS_READ: &str = "RecordsRead";
/// Records that matched at least one route (Count).
pub const RECORDS_MATCHED: &str = "RecordsMatched";
/// Record deliveries acknowledged by sinks, i.e. archived (Count).
pub const RECORDS_DELIVERED: &str = "RecordsDelivered";
/// Batches that failed delivery after every retry (Count).
pub const RECORDS_FAILED: &str = "RecordsFailed";
/// Records sent to a dead-letter sink (Count; 0 until a dead-letter sink exists).
pub const RECORDS_DEAD_LETTERED: &str = "RecordsDeadLettered";
/// Age of the newest record read, when it was read (milliseconds), as Lambda's
/// `IteratorAge` (Lambda Developer Guide, "Types of metrics for Lambda functions").
pub const ITERATOR_AGE_MILLISECONDS: &str = "IteratorAgeMilliseconds";
/// The engine's sweeper lag per `TableName`: how long the oldest expired, not
/// yet deleted item has waited (milliseconds; 0 when the sweeper has caught up).
/// Set before every read of a source that can tell (the `engine` source).
pub const SWEEPER_LAG_MILLISECONDS: &str = "SweeperLagMilliseconds";
/// The engine's Spanner tables' `row_deletion_policy/processed_watermark_age`
/// per `TableName`: seconds since the read time of the sweeper's last pass
/// that deleted every row then due ("Spanner: TTL metrics and monitoring";
/// Cloud Monitoring reports it per database). Not set before the first such
/// pass since the engine was opened. Set with [`SWEEPER_LAG_MILLISECONDS`].
pub const SPANNER_PROCESSED_WATERMARK_AGE: &str = "row_deletion_policy/processed_watermark_age";
/// The engine's Spanner tables' `row_deletion_policy/undeletable_rows` per
/// `TableName`: rows due under the policy that the last complete sweep pass
/// could not delete, a cascade over Spanner's per-commit mutation limit
/// ("Spanner: TTL metrics and monitoring"); 0 when there were none. Set with
/// [`SPANNER_PROCESSED_WATERMARK_AGE`], from the same pass (Count).
pub const SPANNER_UNDELETABLE_ROWS: &str = "row_deletion_policy/undeletable_rows";
/// Lines of a replay file that were not stream records and were skipped
/// (`on_malformed = "skip"`) (Count).
pub const RECORDS_MALFORMED: &str = "RecordsMalformed";
/// `TrimmedDataAccessException` answers from DynamoDB Streams: records were
/// trimmed (older than 24 hours) before they were read, so they are lost to this
/// reader (Count).
pub const TRIMMED_DATA_ACCESS: &str = "TrimmedDataAccessExceptions";
/// How long the batch a sink is retrying has been failing (milliseconds, per
/// `Sink`; 0 while the sink takes batches). Set at every retry of a
/// long-lived sidecar ([`RetryConfig`](crate::config::RetryConfig)): the stall an outage causes.
pub const SINK_STALLED_MILLISECONDS: &str = "SinkStalledMilliseconds";
/// The `TableName` dimension.
pub const TABLE_NAME: &str = "TableName";
/// The `Sink` dimension: a sink's name from the config.
pub const SINK: &str = "Sink";

/// A CloudWatch `StandardUnit` for a metric name: `Milliseconds` for names
/// ending in `Milliseconds`, `Seconds` for
/// [`SPANNER_PROCESSED_WATERMARK_AGE`], else `Count`.
pub fn unit_of(name: &str) -> &'static str {
    if name.ends_with("Milliseconds") {
        "Milliseconds"
    } else if name == SPANNER_PROCESSED_WATERMARK_AGE {
        "Seconds"
    } else {
        "Count"
    }
}

/// Registers units and descriptions with the installed recorder (shown as
/// `# HELP` in Prometheus text), and creates the dead-letter counter at 0.
pub fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge};
    describe_counter!(RECORDS_READ, Unit::Count, "Records read from the source");
    describe_counter!(RECORDS_MATCHED, Unit::Count, "Records that matched a route");
    describe_counter!(
        RECORDS_DELIVERED,
        Unit::Count,
        "Record deliveries acknowledged by sinks"
    );
    describe_counter!(
        RECORDS_FAILED,
        Unit::Count,
        "Records whose delivery failed after retries"
    );
    describe_counter!(
        RECORDS_DEAD_LETTERED,
        Unit::Count,
        "Records sent to a dead-letter sink"
    );
    describe_counter!(
        RECORDS_MALFORMED,
        Unit::Count,
        "Replay-file lines skipped because they are not stream records"
    );
    describe_counter!(
        TRIMMED_DATA_ACCESS,
        Unit::Count,
        "DynamoDB Streams TrimmedDataAccessException answers (records lost to trimming)"
    );
    describe_counter!(
        crate::metrics::TIME_TO_LIVE_DELETED_ITEM_COUNT,
        Unit::Count,
        "Items deleted by TTL, per TableName"
    );
    describe_counter!(
        crate::metrics::SPANNER_DELETED_ROWS,
        Unit::Count,
        "Rows deleted by a Spanner row deletion policy, per TableName"
    );
    describe_counter!(
        crate::metrics::TABLESTORE_DELETED_ROWS,
        Unit::Count,
        "Rows of a Tablestore table removed by TTL or max versions, per TableName"
    );
    describe_gauge!(
        SWEEPER_LAG_MILLISECONDS,
        Unit::Milliseconds,
        "Age of the oldest expired item not yet deleted, per TableName"
    );
    describe_gauge!(
        SPANNER_PROCESSED_WATERMARK_AGE,
        Unit::Seconds,
        "Seconds since the last sweep pass that deleted every row due, per Spanner TableName"
    );
    describe_gauge!(
        SPANNER_UNDELETABLE_ROWS,
        Unit::Count,
        "Rows due under a row deletion policy that the last complete pass could not delete, per Spanner TableName"
    );
    describe_gauge!(
        SINK_STALLED_MILLISECONDS,
        Unit::Milliseconds,
        "How long the batch a sink is retrying has been failing, per Sink (0: not failing)"
    );
    describe_gauge!(
        ITERATOR_AGE_MILLISECONDS,
        Unit::Milliseconds,
        "Age of the newest record read"
    );
    metrics::counter!(RECORDS_DEAD_LETTERED).increment(0);
}
