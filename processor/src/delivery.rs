//! Retrying a sink write: the one retry loop every sink shares (`backon`,
//! exponential backoff with jitter, capped at `max_delay_millis`), and the
//! dead-letter path for what still fails.
//!
//! One loop, two bounds ([`RetryPolicy`]):
//! - **The Lambda** ([`RetryPolicy::bounded`]) must answer within its
//!   timeout: a local I/O error is tried again `max_retries` times; an AWS
//!   error is not tried again (the SDK's own retry configuration already ran).
//! - **A long-lived sidecar** ([`RetryPolicy::until_elapsed`]) rides out an
//!   outage: every transient error ([`SinkError::is_transient`]: local I/O,
//!   and an AWS call that failed after the SDK's own attempts, which run
//!   inside each try) is tried again until `max_elapsed_secs` have passed
//!   since the batch was first tried. Meanwhile the checkpoint stays before
//!   the batch, every retry is logged with how long the sink has been
//!   stalled, and the `SinkStalledMilliseconds` gauge (dimension `Sink`)
//!   shows it. Then the batch's records go to the dead-letter sink (without
//!   one, the pipeline stops). A stop request (SIGTERM) ends the wait at
//!   once with [`SinkError::Interrupted`]: the batch stays in flight and is
//!   delivered on the next start. A write that has not failed is never cut
//!   short by it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use backon::{ExponentialBuilder, Retryable};
use serde::Deserialize;
use tokio::sync::watch;

use crate::error::SinkError;
use crate::metrics::names;
use crate::record::Record;
use crate::sinks::dead_letter::envelope;
use crate::sinks::{Sink, SinkBatch};

/// `[retry]`: how often a failed sink write is tried again.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryConfig {
    /// The Lambda's bound: tries after the first one, for local I/O errors
    /// (AWS errors were retried by the SDK). Default 5. The sidecar is
    /// bounded by `max_elapsed_secs` instead.
    #[serde(default = "default_max_retries")]
    pub max_retries: usize,
    /// Delay before the first retry, milliseconds. Default 100.
    #[serde(default = "default_min_delay_millis")]
    pub min_delay_millis: u64,
    /// Longest delay between retries (the cap of the exponential backoff),
    /// milliseconds. Default 5000.
    #[serde(default = "default_max_delay_millis")]
    pub max_delay_millis: u64,
    /// The sidecar's bound: how long a batch a sink cannot take is retried,
    /// seconds from its first try, before its records go to the dead-letter
    /// sink (without one, the sidecar stops with the checkpoint before the
    /// batch). Default 600, so an outage of a few minutes is ridden out; 0
    /// tries once. The Lambda ignores it.
    #[serde(default = "default_max_elapsed_secs")]
    pub max_elapsed_secs: u64,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_retries: default_max_retries(),
            min_delay_millis: default_min_delay_millis(),
            max_delay_millis: default_max_delay_millis(),
            max_elapsed_secs: default_max_elapsed_secs(),
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

fn default_max_elapsed_secs() -> u64 {
    600
}

/// How [`deliver`] bounds its retries: the Lambda's or a long-lived
/// sidecar's (see the module documentation).
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    config: RetryConfig,
    /// `Some`: a sidecar's policy, and the signal that turns `true` when the
    /// process is asked to stop. `None`: the Lambda's.
    stop: Option<watch::Receiver<bool>>,
}

impl RetryPolicy {
    /// The Lambda's policy: `max_retries` tries again, local I/O errors only.
    pub fn bounded(config: RetryConfig) -> Self {
        Self { config, stop: None }
    }

    /// A long-lived sidecar's policy: every transient error is tried again
    /// until `max_elapsed_secs`, or until `stop` turns `true` after the write
    /// has failed.
    pub fn until_elapsed(config: RetryConfig, stop: watch::Receiver<bool>) -> Self {
        Self {
            config,
            stop: Some(stop),
        }
    }

    /// The `[retry]` settings.
    pub fn config(&self) -> &RetryConfig {
        &self.config
    }

    fn stopping(&self) -> bool {
        self.stop.as_ref().is_some_and(|stop| *stop.borrow())
    }
}

