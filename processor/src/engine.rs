//! `[engine]`: the bundled engine this process owns. The owner of a
//! database opens it, runs its TTL sweeper and publishes its sweeper lag;
//! a stream reader (`[source.engine]`) only reads. `ttlstream serve` and the
//! demo own the engines they open; a sidecar owns one only when its config
//! has an `[engine]` section, and its `[source.engine]` then reads that
//! engine. Without `[engine]`, `[source.engine]` reads an engine another
//! process owns (for example `ttlstream serve`).
//!
//! ```toml
//! [engine]
//! data_dir = "data"              # opened, and swept, by this process
//! sweep_interval_millis = 1000
//!
//! [source.engine]
//! table = "SessionData"          # read from [engine]'s database
//! ```

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use ttlstream_engine::{Engine, Sweeper, SweeperOptions};

use crate::error::SourceError;
use crate::metrics::names;

/// `[engine]`: the engine data directory this process owns and sweeps.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// The engine's data directory (relative paths: against the config
    /// file).
    pub data_dir: PathBuf,
    /// Milliseconds between TTL sweeps; 0 turns the sweeper off. Default
    /// 1000.
    #[serde(default = "default_sweep_interval_millis")]
    pub sweep_interval_millis: u64,
    /// Most TTL deletions per sweep pass (a count, at least 1; all tables
    /// together, shared fairly between them, so a few expired items of one
    /// table wait at most one pass behind another table's backlog; a pass
    /// that spends it all is followed by the next at once). Default 10,000
    /// ([`ttlstream_engine::DEFAULT_MAX_DELETES_PER_SWEEP`]).
    #[serde(default = "default_max_deletes_per_sweep")]
    pub max_deletes_per_sweep: NonZeroUsize,
    /// Create `data_dir` (an empty engine) when it is missing or empty.
    /// Default false: a missing or empty directory is an error naming it, so
    /// a mistyped path does not start an empty database.
    #[serde(default)]
    pub create: bool,
}

impl EngineConfig {
    /// An `[engine]` section for `data_dir` with every other key at its
    /// default.
    #[must_use]
    pub fn new(data_dir: PathBuf) -> Self {
        Self {
            data_dir,
            sweep_interval_millis: default_sweep_interval_millis(),
            max_deletes_per_sweep: default_max_deletes_per_sweep(),
            create: false,
        }
    }
}

fn default_sweep_interval_millis() -> u64 {
    1000
}

/// The default of [`EngineConfig::max_deletes_per_sweep`]: the engine's own.
fn default_max_deletes_per_sweep() -> NonZeroUsize {
    NonZeroUsize::new(ttlstream_engine::DEFAULT_MAX_DELETES_PER_SWEEP).unwrap_or(NonZeroUsize::MIN)
}

/// An engine this process opened from [`EngineConfig`], with its sweeper
/// (stopped when this is dropped).
pub struct OwnedEngine {
    engine: Engine,
    _sweeper: Option<Sweeper>,
}

impl OwnedEngine {
    /// Opens the engine at `config.data_dir` and starts its sweeper unless
    /// `sweep_interval_millis` is 0.
    ///
    /// # Errors
    /// [`SourceError::DataDirMissing`] when the directory is missing or
    /// empty and `create` is off; [`SourceError::Open`] when the engine
    /// cannot be opened.
    pub fn open(config: &EngineConfig) -> Result<Self, SourceError> {
        if !config.create {
            check_data_dir(&config.data_dir, "engine.data_dir")?;
        }
        let engine = open_engine(&config.data_dir)?;
        let sweeper = (config.sweep_interval_millis > 0).then(|| {
            engine.start_sweeper(SweeperOptions {
                interval: Duration::from_millis(config.sweep_interval_millis),
                max_deletes_per_sweep: Some(config.max_deletes_per_sweep.get()),
                ..Default::default()
            })
        });
        Ok(Self::new(engine, sweeper))
    }

