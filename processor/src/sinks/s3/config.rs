//! What the user writes for an S3 sink.

use serde::Deserialize;

use crate::error::SettingError;
use crate::sinks::batch::BatchLimits;
use crate::sinks::encoding::Compression;
use crate::sinks::template::KeyTemplate;

/// `[sinks.<name>.s3]`.
///
/// ```toml
/// [sinks.archive.s3]
/// bucket = "my-ttl-archive"
/// key_template = "ttl/{table}/{date}/{hour}/{first_sequence}-{last_sequence}.ndjson.gz"
/// compression = "gzip"
/// server_side_encryption = "aws:kms"
/// ssekms_key_id = "arn:aws:kms:us-east-1:111122223333:key/..."
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct S3SinkConfig {
    /// Bucket name only: no `s3://`, no `/`.
    pub bucket: String,
    /// Object name template (see [`crate::sinks::template`]). Default for
    /// `objects = "batch"`: `{table}/{date}/{hour}/{first_sequence}-{last_sequence}.ndjson`
    /// plus `.gz`/`.zst`; for `objects = "record"`: `archives/{time}/{keys}.json`
    /// (the seed's Lambda example, `archives/<ISO time>/<key>.json`).
    #[serde(default)]
    pub key_template: Option<KeyTemplate>,
    /// `batch` (default): one NDJSON object per batch. `record`: one JSON object
    /// per record.
    #[serde(default)]
    pub objects: ObjectsPer,
    /// `none` (default), `gzip` or `zstd`; sets `Content-Encoding`.
    #[serde(default)]
    pub compression: Compression,
    /// Region. Default: the SDK's chain (`AWS_REGION`, profile), else `us-east-1`.
    #[serde(default)]
    pub region: Option<String>,
    /// Endpoint URL for an S3-compatible server, e.g. `http://127.0.0.1:9000`.
    /// Default: `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, else AWS. Over
    /// HTTPS and to loopback, object bodies are sent as `UNSIGNED-PAYLOAD`
    /// (no SigV4 hash of the body; the CRC32 checksum still goes); over
    /// plain HTTP to another host they are signed.
    #[serde(default)]
    pub endpoint_url: Option<String>,
    /// Address buckets as `<endpoint>/<bucket>/<key>` instead of
    /// `<bucket>.<endpoint>/<key>`: needed by most local servers. Default false.
    #[serde(default)]
    pub force_path_style: bool,
    /// `AES256` (SSE-S3) or `aws:kms` (SSE-KMS). Default: none sent (the
    /// bucket's default encryption applies).
    #[serde(default)]
    pub server_side_encryption: Option<ServerSideEncryption>,
    /// KMS key id or ARN for `aws:kms`. Default: the account's `aws/s3` key.
    #[serde(default)]
    pub ssekms_key_id: Option<String>,
    /// Objects of at least this many bytes (after compression) are sent with
    /// multipart upload. Default 16 MiB (16,777,216). At least `part_size_bytes`.
    #[serde(default = "default_multipart_threshold_bytes")]
    pub multipart_threshold_bytes: usize,
    /// Part size of a multipart upload, bytes. Default 8 MiB (8,388,608); S3's
    /// minimum is 5 MiB (5,242,880) for every part but the last.
    #[serde(default = "default_part_size_bytes")]
    pub part_size_bytes: usize,
    /// PUT requests in flight at once in `objects = "record"` mode. Default 16.
    #[serde(default = "default_max_concurrent_requests")]
    pub max_concurrent_requests: usize,
    /// The SDK's retry of each request (standard mode).
    #[serde(default)]
    pub retry: SdkRetryConfig,
    /// When a batch is written.
    #[serde(default)]
    pub batch: BatchLimits,
}

/// Objects per batch or per record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectsPer {
    /// One NDJSON object per batch (per group of the key template).
    #[default]
    Batch,
    /// One JSON object per record.
    Record,
}

/// `x-amz-server-side-encryption`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ServerSideEncryption {
    /// SSE-S3.
    #[serde(rename = "AES256")]
    Aes256,
    /// SSE-KMS.
    #[serde(rename = "aws:kms")]
    AwsKms,
}

/// `[sinks.<name>.s3.retry]`: the AWS SDK's standard retry mode, the attempts
/// of one try of a batch. A long-lived sidecar tries a batch again after the
/// SDK gave up, until `[retry] max_elapsed_secs` ([`RetryConfig`](crate::config::RetryConfig)); the
/// Lambda does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SdkRetryConfig {
    /// Attempts per request, the first included. Default 3 (the SDK's default).
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// Base of the exponential backoff, milliseconds. Default 1,000.
    #[serde(default = "default_initial_backoff_millis")]
    pub initial_backoff_millis: u64,
    /// Longest backoff, milliseconds. Default 20,000 (the SDK's default).
    #[serde(default = "default_max_backoff_millis")]
    pub max_backoff_millis: u64,
}

