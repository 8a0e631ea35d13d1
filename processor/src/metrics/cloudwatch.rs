//! CloudWatch `PutMetricData`: the flushed metrics, batched within the API's
//! limits, into a custom namespace. Source: Amazon CloudWatch API Reference,
//! "PutMetricData" ("Each PutMetricData request is limited to 1 MB in size for
//! HTTP POST requests ... no more than 1000 different metrics"; NaN and
//! infinities are rejected).

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::types::{Dimension, MetricDatum as CwDatum, StandardUnit};
use aws_smithy_types::DateTime;

use super::snapshot::MetricDatum;

/// Most metrics in one PutMetricData request.
pub const MAX_METRICS_PER_REQUEST: usize = 1000;
/// Most bytes in one PutMetricData request (1 MB); batches are cut well below,
/// by a conservative estimate of each datum's encoded size.
pub const MAX_REQUEST_BYTES: usize = 1_000_000;
/// The default namespace.
pub const DEFAULT_NAMESPACE: &str = "TTLStream";

/// A PutMetricData failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The namespace is not one custom metrics may use.
    #[error(
        "namespace {namespace:?}: CloudWatch reserves namespaces starting with \"AWS/\" for AWS services; use a custom one such as \"TTLStream\""
    )]
    ReservedNamespace {
        /// The namespace given.
        namespace: String,
    },
    /// The namespace is empty or longer than 255 characters.
    #[error("namespace {namespace:?}: must be 1 to 255 characters")]
    InvalidNamespace {
        /// The namespace given.
        namespace: String,
    },
    /// The call failed (after the SDK's own retries).
    #[error("PutMetricData into {namespace} (batch {batch} of {batches}): {message}")]
    Call {
        /// The namespace.
        namespace: String,
        /// 1-based batch index.
        batch: usize,
        /// Number of batches in this flush.
        batches: usize,
        /// The SDK's error, with its source chain.
        message: String,
    },
}

/// Checks a custom-metric namespace: 1 to 255 characters, not starting with
/// `AWS/` (CloudWatch User Guide, "CloudWatch concepts", Namespaces).
///
/// # Errors
/// [`PublishError::ReservedNamespace`], [`PublishError::InvalidNamespace`].
pub fn check_namespace(namespace: &str) -> Result<(), PublishError> {
    if namespace.is_empty() || namespace.chars().count() > 255 {
        return Err(PublishError::InvalidNamespace {
            namespace: namespace.to_string(),
        });
    }
    if namespace.starts_with("AWS/") {
        return Err(PublishError::ReservedNamespace {
            namespace: namespace.to_string(),
        });
    }
    Ok(())
}

/// An upper bound on one datum's share of a request body, in bytes.
fn estimated_bytes(d: &MetricDatum) -> usize {
    let dims: usize = d
        .dimensions
        .iter()
        .map(|(n, v)| n.len() + v.len() + 32)
        .sum();
    d.name.len() + d.unit.len() + dims + 96
}

/// Splits `data` into batches of at most [`MAX_METRICS_PER_REQUEST`] metrics and
/// [`MAX_REQUEST_BYTES`] estimated bytes, in order; non-finite values are left
/// out (CloudWatch rejects them).
pub fn batches(data: &[MetricDatum]) -> Vec<Vec<&MetricDatum>> {
    let mut out: Vec<Vec<&MetricDatum>> = Vec::new();
    let mut bytes = 0;
    for d in data.iter().filter(|d| d.value.is_finite()) {
        let size = estimated_bytes(d);
        let full = out
            .last()
            .is_none_or(|b| b.len() >= MAX_METRICS_PER_REQUEST || bytes + size > MAX_REQUEST_BYTES);
        if full {
            out.push(Vec::new());
            bytes = 0;
        }
        bytes += size;
        if let Some(batch) = out.last_mut() {
            batch.push(d);
        }
    }
    out
}

/// Publishes `data` with timestamp `timestamp_millis` (epoch milliseconds) in
/// as few PutMetricData calls as the limits allow; returns the number of calls.
///
/// # Errors
/// [`PublishError::ReservedNamespace`] / [`PublishError::InvalidNamespace`]
/// before any call; [`PublishError::Call`] for the first failed call (later
/// batches are not sent).
pub async fn publish(
    client: &Client,
    namespace: &str,
    timestamp_millis: i64,
    data: &[MetricDatum],
) -> Result<usize, PublishError> {
    check_namespace(namespace)?;
    let batches = batches(data);
    let count = batches.len();
    for (i, batch) in batches.into_iter().enumerate() {
        let metric_data = batch
            .into_iter()
            .map(|d| {
                CwDatum::builder()
                    .metric_name(&d.name)
                    .set_dimensions(Some(
                        d.dimensions
                            .iter()
                            .map(|(n, v)| Dimension::builder().name(n).value(v).build())
                            .collect(),
                    ))
                    .value(d.value)
                    .unit(StandardUnit::from(d.unit))
                    .timestamp(DateTime::from_millis(timestamp_millis))
                    .build()
            })
            .collect();
        client
            .put_metric_data()
            .namespace(namespace)
            .set_metric_data(Some(metric_data))
            .send()
            .await
            .map_err(|e| PublishError::Call {
                namespace: namespace.to_string(),
                batch: i + 1,
                batches: count,
                message: aws_sdk_cloudwatch::error::DisplayErrorContext(e).to_string(),
            })?;
    }
    Ok(count)
}
