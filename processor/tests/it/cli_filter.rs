//! `ttlstream filter test | check | match`: output, exit codes and dialects.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::common::{TTL_FILTER, stderr, stdout};

const TTL_REMOVE: &str = r#"{"eventName":"REMOVE","dynamodb":{"Keys":{"pk":{"S":"a"}}},"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}}"#;
const USER_REMOVE: &str = r#"{"eventName":"REMOVE","dynamodb":{"Keys":{"pk":{"S":"a"}}}}"#;
const INSERT: &str = r#"{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"b"}}}}"#;

const WILDCARD: &str = r#"{"source": [{"wildcard": "aws.*"}]}"#;

/// Runs `ttlstream` in a fresh directory holding `files`, with `stdin` piped in.
fn ttlstream(args: &[&str], files: &[(&str, &str)], stdin: Option<&str>) -> Output {
    let dir: PathBuf = tempfile::tempdir().expect("tempdir").keep();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write fixture");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .current_dir(&dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ttlstream");
    let mut pipe = child.stdin.take().expect("stdin");
    // The command may exit (bad pattern) before reading: a closed pipe is fine.
    let _ = pipe.write_all(stdin.unwrap_or("").as_bytes());
    drop(pipe);
    child.wait_with_output().expect("wait")
}

#[test]
fn test_rejects_an_eventbridge_operator_under_lambda_and_accepts_it_under_eventbridge() {
    let files = [("p.json", WILDCARD), ("e.json", r#"{"source": "aws.s3"}"#)];
    let base = ["filter", "test", "--pattern", "p.json", "--event", "e.json"];
    let out = ttlstream(&base, &files, None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("wildcard"), "{}", stderr(&out));
    assert!(stderr(&out).contains("lambda"), "{}", stderr(&out));

    let mut args = base.to_vec();
    args.extend(["--dialect", "eventbridge"]);
    let out = ttlstream(&args, &files, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "true\n");
}

#[test]
fn check_prints_each_filter_in_normal_form() {
    let criteria = r#"{"Filters": [
        {"Pattern": "{\"b\": [{\"anything-but\": \"x\"}], \"a\": [1]}"},
        {"Pattern": "{\"eventName\": [\"REMOVE\"]}"}
    ]}"#;
    let out = ttlstream(
        &["filter", "check", "f.json"],
        &[("f.json", criteria)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"a\":[1],\"b\":[{\"anything-but\":[\"x\"]}]}\n{\"eventName\":[\"REMOVE\"]}\n"
    );
}

#[test]
fn check_output_parses_back_to_the_same_filters() {
    let out = ttlstream(
        &["filter", "check", "f.json"],
        &[("f.json", TTL_FILTER)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let normal = stdout(&out);
    let again = ttlstream(
        &["filter", "check", "n.json"],
        &[("n.json", normal.trim_end())],
        None,
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), normal);
}

#[test]
fn check_names_the_filter_and_path_of_an_error() {
    let criteria =
        r#"{"Filters": [{"Pattern": "{\"a\": [1]}"}, {"Pattern": "{\"a\": {\"b\": 2}}"}]}"#;
    let out = ttlstream(
        &["filter", "check", "f.json"],
        &[("f.json", criteria)],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("f.json"), "{err}");
    assert!(err.contains("Filters[1].Pattern: $.a.b"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn check_with_the_eventbridge_dialect_accepts_wildcard() {
    let out = ttlstream(
        &["filter", "check", "--dialect", "eventbridge", "f.json"],
        &[("f.json", WILDCARD)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "{\"source\":[{\"wildcard\":\"aws.*\"}]}\n");
}

#[test]
fn match_reads_stdin_and_prints_one_answer_per_event() {
    let events = format!("{TTL_REMOVE}\n{USER_REMOVE}\n\n{INSERT}\n{TTL_REMOVE}");
    let out = ttlstream(
        &["filter", "match", "--pattern", "p.json"],
        &[("p.json", TTL_FILTER)],
        Some(&events),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "true\nfalse\nfalse\ntrue\n");
}

#[test]
fn match_reads_a_file() {
    let events = format!("{INSERT}\n{TTL_REMOVE}\n");
    let out = ttlstream(
        &["filter", "match", "--pattern", "p.json", "events.ndjson"],
        &[("p.json", TTL_FILTER), ("events.ndjson", &events)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "false\ntrue\n");
}

#[test]
fn match_stops_at_a_malformed_event_naming_its_line() {
    let events = format!("{TTL_REMOVE}\n{{\"eventName\": \n{INSERT}\n");
    let out = ttlstream(
        &["filter", "match", "--pattern", "p.json", "events.ndjson"],
        &[("p.json", TTL_FILTER), ("events.ndjson", &events)],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "true\n");
    // The position is within the event's own line, where serde_json puts it.
    let Err(expected) = serde_json::from_str::<serde_json::Value>("{\"eventName\": ") else {
        panic!("the malformed event parsed");
    };
    let position = format!(
        "events.ndjson:2: event is not valid JSON at line {} column {}: EOF while parsing",
        expected.line(),
        expected.column()
    );
    assert!(stderr(&out).contains(&position), "{}", stderr(&out));
}

#[test]
fn match_with_an_invalid_pattern_exits_2_before_reading_events() {
    let out = ttlstream(
        &["filter", "match", "--pattern", "p.json"],
        &[("p.json", r#"{"eventName": "REMOVE"}"#)],
        Some(TTL_REMOVE),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("p.json"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

#[test]
fn match_with_a_missing_events_file_exits_2() {
    let out = ttlstream(
        &["filter", "match", "--pattern", "p.json", "nope.ndjson"],
        &[("p.json", TTL_FILTER)],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope.ndjson"), "{}", stderr(&out));
}

/// What AWS accepts and how it matches, from the command line: `prefix` with
/// `equals-ignore-case` is Lambda's too ("Pipe support: Yes" in
/// EventBridge's "Comparison operators" table), a key with a dot names a
/// nested field, `anything-but` takes a list of prefixes, and an operator
/// name cannot name a field inside `$or` (`filters/PATTERNS.md`, "Service
/// behaviours").
#[test]
fn test_follows_the_service_on_the_pattern_language() {
    for (pattern, event, dialect, answer) in [
        (
            r#"{"service": [{"prefix": {"equals-ignore-case": "eventb"}}]}"#,
            r#"{"service": "EventBridge"}"#,
            "lambda",
            "true\n",
        ),
        (
            r#"{"detail": {"state": {"status": ["running"]}}}"#,
            r#"{"detail": {"state.status": "running"}}"#,
            "lambda",
            "true\n",
        ),
        (
            r#"{"Region": [{"anything-but": {"prefix": ["us-", "eu-"]}}]}"#,
            r#"{"Region": "eu-west-1"}"#,
            "eventbridge",
            "false\n",
        ),
    ] {
        let files = [("p.json", pattern), ("e.json", event)];
        let args = [
            "filter",
            "test",
            "--pattern",
            "p.json",
            "--event",
            "e.json",
            "--dialect",
            dialect,
        ];
        let out = ttlstream(&args, &files, None);
        assert_eq!(out.status.code(), Some(0), "{pattern}: {}", stderr(&out));
        assert_eq!(stdout(&out), answer, "{pattern}");
    }
    let files = [
        ("p.json", r#"{"$or": [{"prefix": ["x"]}, {"b": ["y"]}]}"#),
        ("e.json", r#"{"prefix": "x"}"#),
    ];
    let args = ["filter", "test", "--pattern", "p.json", "--event", "e.json"];
    let out = ttlstream(&args, &files, None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            r#"$.$or[0].prefix: "prefix" is a reserved word and cannot name a field inside $or"#
        ),
        "{}",
        stderr(&out)
    );
}
