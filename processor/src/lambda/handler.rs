//! The Lambda handler: one DynamoDB stream batch in, `batchItemFailures` out.

use std::collections::HashSet;

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::batcher::Batcher;
use crate::config::Config;
use crate::error::PipelineError;
use crate::metrics::{TIME_TO_LIVE_DELETED_ITEM_COUNT, names};
use crate::routing::Routing;
use crate::sources::event_record::from_event_record;

/// A batch the handler cannot answer with `batchItemFailures`: Lambda retries
/// the whole batch.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The first record that failed has no `SequenceNumber` to report.
    #[error("record {index} of the batch failed and has no dynamodb.SequenceNumber: {message}")]
    NoSequenceNumber {
        /// Index of the record in `Records`.
        index: usize,
        /// Why it failed.
        message: String,
    },
}

impl From<HandlerError> for lambda_runtime::Diagnostic {
    fn from(error: HandlerError) -> Self {
        let error_type = match error {
            HandlerError::NoSequenceNumber { .. } => "RecordWithoutSequenceNumber",
        };
        lambda_runtime::Diagnostic {
            error_type: error_type.to_string(),
            error_message: error.to_string(),
        }
    }
}

/// What one invocation did, besides its response.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InvocationReport {
    /// Records in the event.
    pub records: usize,
    /// Records that matched a route.
    pub matched: usize,
    /// TTL deletions in the event.
    pub ttl_deletions: usize,
    /// Index of the first failed record, if any.
    pub first_failed: Option<usize>,
}

/// Routes a Lambda DynamoDB event's records to the configured sinks.
pub struct LambdaHandler {
    routing: Routing,
}

impl LambdaHandler {
    /// Builds the routes and sinks of `config` (its source and checkpoint are
    /// not used: the event source mapping reads the stream and keeps the
    /// position).
    ///
    /// # Errors
    /// [`PipelineError::Config`] for an unreadable or invalid filter file.
    pub fn new(config: &Config) -> Result<Self, PipelineError> {
        Ok(Self {
            routing: Routing::build(config)?,
        })
    }

    /// Replaces the sink (routed or dead-letter) named like `sink`, as
    /// [`crate::Pipeline::with_sink`] does.
    #[must_use]
    pub fn with_sink(mut self, sink: Box<dyn crate::sinks::Sink>) -> Self {
        self.routing.replace_sink(sink);
        self
    }

    /// Handles one event with the sidecar's step (`Routing`): records are
    /// converted, filtered and routed, each sink's batch is written with the
    /// shared retry, and what a sink still cannot take goes to the dead-letter
    /// sink with its error. Only a record that is durable nowhere (no
    /// dead-letter sink, or it failed too) fails the batch: the response names
    /// the first such record, so Lambda retries from there and nothing after
    /// it is checkpointed (AWS Lambda Developer Guide, "Configuring partial
    /// batch response with DynamoDB and Lambda").
    ///
    /// # Errors
    /// [`HandlerError::NoSequenceNumber`] when the first failed record cannot
    /// be named: Lambda then retries the whole batch.
    pub async fn handle(
        &self,
        event: Event,
    ) -> Result<(DynamoDbEventResponse, InvocationReport), HandlerError> {
        let total = event.records.len();
        let mut report = InvocationReport {
            records: total,
            ..InvocationReport::default()
        };
        // Sequence numbers as Lambda sent them, to name a failed record.
        let sequence_numbers: Vec<Option<String>> = event
            .records
            .iter()
            .map(|r| r.change.sequence_number.clone())
            .collect();
        ::metrics::counter!(names::RECORDS_READ).increment(total as u64);
        let mut first_failed: Option<(usize, String)> = None;
        let mut batcher = Batcher::new(self.routing.limits());
        for (index, event_record) in event.records.into_iter().enumerate() {
            let record = match from_event_record(event_record, None) {
                Ok(record) => record,
                Err(e) => {
                    tracing::error!(index, error = %e, "record is not usable; it and the records after it are retried");
                    first_failed = Some((index, e.to_string()));
                    break;
                }
            };
            if record.is_ttl_deletion {
                report.ttl_deletions += 1;
                ::metrics::counter!(TIME_TO_LIVE_DELETED_ITEM_COUNT, names::TABLE_NAME => record.table_name.clone())
                    .increment(1);
            }
            let sinks = match self.routing.match_record(&record) {
                Ok((matched, sinks)) => {
                    report.matched += usize::from(matched);
                    sinks
                }
                Err(e) => {
                    tracing::error!(index, sequence_number = %record.sequence_number, error = %e, "record cannot be matched; it and the records after it are retried");
                    first_failed = Some((index, e.to_string()));
                    break;
                }
            };
            // One invocation is one batch: the limits only close the
            // sidecar's batches, so "full" is ignored here.
            batcher.push(record, &sinks);
        }
        // Counted once per invocation, as the sidecar counts once per step.
        if report.matched > 0 {
            ::metrics::counter!(names::RECORDS_MATCHED).increment(report.matched as u64);
        }
        // Records before the first unusable one are delivered.
        if let Some(closed) = batcher.take()
            && !closed.is_empty()
            && let Err(undelivered) = self
                .routing
                .deliver(&closed, (&closed.first, &closed.last))
                .await
        {
            // The first record (in event order) whose SequenceNumber failed.
            let failed: HashSet<&str> = undelivered
                .records
                .iter()
                .map(|r| r.sequence_number.as_str())
                .collect();
            let index = sequence_numbers
                .iter()
                .position(|s| s.as_deref().is_some_and(|s| failed.contains(s)));
            if let Some(index) = index
                && first_failed.as_ref().is_none_or(|(i, _)| index < *i)
            {
                first_failed = Some((index, undelivered.error.to_string()));
            }
        }

        let mut response = DynamoDbEventResponse::default();
        if let Some((index, message)) = first_failed {
            report.first_failed = Some(index);
            let Some(sequence_number) = sequence_numbers
                .get(index)
                .cloned()
                .flatten()
                .filter(|s| !s.is_empty())
            else {
                return Err(HandlerError::NoSequenceNumber { index, message });
            };
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = Some(sequence_number);
            response.batch_item_failures.push(failure);
        }
        Ok((response, report))
    }
}
