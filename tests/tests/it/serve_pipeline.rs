//! `ttlstream serve --pipeline`: a table created and written over HTTP,
//! expired by the served engine's sweeper, and archived by the pipeline
//! running in the same process (a separate sidecar cannot open a data
//! directory `serve` has open). The archive holds exactly the TTL
//! deletions, with their system tags, and not a user's own deletion.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use ttlstream_tests::server::ServerProcess;
use ttlstream_tests::{read_archive, wait_until};

const HOUR_MILLIS: i64 = 3_600_000;

/// Writes the pipeline config `serve` runs: `table` of `model`, routed
/// through `filter` (a file of `deploy/filters/`) to a file sink.
fn pipeline_config(dir: &Path, table: &str, model: &str, filter: &str) -> std::path::PathBuf {
    let filter = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy/filters")
        .join(filter);
    let text = format!(
        r#"
[source.engine]
table = "{table}"
model = "{model}"

[checkpoint]
dir = "state"

[batch]
poll_interval_millis = 20

[[routes]]
name = "ttl"
filter = "{filter}"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"

[sinks.archive.file.batch]
max_age_millis = 50
"#,
        filter = filter.display()
    );
    let path = dir.join("pipeline.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

fn start_serve(dir: &Path, config: &Path) -> ServerProcess {
    ServerProcess::serve_manual_clock(
        Path::new(env!("CARGO_BIN_EXE_ttlstream-e2e")),
        &dir.join("data"),
        &["--pipeline", config.to_str().expect("utf-8 path")],
    )
}

/// POSTs `body` to `endpoint` + `path`; panics unless the answer is 200.
async fn post(client: &reqwest::Client, endpoint: &str, path: &str, body: Value) -> Value {
    let response = client
        .post(format!("{endpoint}{path}"))
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status();
    let answer: Value = response.json().await.unwrap_or(Value::Null);
    assert_eq!(status, 200, "{path} {body}: {answer}");
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tablestore_table_served_and_archived_in_one_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = pipeline_config(
        dir.path(),
        "Sessions",
        "tablestore",
        "tablestore-ttl-deletes.json",
    );
    let server = start_serve(dir.path(), &config);
    let endpoint = server.endpoint();
    let client = reqwest::Client::new();
    post(
        &client,
        &endpoint,
        "/CreateTable",
        json!({
            "table_meta": {"table_name": "Sessions", "primary_key": [{"name": "user", "type": "STRING"}]},
            "reserved_throughput": {"capacity_unit": {"read": 0, "write": 0}},
            "table_options": {"time_to_live": 86400, "max_versions": 1},
            "stream_spec": {"enable_stream": true},
        }),
    )
    .await;
    let now = post(
        &client,
        &endpoint,
        "/_ttlstream/clock",
        json!({"AdvanceMillis": 0}),
    )
    .await["EpochMillis"]
        .as_i64()
        .expect("EpochMillis");
    let row = |user: &str, age_millis: i64| {
        json!({"table_name": "Sessions", "row": {
            "primary_key": [{"name": "user", "value": {"STRING": user}}],
            "attribute_columns": [{"name": "visits", "value": {"INTEGER": 1}, "timestamp": now - age_millis}],
        }})
    };
    let expiring: BTreeSet<String> = (0..5).map(|i| format!("old{i}")).collect();
    for user in &expiring {
        post(&client, &endpoint, "/PutRow", row(user, 20 * HOUR_MILLIS)).await;
    }
    for user in ["fresh", "deleted-by-user"] {
        post(&client, &endpoint, "/PutRow", row(user, 0)).await;
    }
    post(
        &client,
        &endpoint,
        "/DeleteRow",
        json!({"table_name": "Sessions", "primary_key": [{"name": "user", "value": {"STRING": "deleted-by-user"}}]}),
    )
    .await;
    post(
        &client,
        &endpoint,
        "/_ttlstream/clock",
        json!({"AdvanceMillis": 5 * HOUR_MILLIS}),
    )
    .await;
    let swept = post(&client, &endpoint, "/_ttlstream/sweep", json!({})).await;
    assert_eq!(swept["Deleted"], 5, "{swept}");

    let archive = dir.path().join("archive/Sessions");
    let archived = wait_until(Duration::from_secs(60), || {
        read_archive(&archive).len() >= expiring.len()
    });
    let records = read_archive(&archive);
    assert!(archived, "archived {} of 5: {records:?}", records.len());
    // The user's DeleteRow precedes the sweep's records in the stream, so
    // by now the pipeline has read (and dropped) it.
    let users: BTreeSet<String> = records
        .iter()
        .map(|r| {
            assert_eq!(r["eventName"], "REMOVE", "{r}");
            assert_eq!(
                r["userIdentity"],
                json!({"principalId": "dynamodb.amazonaws.com", "type": "Service"}),
                "{r}"
            );
            r["dynamodb"]["Keys"]["user"]["S"]
                .as_str()
                .expect("user key")
                .to_string()
        })
        .collect();
    assert_eq!(users, expiring);
    assert_eq!(
        records.len(),
        expiring.len(),
        "each deletion once: {records:?}"
    );
}
