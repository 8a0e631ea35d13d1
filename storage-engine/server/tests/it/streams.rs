//! The DynamoDB Streams endpoints through `aws-sdk-dynamodbstreams`: the
//! REMOVE record of a TTL deletion with its `userIdentity`, a user deletion
//! without one, shard iterators that expire after 15 minutes of engine time.

#![allow(clippy::unwrap_used)]

use crate::support;

use aws_sdk_dynamodb::types::{KeyType, ScalarAttributeType, StreamSpecification, StreamViewType};
use aws_sdk_dynamodbstreams::types::{OperationType, ShardIteratorType};
use std::time::Duration;
use support::{START_MILLIS, attr, key, n, s, start};

fn streams_client(url: &str) -> aws_sdk_dynamodbstreams::Client {
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodbstreams::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodbstreams::config::Credentials::new(
            "AKID", "SECRET", None, None, "test",
        ))
        .endpoint_url(url)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_remove_record_carries_the_service_identity() {
    let h = start().await;
    h.client
        .create_table()
        .table_name("SessionData")
        .key_schema(key("UserName", KeyType::Hash))
        .attribute_definitions(attr("UserName", ScalarAttributeType::S))
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    support::enable_ttl(&h.client, "SessionData", "ExpirationTime").await;
    let expired = START_MILLIS / 1000 - 60;
    for user in ["alice", "bob"] {
        h.client
            .put_item()
            .table_name("SessionData")
            .item("UserName", s(user))
            .item("ExpirationTime", n(expired))
            .send()
            .await
            .unwrap();
    }
    // bob is deleted by the user, alice by TTL.
    h.client
        .delete_item()
        .table_name("SessionData")
        .key("UserName", s("bob"))
        .send()
        .await
        .unwrap();
    assert_eq!(h.engine.sweep_now().unwrap().deleted, 1);

    let streams = streams_client(&h.url);
    let listed = streams
        .list_streams()
        .table_name("SessionData")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.streams().len(), 1);
    let arn = listed.streams()[0].stream_arn().unwrap().to_string();
    let described = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .unwrap();
    let description = described.stream_description().unwrap();
    assert_eq!(description.table_name(), Some("SessionData"));
    let shard = &description.shards()[0];
    let iterator = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard.shard_id().unwrap())
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap()
        .shard_iterator()
        .unwrap()
        .to_string();
    let read = streams
        .get_records()
        .shard_iterator(&iterator)
        .send()
        .await
        .unwrap();
    let records = read.records();
    let names: Vec<_> = records
        .iter()
        .map(|r| r.event_name().unwrap().clone())
        .collect();
    assert_eq!(
        names,
        [
            OperationType::Insert,
            OperationType::Insert,
            OperationType::Remove,
            OperationType::Remove
        ]
    );
    let user_delete = &records[2];
    assert!(user_delete.user_identity().is_none(), "{user_delete:?}");
    let ttl_delete = &records[3];
    let identity = ttl_delete.user_identity().unwrap();
    assert_eq!(identity.r#type(), Some("Service"));
    assert_eq!(identity.principal_id(), Some("dynamodb.amazonaws.com"));
    let old = ttl_delete.dynamodb().unwrap().old_image().unwrap();
    assert_eq!(old["UserName"].as_s().unwrap(), "alice");
    assert!(
        read.next_shard_iterator().is_some(),
        "the open shard can be polled again"
    );

    // An iterator is good for 15 minutes of engine time.
    h.clock.advance(Duration::from_secs(15 * 60 + 1));
    let err = streams
        .get_records()
        .shard_iterator(&iterator)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_expired_iterator_exception(), "{err:?}");

    // Raw JSON: the GetRecords casing of userIdentity.
    let fresh = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard.shard_id().unwrap())
        .shard_iterator_type(ShardIteratorType::AtSequenceNumber)
        .sequence_number(ttl_delete.dynamodb().unwrap().sequence_number().unwrap())
        .send()
        .await
        .unwrap();
    let body = serde_json::json!({ "ShardIterator": fresh.shard_iterator().unwrap() }).to_string();
    let response = reqwest::Client::new()
        .post(&h.url)
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", "DynamoDBStreams_20120810.GetRecords")
        .body(body)
        .send()
        .await
        .unwrap();
    let json: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        json["Records"][0]["userIdentity"],
        serde_json::json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"})
    );
}
