//! aws-sdk-dynamodb against a local DynamoDB-compatible server (moto_server,
//! `ttlstream serve`): an SDK config pointed at it, the table the stream
//! tests use, and a `dynamodb_streams` pipeline into a file sink. For
//! `ttlstream serve`: the process with a manual clock ([`serve`]) and its
//! admin paths ([`admin`]).

use std::path::Path;

use crate::server::ServerProcess;
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{Credentials, SharedCredentialsProvider};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType, StreamSpecification, StreamViewType,
};
use serde_json::Value;
use ttlstream::config::SourceConfig;
use ttlstream::sources::dynamodb_streams::DynamodbStreamsSource;
use ttlstream::{Config, Pipeline};

/// An SDK config for `endpoint` in `us-east-1` with static test credentials.
pub fn sdk_config(endpoint: &str) -> SdkConfig {
    SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "testing", "testing", None, None, "test",
        )))
        .build()
}

/// Creates `table` with partition key `UserName` (S) and a
/// NEW_AND_OLD_IMAGES stream.
///
/// # Panics
/// When CreateTable fails.
pub async fn create_table(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("UserName")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("attribute"),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("UserName")
                .key_type(KeyType::Hash)
                .build()
                .expect("key"),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .expect("stream"),
        )
        .send()
        .await
        .expect("CreateTable");
}

/// Puts `{UserName: user, ExpirationTime: expires}` into `table`.
///
/// # Panics
/// When PutItem fails.
pub async fn put(client: &Client, table: &str, user: &str, expires: i64) {
    client
        .put_item()
        .table_name(table)
        .item("UserName", AttributeValue::S(user.into()))
        .item("ExpirationTime", AttributeValue::N(expires.to_string()))
        .send()
        .await
        .expect("PutItem");
}

/// Deletes `{UserName: user}` from `table` (a user's delete).
///
/// # Panics
/// When DeleteItem fails.
pub async fn delete(client: &Client, table: &str, user: &str) {
    client
        .delete_item()
        .table_name(table)
        .key("UserName", AttributeValue::S(user.into()))
        .send()
        .await
        .expect("DeleteItem");
}

/// A sidecar config in `dir` (written as `dir/ttlstream.toml`) with `source`
/// (TOML text), a checkpoint in `dir/state`, batches of 2 records and one
/// route taking every record to the file sink `dir/archive`.
///
/// # Panics
/// When the config cannot be written or is invalid.
pub fn config(dir: &Path, source: &str) -> Config {
    let text = format!(
        r#"
{source}

[checkpoint]
dir = "state"

[batch]
max_records = 2

[[routes]]
name = "all"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"
"#
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, text).expect("write config");
    Config::load(&path).expect("config")
}

/// The pipeline of a `dynamodb_streams` `config`, its source reading through
/// `sdk`.
///
/// # Panics
/// When the config's source is another kind or the stream cannot be opened.
pub async fn pipeline(config: &Config, sdk: &SdkConfig) -> Pipeline {
    let Some(SourceConfig::DynamodbStreams(streams)) = &config.source else {
        panic!("not a dynamodb_streams config");
    };
    let source = DynamodbStreamsSource::with_sdk_config(streams, sdk)
        .await
        .expect("open the stream");
    Pipeline::with_source(config, Box::new(source)).expect("pipeline")
}

/// Steps until a step reads nothing; returns the records read.
///
/// # Panics
/// When a step fails or the stream does not drain in 50 steps.
pub async fn drain(pipeline: &mut Pipeline) -> usize {
    let mut total = 0;
    for _ in 0..50 {
        let report = pipeline.step().await.expect("step");
        if report.records == 0 {
            return total;
        }
        total += report.records;
    }
    panic!("the stream did not drain in 50 steps");
}

/// The records [`config`]'s file sink archived for `table`.
pub fn archived(dir: &Path, table: &str) -> Vec<Value> {
    crate::read_archive(&dir.join("archive").join(table))
}

/// `ttlstream serve` (the `ttlstream-e2e` binary at `program`) on a free
/// 127.0.0.1 port with its data in `data`, a manual clock, background sweeps
/// an hour apart (tests sweep through [`admin`]), no TTL transition, and
/// `extra` flags (e.g. `--shard-max-records 3`).
///
/// # Panics
/// When the path is not UTF-8 or the server does not start.
pub fn serve(program: &Path, data: &Path, extra: &[&str]) -> ServerProcess {
    let mut args = vec![
        "serve",
        "--listen",
        "127.0.0.1:{port}",
        "--data-dir",
        data.to_str().expect("UTF-8 path"),
        "--clock",
        "manual",
        "--sweep-interval",
        "1h",
        "--ttl-transition",
        "0s",
    ];
    args.extend_from_slice(extra);
    ServerProcess::start(program, &args)
}

/// `POST <endpoint><path>` with a JSON body to `ttlstream serve`'s admin
/// paths (`/_ttlstream/clock`, `/_ttlstream/sweep`); the JSON answer.
///
/// # Panics
/// When the request fails or the answer is not a 2xx with JSON.
pub async fn admin(endpoint: &str, path: &str, body: &str) -> Value {
    let response = reqwest::Client::new()
        .post(format!("{endpoint}{path}"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    assert!(
        response.status().is_success(),
        "POST {path}: {}",
        response.status()
    );
    response.json().await.expect("JSON answer")
}

/// Moves `ttlstream serve`'s manual clock forward by `millis`; the new
/// engine time in epoch milliseconds.
///
/// # Panics
/// As [`admin`].
pub async fn advance_clock(endpoint: &str, millis: i64) -> i64 {
    admin(
        endpoint,
        "/_ttlstream/clock",
        &format!(r#"{{"AdvanceMillis":{millis}}}"#),
    )
    .await["EpochMillis"]
        .as_i64()
        .expect("EpochMillis")
}

/// The `UserName` keys of archived records, in archive order.
///
/// # Panics
/// When a record has no string `UserName` key.
pub fn user_names(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            r["dynamodb"]["Keys"]["UserName"]["S"]
                .as_str()
                .unwrap_or_else(|| panic!("no UserName key in {r}"))
                .to_string()
        })
        .collect()
}
