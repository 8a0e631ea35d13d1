//! An S3-compatible server for tests: `s3s-fs` (from `TTLSTREAM_S3S_FS`) on
//! 127.0.0.1 over a temporary directory, and SDK clients pointed at it.

use std::path::{Path, PathBuf};

use aws_sdk_s3::Client;
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};

use crate::server::{ServerProcess, tool};

/// Access key the server accepts (s3s-fs checks SigV4 signatures with it).
pub const ACCESS_KEY_ID: &str = "AKIATTLSTREAMTEST";
/// Secret key the server accepts.
pub const SECRET_ACCESS_KEY: &str = "ttlstream-test-secret";
/// Region the clients sign for.
pub const REGION: &str = "us-east-1";

/// A running s3s-fs and the directory it stores buckets in.
#[derive(Debug)]
pub struct S3Server {
    /// The server process (stop and restart it for outage tests).
    pub process: ServerProcess,
    /// The root directory: bucket `b`'s object `k` is the file `<root>/b/k`.
    pub root: PathBuf,
}

impl S3Server {
    /// Starts s3s-fs over `root` (created if missing); `None` (with a note)
    /// outside CI when `TTLSTREAM_S3S_FS` is unset.
    ///
    /// # Panics
    /// Under `CI=true` without the server, or when it does not start.
    pub fn start(root: &Path) -> Option<Self> {
        let program = tool("TTLSTREAM_S3S_FS")?;
        std::fs::create_dir_all(root).expect("create s3s-fs root");
        let root_text = root.to_str().expect("UTF-8 root path");
        let process = ServerProcess::start(
            &program,
            &[
                "--host",
                "127.0.0.1",
                "--port",
                "{port}",
                "--access-key",
                ACCESS_KEY_ID,
                "--secret-key",
                SECRET_ACCESS_KEY,
                root_text,
            ],
        );
        Some(Self {
            process,
            root: root.to_path_buf(),
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        self.process.endpoint()
    }

    /// A path-style client with the server's credentials and the SDK's
    /// standard retry mode.
    pub fn client(&self) -> Client {
        client(&self.endpoint())
    }

    /// Creates `bucket`.
    ///
    /// # Panics
    /// When CreateBucket fails.
    pub async fn create_bucket(&self, bucket: &str) {
        self.client()
            .create_bucket()
            .bucket(bucket)
            .send()
            .await
            .expect("CreateBucket");
    }

    /// Environment variables that point an SDK in a child process at this
    /// server with its credentials.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY_ID.to_string()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_ACCESS_KEY.to_string()),
            ("AWS_REGION", REGION.to_string()),
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_EC2_METADATA_DISABLED", "true".to_string()),
        ]
    }
}

/// A path-style S3 client for `endpoint` with the test credentials.
pub fn client(endpoint: &str) -> Client {
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(REGION))
        .credentials_provider(Credentials::new(
            ACCESS_KEY_ID,
            SECRET_ACCESS_KEY,
            None,
            None,
            "ttlstream-tests",
        ))
        .endpoint_url(endpoint)
        .force_path_style(true)
        .retry_config(aws_sdk_s3::config::retry::RetryConfig::standard())
        .build();
    Client::from_conf(config)
}

/// Every object under `prefix` as `(key, bytes)`, in key order.
///
/// # Panics
/// When a request fails.
pub async fn objects(client: &Client, bucket: &str, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let mut keys = Vec::new();
    let mut pages = client
        .list_objects_v2()
        .bucket(bucket)
        .prefix(prefix)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page.expect("ListObjectsV2");
        keys.extend(
            page.contents()
                .iter()
                .filter_map(|o| o.key().map(str::to_string)),
        );
    }
    keys.sort();
    let mut out = Vec::new();
    for key in keys {
        let object = client
            .get_object()
            .bucket(bucket)
            .key(&key)
            .send()
            .await
            .expect("GetObject");
        let bytes = object
            .body
            .collect()
            .await
            .expect("object body")
            .into_bytes()
            .to_vec();
        out.push((key, bytes));
    }
    out
}
