//! The `file` source through the pipeline: replays of Lambda- and
//! GetRecords-shaped NDJSON, resume from the line/byte checkpoint, malformed
//! lines named by file and line.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;
use ttlstream::{Config, Pipeline, PipelineError};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/replay.ndjson");

fn filter_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/filters/ttl-system-deletes.json")
}

fn config(dir: &Path, input: &Path, extra: &str) -> Config {
    let text = format!(
        r#"
[source.file]
path = "{input}"
table = "SessionData"
{extra}

[checkpoint]
dir = "{dir}/state"

[batch]
max_records = 2

[retry]
max_retries = 0
max_elapsed_secs = 0

[[routes]]
name = "ttl"
filter = "{filter}"
sinks = ["archive"]

[sinks.archive.file]
path = "{dir}/archive"
"#,
        input = input.display(),
        dir = dir.display(),
        filter = filter_file().display(),
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, text).expect("write config");
    Config::load(&path).expect("config")
}

/// Every archived record's `eventID`, in file-name order.
fn archived_ids(dir: &Path) -> Vec<String> {
    common::ndjson_lines(&dir.join("archive/SessionData"))
        .iter()
        .map(|v| v["eventID"].as_str().expect("eventID").to_string())
        .collect()
}

async fn run_to_end(config: &Config) -> Result<ttlstream::metrics::PipelineStats, PipelineError> {
    let mut pipeline = Pipeline::build(config).await?;
    pipeline.run(std::future::pending()).await
}

#[tokio::test]
async fn replays_ttl_deletions_of_both_shapes_and_resumes_after_the_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("replay.ndjson");
    std::fs::copy(FIXTURE, &input).expect("copy fixture");
    let config = config(dir.path(), &input, "");

    let stats = run_to_end(&config)
        .await
        .expect("run ends at the end of the file");
    assert_eq!(stats.records_read, 6, "{stats:?}");
    assert_eq!(stats.ttl_deletions, 3, "{stats:?}");
    // Lambda casing (a2, a6), GetRecords casing (a4); not the user delete a3.
    assert_eq!(archived_ids(dir.path()), ["a2", "a4", "a6"]);
    let archived = std::fs::read_to_string(
        std::fs::read_dir(dir.path().join("archive/SessionData"))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"a4\"")))
            .expect("a4 archived"),
    )
    .expect("read");
    let a4: Value = serde_json::from_str(
        archived
            .lines()
            .find(|l| l.contains("\"a4\""))
            .expect("line"),
    )
    .expect("json");
    assert_eq!(
        a4["userIdentity"],
        serde_json::json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"}),
        "GetRecords casing archived in the Lambda casing"
    );

    let checkpoint: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("state/file-replay.ndjson.checkpoint.json"))
            .expect("checkpoint"),
    )
    .expect("json");
    let length = std::fs::metadata(&input).expect("stat").len();
    let position = checkpoint["partitions"][input.display().to_string()]["position"]
        .as_str()
        .expect("file position")
        .to_string();
    assert_eq!(position, format!("6:{length}"), "{checkpoint}");

    // Appended lines are read on the next run; nothing is archived twice.
    let more = std::fs::read_to_string(FIXTURE)
        .expect("fixture")
        .lines()
        .nth(1)
        .expect("a2")
        .replace("\"a2\"", "\"a7\"")
        .replace("100000000000000000002", "100000000000000000007");
    let mut text = std::fs::read_to_string(&input).expect("read");
    text.push_str(&more);
    text.push('\n');
    std::fs::write(&input, text).expect("append");
    let stats = run_to_end(&config).await.expect("second run");
    assert_eq!(stats.records_read, 1, "only the new line: {stats:?}");
    assert_eq!(archived_ids(dir.path()), ["a2", "a4", "a6", "a7"]);
}

