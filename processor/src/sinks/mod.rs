//! Sinks: where routed records are delivered.
//!
//! A sink receives one [`SinkBatch`] per closed batch (only the records its
//! routes matched) and acknowledges it by returning `Ok`. Batching, retries and
//! dead-lettering are not the sink's job: the pipeline's batcher closes batches by
//! each sink's [`BatchLimits`], the shared retry (`[retry]`,
//! [`RetryConfig`](crate::config::RetryConfig)) retries every sink the same
//! way and sends what still fails to the dead-letter sink.

pub mod batch;
pub mod dead_letter;
pub mod encoding;
pub mod file;
pub mod s3;
pub mod stdout;
pub mod template;

use serde::Deserialize;

pub use batch::BatchLimits;

use crate::error::SinkError;
use crate::record::Record;
use crate::sources::BoxFuture;

/// The records of one batch bound for one sink.
#[derive(Clone, Debug)]
pub struct SinkBatch<'a> {
    /// The table the records come from.
    pub table_name: &'a str,
    /// `SequenceNumber` of the batch's first source record (not necessarily of
    /// `records[0]`): names derived from the source range are stable on replay.
    pub first_sequence_number: &'a str,
    /// `SequenceNumber` of the batch's last source record.
    pub last_sequence_number: &'a str,
    /// The records, in `SequenceNumber` order; never empty.
    pub records: Vec<&'a Record>,
}

/// A destination for records.
pub trait Sink: Send + Sync {
    /// The sink's name from the config (`[sinks.<name>]`).
    fn name(&self) -> &str;

    /// Writes the batch durably. Writing the same batch twice must leave one copy
    /// (overwrite, not append).
    ///
    /// # Errors
    /// A [`SinkError`] saying whether a retry may succeed.
    fn write<'a>(&'a self, batch: &'a SinkBatch<'a>) -> BoxFuture<'a, Result<(), SinkError>>;
}

/// One sink; exactly one of the tables must be present.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum SinkConfig {
    /// NDJSON files on local disk (`[sinks.<name>.file]`).
    File(file::FileSinkConfig),
    /// Objects in an S3 bucket (`[sinks.<name>.s3]`).
    S3(s3::S3SinkConfig),
    /// NDJSON lines on standard output (`[sinks.<name>.stdout]`).
    Stdout(stdout::StdoutSinkConfig),
}

impl SinkConfig {
    /// The sink's batch limits.
    pub fn batch(&self) -> BatchLimits {
        match self {
            SinkConfig::File(file) => file.batch,
            SinkConfig::S3(s3) => s3.batch,
            SinkConfig::Stdout(stdout) => stdout.batch,
        }
    }

    /// Checks the values that parse but cannot work.
    ///
    /// # Errors
    /// [`SettingError::Invalid`](crate::error::SettingError::Invalid) naming
    /// the key under the sink's kind
    /// (`file.batch.max_records`, `s3.bucket`).
    pub fn check(&self) -> Result<(), crate::error::SettingError> {
        match self {
            SinkConfig::File(file) => file.batch.check().map_err(|e| e.within("file")),
            SinkConfig::S3(s3) => s3.check(),
            SinkConfig::Stdout(stdout) => stdout.batch.check().map_err(|e| e.within("stdout")),
        }
    }

    /// Whether the sink's output names can hold item key values (then it cannot
    /// take dead-letter envelopes, whose keys sit one level deeper).
    pub fn names_by_keys(&self) -> bool {
        matches!(self, SinkConfig::S3(s3) if s3.template().uses_keys())
    }

    /// Resolves a relative path against `base` (the config file's directory).
    pub fn resolve_paths(&mut self, base: &std::path::Path) {
        if let SinkConfig::File(file) = self
            && file.path.is_relative()
        {
            file.path = base.join(&file.path);
        }
    }

    /// Builds the sink. `log_keys`: whether item key values may appear in its
    /// errors and logs.
    pub fn build(&self, name: &str, log_keys: bool) -> Box<dyn Sink> {
        match self {
            SinkConfig::File(file) => Box::new(file::FileSink::new(name, file)),
            SinkConfig::S3(s3) => Box::new(s3::S3Sink::new(name, s3, log_keys)),
            SinkConfig::Stdout(_) => Box::new(stdout::StdoutSink::new(name)),
        }
    }
}
