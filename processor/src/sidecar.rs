//! The sidecar (`ttlstream run`): a [`Pipeline`] run until SIGTERM/SIGINT or
//! the end of its input, with its metrics published once per metric period
//! and once more when it stops, so the counts of the last, open period
//! ([`Pipeline::publish_open_periods`]) reach EMF and PutMetricData too;
//! Prometheus serves them from the same counters.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::Config;
use crate::error::{ConfigError, PipelineError};
use crate::metrics::PipelineStats;
use crate::metrics::exporters::{self, Flusher};
use crate::pipeline::Pipeline;

/// Builds the pipeline `config` describes, installs its metrics exporters
/// (the process's global recorder) and runs it ([`run_pipeline`]) until
/// `shutdown` completes or the source ends.
///
/// # Errors
/// As [`Pipeline::build`] and [`Pipeline::run`];
/// [`PipelineError::Config`] when an exporter cannot start (its address is
/// taken, a recorder is installed already).
pub async fn run(
    config: &Config,
    shutdown: impl Future<Output = ()>,
) -> Result<PipelineStats, PipelineError> {
    let pipeline = Pipeline::build(config).await?;
    run_built(config, pipeline, shutdown).await
}

/// Installs the metrics exporters of `config` (the process's global
/// recorder) and runs `pipeline`, built from `config` ([`run_pipeline`]),
/// until `shutdown` completes or the source ends. What [`run`] does after
/// building; `ttlstream serve --pipeline` builds its pipeline on the engine
/// it serves and comes here.
///
/// # Errors
/// As [`run`], without the building.
pub async fn run_built(
    config: &Config,
    mut pipeline: Pipeline,
    shutdown: impl Future<Output = ()>,
) -> Result<PipelineStats, PipelineError> {
    let flusher = exporters::install(&config.metrics)
        .await
        .map_err(|e| ConfigError::Invalid {
            path: PathBuf::from("[metrics]"),
            message: e.to_string(),
        })?;
    let period = Duration::from_secs(config.metrics.period_secs.max(1));
    run_pipeline(&mut pipeline, flusher, period, shutdown).await
}

/// Runs `pipeline` ([`Pipeline::run`]) while `flusher` (if any) publishes
/// the recorded metrics every `period`, then publishes them once more after
/// the run ended, whatever its result, so nothing counted is left behind.
///
/// # Errors
/// As [`Pipeline::run`]. A failed publication is logged, not returned.
pub async fn run_pipeline(
    pipeline: &mut Pipeline,
    flusher: Option<Flusher>,
    period: Duration,
    shutdown: impl Future<Output = ()>,
) -> Result<PipelineStats, PipelineError> {
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let periodic = flusher.clone().map(|flusher| {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.tick().await;
            loop {
                tokio::select! {
                    _ = tick.tick() => flush(&flusher).await,
                    // A flush under way is finished first: its values have
                    // left the snapshot.
                    _ = stopped.changed() => return,
                }
            }
        })
    });
    tracing::info!(checkpoint = ?pipeline.checkpoint(), "sidecar started");
    let result = pipeline.run(shutdown).await;
    stop.send_replace(true);
    if let Some(task) = periodic {
        let _ = task.await;
    }
    if let Some(flusher) = &flusher {
        flush(flusher).await;
    }
    tracing::info!(stats = ?pipeline.stats(), "sidecar stopped");
    result
}

async fn flush(flusher: &Flusher) {
    let now_millis = chrono::Utc::now().timestamp_millis();
    if let Err(error) = flusher.flush(now_millis).await {
        tracing::error!(%error, "metrics flush failed");
    }
}
