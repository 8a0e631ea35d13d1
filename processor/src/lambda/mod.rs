//! The Lambda entry point (`ttlstream-lambda`): a function on a DynamoDB
//! stream event source mapping, on `lambda_runtime`.
//!
//! Configuration: the sidecar's TOML file without `[source]` and
//! `[checkpoint]` (ignored when present), from `TTLSTREAM_CONFIG`, else
//! `$LAMBDA_TASK_ROOT/ttlstream.toml` (a file in the deployment package), else
//! `./ttlstream.toml`. `${NAME}` in the file is read from the function's
//! environment (`${NAME}` interpolation): the SAM package's file
//! (`deploy/sam/ttlstream.toml`) takes its bucket and metric namespace from
//! the variables the template sets. Routes, filters, sinks, retries and the
//! dead-letter sink work as in the sidecar (one shared step,
//! `Routing`). A record that is durable nowhere (its sink and the
//! dead-letter sink failed) is answered with `batchItemFailures` naming its
//! `SequenceNumber` (enable `ReportBatchItemFailures` on the event source
//! mapping). Metrics are written to stdout as CloudWatch Embedded Metric
//! Format lines after every invocation.

mod handler;

use std::path::PathBuf;
use std::sync::Arc;

use aws_lambda_events::event::dynamodb::Event;
use lambda_runtime::{LambdaEvent, service_fn};

pub use handler::{HandlerError, InvocationReport, LambdaHandler};

use crate::config::Config;

/// The environment variable that names the config file.
pub const CONFIG_ENV: &str = "TTLSTREAM_CONFIG";

/// The config file: `TTLSTREAM_CONFIG`, else `ttlstream.toml` in
/// `LAMBDA_TASK_ROOT`, else in the working directory.
pub fn config_path() -> PathBuf {
    if let Some(path) = std::env::var_os(CONFIG_ENV) {
        return PathBuf::from(path);
    }
    std::env::var_os("LAMBDA_TASK_ROOT")
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
        .join("ttlstream.toml")
}

/// The `ttlstream-lambda` binary's whole `main`: logs to stderr (`RUST_LOG`,
/// default `info`, no colours or timestamps: CloudWatch Logs adds its own),
/// then [`run`] on a tokio runtime. Exit code 1 on an init or runtime error.
pub fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .init();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(lambda_runtime::Error::from)
        .and_then(|runtime| runtime.block_on(run()));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "ttlstream-lambda stopped");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Loads the config, installs the EMF metrics recorder and serves invocations
/// until the Lambda runtime stops the process.
///
/// # Errors
/// A config, filter or metrics error (reported by Lambda as an init error), or
/// the runtime's own error.
pub async fn run() -> Result<(), lambda_runtime::Error> {
    let path = config_path();
    let config = Config::load_lambda(&path)?;
    let flusher = crate::metrics::exporters::install(&config.metrics).await?;
    let handler = Arc::new(LambdaHandler::new(&config)?);
    tracing::info!(config = %path.display(), routes = config.routes.len(), sinks = config.sinks.len(), "ttlstream-lambda ready");
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Event>| {
        let handler = Arc::clone(&handler);
        let flusher = flusher.clone();
        async move {
            let (response, report) = handler.handle(event.payload).await?;
            tracing::info!(?report, "batch handled");
            if let Some(flusher) = flusher
                && let Err(e) = flusher.flush(chrono::Utc::now().timestamp_millis()).await
            {
                tracing::error!(error = %e, "metrics flush failed");
            }
            Ok::<_, HandlerError>(response)
        }
    }))
    .await
}
