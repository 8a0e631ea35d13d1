//! `[source.engine]`: what the user writes, and the check that the data
//! directory it names is an existing engine.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::SourceError;
use crate::sources::StartingPosition;

/// `[source.engine]`: read a table's stream from an engine data directory.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSourceConfig {
    /// The engine's data directory (relative paths: against the config file).
    pub data_dir: PathBuf,
    /// The table whose stream is read. It must exist and have a stream.
    pub table: String,
    /// Where to start when there is no checkpoint. Default `TRIM_HORIZON`.
    #[serde(default)]
    pub starting_position: StartingPosition,
    /// `awsRegion` written into records. Default `ddblocal`
    /// ([`ttlstream_engine::STREAM_ARN_REGION`], the region in the engine's
    /// stream ARNs, as DynamoDB Local names it).
    #[serde(default = "default_region")]
    pub region: String,
    /// Milliseconds between TTL sweeps of the engine this sidecar opens; 0 turns
    /// the sweeper off (another process sweeps). Default 1000.
    #[serde(default = "default_sweep_interval_millis")]
    pub sweep_interval_millis: u64,
    /// Create `data_dir` (an empty engine) when it is missing or empty.
    /// Default false: a missing or empty directory is an error naming it, so
    /// a mistyped path does not start an empty database (`ttlstream serve`
    /// and the demo create engines). The table must exist either way.
    #[serde(default)]
    pub create: bool,
    /// Most TTL deletions per sweep pass of that sweeper (a count, at least
    /// 1; all tables together, shared fairly between them, so a few expired
    /// items of one table wait at most one pass behind another table's
    /// backlog; a pass that spends it all is followed by the next at once).
    /// Default 10,000 ([`ttlstream_engine::DEFAULT_MAX_DELETES_PER_SWEEP`]).
    #[serde(default = "default_max_deletes_per_sweep")]
    pub max_deletes_per_sweep: NonZeroUsize,
}

/// The default of [`EngineSourceConfig::max_deletes_per_sweep`]: the
/// engine's own.
pub(crate) fn default_max_deletes_per_sweep() -> NonZeroUsize {
    NonZeroUsize::new(ttlstream_engine::DEFAULT_MAX_DELETES_PER_SWEEP).unwrap_or(NonZeroUsize::MIN)
}

pub(super) fn default_region() -> String {
    ttlstream_engine::STREAM_ARN_REGION.to_string()
}

fn default_sweep_interval_millis() -> u64 {
    1000
}

/// Refuses a data directory that does not exist, is not a directory, or is
/// empty: opening it would create an empty engine.
pub(super) fn check_data_dir(path: &Path) -> Result<(), SourceError> {
    let missing = |problem| SourceError::DataDirMissing {
        path: path.to_path_buf(),
        problem,
    };
    match std::fs::read_dir(path) {
        Ok(mut entries) => match entries.next() {
            Some(_) => Ok(()),
            None => Err(missing("is empty")),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(missing("does not exist")),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(missing("is not a directory"))
        }
        // Unreadable: let the engine report it with its own error.
        Err(_) => Ok(()),
    }
}
