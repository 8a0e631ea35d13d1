//! The Lambda handler: one DynamoDB stream batch in, `batchItemFailures` out.

use std::collections::BTreeMap;

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::config::Config;
use crate::delivery::{RetryConfig, deliver};
use crate::error::PipelineError;
use crate::metrics::{TIME_TO_LIVE_DELETED_ITEM_COUNT, names};
use crate::pipeline::build_routing;
use crate::record::Record;
use crate::router::Router;
use crate::sinks::{Sink, SinkBatch};
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
    router: Router,
    sinks: Vec<Box<dyn Sink>>,
    retry: RetryConfig,
}

impl LambdaHandler {
    /// Builds the routes and sinks of `config` (its source and checkpoint are
    /// not used: the event source mapping reads the stream and keeps the
    /// position).
    ///
    /// # Errors
    /// [`PipelineError::Config`] for an unreadable or invalid filter file.
    pub fn new(config: &Config) -> Result<Self, PipelineError> {
        let (router, sinks) = build_routing(config)?;
        Ok(Self {
            router,
            sinks,
            retry: config.retry.clone(),
        })
    }

    /// Handles one event. Records are converted, routed and delivered (each sink
    /// with the shared retry loop); the response names the first record that
    /// failed, so Lambda retries from there and nothing after a failure is
    /// checkpointed (AWS Lambda Developer Guide, "Configuring partial batch
    /// response with DynamoDB and Lambda").
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
        let mut records: Vec<Record> = Vec::with_capacity(total);
        let mut first_failed: Option<(usize, String)> = None;
        for (index, event_record) in event.records.into_iter().enumerate() {
            match from_event_record(event_record, None) {
                Ok(record) => records.push(record),
                Err(e) => {
                    tracing::error!(index, error = %e, "record is not usable; it and the records after it are retried");
                    first_failed = Some((index, e.to_string()));
                    break;
                }
            }
        }
        ::metrics::counter!(names::RECORDS_READ).increment(total as u64);

        let mut per_sink: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
        for (index, record) in records.iter().enumerate() {
            if record.is_ttl_deletion {
                report.ttl_deletions += 1;
                ::metrics::counter!(TIME_TO_LIVE_DELETED_ITEM_COUNT, names::TABLE_NAME => record.table_name.clone())
                    .increment(1);
            }
            let routes = match self.router.route(record) {
                Ok(routes) => routes,
                Err(e) => {
                    tracing::error!(sequence_number = %record.sequence_number, error = %e, "record cannot be matched");
                    first_failed = earliest(first_failed, index, e.to_string());
                    break;
                }
            };
            if !routes.is_empty() {
                report.matched += 1;
                ::metrics::counter!(names::RECORDS_MATCHED).increment(1);
            }
            let sinks = self.router.sinks_for(&routes);
            for sink in sinks {
                per_sink
                    .entry((sink, record.table_name.as_str()))
                    .or_default()
                    .push(index);
            }
        }
        // Only records before the first unusable one are delivered.
        let limit = first_failed.as_ref().map_or(records.len(), |(i, _)| *i);
        if let (Some(first), Some(last)) = (records.first(), records.get(limit.saturating_sub(1))) {
            for ((sink, table), indexes) in &per_sink {
                let batch_records: Vec<&Record> = indexes
                    .iter()
                    .filter(|i| **i < limit)
                    .map(|i| &records[*i])
                    .collect();
                if batch_records.is_empty() {
                    continue;
                }
                let count = batch_records.len() as u64;
                let batch = SinkBatch {
                    table_name: table,
                    first_sequence_number: &first.sequence_number,
                    last_sequence_number: &last.sequence_number,
                    records: batch_records,
                };
                match deliver(self.sinks[*sink].as_ref(), &batch, &self.retry).await {
                    Ok(()) => {
                        ::metrics::counter!(names::RECORDS_DELIVERED).increment(count);
                    }
                    Err(e) => {
                        ::metrics::counter!(names::RECORDS_FAILED).increment(count);
                        tracing::error!(sink = self.sinks[*sink].name(), table = *table, error = %e, "delivery failed after retries");
                        let index = indexes[0];
                        first_failed = earliest(first_failed, index, e.to_string());
                    }
                }
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

fn earliest(
    current: Option<(usize, String)>,
    index: usize,
    message: String,
) -> Option<(usize, String)> {
    match current {
        Some((i, m)) if i <= index => Some((i, m)),
        _ => Some((index, message)),
    }
}
