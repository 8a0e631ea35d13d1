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
mod shards;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError;
use aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorError;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;

pub use config::DynamodbStreamsConfig;
pub use convert::from_api_record;
pub use shards::{ShardInfo, compare_sequence_numbers, readable};

use super::{BoxFuture, ReadFrom, Source, SourceBatch, StartingPosition};
use crate::checkpoint::{Checkpoint, PartitionProgress};
use crate::error::SourceError;
use crate::metrics::names;
use crate::record::Record;
use crate::sources::event_record::table_from_arn;

/// Empty GetRecords pages tolerated while replaying an in-flight batch.
const REPLAY_EMPTY_PAGES: usize = 10;

struct CachedIterator {
    iterator: String,
    /// The committed position the iterator continues from (`None`: no
    /// checkpoint yet for the shard).
    after: Option<String>,
}

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
        config.validate().map_err(|message| SourceError::Position {
            partition: "source.dynamodb_streams".into(),
            position: String::new(),
            message,
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

    fn aws_error<E>(
        &self,
        operation: &'static str,
        resource: &str,
        error: SdkError<E>,
    ) -> SourceError
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        SourceError::Aws {
            operation,
            resource: resource.to_string(),
            message: DisplayErrorContext(error).to_string(),
        }
    }

    /// DescribeStream, every page.
    async fn refresh_shards(&mut self) -> Result<(), SourceError> {
        let mut shards = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let page = self
                .client
                .describe_stream()
                .stream_arn(&self.stream_arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| self.aws_error("DescribeStream", &self.stream_arn, e))?;
            let Some(description) = page.stream_description else {
                break;
            };
            for shard in description.shards.unwrap_or_default() {
                let Some(shard_id) = shard.shard_id else {
                    continue;
                };
                let range = shard.sequence_number_range;
                shards.push(ShardInfo {
                    shard_id,
                    parent_shard_id: shard.parent_shard_id,
                    starting_sequence_number: range
                        .as_ref()
                        .and_then(|r| r.starting_sequence_number.clone()),
                    ending_sequence_number: range.and_then(|r| r.ending_sequence_number),
                });
            }
            match description.last_evaluated_shard_id {
                Some(last) if !last.is_empty() => start = Some(last),
                _ => break,
            }
        }
        tracing::debug!(stream = %self.stream_arn, shards = shards.len(), "DescribeStream");
        self.shards = shards;
        self.refreshed_at = Some(Instant::now());
        self.refresh_now = false;
        Ok(())
    }

    /// A closed shard's EndingSequenceNumber from a fresh DescribeStream
    /// (empty when the stream does not give one).
    async fn ending_sequence_number(&mut self, shard_id: &str) -> Result<String, SourceError> {
        self.refresh_shards().await?;
        Ok(self
            .shards
            .iter()
            .find(|s| s.shard_id == shard_id)
            .and_then(|s| s.ending_sequence_number.clone())
            .unwrap_or_default())
    }

    fn refresh_due(&self) -> bool {
        self.refresh_now
            || self.refreshed_at.is_none_or(|at| {
                at.elapsed() >= Duration::from_secs(self.config.shard_refresh_secs.max(1))
            })
    }

    /// Whether LATEST applies to a shard without a checkpoint: the processor
    /// starts at LATEST and the shard does not descend from a shard it read.
    fn starts_at_latest(&self, shard: &ShardInfo, checkpoint: &Checkpoint) -> bool {
        self.config.starting_position == StartingPosition::Latest
            && shard.parent_shard_id.as_ref().is_none_or(|parent| {
                checkpoint
                    .partitions
                    .get(parent)
                    .is_none_or(|c| c.position.is_empty())
            })
    }

    fn report_trimmed(&self, shard: &str, position: Option<&str>) {
        tracing::error!(
            stream = %self.stream_arn,
            shard,
            position = position.unwrap_or("TRIM_HORIZON"),
            "TrimmedDataAccessException: stream records were trimmed (24-hour retention) \
             before they were read; they are lost to this reader. Reading on from TRIM_HORIZON"
        );
        ::metrics::counter!(names::TRIMMED_DATA_ACCESS, names::TABLE_NAME => self.table.clone())
            .increment(1);
    }

    async fn shard_iterator(
        &self,
        shard_id: &str,
        kind: ShardIteratorType,
        sequence_number: Option<&str>,
    ) -> Result<String, SdkError<GetShardIteratorError>> {
        let out = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(shard_id)
            .shard_iterator_type(kind)
            .set_sequence_number(sequence_number.map(str::to_string))
            .send()
            .await?;
        Ok(out.shard_iterator.unwrap_or_default())
    }

    /// A new iterator after `committed`, or at the shard's start: for a
    /// child of a shard this reader has read, `AT_SEQUENCE_NUMBER` of its
    /// StartingSequenceNumber, so that records trimmed from its start are a
    /// `TrimmedDataAccessException` rather than skipped by `TRIM_HORIZON`.
    /// `None`: the stream no longer has the shard (ResourceNotFoundException).
    async fn new_iterator(
        &self,
        shard: &ShardInfo,
        committed: Option<&str>,
        latest: bool,
        checkpoint: &Checkpoint,
    ) -> Result<Option<String>, SourceError> {
        let parent_read = shard
            .parent_shard_id
            .as_ref()
            .is_some_and(|p| checkpoint.partitions.contains_key(p));
        let (kind, sequence) = match (committed, shard.starting_sequence_number.as_deref()) {
            (Some(seq), _) => (ShardIteratorType::AfterSequenceNumber, Some(seq)),
            (None, _) if latest => (ShardIteratorType::Latest, None),
            (None, Some(start)) if parent_read => {
                (ShardIteratorType::AtSequenceNumber, Some(start))
            }
            (None, _) => (ShardIteratorType::TrimHorizon, None),
        };
        match self.shard_iterator(&shard.shard_id, kind, sequence).await {
            Ok(iterator) => Ok(Some(iterator)),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(GetShardIteratorError::ResourceNotFoundException(_))
                ) =>
            {
                Ok(None)
            }
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(GetShardIteratorError::TrimmedDataAccessException(_))
                ) =>
            {
                self.report_trimmed(&shard.shard_id, sequence);
                self.shard_iterator(&shard.shard_id, ShardIteratorType::TrimHorizon, None)
                    .await
                    .map(Some)
                    .map_err(|e| self.aws_error("GetShardIterator", &shard.shard_id, e))
            }
            Err(e) => Err(self.aws_error("GetShardIterator", &shard.shard_id, e)),
        }
    }

    /// After a ResourceNotFoundException on `shard`: whether a fresh
    /// DescribeStream no longer lists it. A closed shard is removed once
    /// retention has trimmed all its records, so what this reader had not
    /// read of it is lost: reported as trimmed data.
    async fn shard_removed(
        &mut self,
        shard: &ShardInfo,
        committed: Option<&str>,
    ) -> Result<bool, SourceError> {
        self.refresh_shards().await?;
        let removed = !self.shards.iter().any(|s| s.shard_id == shard.shard_id);
        if removed {
            self.report_trimmed(&shard.shard_id, committed);
        }
        Ok(removed)
    }

    /// One GetRecords call on `shard` after `committed`: the records and the
    /// next iterator (`None`: the shard is closed and drained).
    ///
    /// A shard the stream no longer has (removed by retention) reads as
    /// drained, after it is reported as trimmed data.
    async fn get_records(
        &mut self,
        shard: &ShardInfo,
        committed: Option<&str>,
        latest: bool,
        limit: i32,
        checkpoint: &Checkpoint,
    ) -> Result<(Vec<Record>, Option<String>), SourceError> {
        for _attempt in 0..3 {
            let iterator = match self.iterators.remove(&shard.shard_id) {
                Some(cached) if cached.after.as_deref() == committed => cached.iterator,
                _ => {
                    match self
                        .new_iterator(shard, committed, latest, checkpoint)
                        .await?
                    {
                        Some(iterator) => iterator,
                        None if self.shard_removed(shard, committed).await? => {
                            return Ok((Vec::new(), None));
                        }
                        None => {
                            return Err(SourceError::Aws {
                            operation: "GetShardIterator",
                            resource: shard.shard_id.clone(),
                            message: "ResourceNotFoundException for a shard DescribeStream still lists".into(),
                        });
                        }
                    }
                }
            };
            match self
                .client
                .get_records()
                .shard_iterator(&iterator)
                .limit(limit)
                .send()
                .await
            {
                Ok(out) => {
                    let records = out
                        .records
                        .unwrap_or_default()
                        .into_iter()
                        .map(|r| self.convert(r, &shard.shard_id))
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok((records, out.next_shard_iterator.filter(|i| !i.is_empty())));
                }
                Err(e) => match e.as_service_error() {
                    Some(GetRecordsError::ExpiredIteratorException(_))
                        if committed.is_none() && latest =>
                    {
                        // No sequence number to renew from: a LATEST iterator is
                        // taken again, and records written since the expired
                        // one was issued (15 minutes without a read) are skipped.
                        tracing::warn!(shard = %shard.shard_id, "shard iterator expired before any record was read at LATEST; renewing it at LATEST, records written meanwhile are skipped");
                    }
                    Some(GetRecordsError::ExpiredIteratorException(_)) => {
                        tracing::info!(shard = %shard.shard_id, "shard iterator expired; renewing it from the checkpoint");
                    }
                    Some(GetRecordsError::TrimmedDataAccessException(_)) => {
                        self.report_trimmed(&shard.shard_id, committed);
                        let iterator = self
                            .shard_iterator(&shard.shard_id, ShardIteratorType::TrimHorizon, None)
                            .await
                            .map_err(|e| self.aws_error("GetShardIterator", &shard.shard_id, e))?;
                        self.iterators.insert(
                            shard.shard_id.clone(),
                            CachedIterator {
                                iterator,
                                after: committed.map(str::to_string),
                            },
                        );
                    }
                    Some(GetRecordsError::ResourceNotFoundException(_))
                        if self.shard_removed(shard, committed).await? =>
                    {
                        return Ok((Vec::new(), None));
                    }
                    _ => return Err(self.aws_error("GetRecords", &shard.shard_id, e)),
                },
            }
        }
        Err(SourceError::Aws {
            operation: "GetRecords",
            resource: shard.shard_id.clone(),
            message: "the iterator expired or the data was trimmed three times in a row".into(),
        })
    }

    fn convert(
        &self,
        record: aws_sdk_dynamodbstreams::types::Record,
        shard: &str,
    ) -> Result<Record, SourceError> {
        let sequence = record
            .dynamodb
            .as_ref()
            .and_then(|d| d.sequence_number.clone())
            .unwrap_or_default();
        from_api_record(record, &self.stream_arn, &self.table, &self.region).map_err(|e| {
            SourceError::Record {
                table: self.table.clone(),
                sequence_number: if sequence.is_empty() {
                    shard.to_string()
                } else {
                    sequence
                },
                message: e.to_string(),
            }
        })
    }

    /// Reads exactly the in-flight batch again: from `start` (inclusive) to `end`.
    async fn replay(
        &mut self,
        progress: &PartitionProgress,
        limit: i32,
    ) -> Result<SourceBatch, SourceError> {
        let shard = &progress.partition;
        let mut iterator = match self
            .shard_iterator(
                shard,
                ShardIteratorType::AtSequenceNumber,
                Some(&progress.start),
            )
            .await
        {
            Ok(iterator) => Some(iterator),
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(GetShardIteratorError::TrimmedDataAccessException(_))
                ) =>
            {
                self.report_trimmed(shard, Some(&progress.start));
                None
            }
            Err(e) => return Err(self.aws_error("GetShardIterator", shard, e)),
        };
        let mut records = Vec::new();
        let mut empty_pages = 0;
        while let Some(current) = iterator.take() {
            let out = self
                .client
                .get_records()
                .shard_iterator(&current)
                .limit(limit)
                .send()
                .await
                .map_err(|e| self.aws_error("GetRecords", shard, e))?;
            let page = out.records.unwrap_or_default();
            if page.is_empty() {
                empty_pages += 1;
                if empty_pages >= REPLAY_EMPTY_PAGES {
                    return Err(SourceError::Aws {
                        operation: "GetRecords",
                        resource: shard.clone(),
                        message: format!(
                            "the in-flight batch {}..{} could not be read again: the shard returned no records",
                            progress.start, progress.end
                        ),
                    });
                }
            }
            let mut reached_end = false;
            for api in page {
                let record = self.convert(api, shard)?;
                if compare_sequence_numbers(&record.sequence_number, &progress.end).is_gt() {
                    reached_end = true;
                    break;
                }
                reached_end = record.sequence_number == progress.end;
                records.push(record);
            }
            if !reached_end {
                iterator = out.next_shard_iterator.filter(|i| !i.is_empty());
            }
        }
        Ok(SourceBatch {
            records,
            progress: Some(progress.clone()),
        })
    }

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

