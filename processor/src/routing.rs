//! The step the sidecar's pipeline and the Lambda function share: filter and
//! route each record to its sinks, write each sink's batch with the shared
//! retry ([`crate::delivery::deliver`]: backon around the SDK's own retry
//! for AWS calls), and send what still fails to the dead-letter sink.
//!
//! The pipeline groups records with its [`Batcher`](crate::batcher::Batcher)
//! across source reads; the Lambda function groups one invocation's records
//! with the same batcher. Both hand the closed batch to
//! [`Routing::deliver`]: a record counts as delivered only when every sink it
//! was routed to acknowledged it, or its dead letter (with the sink's error)
//! was written.

use crate::batcher::ClosedBatch;
use crate::config::Config;
use crate::delivery::{Failure, RetryPolicy, dead_letter, deliver};
use crate::error::{PipelineError, SinkError};
use crate::metrics::names;
use crate::record::Record;
use crate::router::{Route, Router, load_filter_file};
use crate::sinks::{BatchLimits, Sink};

/// The routes, the sinks they write to, the dead-letter sink and the retry
/// policy of one config.
pub struct Routing {
    router: Router,
    sinks: Vec<Box<dyn Sink>>,
    limits: Vec<BatchLimits>,
    dead_letter: Option<Box<dyn Sink>>,
    retry: RetryPolicy,
    log_keys: bool,
}

/// What [`Routing::deliver`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Record deliveries sinks acknowledged (a record for two sinks counts twice).
    pub records: u64,
    /// Dead letters written (one per record and failed sink).
    pub dead_lettered: u64,
}

/// A closed batch some of whose records are durable nowhere: a sink failed
/// after its retries and there is no dead-letter sink, or it failed too.
#[derive(Debug)]
pub struct Undelivered<'a> {
    /// The last error: the dead-letter sink's when it failed, else the first
    /// failed sink's.
    pub error: SinkError,
    /// The records that are not durable, in sink order (a record may appear
    /// once per failed sink).
    pub records: Vec<&'a Record>,
    /// What was written before giving up.
    pub delivered: Delivered,
}

/// The names of the sinks routes can use, in sink-index order: every sink of
/// `config.sinks` by name except the dead-letter sink.
fn routed_sink_names(config: &Config) -> Vec<&String> {
    let dead_letter = config.dead_letter.as_ref().map(|d| &d.sink);
    config
        .sinks
        .keys()
        .filter(|name| Some(*name) != dead_letter)
        .collect()
}

impl Routing {
    /// Loads the routes' filter files and builds the sinks of `config`. Sink
    /// `i` is the `i`-th of `config.sinks` by name, the dead-letter sink left
    /// out.
    ///
    /// # Errors
    /// [`PipelineError::Config`] for an unreadable or invalid filter file.
    pub fn build(config: &Config) -> Result<Self, PipelineError> {
        let names = routed_sink_names(config);
        let log_keys = config.logging.log_keys;
        let sinks = names
            .iter()
            .map(|name| config.sinks[*name].build(name, log_keys))
            .collect();
        let limits = names
            .iter()
            .map(|name| config.sinks[*name].batch())
            .collect();
        let mut routes = Vec::new();
        let mut filters = Vec::new();
        for route in &config.routes {
            routes.push(Route {
                sinks: route
                    .sinks
                    .iter()
                    .filter_map(|s| names.iter().position(|n| *n == s))
                    .collect(),
            });
            filters.push(route.filter.as_deref().map(load_filter_file).transpose()?);
        }
        let dead_letter = config.dead_letter.as_ref().and_then(|d| {
            config
                .sinks
                .get(&d.sink)
                .map(|sink| sink.build(&d.sink, log_keys))
        });
        Ok(Self {
            router: Router::new(routes, filters),
            sinks,
            limits,
            dead_letter,
            retry: RetryPolicy::bounded(config.retry.clone()),
            log_keys,
        })
    }

    /// Retries sink writes as a long-lived sidecar does
    /// ([`RetryPolicy::until_elapsed`]) instead of the Lambda's bounded
    /// retries (the default); `stop` turning `true` ends a stalled retry.
    pub fn retry_until_elapsed(&mut self, stop: tokio::sync::watch::Receiver<bool>) {
        self.retry = RetryPolicy::until_elapsed(self.retry.config().clone(), stop);
    }

    /// Each routed sink's batch limits, by sink index (for a
    /// [`Batcher`](crate::batcher::Batcher)).
    pub fn limits(&self) -> Vec<BatchLimits> {
        self.limits.clone()
    }

