//! `[sinks.<name>.<kind>.batch]`: when a sink's open batch is closed and written.

use serde::Deserialize;

use crate::error::SettingError;

/// Limits of one sink's batch. The pipeline keeps one open batch per source and
/// closes it for every sink at once when any sink reaches one of its limits, so
/// one in-flight `SequenceNumber` range replays every sink's objects exactly
/// after a crash (see `crate::batcher`). A sink may therefore receive batches
/// smaller than its own limits, never larger (except a single record bigger than
/// `max_bytes`, which is written alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchLimits {
    /// Records per batch (object, file). Default 10,000. At least 1.
    #[serde(default = "default_max_records")]
    pub max_records: usize,
    /// Bytes of NDJSON (before compression) per batch. Default 10 MiB
    /// (10,485,760). At least 1.
    #[serde(default = "default_max_bytes")]
    pub max_bytes: usize,
    /// Milliseconds a batch stays open after its first record was read before it
    /// is written, even if not full. Default 5,000. Bounds the archive's delay and
    /// how far the checkpoint trails the stream.
    #[serde(default = "default_max_age_millis")]
    pub max_age_millis: u64,
}

impl Default for BatchLimits {
    fn default() -> Self {
        Self {
            max_records: default_max_records(),
            max_bytes: default_max_bytes(),
            max_age_millis: default_max_age_millis(),
        }
    }
}

impl BatchLimits {
    /// The tightest of two limits, field by field.
    pub fn min(self, other: Self) -> Self {
        Self {
            max_records: self.max_records.min(other.max_records),
            max_bytes: self.max_bytes.min(other.max_bytes),
            max_age_millis: self.max_age_millis.min(other.max_age_millis),
        }
    }

    /// Checks the limits that serde cannot.
    ///
    /// # Errors
    /// [`SettingError::Invalid`] naming `batch.max_records` or
    /// `batch.max_bytes` when it is zero.
    pub fn check(&self) -> Result<(), SettingError> {
        if self.max_records == 0 {
            return Err(SettingError::invalid(
                "batch.max_records",
                "must be at least 1",
            ));
        }
        if self.max_bytes == 0 {
            return Err(SettingError::invalid(
                "batch.max_bytes",
                "must be at least 1",
            ));
        }
        Ok(())
    }
}

fn default_max_records() -> usize {
    10_000
}

fn default_max_bytes() -> usize {
    10 * 1024 * 1024
}

fn default_max_age_millis() -> u64 {
    5_000
}
