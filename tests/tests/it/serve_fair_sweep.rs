//! `ttlstream serve`'s sweeper shares each pass between tables: a table
//! with 10 expired items is swept within three passes while another table
//! holds a hundred passes' worth of expired items (issue "Fair sweeping in
//! serve": 10 items beside 1,000,000 at the default 10,000 deletions per
//! pass; here the same proportion at `--max-deletes-per-sweep 100`, because
//! a debug build takes minutes to write a million items and the server
//! longer to recover them; the default itself is checked in `serve.rs`'s
//! unit tests, and the sidecar's sweeper at the default in
//! `sources/engine/tests.rs`).
//!
//! The data directory is filled through the engine's library API, then
//! `ttlstream serve` (a process, one-hour `--sweep-interval`) opens it and
//! starts sweeping. Which deletions came first is read from the DynamoDB
//! Streams API: sequence numbers come from one engine-wide counter, so they
//! order the REMOVE records of both tables. No timing: the test counts the
//! big table's deletions made before the small table's last one, against
//! three passes' budget.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use aws_config::SdkConfig;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use ttlstream::sources::dynamodb_streams::compare_sequence_numbers;
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, Item, ScalarAttributeType, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};
use ttlstream_tests::dynamodb::{sdk_config, serve};

const HOT: &str = "Hot";
const SMALL: &str = "Small";
const PER_PASS: usize = 100;
const HOT_ITEMS: usize = 100 * PER_PASS;
const SMALL_ITEMS: usize = 10;

/// Writes `count` items expired a minute ago (wall clock) into a new table
/// with TTL on `ExpirationTime`, then enables its stream (KEYS_ONLY), so
/// that the stream holds the TTL deletions only.
fn fill(engine: &Engine, table: &str, count: usize) {
    engine
        .dynamodb()
        .create_table(TableDefinition::new(
            table,
            "UserName",
            ScalarAttributeType::S,
        ))
        .expect("CreateTable");
    engine
        .dynamodb()
        .update_time_to_live(table, TimeToLiveSpecification::enabled("ExpirationTime"))
        .expect("UpdateTimeToLive");
    let expired = (engine.clock().now_millis() / 1000 - 60).to_string();
    for first in (0..count).step_by(1_000) {
        let items: Vec<Item> = (first..count.min(first + 1_000))
            .map(|i| {
                Item::from(HashMap::from([
                    (
                        "UserName".to_string(),
                        AttributeValue::S(format!("u{i:07}")),
                    ),
                    (
                        "ExpirationTime".to_string(),
                        AttributeValue::N(expired.clone()),
                    ),
                ]))
            })
            .collect();
        engine
            .dynamodb()
            .put_items(table, items)
            .expect("put_items");
    }
    engine
        .dynamodb()
        .update_stream(table, Some(StreamViewType::KeysOnly))
        .expect("enable the stream");
}

/// The sequence numbers of `table`'s first shard's records, read from
/// TRIM_HORIZON until one is past `until` (or, with `None`, until a read
/// returns nothing).
async fn sequence_numbers(sdk: &SdkConfig, table: &str, until: Option<&str>) -> Vec<String> {
    let streams = aws_sdk_dynamodbstreams::Client::new(sdk);
    let arn = streams
        .list_streams()
        .table_name(table)
        .send()
        .await
        .expect("ListStreams")
        .streams
        .and_then(|s| s.into_iter().next())
        .and_then(|s| s.stream_arn)
        .expect("the table's stream");
    let shard = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .expect("DescribeStream")
        .stream_description
        .and_then(|d| d.shards)
        .and_then(|s| s.into_iter().next())
        .and_then(|s| s.shard_id)
        .expect("a shard");
    let mut iterator = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard)
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .expect("GetShardIterator")
        .shard_iterator;
    let mut numbers = Vec::new();
    while let Some(it) = iterator {
        let out = streams
            .get_records()
            .shard_iterator(it)
            .send()
            .await
            .expect("GetRecords");
        let records = out.records.unwrap_or_default();
        if records.is_empty() {
            break;
        }
        for record in records {
            let number = record
                .dynamodb
                .and_then(|d| d.sequence_number)
                .expect("SequenceNumber");
            let past =
                until.is_some_and(|u| compare_sequence_numbers(&number, u) == Ordering::Greater);
            numbers.push(number);
            if past {
                return numbers;
            }
        }
        iterator = out.next_shard_iterator;
    }
    numbers
}

#[tokio::test]
async fn a_few_expired_items_are_swept_within_three_passes_beside_a_hundred_passes_worth() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    {
        let engine = Engine::open(&data, EngineOptions::default()).expect("engine");
        // `Hot` comes first in name order: it leads the first pass.
        fill(&engine, HOT, HOT_ITEMS);
        fill(&engine, SMALL, SMALL_ITEMS);
        engine.close().expect("close");
    }
    let per_pass = PER_PASS.to_string();
    let server = serve(
        Path::new(env!("CARGO_BIN_EXE_ttlstream-e2e")),
        &data,
        &["--max-deletes-per-sweep", &per_pass],
    );
    let sdk = sdk_config(&server.endpoint());

    // The sweeper starts with the server; wait (bounded) for Small's ten.
    let deadline = Instant::now() + Duration::from_secs(300);
    let small = loop {
        let small = sequence_numbers(&sdk, SMALL, None).await;
        if small.len() == SMALL_ITEMS {
            break small;
        }
        assert!(
            Instant::now() < deadline,
            "Small's expired items were not swept: {} of {SMALL_ITEMS}",
            small.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let small_last = small
        .iter()
        .max_by(|a, b| compare_sequence_numbers(a, b))
        .expect("10");
    let hot = sequence_numbers(&sdk, HOT, Some(small_last)).await;
    let hot_first = hot
        .iter()
        .filter(|s| compare_sequence_numbers(s, small_last) == Ordering::Less)
        .count();
    assert!(
        hot_first < 3 * PER_PASS,
        "{hot_first} of Hot's deletions came before Small's last: more than three passes of {PER_PASS}"
    );
}