/// Writes `batch` to `sink`, retrying per `policy`.
///
/// # Errors
/// The last [`SinkError`] when the error is not retried or the retries ran
/// out; [`SinkError::Interrupted`] when a sidecar's stop signal came while
/// the sink was failing.
pub async fn deliver(
    sink: &dyn Sink,
    batch: &SinkBatch<'_>,
    policy: &RetryPolicy,
) -> Result<(), SinkError> {
    let config = &policy.config;
    let backoff = ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(config.min_delay_millis))
        .with_max_delay(Duration::from_millis(config.max_delay_millis))
        .with_jitter();
    let backoff = match policy.stop {
        Some(_) => backoff.without_max_times(),
        None => backoff.with_max_times(config.max_retries),
    };
    let started = Instant::now();
    let max_elapsed = Duration::from_secs(config.max_elapsed_secs);
    let failed = AtomicBool::new(false);
    let last_error = std::sync::Mutex::new(String::new());
    let stalled = || ::metrics::gauge!(names::SINK_STALLED_MILLISECONDS, names::SINK => sink.name().to_string());
    let retry = (|| sink.write(batch))
        .retry(backoff)
        .sleep(tokio::time::sleep)
        .when(|error| match &policy.stop {
            None => error.is_retryable(),
            Some(stop) => {
                error.is_transient() && !*stop.borrow() && started.elapsed() < max_elapsed
            }
        })
        .notify(|error, delay| {
            failed.store(true, Ordering::Relaxed);
            if let Ok(mut last) = last_error.lock() {
                *last = error.to_string();
            }
            // At least 1 while stalled: 0 means the sink is not failing.
            let stalled_millis = (started.elapsed().as_millis() as u64).max(1);
            stalled().set(stalled_millis as f64);
            tracing::warn!(
                sink = sink.name(),
                %error,
                retry_in_ms = delay.as_millis() as u64,
                stalled_ms = stalled_millis,
                first_sequence = batch.first_sequence_number,
                last_sequence = batch.last_sequence_number,
                "sink write failed; retrying (the checkpoint stays before this batch)"
            );
        });
    let result = match &policy.stop {
        None => retry.await,
        Some(stop) => {
            let mut stop = stop.clone();
            tokio::select! {
                result = retry => result,
                () = stopped_while_failing(&mut stop, &failed) => Err(SinkError::Interrupted {
                    sink: sink.name().to_string(),
                    message: last_error.lock().map(|e| e.clone()).unwrap_or_default(),
                }),
            }
        }
    };
    if failed.load(Ordering::Relaxed) {
        stalled().set(0.0);
    }
    match result {
        Err(error) if policy.stopping() && error.is_transient() => Err(SinkError::Interrupted {
            sink: sink.name().to_string(),
            message: error.to_string(),
        }),
        other => other,
    }
}

