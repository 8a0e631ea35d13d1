//! # ttlstream-engine
//!
//! An embedded, durable storage engine with DynamoDB-style tables, DynamoDB
//! item TTL that really expires data, and a DynamoDB Streams-shaped change
//! stream. It is the bundled engine of ttlstream, an event-driven stream
//! processor for TTL deletions.
//!
//! ## The API at a glance
//!
//! ```text
//! Engine::open(dir, EngineOptions { clock, stream, cache_size_bytes })  one directory, all models
//! ├── engine.dynamodb()    -> DynamoDb     create_table, update_time_to_live, put_item,
//! │                                        get_item, update_item, delete_item, query, scan,
//! │                                        the *_with forms (expressions), update_stream,
//! │                                        read_stream, expired_backlog, sweeper_lag_millis
//! ├── engine.streams()     -> Streams      DynamoDB Streams: list_streams, describe_stream,
//! │                                        shard_iterator, get_records
//! ├── engine.tablestore()  -> Tablestore   create_table, update_table_options, put_row,
//! │                                        update_row, delete_row, get_row, scan_rows,
//! │                                        read_stream, describe_stream, get_stream_record
//! ├── engine.spanner()     -> Spanner      create_table, set_row_deletion_policy, commit
//! │                                        (insert, update, insertOrUpdate, replace, delete),
//! │                                        insert_row, delete_row, read_row, read_index,
//! │                                        scan_table, read_change_stream,
//! │                                        change_stream_partitions, read_partition,
//! │                                        restore_table_from_backup,
//! │                                        processed_watermark_millis, undeletable_rows
//! └── shared by every model: start_sweeper -> Sweeper (background TTL deletions),
//!     sweep_now (one pass, for tests and tools), trim_streams (stream retention),
//!     persist, close, clock
//! ```
//!
//! * [`Engine`]: opens a directory ([`Engine::open`](crate::Engine::open)), owns the store, the
//!   clock and the write lock, and hands out one handle per TTL model. A
//!   handle borrows the engine and is free to create:
//!   `engine.dynamodb().put_item(..)`.
//! * [`DynamoDb`]: the DynamoDB model ("Using time to live (TTL) in
//!   DynamoDB"). [`Streams`]: the DynamoDB Streams API over its tables'
//!   sharded change streams ("Change data capture for DynamoDB Streams").
//! * [`Tablestore`]: the Tablestore model ([`tablestore`]: table TTL and
//!   max versions over versioned cells).
//! * [`Spanner`]: the Spanner model ([`spanner`]: a row deletion policy per
//!   table, data change records).
//! * The sweeper ([`Engine::start_sweeper`](crate::Engine::start_sweeper), [`Sweeper`], [`Engine::sweep_now`](crate::Engine::sweep_now))
//!   deletes what has expired in every model, each deletion atomic with its
//!   index entries and its change record.
//!
//! ## What it is
//!
//! * Tables with a partition key and optional sort key (S, N or B); items are
//!   DynamoDB attribute maps ([`Item`]). PutItem, bulk put, GetItem,
//!   UpdateItem (SET / REMOVE of top-level attributes, upsert), DeleteItem,
//!   Query by partition key (sort-key order; Numbers numerically), Scan.
//! * DynamoDB item TTL ("Using time to live (TTL) in DynamoDB"): per table,
//!   a top-level Number attribute of epoch seconds. Expired items stay
//!   readable and updatable until a [`Sweeper`] pass (or
//!   [`Engine::sweep_now`](crate::Engine::sweep_now)) deletes them through an expiry index, each
//!   deletion atomic with its index entry and its REMOVE record tagged
//!   [`UserIdentity::dynamodb_ttl`]. The exact rule is in [`ttl`].
//! * The background [`Sweeper`] ([`Engine::start_sweeper`](crate::Engine::start_sweeper)): a pass every
//!   [`SweeperOptions::interval`] (default 100 ms), at once on
//!   [`Sweeper::trigger`], or at once after a pass that spent its budget;
//!   each pass deletes at most `max_deletes_per_sweep` (default
//!   [`DEFAULT_MAX_DELETES_PER_SWEEP`], 10,000), shared fairly across tables
//!   so a large backlog in one table never holds up another's for more than
//!   a pass; paced by `max_deletes_per_sec` (token bucket);
//!   `batch_size` deletions per atomic batch; the time from each item's
//!   expiry to its deletion is counted in a [`LagHistogram`]. It never
//!   deletes an item at or before its expiry instant, and after a crash the
//!   next pass resumes from the expiry index (nothing lost, nothing
//!   repeated: `tests/it/crash_safety.rs` kills a writing, sweeping process 20
//!   times).
//! * A change stream per table ("Change data capture for DynamoDB Streams"):
//!   INSERT / MODIFY / REMOVE records with images per [`StreamViewType`] and
//!   strictly increasing [`SequenceNumber`]s, in shards with parent/child
//!   lineage (a new shard after [`StreamOptions::max_records_per_shard`]
//!   records or [`StreamOptions::max_shard_age`]), kept for
//!   [`StreamOptions::retention`] (default 24 hours) and then trimmed. Read
//!   as DynamoDB Streams reads: [`Streams::list_streams`](crate::Streams::list_streams),
//!   [`Streams::describe_stream`](crate::Streams::describe_stream), [`Streams::shard_iterator`](crate::Streams::shard_iterator),
//!   [`Streams::get_records`](crate::Streams::get_records) (1,000 records or 1 MB per read, and
//!   [`StreamError::TrimmedDataAccess`] below the trim horizon); or, across
//!   shards, with [`DynamoDb::read_stream`](crate::DynamoDb::read_stream). [`DynamoDb::update_stream`](crate::DynamoDb::update_stream)
//!   disables and re-enables a stream.
//! * Storage on [fjall](https://docs.rs/fjall) 3; every write commits one
//!   atomic batch (item + expiry index + secondary-index entries + change
//!   record). See `FORMAT.md`.
//! * Expressions ([`DynamoDb::put_item_with`](crate::DynamoDb::put_item_with), [`DynamoDb::update_item_with`](crate::DynamoDb::update_item_with),
//!   [`DynamoDb::delete_item_with`](crate::DynamoDb::delete_item_with), [`DynamoDb::query_with`](crate::DynamoDb::query_with),
//!   [`DynamoDb::scan_with`](crate::DynamoDb::scan_with)): ConditionExpression (failing with
//!   [`WriteError::ConditionalCheckFailed`]), UpdateExpression (SET with
//!   `if_not_exists` / `list_append` / exact decimal `+` `-`, REMOVE, ADD,
//!   DELETE), KeyConditionExpression, FilterExpression, ProjectionExpression,
//!   `ExpressionAttributeNames` / `Values`, `Limit` / `ExclusiveStartKey` /
//!   `LastEvaluatedKey` pagination, parallel Scan segments; and the legacy
//!   parameters (`Expected`, `AttributeUpdates`, `AttributesToGet`,
//!   `KeyConditions`, `QueryFilter`, `ScanFilter`) mapped onto them.
//!   Errors are [`ExpressionError`]s worded like DynamoDB's
//!   `ValidationException`. Parsing is bounded: no recursion per
//!   parenthesis, [`MAX_EXPRESSION_BYTES`], [`MAX_OPERATORS`].
//! * DynamoDB's item limits, checked before anything is written: keys up
//!   to [`MAX_PARTITION_KEY_BYTES`] / [`MAX_SORT_KEY_BYTES`], attribute
//!   names up to [`MAX_ATTRIBUTE_NAME_BYTES`], [`MAX_NESTING_LEVELS`],
//!   400 KB items, sets without duplicates; Numbers are stored in
//!   DynamoDB's canonical text (`1e3` as `1000`).
//! * Global and local secondary indexes ([`GlobalSecondaryIndex`],
//!   [`LocalSecondaryIndex`], [`Projection`]), sparse, kept in the same
//!   batch as the item, also on TTL deletions; Query and Scan on an index.
//! * Checks a caller can make before writing anything:
//!   [`TableDefinition::validate_item`] and
//!   [`TableDefinition::validate_key`] (DynamoDB's messages, an [`ItemKey`]
//!   that compares as DynamoDB compares keys).
//!
//! The DynamoDB-compatible HTTP API (`ttlstream serve`) is a separate crate,
//! `ttlstream-server`, built on this crate's public API; this crate uses
//! neither tokio nor an HTTP stack.
//!
//! ## Durability
//!
//! A write that returned `Ok` has been handed to the OS (fjall
//! `PersistMode::Buffer`): it survives a process crash or `SIGKILL`.
//! [`Engine::persist`](crate::Engine::persist) fsyncs (`PersistMode::SyncAll`) so that everything
//! written before survives power loss too; dropping the last [`Engine`]
//! clone (or [`Engine::close`](crate::Engine::close)) does the same. On reopen, tables, TTL
//! settings, items and the stream are recovered, and the next sequence number
//! is derived from the highest one stored in the stream.
//!
//! ## What it is not (limits of this slice)
//!
//! * No transactions; [`DynamoDb::update_stream`](crate::DynamoDb::update_stream) is the only table update
//!   (indexes are defined at CreateTable only); [`DynamoDb::delete_table`](crate::DynamoDb::delete_table)
//!   leaves the table's stream DISABLED, readable until retention removes
//!   it (as DynamoDB); no reserved-word check on
//!   attribute names in expressions. Query reads the whole partition and
//!   applies the sort-key condition while reading (no key-range seek).
//! * Secondary indexes are updated synchronously (DynamoDB's GSIs are
//!   eventually consistent).
//! * A stream's shards form one chain (DynamoDB may split a shard in two;
//!   Tablestore shards have a `parent_sibling_id`, Spanner partitions may
//!   have several parents). Tablestore and Spanner tables' streams are
//!   sharded and trimmed by the same machinery as DynamoDB's, read through
//!   their model's API; the DynamoDB Streams API lists DynamoDB tables'
//!   streams only.
//! * Writes are serialised by one engine-wide mutex; reads take no lock.
//! * Enabling or disabling TTL returns at once, as DynamoDB's call does;
//!   the sweeper's next passes then index the items already in the table,
//!   which expire from then on ([`DynamoDb::time_to_live_index_building`](crate::DynamoDb::time_to_live_index_building)),
//!   or remove the index, a batch at a time (writers wait at most one
//!   batch). Until then [`DynamoDb::expired_backlog`](crate::DynamoDb::expired_backlog) and
//!   [`DynamoDb::sweeper_lag_millis`](crate::DynamoDb::sweeper_lag_millis) see only what is indexed.
//! * The Tablestore model ([`tablestore`]) has no expiry index: each sweep
//!   pass scans every Tablestore table; versions beyond `max_versions` are
//!   hidden at once but removed only by such a pass. GetRange reads from
//!   the start of the table up to its lower bound (no key index to seek).
//! * The Spanner model ([`spanner`]) takes DDL only for the row deletion
//!   policy; tables are created from a [`spanner::SpannerTableDefinition`]
//!   value. No SQL, one change-stream partition; backup and
//!   restore is a table copy ([`Spanner::restore_table_from_backup`](crate::Spanner::restore_table_from_backup)). The
//!   policy's processed watermark
//!   ([`Spanner::processed_watermark_millis`](crate::Spanner::processed_watermark_millis)) and undeletable rows
//!   ([`Spanner::undeletable_rows`](crate::Spanner::undeletable_rows): a row whose cascade would exceed
//!   [`spanner::MAX_MUTATIONS_PER_COMMIT`] is left whole and counted) are
//!   kept in memory only.
//!
//! ## Example
//!
//! ```
//! use std::{collections::HashMap, sync::Arc, time::Duration};
//! use ttlstream_engine::{
//!     AttributeValue, Engine, EngineOptions, EventName, Item, ManualClock,
//!     ScalarAttributeType, StreamPosition, StreamViewType, TableDefinition,
//!     TimeToLiveSpecification,
//! };
//!
//! let dir = tempfile::tempdir()?;
//! let clock = Arc::new(ManualClock::new(1_700_000_000_000)); // epoch ms
//! let engine = Engine::open(dir.path(), EngineOptions { clock: clock.clone(), ..Default::default() })?;
//!
//! let dynamodb = engine.dynamodb();
//! dynamodb.create_table(
//!     TableDefinition::new("SessionData", "UserName", ScalarAttributeType::S)
//!         .with_stream(StreamViewType::NewAndOldImages),
//! )?;
//! dynamodb.update_time_to_live("SessionData", TimeToLiveSpecification::enabled("ExpirationTime"))?;
//!
//! let item: Item = HashMap::from([
//!     ("UserName".to_string(), AttributeValue::S("alice".into())),
//!     ("ExpirationTime".to_string(), AttributeValue::N("1700000060".into())),
//! ])
//! .into();
//! dynamodb.put_item("SessionData", item)?;
//!
//! clock.advance(Duration::from_secs(61)); // now past the expiry
//! assert_eq!(dynamodb.scan("SessionData")?.len(), 1); // still visible until swept
//! assert_eq!(engine.sweep_now()?.deleted, 1);
//! assert!(dynamodb.scan("SessionData")?.is_empty());
//!
//! let records = dynamodb.read_stream("SessionData", StreamPosition::TrimHorizon, 10)?;
//! assert_eq!(records.len(), 2);
//! assert_eq!(records[1].event_name, EventName::Remove);
//! assert!(records[1].is_ttl_delete());
//!
//! // The same records as DynamoDB Streams serves them: a stream, its shards,
//! // GetRecords on a shard.
//! let streams = engine.streams();
//! let stream = streams.latest_stream("SessionData")?.expect("the stream is enabled");
//! let shard = &streams.describe_stream(&stream.stream_arn)?.shards[0];
//! let read = streams.get_records(&stream.stream_arn, &shard.shard_id, StreamPosition::TrimHorizon, 1000)?;
//! assert_eq!(read.records, records);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Folders by concept. Shared parts (`error`, `storage`, `stream`, `sweeper`,
// `state`) never import a model or the root; each model (`dynamodb`,
// `tablestore`, `spanner`) uses the shared parts; `engine.rs` and `models.rs`
// at the root assemble them and nothing imports the root
// (`scripts/engine-folder-deps.py`, run by `.ci/run`, checks it).
mod dynamodb;
mod engine;
mod error;
mod models;
pub mod spanner;
mod state;
mod storage;
mod stream;
mod sweeper;
pub mod tablestore;
#[cfg(test)]
mod testing;

