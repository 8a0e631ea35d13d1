//! Running a pipeline to its end: until shutdown or the end of the source,
//! then the open batch written and the open metric periods published.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use super::Pipeline;
use crate::error::PipelineError;
use crate::metrics::{Datapoint, PipelineStats, names};

impl Pipeline {
    /// Publishes the metric periods still open, the current one partial
    /// ([`crate::metrics::TtlDeletionCounter::close_open`]), to the metrics
    /// recorder: what [`Pipeline::run`] does when it returns, so the counts of
    /// its last period are not lost. The partial datapoints are not given to alarms
    /// (a part of a period is not the period's Sum). Returns them.
    pub fn publish_open_periods(&mut self) -> Vec<Datapoint> {
        let datapoints = self.counter.close_open(self.clock.now_millis());
        for point in &datapoints {
            publish(point, true);
        }
        datapoints
    }

    /// Runs until `shutdown` completes, or the source ends (a replay file).
    /// The open batch is then written and checkpointed first; nothing is cut
    /// off mid-write. When `shutdown` completes while a read waits for input
    /// it is abandoned, and while a sink write is stalled in its retries
    /// ([`RetryConfig`](crate::config::RetryConfig)) the retries end at once: that batch stays in
    /// flight in the checkpoint and is delivered on the next start. Last, the
    /// open metric periods are published ([`Pipeline::publish_open_periods`]).
    /// While records flow, a `progress` line is logged at `info` every
    /// `[logging] progress_interval_secs`: the counts so far, the rate, and
    /// the iterator age.
    ///
    /// # Errors
    /// The first error of a [`Pipeline::step`] (a stop during a sink's
    /// retries is not one).
    pub async fn run(
        &mut self,
        shutdown: impl Future<Output = ()>,
    ) -> Result<PipelineStats, PipelineError> {
        tokio::pin!(shutdown);
        let stop = Arc::clone(&self.stop);
        let mut stopping = false;
        let mut progress = Progress {
            at: Instant::now(),
            records_read: self.stats.records_read,
        };
        let result = loop {
            let stepped = {
                let step = self.step();
                tokio::pin!(step);
                loop {
                    tokio::select! {
                        result = &mut step => break result,
                        () = &mut shutdown, if !stopping => {
                            stopping = true;
                            stop.send_replace(true);
                        }
                    }
                }
            };
            let report = match stepped {
                Ok(report) => report,
                Err(error) => break Err(error),
            };
            self.log_progress(&mut progress, Instant::now());
            if report.records == 0 && self.source.exhausted() {
                break self.finish("source exhausted").await;
            }
            if !stopping {
                stopping = if report.records == 0 {
                    tokio::select! {
                        () = &mut shutdown => true,
                        () = tokio::time::sleep(self.poll_interval) => false,
                    }
                } else {
                    tokio::select! {
                        biased;
                        () = &mut shutdown => true,
                        () = std::future::ready(()) => false,
                    }
                };
                if stopping {
                    stop.send_replace(true);
                }
            }
            if stopping {
                break self.finish("shutting down").await;
            }
        };
        self.publish_open_periods();
        match result {
            Err(PipelineError::Sink(error)) if stopping && error.is_interrupted() => {
                tracing::warn!(
                    %error,
                    in_flight = ?self.checkpoint.in_flight,
                    stats = ?self.stats,
                    "shutting down while a sink was failing: the batch in flight is delivered on the next start"
                );
                Ok(self.stats)
            }
            other => other,
        }
    }

    /// Logs a progress line when the progress interval has passed since
    /// `last` and records were read since: the counts so far, the rate since
    /// `last`, and how far behind the stream the pipeline reads; `last`
    /// then becomes now.
    fn log_progress(&self, last: &mut Progress, now: Instant) {
        let read = self.stats.records_read.saturating_sub(last.records_read);
        let elapsed = now.saturating_duration_since(last.at);
        if read == 0 || elapsed < self.progress_interval {
            return;
        }
        let per_sec = read as f64 / elapsed.as_secs_f64().max(1e-3);
        tracing::info!(
            records_read = self.stats.records_read,
            records_per_sec = per_sec.round() as u64,
            records_matched = self.stats.records_matched,
            records_delivered = self.stats.records_delivered,
            ttl_deletions = self.stats.ttl_deletions,
            iterator_age_millis = self.iterator_age_millis,
            "progress"
        );
        *last = Progress {
            at: now,
            records_read: self.stats.records_read,
        };
    }

    /// Writes and commits the open batch, as the run ends.
    async fn finish(&mut self, why: &str) -> Result<PipelineStats, PipelineError> {
        // An interrupted replay stays in flight and is read again on start.
        if self.replay.is_none() {
            self.flush().await?;
        }
        tracing::info!(stats = ?self.stats, "{why}: last batch committed");
        Ok(self.stats)
    }
}

/// When [`Pipeline::run`] last logged its progress, and the records read by then.
#[derive(Debug)]
struct Progress {
    at: Instant,
    records_read: u64,
}

/// Adds a closed period's value to its `metrics` counter (the exporters
/// publish the increase) and logs it; `partial`: the period had not ended.
pub(super) fn publish(point: &Datapoint, partial: bool) {
    ::metrics::counter!(point.metric_name, names::TABLE_NAME => point.table_name.clone())
        .increment(point.value.max(0.0) as u64);
    tracing::info!(
        metric = point.metric_name,
        table = %point.table_name,
        period_start_secs = point.period_start_secs,
        period_secs = point.period_secs,
        value = point.value,
        partial,
        "datapoint"
    );
}
