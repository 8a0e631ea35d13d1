//! The Tablestore JSON API (`POST /<Operation>`): request and response
//! shapes as TABLESTORE.md documents them, and the TTL behaviours through
//! the API. Its error codes: `tablestore_errors.rs`.
#![allow(clippy::unwrap_used)]

use super::support::{self, START_MILLIS};
use serde_json::{Value, json};
use std::time::Duration;

pub(super) const DAY_MILLIS: i64 = 86_400_000;

fn hours(n: u64) -> Duration {
    Duration::from_secs(n * 3_600)
}

/// POSTs `body` to `/<operation>`; returns the status and the JSON answer.
pub(super) async fn call(url: &str, operation: &str, body: &Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{url}/{operation}"))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Like [`call`], asserting HTTP 200.
pub(super) async fn ok(url: &str, operation: &str, body: &Value) -> Value {
    let (status, answer) = call(url, operation, body).await;
    assert_eq!(status, 200, "{operation} {body}: {answer}");
    answer
}

pub(super) fn create_body(table: &str, ttl: i64, max_versions: u32) -> Value {
    json!({
        "table_meta": {"table_name": table, "primary_key": [
            {"name": "user", "type": "STRING"},
            {"name": "seq", "type": "INTEGER"}
        ]},
        "reserved_throughput": {"capacity_unit": {"read": 0, "write": 0}},
        "table_options": {"time_to_live": ttl, "max_versions": max_versions,
                          "deviation_cell_version_in_sec": 86_400},
        "stream_spec": {"enable_stream": true}
    })
}

pub(super) fn pk(user: &str, seq: i64) -> Value {
    json!([{"name": "user", "value": {"STRING": user}}, {"name": "seq", "value": {"INTEGER": seq}}])
}

pub(super) fn get_body(table: &str, user: &str, seq: i64, max_versions: i64) -> Value {
    json!({"table_name": table, "primary_key": pk(user, seq), "max_versions": max_versions})
}

#[tokio::test]
async fn table_operations_answer_the_documented_shapes() {
    let h = support::start().await;
    assert_eq!(
        ok(&h.url, "CreateTable", &create_body("T", 86_400, 2)).await,
        json!({})
    );
    let described = ok(&h.url, "DescribeTable", &json!({"table_name": "T"})).await;
    assert_eq!(
        described,
        json!({
            "table_meta": {"table_name": "T", "primary_key": [
                {"name": "user", "type": "STRING"}, {"name": "seq", "type": "INTEGER"}]},
            "table_options": {"time_to_live": 86_400, "max_versions": 2,
                              "deviation_cell_version_in_sec": 86_400},
            "stream_details": {"enable_stream": true},
            "table_status": "ACTIVE"
        })
    );
    // UpdateTable keeps the options it is not given.
    let updated = ok(
        &h.url,
        "UpdateTable",
        &json!({"table_name": "T", "table_options": {"max_versions": 5}}),
    )
    .await;
    assert_eq!(
        updated,
        json!({"table_options": {"time_to_live": 86_400, "max_versions": 5,
                                 "deviation_cell_version_in_sec": 86_400}})
    );
    assert_eq!(
        ok(&h.url, "ListTable", &json!({})).await,
        json!({"table_names": ["T"]})
    );
    assert_eq!(
        ok(&h.url, "DeleteTable", &json!({"table_name": "T"})).await,
        json!({})
    );
    assert_eq!(
        ok(&h.url, "ListTable", &json!({})).await,
        json!({"table_names": []})
    );
}

#[tokio::test]
async fn rows_are_written_and_read_with_versions() {
    let h = support::start().await;
    ok(&h.url, "CreateTable", &create_body("T", -1, 3)).await;
    let t0 = START_MILLIS - 1_000;
    let put = json!({
        "table_name": "T",
        "row": {"primary_key": pk("a", 1), "attribute_columns": [
            {"name": "city", "value": {"STRING": "Hangzhou"}, "timestamp": t0},
            {"name": "score", "value": {"DOUBLE": 1.5}, "timestamp": t0},
            {"name": "ok", "value": {"BOOLEAN": true}, "timestamp": t0},
            {"name": "raw", "value": {"BINARY": "AAE="}, "timestamp": t0}
        ]},
        "condition": {"row_existence": "EXPECT_NOT_EXIST"},
        "return_content": {"return_type": "RT_PK"}
    });
    assert_eq!(
        ok(&h.url, "PutRow", &put).await,
        json!({"row": {"primary_key": pk("a", 1)}})
    );
    // UpdateRow: two more versions of `city`, one deleted; `ok` deleted entirely.
    let update = json!({
        "table_name": "T",
        "row_change": {"primary_key": pk("a", 1), "update_of_attribute_columns": {
            "PUT": [
                {"name": "city", "value": {"STRING": "Beijing"}, "timestamp": t0 + 1},
                {"name": "city", "value": {"STRING": "Shanghai"}, "timestamp": t0 + 2},
                {"name": "n", "value": {"INTEGER": 7}, "timestamp": t0}
            ],
            "DELETE": [{"name": "city", "timestamp": t0 + 1}],
            "DELETE_ALL": ["ok"]
        }},
        "condition": {"row_existence": "EXPECT_EXIST"}
    });
    assert_eq!(ok(&h.url, "UpdateRow", &update).await, json!({"row": null}));
    let row = ok(&h.url, "GetRow", &get_body("T", "a", 1, 3)).await;
    assert_eq!(
        row,
        json!({"row": {"primary_key": pk("a", 1), "attribute_columns": [
            {"name": "city", "value": {"STRING": "Shanghai"}, "timestamp": t0 + 2},
            {"name": "city", "value": {"STRING": "Hangzhou"}, "timestamp": t0},
            {"name": "n", "value": {"INTEGER": 7}, "timestamp": t0},
            {"name": "raw", "value": {"BINARY": "AAE="}, "timestamp": t0},
            {"name": "score", "value": {"DOUBLE": 1.5}, "timestamp": t0}
        ]}})
    );
    // columns_to_get and a time range.
    let narrow = json!({"table_name": "T", "primary_key": pk("a", 1),
        "columns_to_get": ["city"], "time_range": {"start_time": t0, "end_time": t0 + 1}});
    assert_eq!(
        ok(&h.url, "GetRow", &narrow).await,
        json!({"row": {"primary_key": pk("a", 1), "attribute_columns": [
            {"name": "city", "value": {"STRING": "Hangzhou"}, "timestamp": t0}]}})
    );
    let specific = json!({"table_name": "T", "primary_key": pk("a", 1),
        "columns_to_get": ["city"], "time_range": {"specific_time": t0 + 2}});
    let got = ok(&h.url, "GetRow", &specific).await;
    assert_eq!(
        got["row"]["attribute_columns"][0]["value"],
        json!({"STRING": "Shanghai"})
    );
    // DeleteRow, then the row is gone.
    let delete = json!({"table_name": "T", "primary_key": pk("a", 1),
        "condition": {"row_existence": "EXPECT_EXIST"}});
    assert_eq!(ok(&h.url, "DeleteRow", &delete).await, json!({"row": null}));
    assert_eq!(
        ok(&h.url, "GetRow", &get_body("T", "a", 1, 1)).await,
        json!({"row": null})
    );
}

#[tokio::test]
async fn get_range_pages_forward_and_backward() {
    let h = support::start().await;
    ok(&h.url, "CreateTable", &create_body("T", -1, 1)).await;
    for (user, seq) in [("a", 1), ("a", 2), ("a", 3), ("b", 1)] {
        let put = json!({"table_name": "T", "row": {"primary_key": pk(user, seq),
            "attribute_columns": [{"name": "v", "value": {"INTEGER": seq}}]}});
        ok(&h.url, "PutRow", &put).await;
    }
    let keys = |answer: &Value| -> Vec<Value> {
        answer["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["primary_key"].clone())
            .collect()
    };
    let range = |direction: &str, start: Value, end: Value, limit: i64| {
        json!({"table_name": "T", "direction": direction, "max_versions": 1, "limit": limit,
               "inclusive_start_primary_key": start, "exclusive_end_primary_key": end})
    };
    let a_min =
        json!([{"name": "user", "value": {"STRING": "a"}}, {"name": "seq", "value": "INF_MIN"}]);
    let a_max =
        json!([{"name": "user", "value": {"STRING": "a"}}, {"name": "seq", "value": "INF_MAX"}]);
    let page = ok(
        &h.url,
        "GetRange",
        &range("FORWARD", a_min.clone(), a_max.clone(), 2),
    )
    .await;
    assert_eq!(keys(&page), vec![pk("a", 1), pk("a", 2)]);
    assert_eq!(page["next_start_primary_key"], pk("a", 3));
    let page = ok(
        &h.url,
        "GetRange",
        &range("FORWARD", pk("a", 3), a_max.clone(), 2),
    )
    .await;
    assert_eq!(keys(&page), vec![pk("a", 3)]);
    assert_eq!(page["next_start_primary_key"], Value::Null);
    assert_eq!(
        page["rows"][0]["attribute_columns"][0]["value"],
        json!({"INTEGER": 3})
    );
    // Backward: the start is the larger key, the end (exclusive) the smaller.
    let all_max =
        json!([{"name": "user", "value": "INF_MAX"}, {"name": "seq", "value": "INF_MAX"}]);
    let page = ok(
        &h.url,
        "GetRange",
        &range("BACKWARD", all_max, pk("a", 1), 10),
    )
    .await;
    assert_eq!(keys(&page), vec![pk("b", 1), pk("a", 3), pk("a", 2)]);
}

#[tokio::test]
async fn expired_and_surplus_versions_hide_and_come_back() {
    let h = support::start().await;
    ok(&h.url, "CreateTable", &create_body("T", 86_400, 2)).await;
    let now = START_MILLIS;
    // Three versions of `c` over the last day, one of `d` an hour ago.
    let put = json!({"table_name": "T", "row": {"primary_key": pk("a", 1), "attribute_columns": [
        {"name": "c", "value": {"INTEGER": 1}, "timestamp": now - 20 * 3_600_000},
        {"name": "c", "value": {"INTEGER": 2}, "timestamp": now - 10 * 3_600_000},
        {"name": "c", "value": {"INTEGER": 3}, "timestamp": now - 3_600_000},
        {"name": "d", "value": {"INTEGER": 4}, "timestamp": now - 3_600_000}
    ]}});
    ok(&h.url, "PutRow", &put).await;
    let versions = |answer: &Value, column: &str| -> Vec<i64> {
        answer["row"]["attribute_columns"]
            .as_array()
            .map_or_else(Vec::new, |cols| {
                cols.iter()
                    .filter(|c| c["name"] == column)
                    .map(|c| c["value"]["INTEGER"].as_i64().unwrap())
                    .collect()
            })
    };
    // max_versions 2: the oldest version is hidden at once.
    let row = ok(&h.url, "GetRow", &get_body("T", "a", 1, 10)).await;
    assert_eq!(versions(&row, "c"), vec![3, 2]);
    // Raising max_versions brings it back (the sweeper has not run).
    let raise = json!({"table_name": "T", "table_options": {"max_versions": 3}});
    ok(&h.url, "UpdateTable", &raise).await;
    let row = ok(&h.url, "GetRow", &get_body("T", "a", 1, 10)).await;
    assert_eq!(versions(&row, "c"), vec![3, 2, 1]);
    // 5 hours later, version 1 (25 h old) is past the day's TTL.
    h.clock.advance(hours(5));
    let row = ok(&h.url, "GetRow", &get_body("T", "a", 1, 10)).await;
    assert_eq!(versions(&row, "c"), vec![3, 2]);
    // Raising time_to_live brings it back too.
    let longer = json!({"table_name": "T", "table_options": {"time_to_live": 2 * 86_400}});
    ok(&h.url, "UpdateTable", &longer).await;
    let row = ok(&h.url, "GetRow", &get_body("T", "a", 1, 10)).await;
    assert_eq!(versions(&row, "c"), vec![3, 2, 1]);
    ok(
        &h.url,
        "UpdateTable",
        &json!({"table_name": "T", "table_options": {"time_to_live": 86_400}}),
    )
    .await;
    // A day after the newest versions, every cell has expired: the row is
    // hidden, and the sweeper removes it (until then, it stays stored).
    h.clock.advance(hours(20) + Duration::from_millis(1));
    assert_eq!(
        ok(&h.url, "GetRow", &get_body("T", "a", 1, 1)).await,
        json!({"row": null})
    );
    let swept = reqwest::Client::new()
        .post(format!("{}/_ttlstream/sweep", h.url))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(swept["Deleted"], 1, "{swept}");
}

#[tokio::test]
async fn a_row_stays_while_one_cell_lives() {
    let h = support::start().await;
    ok(&h.url, "CreateTable", &create_body("T", 86_400, 1)).await;
    let now = START_MILLIS;
    let put = json!({"table_name": "T", "row": {"primary_key": pk("a", 1), "attribute_columns": [
        {"name": "old", "value": {"INTEGER": 1}, "timestamp": now - 20 * 3_600_000},
        {"name": "new", "value": {"INTEGER": 2}, "timestamp": now}
    ]}});
    ok(&h.url, "PutRow", &put).await;
    h.clock.advance(hours(5));
    let swept = reqwest::Client::new()
        .post(format!("{}/_ttlstream/sweep", h.url))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(swept["Deleted"], 0, "{swept}");
    let row = ok(&h.url, "GetRow", &get_body("T", "a", 1, 1)).await;
    assert_eq!(
        row["row"]["attribute_columns"],
        json!([{"name": "new", "value": {"INTEGER": 2}, "timestamp": now}])
    );
}

#[tokio::test]
async fn stream_operations_return_the_change_records() {
    let h = support::start().await;
    ok(&h.url, "CreateTable", &create_body("T", 86_400, 1)).await;
    let now = START_MILLIS;
    let put = |v: i64| {
        json!({"table_name": "T", "row": {"primary_key": pk("a", 1),
            "attribute_columns": [{"name": "c", "value": {"INTEGER": v}, "timestamp": now}]}})
    };
    ok(&h.url, "PutRow", &put(1)).await;
    ok(&h.url, "PutRow", &put(2)).await;
    ok(
        &h.url,
        "DeleteRow",
        &json!({"table_name": "T", "primary_key": pk("a", 1)}),
    )
    .await;
    assert_eq!(
        ok(&h.url, "ListStream", &json!({})).await,
        json!({"streams": [{"stream_id": "T", "table_name": "T"}]})
    );
    let described = ok(&h.url, "DescribeStream", &json!({"stream_id": "T"})).await;
    let shard = described["shards"][0]["shard_id"].clone();
    assert_eq!(
        described,
        json!({"stream_id": "T", "table_name": "T", "stream_status": "STREAM_ACTIVE",
               "shards": [{"shard_id": shard}]})
    );
    let iterator = ok(
        &h.url,
        "GetShardIterator",
        &json!({"stream_id": "T", "shard_id": shard}),
    )
    .await;
    let page = ok(
        &h.url,
        "GetStreamRecord",
        &json!({"shard_iterator": iterator["shard_iterator"], "limit": 2}),
    )
    .await;
    let record = |action: &str, seq: u64, value: i64| {
        json!({"action_type": action, "sequence_number": seq, "origin_record_timestamp": now,
               "record": {"primary_key": pk("a", 1),
                          "attribute_columns": [{"name": "c", "value": {"INTEGER": value}}]}})
    };
    // Sequence number 1 is the start of the stream's first shard, which no
    // record has (as a DynamoDB stream's).
    assert_eq!(
        page["stream_records"],
        json!([record("PUT_ROW", 2, 1), record("UPDATE_ROW", 3, 2)])
    );
    let page = ok(
        &h.url,
        "GetStreamRecord",
        &json!({"shard_iterator": page["next_shard_iterator"]}),
    )
    .await;
    assert_eq!(page["stream_records"], json!([record("DELETE_ROW", 4, 2)]));
    let (status, answer) = call(&h.url, "DescribeStream", &json!({"stream_id": "Nope"})).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (404, Some("OTSObjectNotExist"))
    );
}
