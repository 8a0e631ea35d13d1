//! The Lambda handler called directly: filter, sinks, and `batchItemFailures`
//! naming the first failed record (Lambda's ReportBatchItemFailures).

use crate::common;

use std::path::Path;

use aws_lambda_events::event::dynamodb::Event;
use serde_json::Value;
use ttlstream::Config;
use ttlstream::lambda::{HandlerError, LambdaHandler};

const EVENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/lambda-dynamodb-event.json"
);

fn lambda_config(dir: &Path) -> Config {
    lambda_config_with(dir, "")
}

/// The test config plus `extra` TOML (e.g. a dead-letter sink).
fn lambda_config_with(dir: &Path, extra: &str) -> Config {
    let filter =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/filters/ttl-system-deletes.json");
    let text = format!(
        r#"
[retry]
max_retries = 1
min_delay_millis = 1
max_delay_millis = 2

[[routes]]
name = "ttl-archive"
filter = "{}"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"
{}"#,
        filter.display(),
        extra
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, text).expect("write config");
    Config::load_lambda(&path).expect("lambda config")
}

fn event() -> Event {
    serde_json::from_str(&std::fs::read_to_string(EVENT).expect("fixture")).expect("event")
}

fn archived(dir: &Path) -> Vec<Value> {
    common::ndjson_lines(&dir.join("archive/SessionData"))
}

fn failures(response: &impl serde::Serialize) -> Value {
    serde_json::to_value(response).expect("response json")["batchItemFailures"].clone()
}

#[tokio::test]
async fn ttl_deletions_reach_the_sink_and_the_batch_succeeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let handler = LambdaHandler::new(&lambda_config(dir.path())).expect("handler");
    let (response, report) = handler.handle(event()).await.expect("handled");
    assert_eq!(failures(&response), serde_json::json!([]));
    assert_eq!(
        (report.records, report.matched, report.ttl_deletions),
        (5, 2, 2)
    );
    let ids: Vec<String> = archived(dir.path())
        .iter()
        .map(|r| r["eventID"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(
        ids,
        ["e2", "e5"],
        "TTL deletions only: not the insert, modify or user delete"
    );
    let record = &archived(dir.path())[0];
    assert_eq!(
        record["userIdentity"]["principalId"],
        "dynamodb.amazonaws.com"
    );
    assert_eq!(
        record["dynamodb"]["OldImage"]["ExpirationTime"]["N"],
        "1571827560"
    );
}

#[tokio::test]
async fn a_failing_sink_reports_the_first_record_it_held() {
    let dir = tempfile::tempdir().expect("tempdir");
    let handler = LambdaHandler::new(&lambda_config(dir.path())).expect("handler");
    // The table's archive directory cannot be created: a file is in the way.
    std::fs::create_dir_all(dir.path().join("archive")).expect("mkdir");
    std::fs::write(dir.path().join("archive/SessionData"), b"in the way").expect("write");
    let (response, report) = handler.handle(event()).await.expect("handled");
    // e1 (INSERT) went nowhere and is done; e2 is the first record a sink failed.
    assert_eq!(
        failures(&response),
        serde_json::json!([{"itemIdentifier": "111000000000000000000002"}])
    );
    assert_eq!(report.first_failed, Some(1));
}

#[tokio::test]
async fn an_unusable_record_is_reported_and_records_before_it_are_delivered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let handler = LambdaHandler::new(&lambda_config(dir.path())).expect("handler");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(EVENT).expect("fixture")).expect("json");
    // Record 3 (e4) lost its eventSourceARN: its table cannot be told.
    value["Records"][3]
        .as_object_mut()
        .map(|r| r.remove("eventSourceARN"));
    let event: Event = serde_json::from_value(value.clone()).expect("event");
    let (response, _) = handler.handle(event).await.expect("handled");
    assert_eq!(
        failures(&response),
        serde_json::json!([{"itemIdentifier": "111000000000000000000004"}])
    );
    let ids: Vec<String> = archived(dir.path())
        .iter()
        .map(|r| r["eventID"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(
        ids,
        ["e2"],
        "e2 is before the failure; e5 after it is left to the retry"
    );

    // Without a SequenceNumber the record cannot be named: the whole batch fails.
    value["Records"][3]["dynamodb"]
        .as_object_mut()
        .map(|d| d.remove("SequenceNumber"));
    let event: Event = serde_json::from_value(value).expect("event");
    let err = handler.handle(event).await.expect_err("whole batch");
    assert!(
        matches!(err, HandlerError::NoSequenceNumber { index: 3, .. }),
        "{err}"
    );
}

const DEAD_LETTER: &str = "
[sinks.dead-letters.file]
path = \"dlq\"

[dead_letter]
sink = \"dead-letters\"
";

#[tokio::test]
async fn with_a_dead_letter_sink_a_failing_sinks_records_become_dead_letters_and_the_batch_succeeds()
 {
    let dir = tempfile::tempdir().expect("tempdir");
    let handler =
        LambdaHandler::new(&lambda_config_with(dir.path(), DEAD_LETTER)).expect("handler");
    std::fs::create_dir_all(dir.path().join("archive")).expect("mkdir");
    std::fs::write(dir.path().join("archive/SessionData"), b"in the way").expect("write");
    let (response, report) = handler.handle(event()).await.expect("handled");
    assert_eq!(failures(&response), serde_json::json!([]));
    assert_eq!(report.first_failed, None);
    let letters = common::ndjson_lines(&dir.path().join("dlq/SessionData"));
    let ids: Vec<&str> = letters
        .iter()
        .map(|l| l["record"]["eventID"].as_str().expect("eventID"))
        .collect();
    assert_eq!(
        ids,
        ["e2", "e5"],
        "the TTL deletions the archive could not take"
    );
    for letter in &letters {
        assert_eq!(letter["sink"], "archive");
        let error = letter["error"].as_str().expect("error text");
        assert!(error.contains("archive"), "the sink's error: {error}");
    }
}

#[tokio::test]
async fn when_the_dead_letter_sink_fails_too_the_first_failed_record_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let handler =
        LambdaHandler::new(&lambda_config_with(dir.path(), DEAD_LETTER)).expect("handler");
    for blocked in ["archive", "dlq"] {
        std::fs::create_dir_all(dir.path().join(blocked)).expect("mkdir");
        std::fs::write(dir.path().join(blocked).join("SessionData"), b"in the way").expect("write");
    }
    let (response, report) = handler.handle(event()).await.expect("handled");
    assert_eq!(
        failures(&response),
        serde_json::json!([{"itemIdentifier": "111000000000000000000002"}])
    );
    assert_eq!(report.first_failed, Some(1));
}
