//! DescribeStream and DescribeTable: the shard list and the stream ARN.

use std::time::{Duration, Instant};

use super::{DynamodbStreamsSource, ShardInfo, aws_error};
use crate::error::SourceError;

impl DynamodbStreamsSource {
    /// DescribeStream, every page.
    pub(super) async fn refresh_shards(&mut self) -> Result<(), SourceError> {
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
                .map_err(|e| aws_error("DescribeStream", &self.stream_arn, e))?;
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

    /// `shard_id` as a fresh DescribeStream lists it (`None`: not listed).
    async fn describe_shard(&mut self, shard_id: &str) -> Result<Option<&ShardInfo>, SourceError> {
        self.refresh_shards().await?;
        Ok(self.shards.iter().find(|s| s.shard_id == shard_id))
    }

    /// A closed shard's EndingSequenceNumber from a fresh DescribeStream
    /// (empty when the stream does not give one).
    pub(super) async fn ending_sequence_number(
        &mut self,
        shard_id: &str,
    ) -> Result<String, SourceError> {
        Ok(self
            .describe_shard(shard_id)
            .await?
            .and_then(|s| s.ending_sequence_number.clone())
            .unwrap_or_default())
    }

    pub(super) fn refresh_due(&self) -> bool {
        self.refresh_now
            || self.refreshed_at.is_none_or(|at| {
                at.elapsed() >= Duration::from_secs(self.config.shard_refresh_secs.max(1))
            })
    }

    /// After a ResourceNotFoundException on `shard`: whether a fresh
    /// DescribeStream no longer lists it. A closed shard is removed once
    /// retention has trimmed all its records, so what this reader had not
    /// read of it is lost: reported as trimmed data.
    pub(super) async fn shard_removed(
        &mut self,
        shard: &ShardInfo,
        committed: Option<&str>,
    ) -> Result<bool, SourceError> {
        let removed = self.describe_shard(&shard.shard_id).await?.is_none();
        if removed {
            self.report_trimmed(&shard.shard_id, committed);
        }
        Ok(removed)
    }
}

/// DescribeTable's `LatestStreamArn`.
pub(super) async fn latest_stream_arn(
    sdk: &aws_config::SdkConfig,
    table: &str,
) -> Result<String, SourceError> {
    let client = aws_sdk_dynamodb::Client::new(sdk);
    let out = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| aws_error("DescribeTable", table, e))?;
    out.table
        .and_then(|t| t.latest_stream_arn)
        .filter(|arn| !arn.is_empty())
        .ok_or_else(|| SourceError::Aws {
            operation: "DescribeTable",
            resource: table.to_string(),
            message: "the table has no stream (LatestStreamArn is absent): enable one with a StreamSpecification".into(),
        })
}
