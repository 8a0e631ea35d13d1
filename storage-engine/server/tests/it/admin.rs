//! The admin paths for tests (`/_ttlstream/sweep`, `/_ttlstream/clock`):
//! sweep now, read and move a manual clock, refuse bad bodies.

#![allow(clippy::unwrap_used)]

use crate::support;

use serde_json::{Value, json};
use support::{START_MILLIS, create_simple, n, s, start, start_with};

async fn post(url: &str, path: &str, body: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{url}{path}"))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_advance_then_sweep_deletes_the_expired_item() {
    let h = start().await;
    create_simple(&h.client, "Sessions").await;
    support::enable_ttl(&h.client, "Sessions", "Exp").await;
    // Expires one minute after the clock's start.
    let expiry_secs = START_MILLIS / 1000 + 60;
    h.client
        .put_item()
        .table_name("Sessions")
        .item("Id", s("a"))
        .item("Exp", n(expiry_secs))
        .send()
        .await
        .unwrap();

    assert_eq!(
        post(&h.url, "/_ttlstream/sweep", "").await,
        (200, json!({"Deleted": 0, "RecordsTrimmed": 0}))
    );
    let (status, body) = post(&h.url, "/_ttlstream/clock", r#"{"AdvanceMillis":61000}"#).await;
    assert_eq!(
        (status, body["EpochMillis"].as_i64()),
        (200, Some(START_MILLIS + 61_000))
    );
    assert_eq!(h.engine.clock().now_millis(), START_MILLIS + 61_000);
    assert_eq!(
        post(&h.url, "/_ttlstream/sweep", "").await,
        (200, json!({"Deleted": 1, "RecordsTrimmed": 0}))
    );
    let got = h
        .client
        .get_item()
        .table_name("Sessions")
        .key("Id", s("a"))
        .send()
        .await
        .unwrap();
    assert!(got.item().is_none());

    // Set to an instant; read it back with GET.
    let (status, _) = post(&h.url, "/_ttlstream/clock", r#"{"EpochMillis":5}"#).await;
    assert_eq!(status, 200);
    let read: Value = reqwest::get(format!("{}/_ttlstream/clock", h.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(read, json!({"EpochMillis": 5}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_clock_requests_are_validation_errors() {
    let h = start().await;
    for body in [
        "",
        "{}",
        r#"{"AdvanceMillis":-1}"#,
        r#"{"AdvanceMillis":1,"EpochMillis":2}"#,
        r#"{"Advance":1}"#,
        "[1]",
    ] {
        let (status, json) = post(&h.url, "/_ttlstream/clock", body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            json["__type"], "com.amazonaws.dynamodb.v20120810#ValidationException",
            "{body}"
        );
    }
    assert_eq!(h.engine.clock().now_millis(), START_MILLIS);

    // A server whose engine clock is not manual cannot move it.
    let system = start_with(|o| o.manual_clock = None).await;
    let (status, json) = post(&system.url, "/_ttlstream/clock", r#"{"AdvanceMillis":1}"#).await;
    assert_eq!(status, 400);
    assert!(json["message"].as_str().unwrap().contains("--clock manual"));
}
