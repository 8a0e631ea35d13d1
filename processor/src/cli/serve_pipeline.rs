//! `ttlstream serve --pipeline FILE`: the sidecar's pipeline on the engine
//! `serve` has open. An engine's data directory is opened by one process at
//! a time (fjall locks it), so a separate `ttlstream run` cannot read the
//! stream of a database `serve` is serving; this runs the same pipeline
//! (routes, sinks, checkpoint, metrics, alarms) inside `serve` instead.
//!
//! `FILE` is a sidecar config whose source is `[source.engine]` (`table`,
//! `model`) without `data_dir`, and which has no `[engine]`: `serve` owns
//! the engine, its sweeper and its clock ([`Config::load_served`]). The
//! pipeline starts once the table exists (it is usually created through the
//! API after `serve` starts) and stops with the server: the batch in
//! progress is written and checkpointed first.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::watch;
use ttlstream_engine::Engine;

use crate::config::{Config, SourceConfig};
use crate::engine::OwnedEngine;
use crate::error::{ConfigError, PipelineError, SourceError};
use crate::metrics::PipelineStats;
use crate::pipeline::Pipeline;
use crate::sources::engine::{EngineSource, EngineSourceConfig};

/// A pipeline config `serve` runs on the engine it serves.
pub(super) struct ServedPipeline {
    path: PathBuf,
    config: Config,
    source: EngineSourceConfig,
}

impl ServedPipeline {
    /// Reads and checks the config at `path`.
    ///
    /// # Errors
    /// As [`Config::load_served`].
    pub(super) fn load(path: &Path) -> Result<Self, ConfigError> {
        let config = Config::load_served(path)?;
        let Some(SourceConfig::Engine(source)) = config.source.clone() else {
            return Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                message: "source: [source.engine] is required".into(),
            });
        };
        Ok(Self {
            path: path.to_path_buf(),
            config,
            source,
        })
    }

    /// The config file, for the start-up line.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Waits until `engine` holds the table, then runs the pipeline until
    /// `stop` turns true. `data_dir` names the engine in error messages.
    ///
    /// # Errors
    /// As [`Pipeline::with_source`] and [`crate::sidecar::run_built`].
    pub(super) async fn run(
        self,
        engine: Engine,
        data_dir: PathBuf,
        mut stop: watch::Receiver<bool>,
    ) -> Result<PipelineStats, PipelineError> {
        let source_config = EngineSourceConfig {
            data_dir: Some(data_dir),
            ..self.source
        };
        let poll = Duration::from_millis(self.config.batch.poll_interval_millis.max(1));
        let mut logged = false;
        let source = loop {
            match EngineSource::new(engine.clone(), &source_config).checked() {
                Ok(source) => break source,
                Err(SourceError::TableNotFound { .. }) => {
                    if !logged {
                        tracing::info!(
                            table = %source_config.table,
                            model = source_config.model.as_str(),
                            "pipeline waits for the table to be created"
                        );
                        logged = true;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(poll) => {}
                        _ = stop.wait_for(|stopped| *stopped) => return Ok(PipelineStats::default()),
                    }
                }
                Err(e) => return Err(e.into()),
            }
        };
        let pipeline = Pipeline::with_source(&self.config, Box::new(source))?
            .owning(OwnedEngine::new(engine, None));
        let stopped = async move {
            let _ = stop.wait_for(|stopped| *stopped).await;
        };
        crate::sidecar::run_built(&self.config, pipeline, stopped).await
    }
}
