//! The `dynamodb_streams` source's paths that no test server produces: a
//! parent shard read before its child, an iterator that expired (after 15
//! minutes on AWS) renewed from the checkpoint with AFTER_SEQUENCE_NUMBER, a
//! closed shard finished, and TrimmedDataAccessException (after 24 hours)
//! reported and read past from TRIM_HORIZON. The SDK's HTTP layer replays
//! DynamoDB Streams responses in the documented wire shape (AWS JSON 1.0);
//! moto (tests/tests/it/dynamodb_streams_moto.rs) covers one live shard.

use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_sdk_dynamodbstreams::config::{Credentials, SharedCredentialsProvider};
use aws_smithy_http_client::test_util::{ReplayEvent, StaticReplayClient};
use aws_smithy_types::body::SdkBody;
use serde_json::{Value, json};
use ttlstream::config::SourceConfig;
use ttlstream::sources::dynamodb_streams::DynamodbStreamsSource;
use ttlstream::{Config, Pipeline};

const ARN: &str =
    "arn:aws:dynamodb:us-east-1:123456789012:table/SessionData/stream/2019-10-23T08:46:00.000";

fn reply(status: u16, body: Value) -> ReplayEvent {
    ReplayEvent::new(
        http::Request::builder()
            .uri("https://streams.dynamodb.us-east-1.amazonaws.com/")
            .body(SdkBody::empty())
            .expect("request"),
        http::Response::builder()
            .status(status)
            .header("content-type", "application/x-amz-json-1.0")
            .body(SdkBody::from(body.to_string()))
            .expect("response"),
    )
}

fn error(kind: &str) -> ReplayEvent {
    reply(
        400,
        json!({"__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"), "message": kind}),
    )
}

fn shards() -> ReplayEvent {
    reply(
        200,
        json!({"StreamDescription": {
        "StreamArn": ARN, "StreamStatus": "ENABLED", "StreamViewType": "OLD_IMAGE",
        "TableName": "SessionData",
        "Shards": [
            {"ShardId": "shardId-child", "ParentShardId": "shardId-parent",
             "SequenceNumberRange": {"StartingSequenceNumber": "200"}},
            {"ShardId": "shardId-parent",
             "SequenceNumberRange": {"StartingSequenceNumber": "100", "EndingSequenceNumber": "150"}}
        ]}}),
    )
}

fn iterator(name: &str) -> ReplayEvent {
    reply(200, json!({"ShardIterator": name}))
}

fn records(sequence: &str, user: &str, next: Option<&str>) -> ReplayEvent {
    let mut body = json!({"Records": [{
        "eventID": sequence, "eventName": "REMOVE", "eventVersion": "1.1",
        "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
        // Stream records are at most 24 hours old: now, as a live stream's are.
        "dynamodb": {"ApproximateCreationDateTime": chrono::Utc::now().timestamp(),
            "Keys": {"UserName": {"S": user}},
            "OldImage": {"UserName": {"S": user}, "ExpirationTime": {"N": "1571827560"}},
            "SequenceNumber": sequence, "SizeBytes": 40, "StreamViewType": "OLD_IMAGE"},
        "userIdentity": {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}}]});
    if let Some(next) = next {
        body["NextShardIterator"] = json!(next);
    }
    reply(200, body)
}

fn request_body(http: &StaticReplayClient, index: usize) -> Value {
    let request = http.actual_requests().nth(index).expect("request");
    serde_json::from_slice(request.body().bytes().expect("body")).expect("JSON body")
}

async fn pipeline(http: &StaticReplayClient, dir: &std::path::Path, extra: &str) -> Pipeline {
    let sdk = SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "AKID", "SECRET", None, None, "test",
        )))
        .http_client(http.clone())
        .build();
    let path = dir.join("ttlstream.toml");
    std::fs::write(
        &path,
        format!(
            "[source.dynamodb_streams]\nstream_arn = \"{ARN}\"\n{extra}\n\n[checkpoint]\ndir = \"state\"\n\n\
             [[routes]]\nname = \"all\"\nsinks = [\"archive\"]\n\n[sinks.archive.file]\npath = \"archive\"\n"
        ),
    )
    .expect("config");
    let config = Config::load(&path).expect("config");
    let Some(SourceConfig::DynamodbStreams(streams)) = &config.source else {
        panic!("config");
    };
    let source = DynamodbStreamsSource::with_sdk_config(streams, &sdk)
        .await
        .expect("source");
    Pipeline::with_source(&config, Box::new(source)).expect("pipeline")
}

