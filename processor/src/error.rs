//! Error types, one enum per operation family.

use std::path::PathBuf;

/// A configuration, filter or alarm file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML/JSON for its schema (unknown keys included).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong and where (line, column or JSON path).
        message: String,
    },
    /// The file parses but a value is not acceptable.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and where.
        message: String,
    },
    /// A filter file holds an invalid pattern.
    #[error("{path}: {source}")]
    Filter {
        /// The filter file.
        path: PathBuf,
        /// The pattern error, with its JSON path.
        source: ttlstream_filters::PatternError,
    },
}

/// A config value that parses but cannot work (a zero limit, a bucket
/// written as a URL, a template that would overwrite objects).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingError {
    /// The value of `key` cannot work.
    #[error("{key}: {message}")]
    Invalid {
        /// The key, dotted from the section that holds it
        /// (`s3.bucket`, `batch.max_records`).
        key: String,
        /// What is wrong.
        message: String,
    },
}

impl SettingError {
    /// The value of `key` cannot work, for `message`.
    pub fn invalid(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The same error with its key under `section` (`s3.` + `batch.max_records`).
    #[must_use]
    pub fn within(self, section: &str) -> Self {
        match self {
            Self::Invalid { key, message } => Self::Invalid {
                key: format!("{section}.{key}"),
                message,
            },
        }
    }
}

/// An object-name template cannot be parsed, or cannot name a record.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// A `{` is never closed.
    #[error("`{template}`: `{{` at byte {byte} is never closed")]
    Unclosed {
        /// The template as written.
        template: String,
        /// Byte offset of the `{`.
        byte: usize,
    },
    /// A placeholder the templates do not know.
    #[error(
        "`{template}`: unknown placeholder `{{{name}}}` (known: table, date, hour, time, first_sequence, last_sequence, sequence, keys, keys.<Attr>)"
    )]
    UnknownPlaceholder {
        /// The template as written.
        template: String,
        /// The placeholder, without braces.
        name: String,
    },
    /// The template names a key attribute the record does not have.
    #[error("record {sequence_number} has no key attribute `{attribute}` (template `{template}`)")]
    MissingKey {
        /// The template as written.
        template: String,
        /// The record's `SequenceNumber`.
        sequence_number: String,
        /// The key attribute the template names.
        attribute: String,
    },
    /// The record's JSON has no readable `dynamodb.Keys`.
    #[error("record {sequence_number}: no dynamodb.Keys: {message}")]
    NoKeys {
        /// The record's `SequenceNumber`.
        sequence_number: String,
        /// The JSON parser's message (no attribute value).
        message: String,
    },
}

impl TemplateError {
    /// The `SequenceNumber` of the record the template could not name
    /// (empty for a template that does not parse).
    pub fn sequence_number(&self) -> &str {
        match self {
            Self::MissingKey {
                sequence_number, ..
            }
            | Self::NoKeys {
                sequence_number, ..
            } => sequence_number,
            Self::Unclosed { .. } | Self::UnknownPlaceholder { .. } => "",
        }
    }
}

/// Reading from a source failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The bundled engine could not be opened.
    #[error("cannot open engine data directory {path}: {source}")]
    Open {
        /// The data directory.
        path: PathBuf,
        /// The engine's error.
        source: Box<ttlstream_engine::OpenError>,
    },
    /// The engine's data directory does not exist (or is empty) and the
    /// config does not ask to create one (`[engine] create = true`): a
    /// mistyped path must not start an empty database.
    #[error(
        "engine data directory {path} {problem}: check {key} (`ttlstream serve`, the demo or `[engine] create = true` creates an engine)"
    )]
    DataDirMissing {
        /// The data directory.
        path: PathBuf,
        /// The config key that names it (`engine.data_dir`,
        /// `source.engine.data_dir`).
        key: &'static str,
        /// "does not exist", "is empty", "is not a directory".
        problem: &'static str,
    },
    /// The table to read is not in the engine's data directory.
    #[error(
        "table `{table}` not found in engine data directory {data_dir} (tables there: {tables})"
    )]
    TableNotFound {
        /// The table.
        table: String,
        /// The data directory.
        data_dir: PathBuf,
        /// The tables it holds, comma-separated, or "none".
        tables: String,
    },
    /// The engine's stream could not be read.
    #[error("reading the stream of table {table} in engine data directory {data_dir}: {source}")]
    Stream {
        /// The table.
        table: String,
        /// The engine's data directory.
        data_dir: PathBuf,
        /// The engine's error.
        source: Box<ttlstream_engine::StreamError>,
    },
    /// A record could not be turned into the Lambda record shape.
    #[error("record {sequence_number} of table {table}: {message}")]
    Record {
        /// The table.
        table: String,
        /// The record's `SequenceNumber`.
        sequence_number: String,
        /// What is wrong.
        message: String,
    },
    /// A replay file (or stdin) could not be opened or read.
    #[error("{path}: {action}: {source}")]
    Read {
        /// The file (`-` for stdin).
        path: PathBuf,
        /// What was being done ("open", "seek", "read").
        action: &'static str,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line of a replay file is not a stream record.
    #[error("{path}:{line}: {message}")]
    Malformed {
        /// The file (`-` for stdin).
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A checkpoint position this source cannot use.
    #[error("checkpoint position {position:?} of {partition}: {message}")]
    Position {
        /// The partition (file, shard).
        partition: String,
        /// The stored position.
        position: String,
        /// What is wrong.
        message: String,
    },
    /// A DynamoDB / DynamoDB Streams call failed (after the SDK's retries).
    #[error("{operation} on {resource}: {message}")]
    Aws {
        /// The API operation (`DescribeStream`, `GetRecords`, ...).
        operation: &'static str,
        /// The table, stream ARN or shard.
        resource: String,
        /// The service's error, with its code.
        message: String,
    },
}

impl SourceError {
    /// Whether trying the same read again may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, SourceError::Stream { .. } | SourceError::Aws { .. })
    }

    /// Whether the input is at fault rather than the run: a replay file that
    /// cannot be opened or holds a malformed line, a data directory or table
    /// that is not there. The CLI exits 2 for these.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            SourceError::Malformed { .. }
                | SourceError::Read { action: "open", .. }
                | SourceError::DataDirMissing { .. }
                | SourceError::TableNotFound { .. }
        )
    }
}

