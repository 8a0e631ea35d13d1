//! `[source.dynamodb_streams]`: what the user writes.

use crate::error::SettingError;
use serde::Deserialize;

use crate::sources::StartingPosition;

/// `[source.dynamodb_streams]`: read a DynamoDB stream with the DynamoDB
/// Streams API (AWS, or any endpoint that speaks it).
///
/// Give exactly one of `table` (the stream is the table's `LatestStreamArn`,
/// from DescribeTable) and `stream_arn`. Region and credentials come from the
/// usual AWS sources (`AWS_REGION`, profiles, the instance role); the endpoint
/// from `endpoint_url`, else `AWS_ENDPOINT_URL`, else AWS.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamodbStreamsConfig {
    /// Table name (not an ARN) whose latest stream is read.
    #[serde(default)]
    pub table: Option<String>,
    /// A stream ARN (`arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`).
    #[serde(default)]
    pub stream_arn: Option<String>,
    /// Where a shard without a checkpoint starts: `TRIM_HORIZON` (default: the
    /// oldest record, up to 24 hours old) or `LATEST` (applies to the shards
    /// open when the processor first starts; their children start at
    /// `TRIM_HORIZON`, so nothing after the start is skipped).
    #[serde(default)]
    pub starting_position: StartingPosition,
    /// AWS region, e.g. `eu-west-1`. Default: from the environment / profile.
    #[serde(default)]
    pub region: Option<String>,
    /// Endpoint URL, e.g. `http://127.0.0.1:8000` (no trailing `/`). Default:
    /// `AWS_ENDPOINT_URL`, else AWS's endpoint for the region.
    #[serde(default)]
    pub endpoint_url: Option<String>,
    /// Attempts per API call, the first included, in the SDK's standard retry
    /// mode (throttling such as `LimitExceededException` backs off and retries).
    /// Default 8.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// Seconds between DescribeStream calls that look for new shards while
    /// every known shard is open. A shard that closes triggers one at once.
    /// Default 60.
    #[serde(default = "default_shard_refresh_secs")]
    pub shard_refresh_secs: u64,
}

fn default_max_attempts() -> u32 {
    8
}

fn default_shard_refresh_secs() -> u64 {
    60
}

impl DynamodbStreamsConfig {
    /// Checks the settings that serde cannot.
    ///
    /// # Errors
    /// [`SettingError::Invalid`] naming the key: not exactly one of `table`
    /// / `stream_arn`, `max_attempts` 0, an `endpoint_url` that is not
    /// http(s).
    pub fn validate(&self) -> Result<(), SettingError> {
        match (&self.table, &self.stream_arn) {
            (Some(_), Some(_)) => {
                return Err(SettingError::invalid(
                    "source.dynamodb_streams",
                    "give `table` or `stream_arn`, not both",
                ));
            }
            (None, None) => {
                return Err(SettingError::invalid(
                    "source.dynamodb_streams",
                    "`table` or `stream_arn` is needed",
                ));
            }
            (None, Some(arn)) if crate::sources::event_record::table_from_arn(arn).is_none() => {
                return Err(SettingError::invalid(
                    "source.dynamodb_streams.stream_arn",
                    format!(
                        "{arn:?} is not a DynamoDB stream ARN \
                         (arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>)"
                    ),
                ));
            }
            _ => {}
        }
        if self.max_attempts == 0 {
            return Err(SettingError::invalid(
                "source.dynamodb_streams.max_attempts",
                "must be at least 1",
            ));
        }
        if let Some(url) = &self.endpoint_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(SettingError::invalid(
                "source.dynamodb_streams.endpoint_url",
                format!("{url:?} must start with http:// or https://"),
            ));
        }
        Ok(())
    }
}
