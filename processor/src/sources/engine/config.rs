//! `[source.engine]`: what the user writes to read a table's stream from the
//! bundled engine.

use std::path::PathBuf;

use serde::Deserialize;

use crate::sources::StartingPosition;

/// `[source.engine]`: read a table's stream from an engine. The engine is
/// the config's `[engine]` (this process owns it and sweeps it,
/// [`crate::engine`]), or, without `[engine]`, the one at `data_dir` that
/// another process owns (`ttlstream serve`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSourceConfig {
    /// The data directory of an engine another process owns (relative
    /// paths: against the config file). Required without `[engine]`; not
    /// allowed with it (the source reads `[engine]`'s database). It must
    /// exist and hold the table: a reader never creates a database.
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
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
}

impl EngineSourceConfig {
    /// A `[source.engine]` reading `table` from the config's `[engine]` (or
    /// an engine handed to [`super::EngineSource::new`]), every other key at
    /// its default.
    #[must_use]
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            data_dir: None,
            table: table.into(),
            starting_position: StartingPosition::default(),
            region: default_region(),
        }
    }
}

pub(super) fn default_region() -> String {
    ttlstream_engine::STREAM_ARN_REGION.to_string()
}
