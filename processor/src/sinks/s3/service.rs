//! One object to S3: `PutObject`, or `CreateMultipartUpload` / `UploadPart` /
//! `CompleteMultipartUpload` for a large one (aborted if a part fails). Every
//! request is retried by the SDK's standard retry mode as configured; a
//! sidecar's retry of the whole batch ([`RetryConfig`](crate::config::RetryConfig)) wraps those.
//!
//! AWS documents: Amazon S3 API Reference, "PutObject",
//! "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload",
//! "AbortMultipartUpload"; Amazon S3 User Guide, "Uploading and copying objects
//! using multipart upload" (parts of 5 MiB to 5 GiB, numbered 1 to 10,000).
//!
//! Bodies are sent with `x-amz-content-sha256: UNSIGNED-PAYLOAD` when the
//! endpoint is HTTPS (every AWS endpoint) or on this machine's loopback
//! ([`signs_payload`]): the SDK's SHA-256 of each body was the largest cost of
//! a batched PUT (`pipeline_bench`, S3 batched, see docs/benchmarks.md), and
//! there TLS, or not leaving the host, already keeps the body intact in
//! transit, while the CRC32 checksum the SDK sends by default
//! (`x-amz-checksum-crc32`) lets S3 reject a corrupted body. Over plain HTTP
//! to another host the payload stays signed, as AWS's own SDKs do
//! (AWS SDK for Java, "AWS4UnsignedPayloadSigner": payloads are signed over
//! HTTP). AWS documents the option: Amazon S3 API Reference, "Signature
//! Calculations for the Authorization Header: Transferring Payload in a
//! Single Chunk (AWS Signature Version 4)" (unsigned payload option).

use std::time::Duration;

use aws_config::BehaviorVersion;
use aws_config::meta::region::RegionProviderChain;
use aws_config::retry::RetryConfig;
use aws_sdk_s3::Client;
use aws_sdk_s3::error::DisplayErrorContext;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
use bytes::Bytes;
use tokio::sync::OnceCell;

use super::config::{S3SinkConfig, ServerSideEncryption};

/// A failed S3 request, after the SDK's retries.
#[derive(Debug)]
pub struct ServiceError {
    /// The S3 operation (`PutObject`, `UploadPart`, ...).
    pub operation: &'static str,
    /// The SDK's error with its causes.
    pub message: String,
}

/// Sends objects to one bucket.
#[derive(Debug)]
pub struct S3Service {
    config: S3SinkConfig,
    /// The client, and whether bodies sent through it are signed
    /// ([`signs_payload`] of its endpoint).
    client: OnceCell<(Client, bool)>,
}

impl S3Service {
    /// A service whose client is built from `config` (region, endpoint, path
    /// style, retry) and the SDK's credential chain on first use.
    pub fn new(config: S3SinkConfig) -> Self {
        Self {
            config,
            client: OnceCell::new(),
        }
    }

    /// A service using `client` as given (tests, benchmarks, callers that
    /// build their own SDK config). `config.endpoint_url` should name the
    /// client's endpoint: it decides whether bodies are signed
    /// ([`signs_payload`]; none: an AWS endpoint, HTTPS).
    pub fn with_client(config: S3SinkConfig, client: Client) -> Self {
        let signed = signs_payload(config.endpoint_url.as_deref());
        Self {
            config,
            client: OnceCell::new_with(Some((client, signed))),
        }
    }

    /// The client, built on first use, and whether bodies sent through it
    /// are signed.
    async fn signed_client(&self) -> &(Client, bool) {
        self.client.get_or_init(|| build_client(&self.config)).await
    }

    /// Writes `body` under `key`: one PutObject, or a multipart upload at or
    /// above `multipart_threshold_bytes`.
    ///
    /// # Errors
    /// The first request that failed after the SDK's retries.
    pub async fn put(&self, key: &str, body: Bytes) -> Result<(), ServiceError> {
        if body.len() >= self.config.multipart_threshold_bytes {
            return self.put_multipart(key, body).await;
        }
        let (client, signed) = self.signed_client().await;
        let mut request = client
            .put_object()
            .bucket(&self.config.bucket)
            .key(key)
            .content_type(content_type(key))
            .body(ByteStream::from(body));
        if let Some(encoding) = self.config.compression.content_encoding() {
            request = request.content_encoding(encoding);
        }
        if let Some(sse) = self.config.server_side_encryption {
            request = request.server_side_encryption(sdk_sse(sse));
        }
        if let Some(key_id) = &self.config.ssekms_key_id {
            request = request.ssekms_key_id(key_id);
        }
        let request = request.customize();
        let request = if *signed {
            request
        } else {
            request.disable_payload_signing()
        };
        request
            .send()
            .await
            .map(|_| ())
            .map_err(|e| failed("PutObject", &e))
    }

    async fn put_multipart(&self, key: &str, body: Bytes) -> Result<(), ServiceError> {
        let (client, signed) = self.signed_client().await;
        let bucket = &self.config.bucket;
        let mut create = client
            .create_multipart_upload()
            .bucket(bucket)
            .key(key)
            .content_type(content_type(key));
        if let Some(encoding) = self.config.compression.content_encoding() {
            create = create.content_encoding(encoding);
        }
        if let Some(sse) = self.config.server_side_encryption {
            create = create.server_side_encryption(sdk_sse(sse));
        }
        if let Some(key_id) = &self.config.ssekms_key_id {
            create = create.ssekms_key_id(key_id);
        }
        let created = create
            .send()
            .await
            .map_err(|e| failed("CreateMultipartUpload", &e))?;
        let upload_id = created.upload_id().unwrap_or_default().to_string();
        match self
            .upload_parts(client, *signed, key, &upload_id, body)
            .await
        {
            Ok(()) => Ok(()),
            Err(error) => {
                // Best effort: an upload left open costs storage until a lifecycle
                // rule removes it; the retry of the batch starts a new one.
                if let Err(abort) = client
                    .abort_multipart_upload()
                    .bucket(bucket)
                    .key(key)
                    .upload_id(&upload_id)
                    .send()
                    .await
                {
                    tracing::warn!(error = %DisplayErrorContext(&abort), "AbortMultipartUpload failed");
                }
                Err(error)
            }
        }
    }

