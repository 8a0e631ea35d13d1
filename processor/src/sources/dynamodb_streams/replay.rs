//! Replaying the in-flight batch after a restart: exactly the records between
//! its first and last `SequenceNumber`.

use aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorError;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;

use super::{DynamodbStreamsSource, SourceBatch, aws_error, compare_sequence_numbers};
use crate::checkpoint::PartitionProgress;
use crate::error::SourceError;

/// Empty GetRecords pages tolerated while replaying an in-flight batch.
const REPLAY_EMPTY_PAGES: usize = 10;

impl DynamodbStreamsSource {
    /// Reads exactly the in-flight batch again: from `start` (inclusive) to `end`.
    pub(super) async fn replay(
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
            Err(e) => return Err(aws_error("GetShardIterator", shard, e)),
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
                .map_err(|e| aws_error("GetRecords", shard, e))?;
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
}
