//! `dynamodb_streams` source: a DynamoDB stream read with `aws-sdk-dynamodbstreams`
//! (AWS, or any endpoint that speaks the API: `endpoint_url` / `AWS_ENDPOINT_URL`).
//!
//! * The stream is a table's `LatestStreamArn` (DescribeTable) or a given ARN.
//! * Shards come from DescribeStream (paginated by `ExclusiveStartShardId`); a
//!   child shard is read only after its parent is finished ([`readable`]).
//! * Each shard's position is a partition of the pipeline's one checkpoint:
//!   the last acknowledged `SequenceNumber`, and `finished` once a closed shard
//!   is drained (GetRecords returned no `NextShardIterator`).
//! * An iterator that expired (`ExpiredIteratorException`, 15 minutes) is
//!   renewed from the checkpoint with `AFTER_SEQUENCE_NUMBER`. A shard started
//!   at `LATEST` has no sequence number until its first record: if its
//!   iterator expires before then (no read for 15 minutes), it is renewed at
//!   `LATEST` with a warning, and records written in between are skipped.
//! * `TrimmedDataAccessException` (records older than the 24-hour retention
//!   were trimmed before they were read) is logged as an error and counted in
//!   `TrimmedDataAccessExceptions`; reading goes on from `TRIM_HORIZON`. So
//!   that a trimmed start of a child shard is not skipped silently, a child of
//!   a shard this reader has read starts at `AT_SEQUENCE_NUMBER` of its
//!   StartingSequenceNumber, not `TRIM_HORIZON`. A shard the stream no
//!   longer has (ResourceNotFoundException, and DescribeStream no longer
//!   lists it: retention removed it) is reported the same way and finished.
//! * Throttling (`LimitExceededException`) and transient errors are retried
//!   by the SDK's standard retry mode (`max_attempts`).
//!
//! Source: Amazon DynamoDB Developer Guide, "Change data capture for DynamoDB
//! Streams" and "Reading and processing a stream"; DynamoDB Streams API
//! Reference (DescribeStream, GetShardIterator, GetRecords).

mod config;
mod convert;
mod describe;
mod iterators;
mod replay;
mod shards;

use std::collections::HashMap;
use std::time::Instant;

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::error::DisplayErrorContext;

pub use config::DynamodbStreamsConfig;
pub use convert::from_api_record;
pub use shards::{ShardInfo, compare_sequence_numbers, readable};

use super::{BoxFuture, ReadLimits, Source, SourceBatch};
use crate::checkpoint::{Checkpoint, PartitionProgress};
use crate::error::SourceError;
use crate::sources::event_record::table_from_arn;
use describe::latest_stream_arn;
use iterators::CachedIterator;

/// Reads one DynamoDB stream, shard by shard.
pub struct DynamodbStreamsSource {
    client: Client,
    config: DynamodbStreamsConfig,
    stream_arn: String,
    table: String,
    region: String,
    id: String,
    shards: Vec<ShardInfo>,
    refreshed_at: Option<Instant>,
    refresh_now: bool,
    iterators: HashMap<String, CachedIterator>,
    next_shard: usize,
}

