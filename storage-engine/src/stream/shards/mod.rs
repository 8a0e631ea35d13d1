//! Change streams of every TTL model's tables: streams, shards with
//! parent/child lineage, GetRecords-limited reads, retention and trimming,
//! and DynamoDB Streams over them.
//!
//! # The API (what a DynamoDB Streams endpoint calls)
//!
//! | DynamoDB Streams / DynamoDB | engine |
//! |---|---|
//! | `ListStreams` (optional `TableName`) | [`Streams::list_streams`](crate::Streams::list_streams) → [`StreamSummary`]s, by table name then creation |
//! | `DescribeTable`'s `LatestStreamArn` / `LatestStreamLabel` | [`Streams::latest_stream`](crate::Streams::latest_stream) |
//! | `DescribeStream` | [`Streams::describe_stream`](crate::Streams::describe_stream) → [`StreamDescription`] (every shard, parent before child; page it yourself) |
//! | `GetShardIterator` | [`Streams::shard_iterator`](crate::Streams::shard_iterator): checks shard and sequence number, resolves `LATEST`, fails with [`StreamError::TrimmedDataAccess`] below the trim horizon → a [`StreamPosition`] to encode in your iterator |
//! | `GetRecords` | [`Streams::get_records`](crate::Streams::get_records) (≤ 1,000 records, ≤ 1 MB of `SizeBytes`) → [`GetRecordsOutput`]; `next_position: None` = closed shard drained (`NextShardIterator` null) |
//! | `UpdateTable` `StreamSpecification` | [`DynamoDb::update_stream`](crate::DynamoDb::update_stream): disable closes the open shard; enable creates a new stream (new StreamLabel) |
//! | `CreateTable` `StreamSpecification` | [`DynamoDb::create_table`](crate::DynamoDb::create_table) with [`TableDefinition::with_stream`](crate::TableDefinition::with_stream) |
//!
//! Error mapping for a server: [`StreamError::StreamNotFound`] /
//! [`StreamError::ShardNotFound`] / [`StreamError::TableNotFound`] →
//! `ResourceNotFoundException`; [`StreamError::TrimmedDataAccess`] →
//! `TrimmedDataAccessException`; [`StreamError::InvalidStreamArn`] /
//! [`StreamError::SequenceNumberOutsideShard`] → `ValidationException`.
//! Iterator expiry (15 minutes) is the server's: the engine's positions never
//! expire.
//!
//! # Behaviour, with its AWS source
//!
//! * A stream is a sequence of shards; each record belongs to exactly one
//!   shard; a new shard opens (the old one closes with an
//!   EndingSequenceNumber, the new one names it as ParentShardId) after
//!   [`StreamOptions::max_records_per_shard`] records or when the open shard
//!   is [`StreamOptions::max_shard_age`] old at the next record ("Change data
//!   capture for DynamoDB Streams", Reading and processing a stream: shards
//!   are ephemeral, created and deleted automatically; process a parent
//!   before its child). Lineage is a chain: no shard splits in two.
//! * `SequenceNumberRange` ("DescribeStream"): an open shard has a
//!   StartingSequenceNumber only; a closed one has both. The starting number
//!   of a stream's first shard is reserved (no record has it); every later
//!   shard starts at its first record. Sequence numbers are engine-wide and
//!   strictly increasing, so parent-before-child is also sequence order.
//! * Streams: enabling creates a stream whose StreamLabel is its creation
//!   time (`2026-11-21T01:02:03.456`, unique per table name) and whose
//!   StreamArn is DynamoDB Local's shape,
//!   `arn:aws:dynamodb:ddblocal:000000000000:table/NAME/stream/LABEL`.
//!   Disabling closes the open shard; the stream stays readable (DISABLED)
//!   until retention removes it; enabling again makes a new stream ("Change
//!   data capture for DynamoDB Streams", Enabling a stream).
//! * Reads ("GetRecords"): at most 1,000 records ([`MAX_GET_RECORDS`]) and at
//!   most 1 MB ([`MAX_GET_RECORDS_BYTES`], counted in each record's
//!   `SizeBytes`, at least one record per read).
//! * Retention ([`StreamOptions::retention`], default 24 hours, "Change data
//!   capture for DynamoDB Streams": records are kept up to 24 hours): a
//!   record whose ApproximateCreationDateTime is older than the retention by
//!   the engine clock is removed by the trimmer (the sweeper thread, or
//!   [`Engine::trim_streams`](crate::Engine::trim_streams)); a closed shard disappears once it has been
//!   closed for longer than the retention, a DISABLED stream once it has no
//!   shard left. A read at a position below the trim horizon fails with
//!   [`StreamError::TrimmedDataAccess`] ("TrimmedDataAccessException")
//!   rather than skipping records.
//!
//! # Every model's stream, one machinery
//!
//! A Tablestore table created with a stream and a Spanner table created with
//! a change stream (`value_capture_type`) get the same stream and shard
//! entries from their creation (`lifecycle.rs`): a first shard whose start
//! is reserved, rotation by the same allocator under the same
//! [`StreamOptions`] (`alloc.rs`), closed shards with EndingSequenceNumber
//! and ParentShardId, the open shard restored when the engine reopens, and
//! the same retention and trimming (`trim.rs`; Tablestore Stream keeps
//! incremental data at most 24 hours; Spanner change streams keep one day
//! by default, "Change streams overview"). Deleting a Tablestore table ends
//! its stream as disabling a DynamoDB stream does. Each model reads its
//! shards under its service's names (`table.rs` underneath):
//!
//! | service | engine |
//! |---|---|
//! | Tablestore `DescribeStream` (`shards`: `shard_id`, `parent_id`) | [`Tablestore::describe_stream`](crate::Tablestore::describe_stream) |
//! | Tablestore `GetStreamRecord` | [`Tablestore::get_stream_record`](crate::Tablestore::get_stream_record) |
//! | Spanner change stream partitions (`ChildPartitionsRecord`: `token`, `parent_partition_tokens`) | [`Spanner::change_stream_partitions`](crate::Spanner::change_stream_partitions) |
//! | Spanner change stream query of one partition | [`Spanner::read_partition`](crate::Spanner::read_partition) |
//!
//! The DynamoDB Streams API ([`Streams`], which `ttlstream serve` exposes
//! over HTTP) lists and finds only DynamoDB tables' streams: a Tablestore or
//! Spanner client does not speak DynamoDB Streams, and a DynamoDB Streams
//! client given a Spanner data change record could not parse it. The
//! unsharded reads of a table's records in sequence order
//! ([`Tablestore::read_stream`](crate::Tablestore::read_stream),
//! [`Spanner::read_change_stream`](crate::Spanner::read_change_stream),
//! [`DynamoDb::read_stream`](crate::DynamoDb::read_stream)) read the same
//! records across their shards.