/// DescribeTable's `LatestStreamArn`.
async fn latest_stream_arn(
    sdk: &aws_config::SdkConfig,
    table: &str,
) -> Result<String, SourceError> {
    let client = aws_sdk_dynamodb::Client::new(sdk);
    let out = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| SourceError::Aws {
            operation: "DescribeTable",
            resource: table.to_string(),
            message: DisplayErrorContext(e).to_string(),
        })?;
    out.table
        .and_then(|t| t.latest_stream_arn)
        .filter(|arn| !arn.is_empty())
        .ok_or_else(|| SourceError::Aws {
            operation: "DescribeTable",
            resource: table.to_string(),
            message: "the table has no stream (LatestStreamArn is absent): enable one with a StreamSpecification".into(),
        })
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
        _from: &'a ReadFrom,
        max_records: usize,
    ) -> BoxFuture<'a, Result<Vec<Record>, SourceError>> {
        // The pipeline uses `read_checkpointed`; a plain read starts with no checkpoint.
        Box::pin(async move {
            let checkpoint = Checkpoint::default();
            Ok(self.read_batch(&checkpoint, max_records).await?.records)
        })
    }

    fn latest(&mut self) -> BoxFuture<'_, Result<Option<String>, SourceError>> {
        // Positions are per shard; LATEST is applied per shard in `read_checkpointed`.
        Box::pin(async { Ok(None) })
    }

    fn read_checkpointed<'a>(
        &'a mut self,
        checkpoint: &'a Checkpoint,
        max_records: usize,
    ) -> Option<BoxFuture<'a, Result<SourceBatch, SourceError>>> {
        Some(Box::pin(self.read_batch(checkpoint, max_records)))
    }
}