#[tokio::test]
async fn latest_skips_the_history_of_closed_shards_and_reads_the_open_one_from_latest() {
    let http = StaticReplayClient::new(vec![
        shards(),                                    // 0 DescribeStream
        iterator("it-child-1"),                      // 1 GetShardIterator child LATEST
        records("201", "user3", Some("it-child-2")), // 2 GetRecords
    ]);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut pipeline = pipeline(&http, dir.path(), "starting_position = \"LATEST\"").await;
    // The closed parent holds only history: finished without a read.
    assert_eq!(pipeline.step().await.expect("step 1").records, 0);
    let parent = &pipeline.checkpoint().partitions["shardId-parent"];
    assert!(parent.finished && parent.position.is_empty(), "{parent:?}");
    assert_eq!(http.actual_requests().count(), 1);
    assert_eq!(pipeline.step().await.expect("step 2").records, 1);
    assert_eq!(request_body(&http, 1)["ShardId"], "shardId-child");
    assert_eq!(request_body(&http, 1)["ShardIteratorType"], "LATEST");
    assert_eq!(
        pipeline.checkpoint().partitions["shardId-child"].position,
        "201"
    );
}

#[tokio::test]
async fn parent_before_child_expired_iterator_renewed_trimmed_data_reported() {
    let http = StaticReplayClient::new(vec![
        shards(),                                     // 0 DescribeStream
        iterator("it-parent-1"),                      // 1 GetShardIterator parent TRIM_HORIZON
        records("100", "user1", Some("it-parent-2")), // 2 GetRecords
        error("ExpiredIteratorException"),            // 3 GetRecords it-parent-2
        iterator("it-parent-3"), // 4 GetShardIterator AFTER_SEQUENCE_NUMBER 100
        reply(200, json!({"Records": []})), // 5 GetRecords: closed and drained
        shards(),                // 6 DescribeStream (a shard closed)
        error("TrimmedDataAccessException"), // 7 GetShardIterator child TRIM_HORIZON
        iterator("it-child-1"),  // 8 GetShardIterator child TRIM_HORIZON again
        records("200", "user2", Some("it-child-2")), // 9 GetRecords
    ]);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut pipeline = pipeline(&http, dir.path(), "").await;

    // The child is listed first but waits for its parent.
    assert_eq!(pipeline.step().await.expect("step 1").records, 1);
    assert_eq!(request_body(&http, 1)["ShardId"], "shardId-parent");
    assert_eq!(request_body(&http, 1)["ShardIteratorType"], "TRIM_HORIZON");
    assert_eq!(
        pipeline.checkpoint().partitions["shardId-parent"].position,
        "100"
    );

    // Expired iterator: renewed after the checkpoint; the drained parent is finished.
    assert_eq!(pipeline.step().await.expect("step 2").records, 0);
    let renewal = request_body(&http, 4);
    assert_eq!(renewal["ShardIteratorType"], "AFTER_SEQUENCE_NUMBER");
    assert_eq!(renewal["SequenceNumber"], "100");
    assert_eq!(request_body(&http, 5)["ShardIterator"], "it-parent-3");
    let parent = &pipeline.checkpoint().partitions["shardId-parent"];
    assert!(parent.finished, "{parent:?}");
    assert_eq!(parent.position, "100");

    // The child: its start was trimmed (reported), read on from TRIM_HORIZON.
    assert_eq!(pipeline.step().await.expect("step 3").records, 1);
    assert_eq!(request_body(&http, 7)["ShardId"], "shardId-child");
    assert_eq!(request_body(&http, 8)["ShardIteratorType"], "TRIM_HORIZON");
    assert_eq!(
        pipeline.checkpoint().partitions["shardId-child"].position,
        "200"
    );

    let archived = std::fs::read_dir(dir.path().join("archive/SessionData"))
        .expect("archive")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("read"))
        .collect::<Vec<_>>()
        .join("");
    let users: Vec<String> = {
        let mut users: Vec<(String, String)> = archived
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("json");
                (
                    v["dynamodb"]["SequenceNumber"]
                        .as_str()
                        .expect("seq")
                        .to_string(),
                    v["dynamodb"]["Keys"]["UserName"]["S"]
                        .as_str()
                        .expect("user")
                        .to_string(),
                )
            })
            .collect();
        users.sort();
        users.into_iter().map(|(_, u)| u).collect()
    };
    assert_eq!(users, ["user1", "user2"]);
    assert!(
        archived.contains(r#""principalId":"dynamodb.amazonaws.com""#),
        "{archived}"
    );
    assert_eq!(
        http.actual_requests().count(),
        10,
        "no call beyond the scripted ones"
    );
}