pub(crate) mod alloc;
mod found;
pub(crate) mod lifecycle;
pub(crate) mod meta;
mod read;
mod table;
pub(crate) mod trim;

use crate::storage::key::KeyAttribute;
use crate::stream::record::StreamViewType;
use crate::stream::record::{ChangeRecord, SequenceNumber, StreamPosition};
use std::fmt;
use std::time::Duration;

#[allow(unused_imports)] // doc links
use crate::stream::error::StreamError;

pub use meta::{STREAM_ARN_ACCOUNT, STREAM_ARN_REGION};
pub use trim::TrimReport;

/// The DynamoDB Streams API of an [`Engine`](crate::Engine), from
/// [`Engine::streams`](crate::Engine::streams): ListStreams, DescribeStream,
/// GetShardIterator and GetRecords over the DynamoDB model's sharded change
/// streams ("Change data capture for DynamoDB Streams"). Borrows the
/// engine; cheap to copy.
#[derive(Clone, Copy)]
pub struct Streams<'a> {
    pub(crate) store: &'a crate::storage::Store,
}

impl std::fmt::Debug for Streams<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streams").finish_non_exhaustive()
    }
}

/// Most records one [`Streams::get_records`](crate::Streams::get_records) returns (GetRecords' limit).
pub const MAX_GET_RECORDS: usize = 1_000;
/// Most bytes of record `SizeBytes` one [`Streams::get_records`](crate::Streams::get_records) returns
/// (GetRecords' 1 MB, as 1,048,576 bytes); the first record is returned
/// whatever its size.
pub const MAX_GET_RECORDS_BYTES: u64 = 1_048_576;