/// Completes when `stop` is `true` and the write has failed at least once
/// (it is then waiting to retry, or retrying). Otherwise never: a write that
/// has not failed is left to finish, and a failure after `stop` is not
/// retried (the `when` of [`deliver`]), so the retry loop completes first.
async fn stopped_while_failing(stop: &mut watch::Receiver<bool>, failed: &AtomicBool) {
    let stop_requested = stop.wait_for(|stopping| *stopping).await.is_ok();
    if !(stop_requested && failed.load(Ordering::Relaxed)) {
        std::future::pending::<()>().await;
    }
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
    policy: &RetryPolicy,
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
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::sources::BoxFuture;

    struct Flaky {
        failures_left: AtomicUsize,
        attempts: AtomicUsize,
        /// Fail as S3 does after the SDK's attempts, instead of local I/O.
        aws: bool,
    }

    impl Flaky {
        fn failing(times: usize) -> Self {
            Self {
                failures_left: AtomicUsize::new(times),
                attempts: AtomicUsize::new(0),
                aws: false,
            }
        }

        fn attempts(&self) -> usize {
            self.attempts.load(Ordering::SeqCst)
        }
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
            let aws = self.aws;
            Box::pin(async move {
                match (fail, aws) {
                    (false, _) => Ok(()),
                    (true, false) => Err(SinkError::Io {
                        sink: "flaky".into(),
                        action: "write",
                        path: "x".into(),
                        source: std::io::Error::other("disk full"),
                    }),
                    (true, true) => Err(SinkError::Aws {
                        sink: "flaky".into(),
                        operation: "PutObject",
                        bucket: "b".into(),
                        object: "k".into(),
                        message: "dispatch failure: connection refused".into(),
                    }),
                }
            })
        }
    }

    fn fast(max_retries: usize) -> RetryConfig {
        RetryConfig {
            max_retries,
            min_delay_millis: 1,
            max_delay_millis: 2,
            max_elapsed_secs: 600,
        }
    }

    fn lambda(max_retries: usize) -> RetryPolicy {
        RetryPolicy::bounded(fast(max_retries))
    }

    /// A sidecar's policy and the sender of its stop signal.
    fn sidecar(config: RetryConfig) -> (RetryPolicy, watch::Sender<bool>) {
        let (stop, stopped) = watch::channel(false);
        (RetryPolicy::until_elapsed(config, stopped), stop)
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
        let sink = Flaky::failing(2);
        let record = record();
        let result = deliver(&sink, &batch(&record), &lambda(5)).await;
        assert!(result.is_ok());
        assert_eq!(sink.attempts(), 3);
    }

    #[tokio::test]
    async fn the_lambda_gives_up_after_max_retries_and_leaves_aws_errors_to_the_sdk() {
        let sink = Flaky::failing(100);
        let record = record();
        let result = deliver(&sink, &batch(&record), &lambda(2)).await;
        assert!(matches!(result, Err(SinkError::Io { .. })));
        assert_eq!(sink.attempts(), 3);

        let sink = Flaky {
            aws: true,
            ..Flaky::failing(1)
        };
        let result = deliver(&sink, &batch(&record), &lambda(2)).await;
        assert!(matches!(result, Err(SinkError::Aws { .. })));
        assert_eq!(sink.attempts(), 1, "the SDK retried it already");
    }

    #[tokio::test]
    async fn a_sidecar_retries_every_transient_error_past_max_retries_until_it_succeeds() {
        let record = record();
        for aws in [false, true] {
            let sink = Flaky {
                aws,
                ..Flaky::failing(20)
            };
            let (policy, _stop) = sidecar(fast(2));
            let result = deliver(&sink, &batch(&record), &policy).await;
            assert!(result.is_ok(), "{result:?}");
            assert_eq!(sink.attempts(), 21, "aws: {aws}");
        }
    }

    #[tokio::test]
    async fn a_sidecar_gives_up_after_max_elapsed() {
        let sink = Flaky {
            aws: true,
            ..Flaky::failing(usize::MAX)
        };
        let record = record();
        let (policy, _stop) = sidecar(RetryConfig {
            max_elapsed_secs: 0,
            ..fast(5)
        });
        let result = deliver(&sink, &batch(&record), &policy).await;
        assert!(matches!(result, Err(SinkError::Aws { .. })), "{result:?}");
        assert_eq!(sink.attempts(), 1);
    }

    #[tokio::test]
    async fn stop_ends_a_stalled_retry_at_once_and_the_stall_is_a_gauge() {
        let recorder = crate::metrics::SnapshotRecorder::new();
        let _guard = ::metrics::set_default_local_recorder(&recorder);
        let sink = std::sync::Arc::new(Flaky::failing(usize::MAX));
        // After the first failure, the next try is an hour away.
        let (policy, stop) = sidecar(RetryConfig {
            min_delay_millis: 3_600_000,
            max_delay_millis: 3_600_000,
            ..fast(5)
        });
        let task = {
            let sink = std::sync::Arc::clone(&sink);
            tokio::spawn(async move {
                let record = record();
                deliver(sink.as_ref(), &batch(&record), &policy).await
            })
        };
        while sink.attempts() == 0 {
            tokio::task::yield_now().await;
        }
        tokio::task::yield_now().await;
        let stall = recorder.flush();
        let gauge = stall
            .iter()
            .find(|d| d.name == names::SINK_STALLED_MILLISECONDS)
            .expect("stall gauge");
        assert_eq!(
            gauge.dimensions,
            [("Sink".to_string(), "flaky".to_string())]
        );
        assert!(gauge.value >= 1.0, "{gauge:?}");

        stop.send_replace(true);
        // Bounds a hang only; an interrupted wait returns at once.
        let result = tokio::time::timeout(Duration::from_secs(60), task)
            .await
            .expect("stopped while waiting an hour to retry")
            .expect("task");
        assert!(
            matches!(result, Err(SinkError::Interrupted { .. })),
            "{result:?}"
        );
        assert_eq!(sink.attempts(), 1);
        let after = recorder.flush();
        let gauge = after
            .iter()
            .find(|d| d.name == names::SINK_STALLED_MILLISECONDS)
            .expect("stall gauge");
        assert_eq!(gauge.value, 0.0, "not stalled any more");
    }

    /// A sink whose one write waits for `release`, then succeeds.
    struct Held {
        release: tokio::sync::Notify,
        started: AtomicUsize,
    }

    impl Sink for Held {
        fn name(&self) -> &str {
            "held"
        }
        fn write<'a>(&'a self, _batch: &'a SinkBatch<'a>) -> BoxFuture<'a, Result<(), SinkError>> {
            self.started.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                self.release.notified().await;
                Ok(())
            })
        }
    }

    #[tokio::test]
    async fn stop_lets_a_write_that_has_not_failed_finish() {
        let sink = std::sync::Arc::new(Held {
            release: tokio::sync::Notify::new(),
            started: AtomicUsize::new(0),
        });
        let (policy, stop) = sidecar(fast(5));
        let task = {
            let sink = std::sync::Arc::clone(&sink);
            tokio::spawn(async move {
                let record = record();
                deliver(sink.as_ref(), &batch(&record), &policy).await
            })
        };
        while sink.started.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        stop.send_replace(true);
        tokio::task::yield_now().await;
        sink.release.notify_one();
        let result = task.await.expect("task");
        assert!(result.is_ok(), "{result:?}");
    }
}
