//! Installing the configured exporters as the process's `metrics` recorder, and
//! flushing the CloudWatch ones once per metric period.

use std::sync::Arc;

use metrics::{Counter, CounterFn, Gauge, GaugeFn, Histogram, Key, KeyName, Metadata, Recorder};
use metrics::{SharedString, Unit};

use super::SnapshotRecorder;
use super::cloudwatch::{self, PublishError};
use super::emf;
use super::prometheus::{self as prom, PrometheusError};
use crate::config::MetricsConfig;

/// Why the exporters could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExporterError {
    /// The Prometheus listener.
    #[error(transparent)]
    Prometheus(#[from] PrometheusError),
    /// The CloudWatch namespace.
    #[error("metrics.namespace: {0}")]
    Namespace(#[from] PublishError),
    /// A recorder was already installed in this process.
    #[error("a metrics recorder is already installed in this process")]
    AlreadyInstalled,
}

/// What the flush task needs: the snapshot and where to send it.
#[derive(Clone, Debug)]
pub struct Flusher {
    snapshot: SnapshotRecorder,
    namespace: String,
    emf: bool,
    cloudwatch: Option<aws_sdk_cloudwatch::Client>,
}

impl Flusher {
    /// A flusher reading `snapshot` (installed as, or in, the process's
    /// recorder) into `namespace`: EMF lines on stdout when `emf`,
    /// PutMetricData through `cloudwatch` when given.
    pub fn new(
        snapshot: SnapshotRecorder,
        namespace: impl Into<String>,
        emf: bool,
        cloudwatch: Option<aws_sdk_cloudwatch::Client>,
    ) -> Self {
        Self {
            snapshot,
            namespace: namespace.into(),
            emf,
            cloudwatch,
        }
    }

    /// Reads the snapshot and sends it: EMF lines to stdout, PutMetricData to
    /// CloudWatch. `now_millis` is the datapoints' timestamp (epoch ms).
    ///
    /// # Errors
    /// [`PublishError::Call`] when PutMetricData fails (EMF lines were written).
    pub async fn flush(&self, now_millis: i64) -> Result<(), PublishError> {
        let data = self.snapshot.flush();
        if self.emf {
            for line in emf::encode(&self.namespace, now_millis, &data) {
                println!("{line}");
            }
        }
        if let Some(client) = &self.cloudwatch {
            cloudwatch::publish(client, &self.namespace, now_millis, &data).await?;
        }
        Ok(())
    }
}

/// Installs the recorders `config` asks for as the global recorder; returns the
/// flusher for EMF / CloudWatch when either is on. Must run inside a tokio
/// runtime (the Prometheus listener is a task; the AWS config is loaded).
///
/// # Errors
/// [`ExporterError`] for a bad namespace, an unbindable Prometheus address, or
/// a second installation.
pub async fn install(config: &MetricsConfig) -> Result<Option<Flusher>, ExporterError> {
    let mut recorders: Vec<Box<dyn Recorder + Send + Sync>> = Vec::new();
    if let Some(listen) = config.prometheus_listen {
        recorders.push(Box::new(prom::start(listen)?));
    }
    let mut flusher = None;
    if config.emf || config.cloudwatch {
        cloudwatch::check_namespace(&config.namespace)?;
        let snapshot = SnapshotRecorder::new();
        recorders.push(Box::new(snapshot.clone()));
        let client = if config.cloudwatch {
            let aws = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
            Some(aws_sdk_cloudwatch::Client::new(&aws))
        } else {
            None
        };
        flusher = Some(Flusher::new(
            snapshot,
            config.namespace.clone(),
            config.emf,
            client,
        ));
    }
    if !recorders.is_empty() {
        metrics::set_global_recorder(Fanout(recorders))
            .map_err(|_| ExporterError::AlreadyInstalled)?;
        super::names::describe();
    }
    Ok(flusher)
}

/// Sends every metric to each of several recorders.
pub struct Fanout(pub Vec<Box<dyn Recorder + Send + Sync>>);

struct FanoutCounter(Vec<Counter>);
struct FanoutGauge(Vec<Gauge>);

impl CounterFn for FanoutCounter {
    fn increment(&self, value: u64) {
        self.0.iter().for_each(|c| c.increment(value));
    }
    fn absolute(&self, value: u64) {
        self.0.iter().for_each(|c| c.absolute(value));
    }
}

impl GaugeFn for FanoutGauge {
    fn increment(&self, value: f64) {
        self.0.iter().for_each(|g| g.increment(value));
    }
    fn decrement(&self, value: f64) {
        self.0.iter().for_each(|g| g.decrement(value));
    }
    fn set(&self, value: f64) {
        self.0.iter().for_each(|g| g.set(value));
    }
}

impl Recorder for Fanout {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        for r in &self.0 {
            r.describe_counter(key.clone(), unit, description.clone());
        }
    }
    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        for r in &self.0 {
            r.describe_gauge(key.clone(), unit, description.clone());
        }
    }
    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        for r in &self.0 {
            r.describe_histogram(key.clone(), unit, description.clone());
        }
    }
    fn register_counter(&self, key: &Key, metadata: &Metadata<'_>) -> Counter {
        let all = self.0.iter().map(|r| r.register_counter(key, metadata));
        Counter::from_arc(Arc::new(FanoutCounter(all.collect())))
    }
    fn register_gauge(&self, key: &Key, metadata: &Metadata<'_>) -> Gauge {
        let all = self.0.iter().map(|r| r.register_gauge(key, metadata));
        Gauge::from_arc(Arc::new(FanoutGauge(all.collect())))
    }
    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fanout_feeds_every_recorder() {
        let a = SnapshotRecorder::new();
        let b = SnapshotRecorder::new();
        let fanout = Fanout(vec![Box::new(a.clone()), Box::new(b.clone())]);
        metrics::with_local_recorder(&fanout, || {
            metrics::counter!("RecordsRead").increment(2);
            metrics::gauge!("IteratorAgeMilliseconds").set(9.0);
        });
        for r in [a, b] {
            let values: Vec<f64> = r.flush().iter().map(|d| d.value).collect();
            assert_eq!(values, [9.0, 2.0]);
        }
    }
}