    async fn upload_parts(
        &self,
        client: &Client,
        signed: bool,
        key: &str,
        upload_id: &str,
        body: Bytes,
    ) -> Result<(), ServiceError> {
        let bucket = &self.config.bucket;
        let part_size = self.config.part_size_bytes;
        let mut parts = Vec::new();
        let mut offset = 0;
        let mut number = 1_i32;
        while offset < body.len() {
            let end = (offset + part_size).min(body.len());
            let request = client
                .upload_part()
                .bucket(bucket)
                .key(key)
                .upload_id(upload_id)
                .part_number(number)
                .body(ByteStream::from(body.slice(offset..end)))
                .customize();
            let request = if signed {
                request
            } else {
                request.disable_payload_signing()
            };
            let response = request.send().await.map_err(|e| failed("UploadPart", &e))?;
            parts.push(
                CompletedPart::builder()
                    .part_number(number)
                    .set_e_tag(response.e_tag().map(str::to_string))
                    .build(),
            );
            offset = end;
            number += 1;
        }
        client
            .complete_multipart_upload()
            .bucket(bucket)
            .key(key)
            .upload_id(upload_id)
            .multipart_upload(
                CompletedMultipartUpload::builder()
                    .set_parts(Some(parts))
                    .build(),
            )
            .send()
            .await
            .map(|_| ())
            .map_err(|e| failed("CompleteMultipartUpload", &e))
    }
}

fn failed(operation: &'static str, error: &dyn std::error::Error) -> ServiceError {
    ServiceError {
        operation,
        message: DisplayErrorContext(error).to_string(),
    }
}

fn content_type(key: &str) -> &'static str {
    if key.contains(".ndjson") {
        "application/x-ndjson"
    } else {
        "application/json"
    }
}

fn sdk_sse(sse: ServerSideEncryption) -> aws_sdk_s3::types::ServerSideEncryption {
    match sse {
        ServerSideEncryption::Aes256 => aws_sdk_s3::types::ServerSideEncryption::Aes256,
        ServerSideEncryption::AwsKms => aws_sdk_s3::types::ServerSideEncryption::AwsKms,
    }
}

/// Whether PutObject and UploadPart bodies sent to `endpoint_url` carry a
/// SigV4 payload hash: only over plain HTTP to a host other than loopback.
/// `None` (the SDK resolves an AWS endpoint, always HTTPS), an `https://`
/// URL or a loopback host (`localhost`, `127.0.0.0/8`, `::1`) send
/// `UNSIGNED-PAYLOAD` (see the module doc). A URL that does not parse is
/// signed.
pub fn signs_payload(endpoint_url: Option<&str>) -> bool {
    let Some(endpoint_url) = endpoint_url else {
        return false;
    };
    let Ok(url) = reqwest::Url::parse(endpoint_url) else {
        return true;
    };
    // An IPv6 host comes in brackets.
    let host = url
        .host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !(url.scheme() == "https" || loopback)
}

async fn build_client(config: &S3SinkConfig) -> (Client, bool) {
    let region =
        RegionProviderChain::first_try(config.region.clone().map(aws_sdk_s3::config::Region::new))
            .or_default_provider()
            .or_else("us-east-1");
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).region(region);
    if let Some(endpoint) = &config.endpoint_url {
        loader = loader.endpoint_url(endpoint);
    }
    let shared = loader.load().await;
    // The endpoint the client resolves: the configured one, else
    // AWS_ENDPOINT_URL_S3, else the shared config's (AWS_ENDPOINT_URL, profile).
    let endpoint = config
        .endpoint_url
        .clone()
        .or_else(|| std::env::var("AWS_ENDPOINT_URL_S3").ok())
        .or_else(|| shared.endpoint_url().map(str::to_string));
    let retry = RetryConfig::standard()
        .with_max_attempts(config.retry.max_attempts)
        .with_initial_backoff(Duration::from_millis(config.retry.initial_backoff_millis))
        .with_max_backoff(Duration::from_millis(config.retry.max_backoff_millis));
    let s3 = aws_sdk_s3::config::Builder::from(&shared)
        .force_path_style(config.force_path_style)
        .retry_config(retry)
        .build();
    (Client::from_conf(s3), signs_payload(endpoint.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::signs_payload;

    /// Payloads go unsigned over TLS and on loopback, signed over plain HTTP
    /// to another host.
    #[test]
    fn payloads_are_signed_only_over_plain_http_off_the_host() {
        for unsigned in [
            None,
            Some("https://s3.us-east-1.amazonaws.com"),
            Some("https://minio.internal:9000"),
            Some("http://127.0.0.1:9000"),
            Some("http://127.3.4.5"),
            Some("http://localhost:4566"),
            Some("http://[::1]:9000"),
        ] {
            assert!(!signs_payload(unsigned), "{unsigned:?}");
        }
        for signed in [
            Some("http://minio.internal:9000"),
            Some("http://10.0.0.7:9000"),
            Some("not a url"),
        ] {
            assert!(signs_payload(signed), "{signed:?}");
        }
    }
}
