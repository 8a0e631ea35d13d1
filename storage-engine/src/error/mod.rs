//! Error enums, one per operation family.
//!
//! Every variant names what went wrong and where (table, attribute, key), so a
//! caller can report it without extra context. Stream reads have theirs in
//! the stream's folder (`stream/error.rs`).

pub(crate) mod expression;

/// A failure of the storage layer underneath the engine (fjall I/O, or bytes
/// on disk that do not decode).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// fjall reported an I/O or internal error.
    #[error("storage I/O failure: {0}")]
    Io(#[from] fjall::Error),
    /// A stored value could not be decoded (corruption or a format bug).
    #[error("corrupt {what} in keyspace `{keyspace}`: {message}")]
    Corrupt {
        /// Keyspace the bad value was read from.
        keyspace: &'static str,
        /// What was being decoded (item, change record, table metadata, key).
        what: &'static str,
        /// Decoder message.
        message: String,
    },
    /// A value could not be encoded for storage.
    #[error("cannot encode {what}: {message}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// Encoder message.
        message: String,
    },
}

/// Errors from [`Engine::open`](crate::Engine::open).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The data directory could not be opened or recovered.
    #[error("cannot open data directory {path}: {source}")]
    Storage {
        /// The data directory.
        path: String,
        /// What failed.
        #[source]
        source: StorageError,
    },
    /// Another process (or another engine in this one) has the directory
    /// open: fjall locks a data directory for one opener at a time.
    #[error(
        "data directory {path} is in use by another process (an engine's data directory is opened by one process at a time)"
    )]
    InUse {
        /// The data directory.
        path: String,
    },
    /// The directory was written by an incompatible on-disk format version.
    #[error(
        "data directory {path} has format version {found}, this build reads version {expected}"
    )]
    UnsupportedFormat {
        /// The data directory.
        path: String,
        /// Version found on disk.
        found: String,
        /// Version this build writes and reads.
        expected: String,
    },
}

/// Errors from table administration (create, describe, TTL settings).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// No table with this name exists (DynamoDB `ResourceNotFoundException`).
    #[error("table `{table}` not found")]
    NotFound {
        /// Table name.
        table: String,
    },
    /// A table with this name exists already (DynamoDB `ResourceInUseException`).
    #[error("table `{table}` already exists")]
    AlreadyExists {
        /// Table name.
        table: String,
    },
    /// The request is invalid (DynamoDB `ValidationException`).
    #[error("table `{table}`: {message}")]
    Invalid {
        /// Table name.
        table: String,
        /// What is wrong.
        message: String,
    },
    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// Errors from item writes (put, update, delete) and [`Engine::persist`](crate::Engine::persist).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// No table with this name exists.
    #[error("table `{table}` not found")]
    TableNotFound {
        /// Table name.
        table: String,
    },
    /// The item, key or update is invalid (DynamoDB `ValidationException`),
    /// e.g. a key attribute is missing or of the wrong type. Nothing was written.
    #[error("table `{table}`: {message}")]
    Validation {
        /// Table name.
        table: String,
        /// What is wrong, naming the attribute.
        message: String,
    },
    /// The `ConditionExpression` evaluated to false (DynamoDB
    /// `ConditionalCheckFailedException`). Nothing was written.
    #[error("table `{table}`: The conditional request failed")]
    ConditionalCheckFailed {
        /// Table name.
        table: String,
        /// The item as it was, when the request asked for it
        /// (`ReturnValuesOnConditionCheckFailure` `ALL_OLD`) and it exists.
        item: Option<serde_dynamo::Item>,
    },
    /// An expression or its placeholders are invalid (DynamoDB
    /// `ValidationException`). Nothing was written.
    #[error("table `{table}`: {source}")]
    Expression {
        /// Table name.
        table: String,
        /// Which expression, where and why.
        #[source]
        source: expression::ExpressionError,
    },
    /// The storage layer failed; the write may not have happened.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// Errors from reads (get, query, scan, backlog).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// No table with this name exists.
    #[error("table `{table}` not found")]
    TableNotFound {
        /// Table name.
        table: String,
    },
    /// The key is invalid for the table's key schema.
    #[error("table `{table}`: {message}")]
    Validation {
        /// Table name.
        table: String,
        /// What is wrong, naming the attribute.
        message: String,
    },
    /// An expression or its placeholders are invalid (DynamoDB
    /// `ValidationException`).
    #[error("table `{table}`: {source}")]
    Expression {
        /// Table name.
        table: String,
        /// Which expression, where and why.
        #[source]
        source: expression::ExpressionError,
    },
    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// An item or key that breaks DynamoDB's rules for a table
/// ([`TableDefinition::validate_item`](crate::TableDefinition::validate_item),
/// [`TableDefinition::validate_key`](crate::TableDefinition::validate_key)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ItemError {
    /// DynamoDB answers `ValidationException` with `message`, e.g. "The
    /// provided key element does not match the schema".
    #[error("table `{table}`: {message}")]
    Invalid {
        /// Table name.
        table: String,
        /// DynamoDB's message, naming the attribute where it does.
        message: String,
    },
}

/// Errors from a sweep pass.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The storage layer failed; items deleted before the failure stay deleted
    /// (each deletion is atomic with its index entry and change record).
    #[error("sweep failed on table `{table}`: {source}")]
    Storage {
        /// Table being swept.
        table: String,
        /// What failed.
        #[source]
        source: StorageError,
    },
}

impl From<fjall::Error> for TableError {
    fn from(e: fjall::Error) -> Self {
        TableError::Storage(StorageError::Io(e))
    }
}

impl From<fjall::Error> for WriteError {
    fn from(e: fjall::Error) -> Self {
        WriteError::Storage(StorageError::Io(e))
    }
}

impl From<fjall::Error> for ReadError {
    fn from(e: fjall::Error) -> Self {
        ReadError::Storage(StorageError::Io(e))
    }
}