#[tokio::test]
async fn a_malformed_line_is_named_by_file_and_line_or_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("bad.ndjson");
    let lines: Vec<String> = std::fs::read_to_string(FIXTURE)
        .expect("fixture")
        .lines()
        .map(str::to_string)
        .collect();
    let secret_line = lines[1].replace(
        r#""ExpirationTime":{"N":"1571827560"}"#,
        r#""ExpirationTime":{"N":"1571827560"},"Secret":{"N":"hunter2"}"#,
    );
    let text = [
        lines[0].as_str(),
        "{\"eventName\": \"REMOVE\", ",
        lines[1].as_str(),
        r#"{"eventName":"REMOVE","dynamodb":{"SizeBytes":1},"eventID":"x","awsRegion":"r"}"#,
        secret_line.as_str(),
    ]
    .join("\n");
    std::fs::write(&input, text).expect("write");

    let config_fail = config(dir.path(), &input, "");
    let err = run_to_end(&config_fail)
        .await
        .expect_err("malformed line 2");
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{}:2: not JSON", input.display())),
        "{message}"
    );
    assert!(
        archived_ids(dir.path()).is_empty(),
        "nothing past the bad line"
    );

    let skip = tempfile::tempdir().expect("tempdir");
    let config_skip = config(skip.path(), &input, "on_malformed = \"skip\"");
    let stats = run_to_end(&config_skip).await.expect("skips");
    // Line 2 (not JSON) and line 4 (no SequenceNumber) are skipped; line 5's
    // `N` that is not a number is kept as the stream wrote it.
    assert_eq!(stats.records_read, 3, "{stats:?}");
    assert_eq!(archived_ids(skip.path()), ["a2", "a2"]);
}

#[tokio::test]
async fn a_checkpoint_from_another_file_is_refused_not_misread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("replay.ndjson");
    std::fs::copy(FIXTURE, &input).expect("copy");
    let config = config(dir.path(), &input, "");
    std::fs::create_dir_all(dir.path().join("state")).expect("mkdir");
    std::fs::write(
        dir.path().join("state/file-replay.ndjson.checkpoint.json"),
        format!(
            r#"{{"sequence_number":null,"partitions":{{"{}":{{"position":"99:999999"}}}}}}"#,
            input.display()
        ),
    )
    .expect("write checkpoint");
    let err = run_to_end(&config).await.expect_err("offset past the end");
    assert!(
        err.to_string().contains("past the end of the file"),
        "{err}"
    );
}

#[tokio::test]
async fn a_batch_in_flight_at_a_crash_is_read_again_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("replay.ndjson");
    std::fs::copy(FIXTURE, &input).expect("copy");
    let config = config(dir.path(), &input, "");
    // A crash after lines 1-2 were handed to the sinks and before they were
    // acknowledged: the checkpoint names that batch as in flight.
    let text = std::fs::read_to_string(FIXTURE).expect("fixture");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let end = lines[0].len() + lines[1].len();
    std::fs::create_dir_all(dir.path().join("state")).expect("mkdir");
    std::fs::write(
        dir.path().join("state/file-replay.ndjson.checkpoint.json"),
        serde_json::json!({
            "sequence_number": null,
            "in_flight": {
                "first": "100000000000000000001",
                "last": "100000000000000000002",
                "partition": {"partition": input.display().to_string(), "start": "0:0", "end": format!("2:{end}")}
            }
        })
        .to_string(),
    )
    .expect("write checkpoint");
    let mut pipeline = Pipeline::build(&config).await.expect("pipeline");
    let report = pipeline.step().await.expect("replay step");
    assert_eq!(
        report.records, 2,
        "exactly the in-flight lines, though max_records is 2 anyway"
    );
    let files: Vec<String> = std::fs::read_dir(dir.path().join("archive/SessionData"))
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        ["100000000000000000001-100000000000000000002.ndjson"],
        "the same name the crashed batch had, so a half-written file is overwritten"
    );
    assert!(pipeline.checkpoint().in_flight.is_none());
    assert_eq!(
        pipeline.checkpoint().partitions[&input.display().to_string()].position,
        format!("2:{end}")
    );
    let stats = pipeline.run(std::future::pending()).await.expect("rest");
    assert_eq!(archived_ids(dir.path()), ["a2", "a4", "a6"]);
    assert_eq!(stats.records_read, 6);
}

#[test]
fn ttlstream_run_replays_stdin_and_exits_at_its_end() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    config(dir.path(), Path::new("-"), "");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .args(["run", "--config"])
        .arg(dir.path().join("ttlstream.toml"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start ttlstream run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&std::fs::read(FIXTURE).expect("fixture"))
        .expect("write stdin");
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(archived_ids(dir.path()), ["a2", "a4", "a6"]);
}