impl Default for SdkRetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: default_max_attempts(),
            initial_backoff_millis: default_initial_backoff_millis(),
            max_backoff_millis: default_max_backoff_millis(),
        }
    }
}

impl S3SinkConfig {
    /// A config with every default for `bucket` (tests, benchmarks).
    pub fn new(bucket: &str) -> Self {
        Self {
            bucket: bucket.to_string(),
            key_template: None,
            objects: ObjectsPer::default(),
            compression: Compression::default(),
            region: None,
            endpoint_url: None,
            force_path_style: false,
            server_side_encryption: None,
            ssekms_key_id: None,
            multipart_threshold_bytes: default_multipart_threshold_bytes(),
            part_size_bytes: default_part_size_bytes(),
            max_concurrent_requests: default_max_concurrent_requests(),
            retry: SdkRetryConfig::default(),
            batch: BatchLimits::default(),
        }
    }

    /// The template in use: the configured one or the mode's default.
    pub fn template(&self) -> KeyTemplate {
        if let Some(template) = &self.key_template {
            return template.clone();
        }
        let text = match self.objects {
            ObjectsPer::Batch => format!(
                "{{table}}/{{date}}/{{hour}}/{{first_sequence}}-{{last_sequence}}.ndjson{}",
                self.compression.extension()
            ),
            ObjectsPer::Record => format!(
                "archives/{{time}}/{{keys}}.json{}",
                self.compression.extension()
            ),
        };
        KeyTemplate::parse(&text).unwrap_or_else(|_| unreachable!("default templates parse"))
    }

    /// Checks the values that parse but cannot work.
    ///
    /// # Errors
    /// [`SettingError::Invalid`] naming the key (`s3.bucket`,
    /// `s3.key_template`, `s3.part_size_bytes`, ...).
    pub fn check(&self) -> Result<(), SettingError> {
        if self.bucket.is_empty() || self.bucket.contains('/') || self.bucket.starts_with("s3:") {
            return Err(SettingError::invalid(
                "s3.bucket",
                format!(
                    "`{}` is not a bucket name (no `s3://`, no `/`)",
                    self.bucket
                ),
            ));
        }
        let template = self.template();
        match self.objects {
            ObjectsPer::Batch if !template.names_batches() => {
                return Err(SettingError::invalid(
                    "s3.key_template",
                    format!(
                        "`{}` needs {{first_sequence}} or {{last_sequence}} with objects = \"batch\", or batches overwrite each other",
                        template.as_str()
                    ),
                ));
            }
            ObjectsPer::Record if !template.names_records() => {
                return Err(SettingError::invalid(
                    "s3.key_template",
                    format!(
                        "`{}` needs {{sequence}} or a {{keys}} placeholder with objects = \"record\", or records overwrite each other",
                        template.as_str()
                    ),
                ));
            }
            _ => {}
        }
        if self.ssekms_key_id.is_some()
            && self.server_side_encryption != Some(ServerSideEncryption::AwsKms)
        {
            return Err(SettingError::invalid(
                "s3.ssekms_key_id",
                "needs server_side_encryption = \"aws:kms\"",
            ));
        }
        if self.part_size_bytes < 5 * 1024 * 1024 {
            return Err(SettingError::invalid(
                "s3.part_size_bytes",
                "S3's minimum part size is 5 MiB (5242880)",
            ));
        }
        if self.multipart_threshold_bytes < self.part_size_bytes {
            return Err(SettingError::invalid(
                "s3.multipart_threshold_bytes",
                "must be at least part_size_bytes",
            ));
        }
        if self.max_concurrent_requests == 0 {
            return Err(SettingError::invalid(
                "s3.max_concurrent_requests",
                "must be at least 1",
            ));
        }
        if self.retry.max_attempts == 0 {
            return Err(SettingError::invalid(
                "s3.retry.max_attempts",
                "must be at least 1",
            ));
        }
        self.batch.check().map_err(|e| e.within("s3"))
    }
}

fn default_multipart_threshold_bytes() -> usize {
    16 * 1024 * 1024
}

fn default_part_size_bytes() -> usize {
    8 * 1024 * 1024
}

fn default_max_concurrent_requests() -> usize {
    16
}

fn default_max_attempts() -> u32 {
    3
}

fn default_initial_backoff_millis() -> u64 {
    1_000
}

fn default_max_backoff_millis() -> u64 {
    20_000
}
