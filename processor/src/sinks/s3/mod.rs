//! `s3` sink: NDJSON objects in a bucket, one per batch (default) or one per
//! record, named by a key template from the records' own fields so a retried
//! batch overwrites its objects. Optional gzip/zstd, server-side encryption,
//! multipart upload for large objects; the SDK's standard retry mode.

mod config;
mod request;
mod service;
mod sink;

pub use config::{ObjectsPer, S3SinkConfig, SdkRetryConfig, ServerSideEncryption};
pub use sink::S3Sink;