    /// The `eventName`s a record needs for any route to match it
    /// ([`Router::event_names`]); `None`: any.
    pub fn event_names(&self) -> Option<&std::collections::BTreeSet<String>> {
        self.router.event_names()
    }

    /// Replaces the sink (routed or dead-letter) named like `sink`: a caller's
    /// own S3 client, a test double. Returns `false` when no sink has its name.
    pub fn replace_sink(&mut self, sink: Box<dyn Sink>) -> bool {
        if let Some(dead_letter) = &self.dead_letter
            && dead_letter.name() == sink.name()
        {
            self.dead_letter = Some(sink);
            return true;
        }
        match self.sinks.iter_mut().find(|s| s.name() == sink.name()) {
            Some(slot) => {
                *slot = sink;
                true
            }
            None => false,
        }
    }

    /// Whether some route's filter matches `record`, and the sinks
    /// (indices, ascending, each once) of every route that does; none when
    /// no route matches. The caller counts `RecordsMatched`, once per step
    /// (sidecar) or invocation (Lambda).
    ///
    /// # Errors
    /// The filter engine's error when the record is not valid JSON.
    pub(crate) fn match_record(
        &self,
        record: &Record,
    ) -> Result<(bool, Vec<usize>), ttlstream_filters::EventError> {
        let routes = self.router.route(record)?;
        Ok((!routes.is_empty(), self.router.sinks_for(&routes)))
    }

    /// Writes `closed` to its sinks, one batch per sink and table named by
    /// `first..=last`, each with the shared retry; then the records of the
    /// sinks that still failed to the dead-letter sink, each wrapped with its
    /// sink's error ([`crate::sinks::dead_letter`]). Every sink is tried even
    /// after one failed, so the caller learns every undelivered record.
    ///
    /// # Errors
    /// [`Undelivered`] when a sink failed and there is no dead-letter sink, or
    /// the dead-letter write failed too; or, holding
    /// [`SinkError::Interrupted`], when a stop request ended a sink's retries
    /// (nothing is dead-lettered then: the batch is delivered on the next
    /// start).
    pub async fn deliver<'a>(
        &self,
        closed: &'a ClosedBatch,
        (first, last): (&'a str, &'a str),
    ) -> Result<Delivered, Undelivered<'a>> {
        let mut delivered = Delivered::default();
        let mut failures = Vec::new();
        for (sink, batch) in closed.sink_batches(first, last) {
            let count = batch.records.len() as u64;
            match deliver(self.sinks[sink].as_ref(), &batch, &self.retry).await {
                Ok(()) => {
                    delivered.records += count;
                    ::metrics::counter!(names::RECORDS_DELIVERED).increment(count);
                }
                Err(error) if error.is_interrupted() => {
                    failures.push(Failure {
                        sink: self.sinks[sink].name().to_string(),
                        error,
                        records: batch.records,
                    });
                }
                Err(error) => {
                    ::metrics::counter!(names::RECORDS_FAILED).increment(count);
                    tracing::error!(
                        sink = self.sinks[sink].name(),
                        table = batch.table_name,
                        records = count,
                        first_sequence = first,
                        last_sequence = last,
                        %error,
                        "sink failed after retries"
                    );
                    failures.push(Failure {
                        sink: self.sinks[sink].name().to_string(),
                        error,
                        records: batch.records,
                    });
                }
            }
        }
        if failures.is_empty() {
            return Ok(delivered);
        }
        let records: Vec<&'a Record> = failures
            .iter()
            .flat_map(|f| f.records.iter().copied())
            .collect();
        // Stopping: the batch stays in flight for the next start; it is not
        // a dead letter.
        let interrupted = failures.iter().position(|f| f.error.is_interrupted());
        let Some(sink) = self.dead_letter.as_ref().filter(|_| interrupted.is_none()) else {
            let Failure { error, .. } = failures.swap_remove(interrupted.unwrap_or(0));
            return Err(Undelivered {
                error,
                records,
                delivered,
            });
        };
        match dead_letter(
            sink.as_ref(),
            &failures,
            (first, last),
            &self.retry,
            self.log_keys,
        )
        .await
        {
            Ok(count) => {
                ::metrics::counter!(names::RECORDS_DEAD_LETTERED).increment(count);
                delivered.dead_lettered = count;
                Ok(delivered)
            }
            Err(error) => {
                tracing::error!(dead_letter = sink.name(), %error, "dead-letter sink failed after retries");
                Err(Undelivered {
                    error,
                    records,
                    delivered,
                })
            }
        }
    }
}
