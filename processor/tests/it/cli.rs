//! The `ttlstream` command's contract: output and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{TTL_FILTER, stderr, stdout};

const TTL_REMOVE: &str = r#"{"eventID":"1","eventName":"REMOVE","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
  "dynamodb":{"ApproximateCreationDateTime":1571827561,"Keys":{"UserName":{"S":"user1"},"SessionId":{"S":"74686572652773"}},
  "OldImage":{"UserName":{"S":"user1"},"SessionId":{"S":"74686572652773"},"ExpirationTime":{"N":"1571827560"}},
  "SequenceNumber":"000000000000000000042","SizeBytes":80,"StreamViewType":"OLD_IMAGE"},
  "userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}}"#;

fn ttlstream(args: &[&str], files: &[(&str, &str)]) -> (Output, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir").keep();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write fixture");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .current_dir(&dir)
        .args(args)
        .output()
        .expect("run ttlstream");
    (output, dir)
}

#[test]
fn filter_test_prints_true_for_a_ttl_deletion() {
    let (out, _) = ttlstream(
        &["filter", "test", "--pattern", "p.json", "--event", "e.json"],
        &[("p.json", TTL_FILTER), ("e.json", TTL_REMOVE)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "true\n");
}

#[test]
fn filter_test_prints_false_for_a_user_deletion() {
    let mut event: serde_json::Value = serde_json::from_str(TTL_REMOVE).expect("fixture");
    event
        .as_object_mut()
        .expect("object")
        .remove("userIdentity");
    let user_remove = event.to_string();
    let (out, _) = ttlstream(
        &["filter", "test", "--pattern", "p.json", "--event", "e.json"],
        &[("p.json", TTL_FILTER), ("e.json", &user_remove)],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "false\n");
}

#[test]
fn invalid_pattern_exits_2_naming_file_and_path() {
    let (out, _) = ttlstream(
        &["filter", "test", "--pattern", "p.json", "--event", "e.json"],
        &[
            ("p.json", r#"{"userIdentity":{"type":"Service"}}"#),
            ("e.json", TTL_REMOVE),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("p.json"), "{err}");
    assert!(err.contains("userIdentity.type"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn malformed_event_exits_2() {
    let (out, _) = ttlstream(
        &["filter", "test", "--pattern", "p.json", "--event", "e.json"],
        &[("p.json", TTL_FILTER), ("e.json", "{\"eventName\": ")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("e.json"), "{}", stderr(&out));
}

#[test]
fn run_with_a_typo_in_the_config_exits_2_naming_key_and_file() {
    let config = "[source.engine]\ndata_dir = \"data\"\ntable = \"T\"\n\n[checkpoint]\ndir = \"state\"\nretention = 3\n";
    let (out, dir) = ttlstream(&["run", "--config", "ttl.toml"], &[("ttl.toml", config)]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("ttl.toml"), "{err}");
    assert!(err.contains("retention"), "{err}");
    assert!(
        !Path::new(&dir.join("data")).exists(),
        "nothing is opened on a bad config"
    );
}

#[test]
fn run_against_a_missing_table_fails_with_the_table_name() {
    // `create = true`: an empty engine, so the table is what is missing.
    let config = "[engine]\ndata_dir = \"data\"\nsweep_interval_millis = 0\ncreate = true\n\n[source.engine]\ntable = \"Nope\"\n\n[checkpoint]\ndir = \"state\"\n";
    let (out, _) = ttlstream(&["run", "--config", "ttl.toml"], &[("ttl.toml", config)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("table `Nope` not found in engine data directory data (tables there: none)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn serve_refuses_a_non_loopback_address() {
    let (output, _dir) = ttlstream(&["serve", "--listen", "0.0.0.0:0"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("loopback"), "{}", stderr(&output));
}

#[test]
fn serve_refuses_malformed_credentials() {
    let (output, _dir) = ttlstream(
        &[
            "serve",
            "--listen",
            "0.0.0.0:0",
            "--credentials",
            "no-colon",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("ACCESS_KEY_ID:SECRET_ACCESS_KEY"),
        "{}",
        stderr(&output)
    );
}
