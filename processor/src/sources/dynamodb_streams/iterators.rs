//! Shard iterators: GetShardIterator at the right position, GetRecords with
//! expiry and trimming handled, and the iterators kept between reads.

use aws_sdk_dynamodbstreams::error::SdkError;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError;
use aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorError;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;

use super::{DynamodbStreamsSource, ShardInfo, aws_error, from_api_record};
use crate::checkpoint::Checkpoint;
use crate::error::SourceError;
use crate::metrics::names;
use crate::record::Record;
use crate::sources::StartingPosition;

pub(super) struct CachedIterator {
    pub(super) iterator: String,
    /// The committed position the iterator continues from (`None`: no
    /// checkpoint yet for the shard).
    pub(super) after: Option<String>,
}

impl DynamodbStreamsSource {
    /// Whether LATEST applies to a shard without a checkpoint: the processor
    /// starts at LATEST and the shard does not descend from a shard it read.
    pub(super) fn starts_at_latest(&self, shard: &ShardInfo, checkpoint: &Checkpoint) -> bool {
        self.config.starting_position == StartingPosition::Latest
            && shard.parent_shard_id.as_ref().is_none_or(|parent| {
                checkpoint
                    .partitions
                    .get(parent)
                    .is_none_or(|c| c.position.is_empty())
            })
    }

    pub(super) fn report_trimmed(&self, shard: &str, position: Option<&str>) {
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

    pub(super) async fn shard_iterator(
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
    pub(super) async fn new_iterator(
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
                    .map_err(|e| aws_error("GetShardIterator", &shard.shard_id, e))
            }
            Err(e) => Err(aws_error("GetShardIterator", &shard.shard_id, e)),
        }
    }

    /// The iterator that reads `shard` after `committed`: the one kept from
    /// the last read when it continues from there, else a new one. `None`:
    /// the stream no longer has the shard (reported as trimmed data).
    async fn iterator_for(
        &mut self,
        shard: &ShardInfo,
        committed: Option<&str>,
        latest: bool,
        checkpoint: &Checkpoint,
    ) -> Result<Option<String>, SourceError> {
        let kept = self.iterators.remove(&shard.shard_id);
        if let Some(kept) = kept.filter(|k| k.after.as_deref() == committed) {
            return Ok(Some(kept.iterator));
        }
        match self
            .new_iterator(shard, committed, latest, checkpoint)
            .await?
        {
            Some(iterator) => Ok(Some(iterator)),
            None if self.shard_removed(shard, committed).await? => Ok(None),
            None => Err(SourceError::Aws {
                operation: "GetShardIterator",
                resource: shard.shard_id.clone(),
                message: "ResourceNotFoundException for a shard DescribeStream still lists".into(),
            }),
        }
    }

    /// One GetRecords call on `shard` after `committed`: the records and the
    /// next iterator (`None`: the shard is closed and drained).
    ///
    /// A shard the stream no longer has (removed by retention) reads as
    /// drained, after it is reported as trimmed data.
    pub(super) async fn get_records(
        &mut self,
        shard: &ShardInfo,
        committed: Option<&str>,
        latest: bool,
        limit: i32,
        checkpoint: &Checkpoint,
    ) -> Result<(Vec<Record>, Option<String>), SourceError> {
        for _attempt in 0..3 {
            let Some(iterator) = self
                .iterator_for(shard, committed, latest, checkpoint)
                .await?
            else {
                return Ok((Vec::new(), None));
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
                            .map_err(|e| aws_error("GetShardIterator", &shard.shard_id, e))?;
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
                    _ => return Err(aws_error("GetRecords", &shard.shard_id, e)),
                },
            }
        }
        Err(SourceError::Aws {
            operation: "GetRecords",
            resource: shard.shard_id.clone(),
            message: "the iterator expired or the data was trimmed three times in a row".into(),
        })
    }

    pub(super) fn convert(
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
}
