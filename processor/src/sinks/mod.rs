//! Sinks: where routed records are delivered.
//!
//! A sink receives one [`SinkBatch`] per source batch (only the records its routes
//! matched) and acknowledges it by returning `Ok`. Retries are not the sink's job:
//! [`crate::delivery`] retries every sink the same way.

pub mod file;

use crate::error::SinkError;
use crate::record::Record;
use crate::sources::BoxFuture;

/// The records of one source batch bound for one sink.
#[derive(Clone, Debug)]
pub struct SinkBatch<'a> {
    /// The table the records come from.
    pub table_name: &'a str,
    /// `SequenceNumber` of the source batch's first record (not necessarily of
    /// `records[0]`): names derived from the source range are stable on replay.
    pub first_sequence_number: &'a str,
    /// `SequenceNumber` of the source batch's last record.
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