/// A sink could not write a batch.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SinkError {
    /// A local file operation failed.
    #[error("sink {sink}: {action} {path}: {source}")]
    Io {
        /// The sink's name.
        sink: String,
        /// What was being done ("create", "write", "fsync", "rename").
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An AWS request failed after the SDK's own retries (a sidecar tries the
    /// batch again, [`RetryConfig`](crate::config::RetryConfig); the Lambda does not).
    #[error("sink {sink}: {operation} s3://{bucket}/{object}: {message}")]
    Aws {
        /// The sink's name.
        sink: String,
        /// The S3 operation.
        operation: &'static str,
        /// The bucket.
        bucket: String,
        /// The object key, or a placeholder when it holds item keys and
        /// `log_keys` is off.
        object: String,
        /// The SDK's error and its causes.
        message: String,
    },
    /// The sink cannot write this record at all (its object name cannot be
    /// rendered); retrying cannot help.
    #[error("sink {sink}: record {sequence_number}: {message}")]
    Record {
        /// The sink's name.
        sink: String,
        /// The record's `SequenceNumber`.
        sequence_number: String,
        /// What is wrong (never an attribute value).
        message: String,
    },
    /// Compressing a batch failed.
    #[error("sink {sink}: compressing a batch: {source}")]
    Encode {
        /// The sink's name.
        sink: String,
        /// The compressor's error.
        source: std::io::Error,
    },
    /// The process was asked to stop (SIGTERM) while this sink was failing:
    /// the batch was not written, stays in flight in the checkpoint, and is
    /// delivered on the next start.
    #[error("sink {sink}: stopped while retrying a failed write: {message}")]
    Interrupted {
        /// The sink's name.
        sink: String,
        /// The last write error.
        message: String,
    },
    /// The task writing a batch to its sinks ended without an answer (it
    /// panicked): what it wrote is unknown, so the batch stays in flight and
    /// is delivered again.
    #[error("delivery of SequenceNumbers {first} to {last} ended without an answer: {message}")]
    DeliveryLost {
        /// `SequenceNumber` of the batch's first record.
        first: String,
        /// `SequenceNumber` of the batch's last record.
        last: String,
        /// How the task ended.
        message: String,
    },
}

impl SinkError {
    /// Whether the Lambda's bounded retry ([`RetryConfig`](crate::config::RetryConfig)) should write
    /// the same batch again. Local I/O errors are retried: a full disk or a
    /// transient permission problem may clear. AWS errors are not: the SDK has
    /// already retried them under its own retry config, and the function must
    /// answer within its timeout.
    pub fn is_retryable(&self) -> bool {
        matches!(self, SinkError::Io { .. })
    }

    /// Whether the failure may clear while the batch waits: local I/O (a
    /// full disk, a permission), and an AWS call that failed after the SDK's
    /// own attempts (the service unreachable, throttling, failing). A
    /// long-lived sidecar retries these until its `max_elapsed_secs`
    /// ([`RetryConfig`](crate::config::RetryConfig)). A record that cannot be named or a batch that
    /// cannot be compressed fails the same way every time.
    pub fn is_transient(&self) -> bool {
        matches!(self, SinkError::Io { .. } | SinkError::Aws { .. })
    }

    /// Whether delivery stopped because the process is stopping
    /// ([`SinkError::Interrupted`]), not because the sink gave up.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, SinkError::Interrupted { .. })
    }

    /// The name of the sink that failed; `delivery` when the batch's
    /// delivery as a whole was lost ([`SinkError::DeliveryLost`]).
    pub fn sink(&self) -> &str {
        match self {
            SinkError::Io { sink, .. }
            | SinkError::Aws { sink, .. }
            | SinkError::Record { sink, .. }
            | SinkError::Encode { sink, .. }
            | SinkError::Interrupted { sink, .. } => sink,
            SinkError::DeliveryLost { .. } => "delivery",
        }
    }
}

/// The checkpoint could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// A file operation failed.
    #[error("checkpoint {path}: {action}: {source}")]
    Io {
        /// The checkpoint file or directory.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The checkpoint file exists but is not valid.
    #[error("checkpoint {path}: not a valid checkpoint: {message}")]
    Corrupt {
        /// The checkpoint file.
        path: PathBuf,
        /// The parse error.
        message: String,
    },
}

/// The pipeline stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// Configuration, filter or alarm file.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The source failed.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A sink failed after its retries; the checkpoint was not advanced.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The checkpoint could not be read or written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

impl PipelineError {
    /// Whether the input is at fault (a config, filter or alarm file; a
    /// replay file or engine directory that is missing or malformed; see
    /// [`SourceError::is_bad_input`]) rather than the run. The CLI exits 2
    /// for these, 1 for the rest.
    pub fn is_bad_input(&self) -> bool {
        match self {
            PipelineError::Config(_) => true,
            PipelineError::Source(source) => source.is_bad_input(),
            PipelineError::Sink(_) | PipelineError::Checkpoint(_) => false,
        }
    }
}