/// Stream settings of an engine ([`EngineOptions::stream`](crate::EngineOptions::stream)),
/// for every model's streams (DynamoDB, Tablestore and Spanner tables').
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamOptions {
    /// How long records are kept, measured by the engine clock against each
    /// record's ApproximateCreationDateTime. Default 24 hours (DynamoDB's).
    pub retention: Duration,
    /// A shard holding this many records is closed at the next record, which
    /// opens its child. 0 is taken as 1. Default 100,000.
    pub max_records_per_shard: u64,
    /// A shard at least this old (engine clock) that holds a record is closed
    /// at the next record. Default 4 hours (DynamoDB's shards roll over
    /// roughly every four hours).
    pub max_shard_age: Duration,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            retention: Duration::from_secs(24 * 3600),
            max_records_per_shard: 100_000,
            max_shard_age: Duration::from_secs(4 * 3600),
        }
    }
}

/// `StreamStatus` (DynamoDB Streams `StreamDescription`). The engine's
/// changes are immediate, so ENABLING and DISABLING are never reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamStatus {
    /// `ENABLED`: records are being written.
    Enabled,
    /// `DISABLED`: no more records; readable until retention removes it.
    Disabled,
}

impl StreamStatus {
    /// `"ENABLED"` or `"DISABLED"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enabled => "ENABLED",
            Self::Disabled => "DISABLED",
        }
    }
}

impl fmt::Display for StreamStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of `ListStreams` (DynamoDB Streams `Stream`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamSummary {
    /// `arn:aws:dynamodb:ddblocal:000000000000:table/NAME/stream/LABEL`.
    pub stream_arn: String,
    /// The table.
    pub table_name: String,
    /// Creation time, `YYYY-MM-DDTHH:MM:SS.mmm` UTC.
    pub stream_label: String,
}

/// `SequenceNumberRange` of a shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceNumberRange {
    /// The first sequence number the shard may hold.
    pub starting_sequence_number: SequenceNumber,
    /// The last one it holds; `None` while the shard is open.
    pub ending_sequence_number: Option<SequenceNumber>,
}

/// One shard (DynamoDB Streams `Shard`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// `shardId-<20-digit creation epoch ms>-<8 hex>`.
    pub shard_id: String,
    /// The shard this one follows; `None` for a stream's first shard (and
    /// for a shard whose parent has been trimmed away, as in DynamoDB the
    /// id is still given).
    pub parent_shard_id: Option<String>,
    /// Its sequence numbers.
    pub sequence_number_range: SequenceNumberRange,
    /// When it was opened, epoch ms (not in AWS's shape; for tests and logs).
    pub creation_millis: i64,
}

/// `DescribeStream`'s `StreamDescription`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamDescription {
    /// The stream's ARN.
    pub stream_arn: String,
    /// Its label (creation time).
    pub stream_label: String,
    /// ENABLED or DISABLED.
    pub stream_status: StreamStatus,
    /// The images its records carry.
    pub stream_view_type: StreamViewType,
    /// `CreationRequestDateTime`, epoch ms.
    pub creation_request_date_time_millis: i64,
    /// The table.
    pub table_name: String,
    /// `KeySchema`: the partition key, then the sort key if any.
    pub key_schema: Vec<KeyAttribute>,
    /// Every shard kept, parent before child (ascending StartingSequenceNumber).
    pub shards: Vec<Shard>,
}

/// What [`Streams::get_records`](crate::Streams::get_records) (records `R` = [`ChangeRecord`]) and
/// [`Streams::get_stored_records`](crate::Streams::get_stored_records) (`R` = [`crate::StoredRecord`]) return.
#[derive(Clone, Debug, PartialEq)]
pub struct GetRecordsOutput<R = ChangeRecord> {
    /// Records in sequence order.
    pub records: Vec<R>,
    /// Where the next read of this shard starts; `None` when the shard is
    /// closed and every record it holds has been returned (GetRecords'
    /// `NextShardIterator` null: go on with its child).
    pub next_position: Option<StreamPosition>,
}
