//! ttlstream: an event-driven stream processor for TTL deletions.
//!
//! Databases with TTL delete expired data in the background and report each
//! deletion on their change stream as a *system* deletion. This crate reads such a
//! stream, applies event-filter patterns written in the exact JSON language of
//! Lambda `FilterCriteria`, routes matching records to archive sinks, counts
//! `TimeToLiveDeletedItemCount` per table per period and evaluates
//! low-deletion-rate alarms with CloudWatch's names.
//!
//! Metrics are recorded once through the `metrics` crate and exported as
//! Prometheus text, CloudWatch Embedded Metric Format or PutMetricData
//! ([`metrics`]); alarms are evaluated exactly as CloudWatch does, created with
//! PutMetricAlarm, and their state changes go to notifiers ([`alarm`],
//! [`notify`]).
//!
//! Sources ([`sources`]): the bundled engine ([`ttlstream_engine`]), a DynamoDB
//! stream through the DynamoDB Streams API, and NDJSON replay files or stdin;
//! the Lambda entry point ([`lambda`]) takes the records Lambda hands it.
//!
//! Sinks ([`sinks`]): local NDJSON files, S3 objects (batched or one per record,
//! gzip/zstd, SSE, multipart), stdout, and a dead-letter sink for what a sink
//! cannot take after its retries.
//!
//! Delivery is at-least-once: records are batched and a batch's
//! checkpoint is committed only after every sink acknowledged it (or its records
//! were dead-lettered); a batch in flight at a crash is replayed with the same
//! `SequenceNumber` range, so object names repeat and nothing is duplicated.
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use ttlstream::{Config, Pipeline};
//!
//! let config = Config::load(std::path::Path::new("ttlstream.toml"))?;
//! let mut pipeline = Pipeline::build(&config).await?;
//! pipeline.run(async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```

pub mod alarm;
mod batcher;
pub mod checkpoint;
pub mod cli;
pub mod config;
mod delivery;
pub mod demo;
mod durable_file;
pub mod engine;
pub mod error;
mod interpolate;
pub mod lambda;
pub mod metrics;
pub mod notify;
pub mod pipeline;
pub mod record;
mod router;
mod routing;
pub mod sidecar;
pub mod sinks;
pub mod sources;

pub use config::Config;
pub use error::{ConfigError, PipelineError};
pub use pipeline::{Pipeline, StepReport};
pub use record::Record;
