//! The server against the Rust AWS SDK for DynamoDB, on a free
//! loopback port: TTL life, conditional failure, Query pagination, index
//! queries (bad raw requests: `bad_requests.rs`).

#![allow(clippy::unwrap_used)]

use crate::support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    BillingMode, GlobalSecondaryIndex, KeyType, Projection, ProjectionType, ScalarAttributeType,
    StreamSpecification, StreamViewType, TimeToLiveStatus,
};
use std::time::Duration;
use support::{attr, key, n, s, start};
use ttlstream_engine::{Engine, EngineOptions};
use ttlstream_server::{Server, ServerOptions};

/// `Events`: pk `Device` (S), sk `At` (N), GSI `ByKind` on `Kind` (S) / `At`.
async fn create_events(client: &Client) {
    client
        .create_table()
        .table_name("Events")
        .key_schema(key("Device", KeyType::Hash))
        .key_schema(key("At", KeyType::Range))
        .attribute_definitions(attr("Device", ScalarAttributeType::S))
        .attribute_definitions(attr("At", ScalarAttributeType::N))
        .attribute_definitions(attr("Kind", ScalarAttributeType::S))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("ByKind")
                .key_schema(key("Kind", KeyType::Hash))
                .key_schema(key("At", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_item_expires_and_is_gone_after_a_sweep() {
    let h = start().await;
    let created = h
        .client
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
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let description = created.table_description().unwrap();
    assert!(description.latest_stream_arn().is_some());

    let table = h
        .client
        .describe_table()
        .table_name("SessionData")
        .send()
        .await
        .unwrap();
    let table = table.table().unwrap();
    assert_eq!(table.table_status().unwrap().as_str(), "ACTIVE");
    assert!(
        table
            .latest_stream_arn()
            .unwrap()
            .starts_with("arn:aws:dynamodb:")
    );
    let listed = h.client.list_tables().send().await.unwrap();
    assert_eq!(listed.table_names(), ["SessionData"]);

    support::enable_ttl(&h.client, "SessionData", "ExpirationTime").await;
    let status = |h: &support::Harness| {
        h.client
            .describe_time_to_live()
            .table_name("SessionData")
            .send()
    };
    // No transition by default: ENABLED at once, as the service answers.
    let ttl = status(&h).await.unwrap();
    let ttl = ttl.time_to_live_description().unwrap();
    assert_eq!(ttl.time_to_live_status(), Some(&TimeToLiveStatus::Enabled));
    assert_eq!(ttl.attribute_name(), Some("ExpirationTime"));

    // Expired a minute before the engine's clock.
    h.client
        .put_item()
        .table_name("SessionData")
        .item("UserName", s("alice"))
        .item("ExpirationTime", n(1_700_000_000 - 60))
        .send()
        .await
        .unwrap();
    let before = h
        .client
        .get_item()
        .table_name("SessionData")
        .key("UserName", s("alice"))
        .send()
        .await
        .unwrap();
    assert!(before.item().is_some(), "visible until swept");

    h.clock.advance(Duration::from_secs(1));
    assert_eq!(h.engine.sweep_now().unwrap().deleted, 1);
    let after = h
        .client
        .get_item()
        .table_name("SessionData")
        .key("UserName", s("alice"))
        .send()
        .await
        .unwrap();
    assert!(after.item().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conditional_failure_is_conditional_check_failed_exception() {
    let h = start().await;
    create_events(&h.client).await;
    let put = || {
        h.client
            .put_item()
            .table_name("Events")
            .item("Device", s("d1"))
            .item("At", n(1))
            .condition_expression("attribute_not_exists(Device)")
    };
    put().send().await.unwrap();
    let err = put().send().await.unwrap_err();
    let service = err.into_service_error();
    assert!(
        service.is_conditional_check_failed_exception(),
        "{service:?}"
    );

    let err = h
        .client
        .describe_table()
        .table_name("Nope")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_resource_not_found_exception());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_pages_and_index_query() {
    let h = start().await;
    create_events(&h.client).await;
    for at in 0..7 {
        h.client
            .put_item()
            .table_name("Events")
            .item("Device", s("d1"))
            .item("At", n(at))
            .item("Kind", s(if at % 2 == 0 { "even" } else { "odd" }))
            .send()
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    let mut start_key = None;
    let mut pages = 0;
    loop {
        let page = h
            .client
            .query()
            .table_name("Events")
            .key_condition_expression("Device = :d AND At >= :from")
            .expression_attribute_values(":d", s("d1"))
            .expression_attribute_values(":from", n(1))
            .limit(2)
            .set_exclusive_start_key(start_key.take())
            .send()
            .await
            .unwrap();
        pages += 1;
        for item in page.items() {
            seen.push(item["At"].as_n().unwrap().clone());
        }
        match page.last_evaluated_key() {
            Some(k) => start_key = Some(k.clone()),
            None => break,
        }
        assert!(pages < 10);
    }
    assert_eq!(seen, ["1", "2", "3", "4", "5", "6"]);
    assert!(pages >= 3);

    let odd = h
        .client
        .query()
        .table_name("Events")
        .index_name("ByKind")
        .key_condition_expression("#k = :k")
        .expression_attribute_names("#k", "Kind")
        .expression_attribute_values(":k", s("odd"))
        .scan_index_forward(false)
        .send()
        .await
        .unwrap();
    let ats: Vec<&str> = odd
        .items()
        .iter()
        .map(|i| i["At"].as_n().unwrap().as_str())
        .collect();
    assert_eq!(ats, ["5", "3", "1"]);
    assert_eq!(odd.count(), 3);

    let scanned = h
        .client
        .scan()
        .table_name("Events")
        .filter_expression("Kind = :k")
        .expression_attribute_values(":k", s("even"))
        .projection_expression("At")
        .send()
        .await
        .unwrap();
    assert_eq!(scanned.count(), 4);
    assert_eq!(scanned.scanned_count(), 7);
    assert!(scanned.items().iter().all(|i| i.len() == 1));
}

#[tokio::test]
async fn refuses_a_non_loopback_address() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let options = ServerOptions {
        listen: "0.0.0.0:0".parse().unwrap(),
        ..ServerOptions::default()
    };
    let err = Server::bind(engine, options).await.unwrap_err();
    assert!(err.to_string().contains("loopback"), "{err}");
}