pub use dynamodb::DynamoDb;
pub use dynamodb::expr::{
    ExpressionError, ExpressionKind, MAX_EXPRESSION_BYTES, MAX_FUNCTION_NESTING, MAX_OPERATORS,
};
pub use dynamodb::index::{GlobalSecondaryIndex, LocalSecondaryIndex, Projection};
pub use dynamodb::item::ItemKey;
pub use dynamodb::request::{
    AttributeAction, AttributeValueUpdate, ComparisonOperator, Condition, ConditionalOperator,
    DeleteItemInput, ExpectedAttributeValue, GetItemInput, GetItemOutput, PutItemInput, QueryInput,
    ReadOutput, ReturnValue, ScanInput, UpdateItemInput, WriteOutput,
};
pub use dynamodb::table::{
    BillingMode, ProvisionedThroughput, TableDefinition, TableProperties, TableSize,
    TimeToLiveSpecification,
};
pub use dynamodb::ttl;
pub use dynamodb::write::Update;
pub use engine::{DEFAULT_CACHE_SIZE_BYTES, Engine, EngineOptions};
pub use error::{
    ItemError, OpenError, ReadError, StorageError, SweepError, TableError, WriteError,
};
pub use serde_dynamo::{AttributeValue, Item};
pub use spanner::Spanner;
pub use state::clock::{AcceleratedClock, Clock, ManualClock, SystemClock};
pub use storage::attribute::{
    MAX_ATTRIBUTE_NAME_BYTES, MAX_ITEM_SIZE_BYTES, MAX_NESTING_LEVELS, item_size_bytes,
    value_size_bytes,
};
pub use storage::key::{
    KeyAttribute, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, ScalarAttributeType,
};
pub use stream::codec::{
    ItemView, ListView, StoredEntry, StoredHeader, StoredRecord, Text, ValueView,
};
pub use stream::error::StreamError;
pub use stream::record::{
    ChangeRecord, EventName, ParseSequenceNumberError, ParseStreamViewTypeError, SequenceNumber,
    StreamPosition, StreamViewType, UserIdentity,
};
pub use stream::shards::Streams;
pub use stream::shards::{
    GetRecordsOutput, MAX_GET_RECORDS, MAX_GET_RECORDS_BYTES, STREAM_ARN_ACCOUNT,
    STREAM_ARN_REGION, SequenceNumberRange, Shard, StreamDescription, StreamOptions, StreamStatus,
    StreamSummary, TrimReport,
};
pub use sweeper::lag_histogram::{LAG_BUCKET_BOUNDS_MILLIS, LagHistogram};
pub use sweeper::pass::{SWEEP_CHUNK, SweepReport};
pub use sweeper::thread::{DEFAULT_MAX_DELETES_PER_SWEEP, Sweeper, SweeperOptions};
pub use tablestore::Tablestore;