impl DynamodbStreamsSource {
    /// Loads the AWS configuration (region, credentials, `endpoint_url` or
    /// `AWS_ENDPOINT_URL`, retries) and opens the stream.
    ///
    /// # Errors
    /// As [`DynamodbStreamsSource::with_sdk_config`].
    pub async fn open(config: &DynamodbStreamsConfig) -> Result<Self, SourceError> {
        let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest()).retry_config(
            aws_config::retry::RetryConfig::standard().with_max_attempts(config.max_attempts),
        );
        if let Some(region) = &config.region {
            loader = loader.region(aws_config::Region::new(region.clone()));
        }
        if let Some(url) = &config.endpoint_url {
            loader = loader.endpoint_url(url);
        }
        Self::with_sdk_config(config, &loader.load().await).await
    }

    /// Opens the stream with a given SDK configuration (tests: static
    /// credentials and a loopback endpoint). With `table`, DescribeTable gives
    /// the stream ARN.
    ///
    /// # Errors
    /// [`SourceError::Position`] for invalid settings, [`SourceError::Aws`] when
    /// DescribeTable fails or the table has no stream.
    pub async fn with_sdk_config(
        config: &DynamodbStreamsConfig,
        sdk: &aws_config::SdkConfig,
    ) -> Result<Self, SourceError> {
        config.validate().map_err(|e| SourceError::Position {
            partition: "source.dynamodb_streams".into(),
            position: String::new(),
            message: e.to_string(),
        })?;
        let stream_arn = match (&config.stream_arn, &config.table) {
            (Some(arn), _) => arn.clone(),
            (None, Some(table)) => latest_stream_arn(sdk, table).await?,
            (None, None) => String::new(), // refused by `validate`
        };
        let table = table_from_arn(&stream_arn).unwrap_or_default().to_string();
        let region = stream_arn.split(':').nth(3).unwrap_or_default().to_string();
        let retry =
            aws_config::retry::RetryConfig::standard().with_max_attempts(config.max_attempts);
        let streams_config = aws_sdk_dynamodbstreams::config::Builder::from(sdk)
            .retry_config(retry)
            .build();
        Ok(Self {
            client: Client::from_conf(streams_config),
            id: format!("dynamodb-streams-{table}"),
            config: config.clone(),
            stream_arn,
            table,
            region,
            shards: Vec::new(),
            refreshed_at: None,
            refresh_now: true,
            iterators: HashMap::new(),
            next_shard: 0,
        })
    }

    /// The stream ARN being read.
    pub fn stream_arn(&self) -> &str {
        &self.stream_arn
    }

    /// One batch from the next readable shard (round robin), or the
    /// in-flight batch again after a restart.
    async fn read_batch(
        &mut self,
        checkpoint: &Checkpoint,
        max_records: usize,
    ) -> Result<SourceBatch, SourceError> {
        let limit = i32::try_from(max_records.clamp(1, 1000)).unwrap_or(1000);
        if let Some(progress) = checkpoint
            .in_flight
            .as_ref()
            .and_then(|f| f.partition.as_ref())
        {
            return self.replay(progress, limit).await;
        }
        if self.refresh_due() {
            self.refresh_shards().await?;
        }
        let candidates: Vec<ShardInfo> = readable(&self.shards, &checkpoint.partitions)
            .into_iter()
            .cloned()
            .collect();
        for i in 0..candidates.len() {
            let shard = &candidates[(self.next_shard + i) % candidates.len()];
            let committed = checkpoint
                .partitions
                .get(&shard.shard_id)
                .map(|c| c.position.clone())
                .filter(|p| !p.is_empty());
            let latest = committed.is_none() && self.starts_at_latest(shard, checkpoint);
            if latest
                && shard.ending_sequence_number.is_some()
                && !checkpoint.partitions.contains_key(&shard.shard_id)
            {
                // LATEST: a shard closed before the first start holds only history.
                return Ok(SourceBatch {
                    records: Vec::new(),
                    progress: Some(PartitionProgress {
                        partition: shard.shard_id.clone(),
                        start: String::new(),
                        end: String::new(),
                        finished: true,
                    }),
                });
            }
            let (records, next) = self
                .get_records(shard, committed.as_deref(), latest, limit, checkpoint)
                .await?;
            let finished = next.is_none();
            if records.is_empty() && !finished {
                if let Some(iterator) = next {
                    self.iterators.insert(
                        shard.shard_id.clone(),
                        CachedIterator {
                            iterator,
                            after: committed,
                        },
                    );
                }
                continue;
            }
            self.next_shard = (self.next_shard + i + 1) % candidates.len();
            let start = records
                .first()
                .map(|r| r.sequence_number.clone())
                .or_else(|| committed.clone())
                .unwrap_or_default();
            let mut end = records
                .last()
                .map(|r| r.sequence_number.clone())
                .or(committed)
                .or_else(|| shard.ending_sequence_number.clone())
                .unwrap_or_default();
            if finished && end.is_empty() {
                // Read at LATEST and closed since the last DescribeStream: the
                // shard's end marks it as read, so that its children start at
                // TRIM_HORIZON instead of skipping records written after the start.
                end = self.ending_sequence_number(&shard.shard_id).await?;
            }
            match next {
                Some(iterator) => {
                    self.iterators.insert(
                        shard.shard_id.clone(),
                        CachedIterator {
                            iterator,
                            after: Some(end.clone()),
                        },
                    );
                }
                None => {
                    tracing::info!(shard = %shard.shard_id, "closed shard finished; looking for its children");
                    self.refresh_now = true;
                }
            }
            return Ok(SourceBatch {
                records,
                progress: Some(PartitionProgress {
                    partition: shard.shard_id.clone(),
                    start,
                    end,
                    finished,
                }),
            });
        }
        Ok(SourceBatch::default())
    }
}

impl Source for DynamodbStreamsSource {
    fn id(&self) -> &str {
        &self.id
    }

    fn tables(&self) -> Vec<String> {
        vec![self.table.clone()]
    }

    fn read<'a>(
        &'a mut self,
        checkpoint: &'a Checkpoint,
        limits: ReadLimits,
    ) -> BoxFuture<'a, Result<SourceBatch, SourceError>> {
        // GetRecords' Limit is a record count; its own 1 MB bounds the bytes.
        // LATEST is applied per shard (`starts_at_latest`).
        Box::pin(self.read_batch(checkpoint, limits.max_records))
    }
}

/// An AWS call's error, with the SDK's whole error context (service error
/// code and message, or the dispatch failure).
fn aws_error(
    operation: &'static str,
    resource: &str,
    error: impl std::error::Error,
) -> SourceError {
    SourceError::Aws {
        operation,
        resource: resource.to_string(),
        message: DisplayErrorContext(error).to_string(),
    }
}