    /// An engine this process opened in its own way (a test's, with its
    /// clock), with the sweeper it runs, if any; `None`: the caller sweeps
    /// ([`Engine::sweep_now`]).
    #[must_use]
    pub fn new(engine: Engine, sweeper: Option<Sweeper>) -> Self {
        Self {
            engine,
            _sweeper: sweeper,
        }
    }

    /// The engine.
    #[must_use]
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Sets the `SweeperLagMilliseconds` gauge of every table of the engine
    /// (the engine's [`DynamoDb::sweeper_lag_millis`](ttlstream_engine::DynamoDb::sweeper_lag_millis)), and the
    /// `row_deletion_policy/processed_watermark_age` and
    /// `row_deletion_policy/undeletable_rows` gauges of every Spanner table
    /// that has a processed watermark
    /// ([`Spanner::processed_watermark_millis`](ttlstream_engine::Spanner::processed_watermark_millis),
    /// [`Spanner::undeletable_rows`](ttlstream_engine::Spanner::undeletable_rows)). A table whose lag
    /// cannot be read is left out (logged at debug level).
    pub fn publish_sweeper_lag(&self) {
        self.publish_processed_watermark_age();
        let tables = match self.engine.dynamodb().list_tables() {
            Ok(tables) => tables,
            Err(error) => {
                tracing::debug!(%error, "sweeper lag unavailable: cannot list tables");
                return;
            }
        };
        for table in tables {
            match self.engine.dynamodb().sweeper_lag_millis(&table) {
                Ok(lag) => {
                    ::metrics::gauge!(names::SWEEPER_LAG_MILLISECONDS, names::TABLE_NAME => table)
                        .set(lag as f64);
                }
                Err(error) => tracing::debug!(%table, %error, "sweeper lag unavailable"),
            }
        }
    }
}

impl OwnedEngine {
    /// Sets `row_deletion_policy/processed_watermark_age` (seconds) and
    /// `row_deletion_policy/undeletable_rows` of each Spanner table whose
    /// policy a complete sweep pass has processed.
    fn publish_processed_watermark_age(&self) {
        let tables = match self.engine.spanner().list_tables() {
            Ok(tables) => tables,
            Err(error) => {
                tracing::debug!(%error, "processed watermarks unavailable: cannot list tables");
                return;
            }
        };
        let now_millis = self.engine.clock().now_millis();
        for table in tables {
            match self.engine.spanner().processed_watermark_millis(&table) {
                Ok(Some(watermark)) => {
                    let age_secs = now_millis.saturating_sub(watermark).max(0) / 1000;
                    ::metrics::gauge!(
                        names::SPANNER_PROCESSED_WATERMARK_AGE,
                        names::TABLE_NAME => table.clone()
                    )
                    .set(age_secs as f64);
                }
                Ok(None) => continue,
                Err(error) => {
                    tracing::debug!(%table, %error, "processed watermark unavailable");
                    continue;
                }
            }
            if let Ok(Some(undeletable)) = self.engine.spanner().undeletable_rows(&table) {
                ::metrics::gauge!(names::SPANNER_UNDELETABLE_ROWS, names::TABLE_NAME => table)
                    .set(undeletable.rows as f64);
            }
        }
    }
}

/// Opens the engine at `data_dir`.
///
/// # Errors
/// [`SourceError::Open`] naming the directory.
pub(crate) fn open_engine(data_dir: &Path) -> Result<Engine, SourceError> {
    Engine::open(data_dir, Default::default()).map_err(|source| SourceError::Open {
        path: data_dir.to_path_buf(),
        source: Box::new(source),
    })
}

/// Refuses a data directory that does not exist, is not a directory, or is
/// empty: opening it would create an empty engine. `key` names the config
/// key that gave it.
///
/// # Errors
/// [`SourceError::DataDirMissing`].
pub(crate) fn check_data_dir(path: &Path, key: &'static str) -> Result<(), SourceError> {
    let missing = |problem| SourceError::DataDirMissing {
        path: path.to_path_buf(),
        key,
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

#[cfg(test)]
mod tests;
