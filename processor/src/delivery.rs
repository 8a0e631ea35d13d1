//! Retrying a sink write: the one retry loop every sink shares (`backon`,
//! exponential backoff with jitter), and the dead-letter path for what still
//! fails. AWS SDK calls inside a sink are retried by the SDK's own retry
//! configuration instead ([`SinkError::is_retryable`] is false for them).

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use serde::Deserialize;

use crate::error::SinkError;
use crate::record::Record;
use crate::sinks::dead_letter::envelope;
use crate::sinks::{Sink, SinkBatch};

/// `[retry]`: how often a failed sink write is tried again.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryConfig {
    /// Attempts after the first one. Default 5.
    #[serde(default = "default_max_retries")]
    pub max_retries: usize,
    /// Delay before the first retry, milliseconds. Default 100.
    #[serde(default = "default_min_delay_millis")]
    pub min_delay_millis: u64,
    /// Longest delay between retries, milliseconds. Default 5000.
    #[serde(default = "default_max_delay_millis")]
    pub max_delay_millis: u64,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_retries: default_max_retries(),
            min_delay_millis: default_min_delay_millis(),
            max_delay_millis: default_max_delay_millis(),
        }
    }
}

fn default_max_retries() -> usize {
    5
}

fn default_min_delay_millis() -> u64 {
    100
}

fn default_max_delay_millis() -> u64 {
    5000
}

/// Writes `batch` to `sink`, retrying retryable errors per `policy`.
///
/// # Errors
/// The last [`SinkError`] when the error is not retryable or the retries ran out.
pub async fn deliver(
    sink: &dyn Sink,
    batch: &SinkBatch<'_>,
    policy: &RetryConfig,
) -> Result<(), SinkError> {
    let backoff = ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(policy.min_delay_millis))
        .with_max_delay(Duration::from_millis(policy.max_delay_millis))
        .with_max_times(policy.max_retries)
        .with_jitter();
    (|| sink.write(batch))
        .retry(backoff)
        .when(SinkError::is_retryable)
        .notify(|error, delay| {
            tracing::warn!(sink = sink.name(), %error, retry_in_ms = delay.as_millis() as u64, "sink write failed; retrying");
        })
        .await
}

/// A sink's batch that failed after its retries.
#[derive(Debug)]
pub struct Failure<'a> {
    /// The sink that failed.
    pub sink: String,
    /// Its last error.
    pub error: SinkError,
    /// The records it could not take.
    pub records: Vec<&'a Record>,
}

/// Writes the dead letters of `failures` (one envelope per record, see
/// [`crate::sinks::dead_letter`]) to `dead_letter` as one batch per table named
/// by `first..=last`, retried like any sink write. Logs each failure without
/// attribute values; with `log_keys`, each record's `Keys`.
///
/// # Errors
/// The dead-letter sink's error when it, too, fails after its retries.
pub async fn dead_letter(
    dead_letter: &dyn Sink,
    failures: &[Failure<'_>],
    (first, last): (&str, &str),
    policy: &RetryConfig,
    log_keys: bool,
) -> Result<u64, SinkError> {
    let mut letters: Vec<Record> = Vec::new();
    for failure in failures {
        tracing::error!(
            sink = %failure.sink,
            error = %failure.error,
            records = failure.records.len(),
            first_sequence = first,
            last_sequence = last,
            dead_letter = dead_letter.name(),
            "sink failed after retries; its records go to the dead-letter sink"
        );
        let text = failure.error.to_string();
        for record in &failure.records {
            if log_keys {
                tracing::warn!(
                    sink = %failure.sink,
                    sequence_number = %record.sequence_number,
                    keys = %crate::record::keys_json(record),
                    "dead-lettered record"
                );
            }
            letters.push(envelope(record, &failure.sink, &text));
        }
    }
    let mut tables: Vec<&str> = letters.iter().map(|l| l.table_name.as_str()).collect();
    tables.sort_unstable();
    tables.dedup();
    for table_name in tables {
        let batch = SinkBatch {
            table_name,
            first_sequence_number: first,
            last_sequence_number: last,
            records: letters
                .iter()
                .filter(|l| l.table_name == table_name)
                .collect(),
        };
        deliver(dead_letter, &batch, policy).await?;
    }
    Ok(letters.len() as u64)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::sources::BoxFuture;

    struct Flaky {
        failures_left: AtomicUsize,
        attempts: AtomicUsize,
    }

    impl Sink for Flaky {
        fn name(&self) -> &str {
            "flaky"
        }
        fn write<'a>(&'a self, _batch: &'a SinkBatch<'a>) -> BoxFuture<'a, Result<(), SinkError>> {
            self.attempts.fetch_add(1, Ordering::SeqCst);
            let fail = self
                .failures_left
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
            Box::pin(async move {
                if fail {
                    Err(SinkError::Io {
                        sink: "flaky".into(),
                        action: "write",
                        path: "x".into(),
                        source: std::io::Error::other("disk full"),
                    })
                } else {
                    Ok(())
                }
            })
        }
    }

    fn fast(max_retries: usize) -> RetryConfig {
        RetryConfig {
            max_retries,
            min_delay_millis: 1,
            max_delay_millis: 2,
        }
    }

    fn record() -> Record {
        Record::new("T".into(), "1".into(), 0, false, b"{}".to_vec())
    }

    fn batch(record: &Record) -> SinkBatch<'_> {
        SinkBatch {
            table_name: "T",
            first_sequence_number: "1",
            last_sequence_number: "1",
            records: vec![record],
        }
    }

    #[tokio::test]
    async fn retries_until_success() {
        let sink = Flaky {
            failures_left: AtomicUsize::new(2),
            attempts: AtomicUsize::new(0),
        };
        let record = record();
        let result = deliver(&sink, &batch(&record), &fast(5)).await;
        assert!(result.is_ok());
        assert_eq!(sink.attempts.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn gives_up_after_max_retries() {
        let sink = Flaky {
            failures_left: AtomicUsize::new(100),
            attempts: AtomicUsize::new(0),
        };
        let record = record();
        let result = deliver(&sink, &batch(&record), &fast(2)).await;
        assert!(matches!(result, Err(SinkError::Io { .. })));
        assert_eq!(sink.attempts.load(Ordering::SeqCst), 3);
    }
}
