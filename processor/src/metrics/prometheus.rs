//! Prometheus text exposition on `/metrics` for the sidecar, through
//! `metrics-exporter-prometheus`.

use std::net::SocketAddr;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};

/// The default listen address: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9464";

/// A Prometheus exporter failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PrometheusError {
    /// The HTTP listener could not be built or bound.
    #[error("Prometheus exporter on {listen}: {message}")]
    Listen {
        /// The address.
        listen: SocketAddr,
        /// Why.
        message: String,
    },
}

/// Builds the recorder and starts its HTTP listener on `listen` (serving
/// `GET /metrics`, text format) as a task on the current tokio runtime. The
/// caller installs the recorder (alone or in a fan-out).
///
/// # Errors
/// [`PrometheusError::Listen`] when the address cannot be bound.
pub fn start(listen: SocketAddr) -> Result<PrometheusRecorder, PrometheusError> {
    let (recorder, exporter) = PrometheusBuilder::new()
        .with_http_listener(listen)
        .build()
        .map_err(|e| PrometheusError::Listen {
            listen,
            message: e.to_string(),
        })?;
    tokio::spawn(async move {
        if let Err(e) = exporter.await {
            tracing::error!(%listen, error = ?e, "Prometheus exporter stopped");
        }
    });
    Ok(recorder)
}
