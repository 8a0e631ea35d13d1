//! The S3 sink: a batch becomes objects (one per key-template group, or one per
//! record), written with the SDK. A retried batch renders the same names, so it
//! overwrites its objects instead of adding copies.

use std::sync::Arc;

use bytes::Bytes;
use tokio::task::JoinSet;

use super::config::{ObjectsPer, S3SinkConfig};
use super::request::{Object, batched, body, per_record};
use super::service::{S3Service, ServiceError};
use crate::error::SinkError;
use crate::sinks::template::KeyTemplate;
use crate::sinks::{Sink, SinkBatch};
use crate::sources::BoxFuture;

/// Writes batches to one S3 bucket.
#[derive(Clone, Debug)]
pub struct S3Sink {
    name: String,
    config: Arc<S3SinkConfig>,
    template: KeyTemplate,
    service: Arc<S3Service>,
    log_keys: bool,
}

impl S3Sink {
    /// A sink named `name`; its client is built from `config` and the SDK's
    /// credential chain on first write. `log_keys`: whether object names that
    /// hold item key values may appear in errors and logs.
    pub fn new(name: &str, config: &S3SinkConfig, log_keys: bool) -> Self {
        Self::with_service(name, config, S3Service::new(config.clone()), log_keys)
    }

    /// A sink that sends through `client` (its own region, endpoint,
    /// credentials and retry config; `config`'s are not used, except that
    /// `config.endpoint_url` should name the client's endpoint: it decides
    /// whether object bodies are signed, and none means an AWS endpoint,
    /// HTTPS, where they are not).
    pub fn with_client(
        name: &str,
        config: &S3SinkConfig,
        client: aws_sdk_s3::Client,
        log_keys: bool,
    ) -> Self {
        Self::with_service(
            name,
            config,
            S3Service::with_client(config.clone(), client),
            log_keys,
        )
    }

    fn with_service(name: &str, config: &S3SinkConfig, service: S3Service, log_keys: bool) -> Self {
        Self {
            name: name.to_string(),
            template: config.template(),
            config: Arc::new(config.clone()),
            service: Arc::new(service),
            log_keys,
        }
    }

    /// The object keys a batch is written under (tests, tools).
    ///
    /// # Errors
    /// [`SinkError::Record`] for a record the template cannot name.
    pub fn object_keys(&self, batch: &SinkBatch<'_>) -> Result<Vec<String>, SinkError> {
        Ok(self.objects(batch)?.into_iter().map(|o| o.key).collect())
    }

    fn objects<'a>(&self, batch: &SinkBatch<'a>) -> Result<Vec<Object<'a>>, SinkError> {
        let objects = match self.config.objects {
            ObjectsPer::Batch => batched(&self.template, batch),
            ObjectsPer::Record => per_record(&self.template, batch),
        };
        objects.map_err(|error| SinkError::Record {
            sink: self.name.clone(),
            sequence_number: error.sequence_number().to_string(),
            message: error.to_string(),
        })
    }

    fn aws_error(&self, key: &str, error: ServiceError) -> SinkError {
        let object = if self.template.uses_keys() && !self.log_keys {
            "<object name holds item keys; set log_keys = true to show it>".to_string()
        } else {
            key.to_string()
        };
        // The SDK's message may quote the request's key; keep item keys out.
        let message = if object == key {
            error.message
        } else {
            error.message.replace(key, "<object>")
        };
        SinkError::Aws {
            sink: self.name.clone(),
            operation: error.operation,
            bucket: self.config.bucket.clone(),
            object,
            message,
        }
    }

    async fn write_objects(&self, objects: Vec<Object<'_>>) -> Result<(), SinkError> {
        let compression = self.config.compression;
        let mut pending: JoinSet<Result<(), SinkError>> = JoinSet::new();
        for object in objects {
            let plain = crate::sinks::encoding::ndjson(object.records.iter().copied());
            let body = if compression == crate::sinks::encoding::Compression::None {
                plain
            } else if plain.len() > 64 * 1024 {
                // Large bodies compress off the runtime's threads.
                tokio::task::spawn_blocking(move || compression.encode(plain))
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))
                    .and_then(|r| r)
                    .map_err(|source| self.encode_error(source))?
            } else {
                body(&object, compression).map_err(|source| self.encode_error(source))?
            };
            let sink = self.clone();
            let key = object.key;
            pending.spawn(async move {
                sink.service
                    .put(&key, Bytes::from(body))
                    .await
                    .map_err(|e| sink.aws_error(&key, e))
            });
            if pending.len() >= self.config.max_concurrent_requests {
                join_one(&self.name, &mut pending).await?;
            }
        }
        while !pending.is_empty() {
            join_one(&self.name, &mut pending).await?;
        }
        Ok(())
    }

    fn encode_error(&self, source: std::io::Error) -> SinkError {
        SinkError::Encode {
            sink: self.name.clone(),
            source,
        }
    }
}

/// Waits for one request; the first failure ends the batch (the others are
/// dropped, and the whole batch is retried or dead-lettered).
async fn join_one(
    sink: &str,
    pending: &mut JoinSet<Result<(), SinkError>>,
) -> Result<(), SinkError> {
    match pending.join_next().await {
        Some(Ok(result)) => result,
        Some(Err(join)) => Err(SinkError::Encode {
            sink: sink.to_string(),
            source: std::io::Error::other(join.to_string()),
        }),
        None => Ok(()),
    }
}

impl Sink for S3Sink {
    fn name(&self) -> &str {
        &self.name
    }

    fn write<'a>(&'a self, batch: &'a SinkBatch<'a>) -> BoxFuture<'a, Result<(), SinkError>> {
        Box::pin(async move {
            let objects = self.objects(batch)?;
            self.write_objects(objects).await
        })
    }
}
