//! Table operations as DynamoDB answers them: CreateTable validation,
//! DescribeTable's fields, DeleteTable's description, tags, parallel Scan,
//! `ReturnValuesOnConditionCheckFailure`, UpdateTimeToLive's refusals, the
//! region of ARNs and records, DescribeStream's `ShardFilter`.

#![allow(clippy::unwrap_used)]

use crate::support::{self, attr, key, n, ok, raw, refused, s, start};
use aws_sdk_dynamodb::types::{
    BillingMode, KeyType, ReturnValuesOnConditionCheckFailure, ScalarAttributeType, Tag,
    TimeToLiveSpecification,
};
use serde_json::json;

fn create(name: &str) -> serde_json::Value {
    json!({
        "TableName": name,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_is_validated_as_dynamodb_validates_it() {
    let h = start().await;
    let mut twice = create("Twice");
    twice["AttributeDefinitions"] = json!([{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "pk", "AttributeType": "N"}]);
    refused(
        &h.url,
        "CreateTable",
        &twice,
        "Attribute Name is duplicated: pk",
    )
    .await;
    let mut unused = create("Unused");
    unused["AttributeDefinitions"] = json!([{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "N"}]);
    refused(
        &h.url,
        "CreateTable",
        &unused,
        "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
    )
    .await;
    let mut mode = create("Mode");
    mode["BillingMode"] = json!("FREE");
    refused(
        &h.url,
        "CreateTable",
        &mode,
        "1 validation error detected: Value 'FREE' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]",
    )
    .await;
    let mut both = create("Both");
    both["BillingMode"] = json!("PAY_PER_REQUEST");
    both["ProvisionedThroughput"] = json!({"ReadCapacityUnits": 1, "WriteCapacityUnits": 1});
    refused(
        &h.url,
        "CreateTable",
        &both,
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
    )
    .await;
    let mut long_key = create("LongKey");
    long_key["KeySchema"][0]["AttributeName"] = json!("k".repeat(256));
    long_key["AttributeDefinitions"][0]["AttributeName"] = json!("k".repeat(256));
    let (status, answer) = raw(&h.url, "CreateTable", &long_key.to_string()).await;
    assert_eq!(status, 400);
    assert!(
        answer["message"].as_str().unwrap().contains("255"),
        "{answer}"
    );
    let listed = ok(&h.url, "ListTables", &json!({})).await;
    assert_eq!(listed["TableNames"], json!([]), "nothing was created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_table_carries_what_sdks_read() {
    let h = start().await;
    h.client
        .create_table()
        .table_name("Desc")
        .key_schema(key("pk", KeyType::Hash))
        .attribute_definitions(attr("pk", ScalarAttributeType::S))
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(
            aws_sdk_dynamodb::types::ProvisionedThroughput::builder()
                .read_capacity_units(5)
                .write_capacity_units(7)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    for id in ["a", "b", "c"] {
        h.client
            .put_item()
            .table_name("Desc")
            .item("pk", s(id))
            .item("data", s("0123456789"))
            .send()
            .await
            .unwrap();
    }
    let table = h
        .client
        .describe_table()
        .table_name("Desc")
        .send()
        .await
        .unwrap();
    let table = table.table().unwrap();
    // 1 (pk) + 1 (id) + 4 (data) + 10 per item ("Item sizes and formats").
    assert_eq!(table.item_count(), Some(3));
    assert_eq!(table.table_size_bytes(), Some(3 * (2 + 1 + 4 + 10)));
    assert_eq!(
        table.creation_date_time().unwrap().secs(),
        support::START_MILLIS / 1000
    );
    let id = table.table_id().unwrap();
    assert_eq!(id.len(), 36, "{id}");
    assert_eq!(
        table.billing_mode_summary().unwrap().billing_mode(),
        Some(&BillingMode::Provisioned)
    );
    let throughput = table.provisioned_throughput().unwrap();
    assert_eq!(throughput.read_capacity_units(), Some(5));
    assert_eq!(throughput.write_capacity_units(), Some(7));
    // The ARN carries the region the client signed for.
    assert_eq!(
        table.table_arn(),
        Some("arn:aws:dynamodb:us-east-1:000000000000:table/Desc")
    );
    // DeleteTable answers the description.
    let deleted = h
        .client
        .delete_table()
        .table_name("Desc")
        .send()
        .await
        .unwrap();
    let deleted = deleted.table_description().unwrap();
    assert_eq!(deleted.table_name(), Some("Desc"));
    assert_eq!(deleted.item_count(), Some(3));
    assert_eq!(deleted.table_id(), Some(id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_parallel_scan_and_old_item_on_failure() {
    let h = start().await;
    support::create_simple(&h.client, "Tagged").await;
    let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Tagged";
    h.client
        .tag_resource()
        .resource_arn(arn)
        .tags(Tag::builder().key("team").value("ttl").build().unwrap())
        .tags(Tag::builder().key("env").value("test").build().unwrap())
        .send()
        .await
        .unwrap();
    h.client
        .untag_resource()
        .resource_arn(arn)
        .tag_keys("env")
        .send()
        .await
        .unwrap();
    let tags = h
        .client
        .list_tags_of_resource()
        .resource_arn(arn)
        .send()
        .await
        .unwrap();
    let tags: Vec<(&str, &str)> = tags.tags().iter().map(|t| (t.key(), t.value())).collect();
    assert_eq!(tags, [("team", "ttl")]);
    let missing = h
        .client
        .list_tags_of_resource()
        .resource_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Nope")
        .send()
        .await
        .unwrap_err();
    assert!(
        missing
            .as_service_error()
            .is_some_and(|e| e.is_resource_not_found_exception())
    );

    // Parallel scan: every item in exactly one of 4 segments.
    for i in 0..40 {
        h.client
            .put_item()
            .table_name("Tagged")
            .item("Id", s(&format!("item-{i}")))
            .item("n", n(i))
            .send()
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    for segment in 0..4 {
        let page = h
            .client
            .scan()
            .table_name("Tagged")
            .segment(segment)
            .total_segments(4)
            .send()
            .await
            .unwrap();
        seen.extend(page.items().iter().map(|i| i["Id"].clone()));
    }
    assert_eq!(seen.len(), 40);
    seen.sort_by_key(|v| format!("{v:?}"));
    seen.dedup();
    assert_eq!(seen.len(), 40, "an item appeared in two segments");
    refused(
        &h.url,
        "Scan",
        &json!({"TableName": "Tagged", "Segment": 4, "TotalSegments": 4}),
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 4 is not less than TotalSegments: 4",
    )
    .await;

    // ReturnValuesOnConditionCheckFailure=ALL_OLD: the failure carries the item.
    let err = h
        .client
        .put_item()
        .table_name("Tagged")
        .item("Id", s("item-1"))
        .condition_expression("attribute_not_exists(Id)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .unwrap_err();
    let failure = err.into_service_error();
    assert!(failure.is_conditional_check_failed_exception());
    let aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(e) =
        failure
    else {
        panic!("not a ConditionalCheckFailedException");
    };
    assert_eq!(e.item().unwrap()["n"], n(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_is_enabled_at_once_and_disabled_only_by_its_name() {
    let h = start().await;
    support::create_simple(&h.client, "Ttl").await;
    support::enable_ttl(&h.client, "Ttl", "expires").await;
    let status = h
        .client
        .describe_time_to_live()
        .table_name("Ttl")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status
            .time_to_live_description()
            .unwrap()
            .time_to_live_status(),
        Some(&aws_sdk_dynamodb::types::TimeToLiveStatus::Enabled)
    );
    let err = h
        .client
        .update_time_to_live()
        .table_name("Ttl")
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name("other")
                .enabled(false)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    let message = format!("{:?}", err.into_service_error());
    assert!(
        message.contains("TimeToLive is active on a different AttributeName"),
        "{message}"
    );
    let still = h
        .client
        .describe_time_to_live()
        .table_name("Ttl")
        .send()
        .await
        .unwrap();
    assert_eq!(
        still.time_to_live_description().unwrap().attribute_name(),
        Some("expires")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn region_follows_the_signature_and_shard_filter_selects_children() {
    let h = start().await;
    let eu = support::client_in(&h.url, "eu-west-1");
    eu.create_table()
        .table_name("Regional")
        .key_schema(key("Id", KeyType::Hash))
        .attribute_definitions(attr("Id", ScalarAttributeType::S))
        .stream_specification(
            aws_sdk_dynamodb::types::StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(aws_sdk_dynamodb::types::StreamViewType::NewImage)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    eu.put_item()
        .table_name("Regional")
        .item("Id", s("x"))
        .send()
        .await
        .unwrap();
    let table = eu
        .describe_table()
        .table_name("Regional")
        .send()
        .await
        .unwrap();
    let table = table.table().unwrap();
    assert!(
        table
            .table_arn()
            .unwrap()
            .starts_with("arn:aws:dynamodb:eu-west-1:")
    );
    let stream_arn = table.latest_stream_arn().unwrap().to_string();
    assert!(
        stream_arn.starts_with("arn:aws:dynamodb:eu-west-1:"),
        "{stream_arn}"
    );
    let streams = support::streams_client_in(&h.url, "eu-west-1");
    let description = streams
        .describe_stream()
        .stream_arn(&stream_arn)
        .send()
        .await
        .unwrap();
    let shard = description.stream_description().unwrap().shards()[0]
        .shard_id()
        .unwrap()
        .to_string();
    let iterator = streams
        .get_shard_iterator()
        .stream_arn(&stream_arn)
        .shard_id(&shard)
        .shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap();
    let records = streams
        .get_records()
        .shard_iterator(iterator.shard_iterator().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(records.records()[0].aws_region(), Some("eu-west-1"));
    // An unsigned request gets the server's default region.
    let (_, answer) = raw(&h.url, "DescribeTable", r#"{"TableName":"Regional"}"#).await;
    assert!(
        answer["Table"]["TableArn"]
            .as_str()
            .unwrap()
            .starts_with("arn:aws:dynamodb:us-east-1:")
    );
    // A record after the shard's age limit (4 hours) opens a child shard.
    h.clock.advance(std::time::Duration::from_secs(5 * 3600));
    eu.put_item()
        .table_name("Regional")
        .item("Id", s("y"))
        .send()
        .await
        .unwrap();
    let all = streams
        .describe_stream()
        .stream_arn(&stream_arn)
        .send()
        .await
        .unwrap();
    assert_eq!(all.stream_description().unwrap().shards().len(), 2);
    // ShardFilter CHILD_SHARDS of the first shard: the second only.
    let children = streams
        .describe_stream()
        .stream_arn(&stream_arn)
        .shard_filter(
            aws_sdk_dynamodbstreams::types::ShardFilter::builder()
                .r#type(aws_sdk_dynamodbstreams::types::ShardFilterType::ChildShards)
                .shard_id(&shard)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let children = children.stream_description().unwrap().shards();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].parent_shard_id(), Some(shard.as_str()));
}
