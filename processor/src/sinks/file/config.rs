//! What the user writes for a file sink.

use std::path::PathBuf;

use serde::Deserialize;

use crate::sinks::batch::BatchLimits;
use crate::sinks::encoding::Compression;

/// `[sinks.<name>.file]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSinkConfig {
    /// Directory that receives
    /// `<table>/<first SequenceNumber>-<last SequenceNumber>.ndjson[.gz|.zst]` files
    /// (created if missing; relative paths: against the config file).
    pub path: PathBuf,
    /// `none` (default), `gzip` or `zstd`.
    #[serde(default)]
    pub compression: Compression,
    /// When a file is closed: a new file starts after `max_records` records,
    /// `max_bytes` bytes of NDJSON or `max_age_millis` (rotation by size and age).
    #[serde(default)]
    pub batch: BatchLimits,
}

impl FileSinkConfig {
    /// A config with every default for `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            compression: Compression::None,
            batch: BatchLimits::default(),
        }
    }
}
