//! A Tablestore table's stream through the JSON API is split into the
//! engine's shards: DescribeStream lists them parent first, each child
//! naming its `parent_id` ("Tablestore: StreamShard"), and reading each
//! shard until `next_shard_iterator` is null, parent before child ("Tablestore:
//! DescribeStream"), gives every record once, in order.
#![allow(clippy::unwrap_used)]

use super::support;
use super::tablestore::{create_body, ok, pk};
use serde_json::{Value, json};
use ttlstream_engine::StreamOptions;

#[tokio::test]
async fn describe_stream_lists_the_rotated_shards_and_each_is_read_to_its_end() {
    let stream = StreamOptions {
        max_records_per_shard: 2,
        ..StreamOptions::default()
    };
    let h = support::start_with_stream(stream, |_| {}).await;
    ok(&h.url, "CreateTable", &create_body("T", 86_400, 1)).await;
    for seq in 0..5 {
        let row = json!({"table_name": "T", "row": {"primary_key": pk("a", seq),
            "attribute_columns": [{"name": "c", "value": {"INTEGER": seq}}]}});
        ok(&h.url, "PutRow", &row).await;
    }
    let described = ok(&h.url, "DescribeStream", &json!({"stream_id": "T"})).await;
    let shards = described["shards"].as_array().unwrap().clone();
    assert_eq!(shards.len(), 3, "{described}");
    assert!(shards[0].get("parent_id").is_none());
    assert_eq!(shards[1]["parent_id"], shards[0]["shard_id"]);
    assert_eq!(shards[2]["parent_id"], shards[1]["shard_id"]);
    let mut per_shard = Vec::new();
    let mut seqs = Vec::new();
    for shard in &shards {
        let start = json!({"stream_id": "T", "shard_id": shard["shard_id"]});
        let mut iterator = ok(&h.url, "GetShardIterator", &start).await["shard_iterator"].clone();
        let mut read = 0;
        loop {
            let body = json!({"shard_iterator": iterator, "limit": 1});
            let page = ok(&h.url, "GetStreamRecord", &body).await;
            let records = page["stream_records"].as_array().unwrap();
            read += records.len();
            seqs.extend(
                records
                    .iter()
                    .map(|r| r["record"]["primary_key"][1]["value"].clone()),
            );
            match &page["next_shard_iterator"] {
                Value::Null => break,
                // The open shard: caught up.
                _ if records.is_empty() => break,
                next => iterator = next.clone(),
            }
        }
        per_shard.push(read);
    }
    assert_eq!(per_shard, [2, 2, 1]);
    let expected: Vec<Value> = (0..5).map(|seq| json!({"INTEGER": seq})).collect();
    assert_eq!(seqs, expected, "every record once, in order");
    let bad = json!({"stream_id": "T", "shard_id": "0"});
    let (status, answer) = super::tablestore::call(&h.url, "GetShardIterator", &bad).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("OTSParameterInvalid"))
    );
}
