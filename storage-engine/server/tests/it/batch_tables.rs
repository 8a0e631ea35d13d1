//! BatchWriteItem, BatchGetItem, UpdateTable and DeleteTable through the
//! Rust AWS SDK against the server on a free loopback port.

#![allow(clippy::unwrap_used)]

use crate::support;

use aws_sdk_dynamodb::types::{
    BillingMode, DeleteRequest, KeysAndAttributes, ProvisionedThroughput, PutRequest,
    StreamSpecification, StreamViewType, TableStatus, WriteRequest,
};
use std::collections::HashMap;
use support::{create_simple, n, raw, s, start};
use ttlstream_engine::StreamPosition;

fn put(id: &str, extra: Option<(&str, aws_sdk_dynamodb::types::AttributeValue)>) -> WriteRequest {
    let mut builder = PutRequest::builder().item("Id", s(id));
    if let Some((k, v)) = extra {
        builder = builder.item(k, v);
    }
    WriteRequest::builder()
        .put_request(builder.build().unwrap())
        .build()
}

fn delete(id: &str) -> WriteRequest {
    WriteRequest::builder()
        .delete_request(DeleteRequest::builder().key("Id", s(id)).build().unwrap())
        .build()
}

fn keys(ids: &[&str]) -> KeysAndAttributes {
    let mut b = KeysAndAttributes::builder();
    for id in ids {
        b = b.keys(HashMap::from([("Id".to_string(), s(id))]));
    }
    b.build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_write_then_batch_get_across_two_tables() {
    let h = start().await;
    create_simple(&h.client, "Left").await;
    create_simple(&h.client, "Right").await;
    let written = h
        .client
        .batch_write_item()
        .request_items("Left", vec![put("a", Some(("V", n(1)))), put("b", None)])
        .request_items("Right", vec![put("c", None)])
        .send()
        .await
        .unwrap();
    assert!(written.unprocessed_items().unwrap().is_empty());

    let got = h
        .client
        .batch_get_item()
        .request_items("Left", keys(&["a", "b", "missing"]))
        .request_items("Right", keys(&["c"]))
        .send()
        .await
        .unwrap();
    let responses = got.responses().unwrap();
    let mut left: Vec<&str> = responses["Left"]
        .iter()
        .map(|i| i["Id"].as_s().unwrap().as_str())
        .collect();
    left.sort_unstable();
    assert_eq!(left, ["a", "b"]);
    assert_eq!(responses["Right"].len(), 1);
    assert!(got.unprocessed_keys().unwrap().is_empty());

    // A projection applies to every item of its table.
    let projected = h
        .client
        .batch_get_item()
        .request_items(
            "Left",
            KeysAndAttributes::builder()
                .keys(HashMap::from([("Id".to_string(), s("a"))]))
                .projection_expression("#v")
                .expression_attribute_names("#v", "V")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let item = &projected.responses().unwrap()["Left"][0];
    assert_eq!(item.len(), 1);
    assert_eq!(item["V"].as_n().unwrap(), "1");

    // Deletes and puts mix in one batch.
    h.client
        .batch_write_item()
        .request_items("Left", vec![delete("a"), put("d", None)])
        .send()
        .await
        .unwrap();
    let scanned = h.client.scan().table_name("Left").send().await.unwrap();
    let mut ids: Vec<&str> = scanned
        .items()
        .iter()
        .map(|i| i["Id"].as_s().unwrap().as_str())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["b", "d"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_limits_and_invalid_batches_write_nothing() {
    let h = start().await;
    create_simple(&h.client, "Items").await;
    create_simple(&h.client, "Other").await;

    let too_many: Vec<WriteRequest> = (0..26).map(|i| put(&format!("k{i}"), None)).collect();
    let err = h
        .client
        .batch_write_item()
        .request_items("Items", too_many)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.meta().code(), Some("ValidationException"), "{err:?}");
    assert!(
        err.meta()
            .message()
            .unwrap()
            .contains("less than or equal to 25")
    );

    // 13 + 13 across two tables: over 25 in total.
    let thirteen = |p: &str| {
        (0..13)
            .map(|i| put(&format!("{p}{i}"), None))
            .collect::<Vec<_>>()
    };
    let err = h
        .client
        .batch_write_item()
        .request_items("Items", thirteen("x"))
        .request_items("Other", thirteen("y"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        err.meta().message(),
        Some("Too many items requested for the BatchWriteItem call")
    );

    // The same key twice; a put with the key of the wrong type; a missing table.
    let cases = [
        vec![put("dup", None), delete("dup")],
        vec![
            put("fine", None),
            WriteRequest::builder()
                .put_request(PutRequest::builder().item("Id", n(5)).build().unwrap())
                .build(),
        ],
    ];
    for requests in cases {
        let err = h
            .client
            .batch_write_item()
            .request_items("Items", requests)
            .send()
            .await
            .unwrap_err()
            .into_service_error();
        assert_eq!(err.meta().code(), Some("ValidationException"), "{err:?}");
    }
    let err = h
        .client
        .batch_write_item()
        .request_items("Items", vec![put("fine2", None)])
        .request_items("Nope", vec![put("x", None)])
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    // Rejected batches wrote nothing, not even their valid requests.
    let scanned = h.client.scan().table_name("Items").send().await.unwrap();
    assert_eq!(scanned.count(), 0);

    let hundred_one: Vec<String> = (0..101).map(|i| format!("k{i}")).collect();
    let refs: Vec<&str> = hundred_one.iter().map(String::as_str).collect();
    let err = h
        .client
        .batch_get_item()
        .request_items("Items", keys(&refs))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.meta().code(), Some("ValidationException"), "{err:?}");
    let err = h
        .client
        .batch_get_item()
        .request_items("Items", keys(&refs[..60]))
        .request_items("Other", keys(&refs[..41]))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        err.meta().message(),
        Some("Too many items requested for the BatchGetItem call")
    );
    let err = h
        .client
        .batch_get_item()
        .request_items("Items", keys(&["a", "a"]))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        err.meta().message(),
        Some("Provided list of item keys contains duplicates")
    );

    // Raw: neither PutRequest nor DeleteRequest; an empty RequestItems.
    let (status, body) = raw(
        &h.url,
        "BatchWriteItem",
        r#"{"RequestItems":{"Items":[{}]}}"#,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["__type"],
        "com.amazonaws.dynamodb.v20120810#ValidationException"
    );
    let (status, body) = raw(&h.url, "BatchGetItem", r#"{"RequestItems":{}}"#).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["__type"],
        "com.amazonaws.dynamodb.v20120810#ValidationException"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_get_over_16_mb_returns_unprocessed_keys() {
    let h = start().await;
    create_simple(&h.client, "Big").await;
    // 45 items of ~390 KB: about 17.1 MB, over the 16 MB response limit.
    let blob = "x".repeat(390 * 1024);
    let ids: Vec<String> = (0..45).map(|i| format!("big{i:02}")).collect();
    for chunk in ids.chunks(15) {
        let requests = chunk
            .iter()
            .map(|id| put(id, Some(("Blob", s(&blob)))))
            .collect();
        h.client
            .batch_write_item()
            .request_items("Big", requests)
            .send()
            .await
            .unwrap();
    }
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let got = h
        .client
        .batch_get_item()
        .request_items("Big", keys(&refs))
        .send()
        .await
        .unwrap();
    let returned = got.responses().unwrap()["Big"].len();
    let unprocessed = got.unprocessed_keys().unwrap()["Big"].keys().len();
    assert!(
        returned < 45 && unprocessed > 0,
        "{returned} + {unprocessed}"
    );
    assert_eq!(returned + unprocessed, 45);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_table_turns_the_stream_on_and_off() {
    let h = start().await;
    create_simple(&h.client, "Toggle").await;
    h.client
        .put_item()
        .table_name("Toggle")
        .item("Id", s("before"))
        .send()
        .await
        .unwrap();

    let on = StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::NewImage)
        .build()
        .unwrap();
    let updated = h
        .client
        .update_table()
        .table_name("Toggle")
        .stream_specification(on.clone())
        .send()
        .await
        .unwrap();
    let description = updated.table_description().unwrap();
    assert!(description.latest_stream_arn().is_some());
    assert_eq!(
        description
            .stream_specification()
            .unwrap()
            .stream_view_type(),
        Some(&StreamViewType::NewImage)
    );
    h.client
        .put_item()
        .table_name("Toggle")
        .item("Id", s("during"))
        .send()
        .await
        .unwrap();

    // Enabling twice is an error, as in DynamoDB.
    let err = h
        .client
        .update_table()
        .table_name("Toggle")
        .stream_specification(on)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.meta().code(), Some("ValidationException"), "{err:?}");

    let off = StreamSpecification::builder()
        .stream_enabled(false)
        .build()
        .unwrap();
    let updated = h
        .client
        .update_table()
        .table_name("Toggle")
        .stream_specification(off)
        .send()
        .await
        .unwrap();
    assert!(
        updated
            .table_description()
            .unwrap()
            .stream_specification()
            .is_none()
    );
    h.client
        .put_item()
        .table_name("Toggle")
        .item("Id", s("after"))
        .send()
        .await
        .unwrap();

    // On again (another view type): the write made while it was off left
    // no record.
    let keys_only = StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::KeysOnly)
        .build()
        .unwrap();
    h.client
        .update_table()
        .table_name("Toggle")
        .stream_specification(keys_only)
        .send()
        .await
        .unwrap();
    let records = h
        .engine
        .dynamodb()
        .read_stream("Toggle", StreamPosition::TrimHorizon, 100)
        .unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(
        matches!(records[0].keys.get("Id"), Some(ttlstream_engine::AttributeValue::S(id)) if id == "during"),
        "{records:?}"
    );

    // Billing mode and throughput are accepted; a bad billing mode is not.
    h.client
        .update_table()
        .table_name("Toggle")
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(5)
                .write_capacity_units(5)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let (status, body) = raw(
        &h.url,
        "UpdateTable",
        r#"{"TableName":"Toggle","BillingMode":"FREE"}"#,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["__type"],
        "com.amazonaws.dynamodb.v20120810#ValidationException"
    );
    let (status, _) = raw(&h.url, "UpdateTable", r#"{"TableName":"Toggle"}"#).await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_table_answers_deleting_and_the_table_is_gone() {
    let h = start().await;
    create_simple(&h.client, "Doomed").await;
    h.client
        .put_item()
        .table_name("Doomed")
        .item("Id", s("x"))
        .send()
        .await
        .unwrap();
    let deleted = h
        .client
        .delete_table()
        .table_name("Doomed")
        .send()
        .await
        .unwrap();
    let description = deleted.table_description().unwrap();
    assert_eq!(description.table_status(), Some(&TableStatus::Deleting));
    assert_eq!(description.table_name(), Some("Doomed"));

    let err = h
        .client
        .describe_table()
        .table_name("Doomed")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception());
    let err = h
        .client
        .delete_table()
        .table_name("Doomed")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception());
    assert!(
        h.client
            .list_tables()
            .send()
            .await
            .unwrap()
            .table_names()
            .is_empty()
    );

    // A table of the same name starts empty.
    create_simple(&h.client, "Doomed").await;
    let scanned = h.client.scan().table_name("Doomed").send().await.unwrap();
    assert_eq!(scanned.count(), 0);
}
