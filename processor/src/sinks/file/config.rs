//! What the user writes for a file sink.

use std::path::PathBuf;

use serde::Deserialize;

/// `[sinks.<name>.file]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSinkConfig {
    /// Directory that receives `<table>/<first SequenceNumber>-<last SequenceNumber>.ndjson`
    /// files (created if missing; relative paths: against the config file).
    pub path: PathBuf,
}
