//! The dead-letter path end to end: a sink that fails permanently (its
//! directory cannot be created), its records land in the `dead_letter` sink
//! with the error, and the checkpoint passes them only after the dead-letter
//! write is durable: while the dead-letter sink fails too, the checkpoint
//! stays before the batch; every dead-letter write happens while the
//! checkpoint on disk is still before its batch.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use ttlstream::checkpoint::sequence_after;
use ttlstream::sinks::{Sink, SinkBatch};
use ttlstream::sources::BoxFuture;
use ttlstream::{Config, Pipeline};

/// Lambda-shaped records: every third an INSERT, the rest TTL deletions.
fn replay_file(dir: &Path, count: usize) -> (PathBuf, Vec<String>) {
    let mut text = String::new();
    let mut ttl_ids = Vec::new();
    for i in 0..count {
        let id = format!("r{i}");
        let ttl = i % 3 != 0;
        let mut record = json!({
            "eventID": id,
            "eventName": if ttl { "REMOVE" } else { "INSERT" },
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "ApproximateCreationDateTime": 1_571_820_360 + i,
                "Keys": {"UserName": {"S": format!("user{i}")}},
                "SequenceNumber": format!("{:021}", 100 + i),
                "SizeBytes": 40,
                "StreamViewType": "OLD_IMAGE"
            },
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/SessionData/stream/2019-10-23T08:46:00.000"
        });
        if ttl {
            record["userIdentity"] =
                json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"});
            ttl_ids.push(id);
        }
        text.push_str(&record.to_string());
        text.push('\n');
    }
    let path = dir.join("replay.ndjson");
    std::fs::write(&path, text).expect("write replay file");
    (path, ttl_ids)
}

fn config(dir: &Path, input: &Path) -> Config {
    let filter =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/filters/ttl-system-deletes.json");
    let text = format!(
        r#"
[source.file]
path = "{input}"

[checkpoint]
dir = "state"

[batch]
max_records = 4

[retry]
max_retries = 1
max_elapsed_secs = 0
min_delay_millis = 1
max_delay_millis = 2

[[routes]]
name = "ttl"
filter = "{filter}"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"

[sinks.dead-letters.file]
path = "dlq"

[dead_letter]
sink = "dead-letters"
"#,
        input = input.display(),
        filter = filter.display(),
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, text).expect("write config");
    Config::load(&path).expect("config")
}

/// The committed `sequence_number` in the checkpoint file on disk.
fn committed(dir: &Path) -> Option<String> {
    let state = dir.join("state");
    let file = std::fs::read_dir(&state)
        .ok()?
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().ends_with(".checkpoint.json"))?;
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("read")).expect("json");
    value["sequence_number"].as_str().map(str::to_string)
}

/// One successful dead-letter write: its batch's first and last
/// `SequenceNumber`, and the checkpoint on disk when it began.
type Write = (String, String, Option<String>);

/// The real dead-letter file sink, noting for each write the checkpoint on
/// disk at that moment.
struct Observed {
    inner: Box<dyn Sink>,
    dir: PathBuf,
    writes: Arc<Mutex<Vec<Write>>>,
}

impl Sink for Observed {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn write<'a>(
        &'a self,
        batch: &'a SinkBatch<'a>,
    ) -> BoxFuture<'a, Result<(), ttlstream::error::SinkError>> {
        Box::pin(async move {
            let before = committed(&self.dir);
            self.inner.write(batch).await?;
            self.writes.lock().expect("lock").push((
                batch.first_sequence_number.to_string(),
                batch.last_sequence_number.to_string(),
                before,
            ));
            Ok(())
        })
    }
}

fn dead_letters(dir: &Path) -> Vec<Value> {
    common::ndjson_lines(&dir.join("dlq/SessionData"))
}

#[tokio::test]
async fn a_permanently_failing_sinks_records_are_dead_lettered_before_the_checkpoint_passes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (input, ttl_ids) = replay_file(dir.path(), 10);
    let config = config(dir.path(), &input);
    // The archive can never create its table directory: a file is in the way.
    std::fs::create_dir_all(dir.path().join("archive")).expect("mkdir");
    std::fs::write(dir.path().join("archive/SessionData"), b"in the way").expect("write");
    // At first the dead-letter sink cannot write either.
    std::fs::create_dir_all(dir.path().join("dlq")).expect("mkdir");
    std::fs::write(dir.path().join("dlq/SessionData"), b"in the way").expect("write");

    let writes = Arc::new(Mutex::new(Vec::new()));
    let dead_letter_sink = config.sinks["dead-letters"].build("dead-letters", false);
    let mut pipeline = Pipeline::build(&config)
        .await
        .expect("pipeline")
        .with_sink(Box::new(Observed {
            inner: dead_letter_sink,
            dir: dir.path().to_path_buf(),
            writes: Arc::clone(&writes),
        }));

    let error = pipeline
        .run(std::future::pending())
        .await
        .expect_err("both the sink and the dead-letter sink fail");
    assert!(error.to_string().contains("dead-letters"), "{error}");
    assert_eq!(
        committed(dir.path()),
        None,
        "nothing is durable: the checkpoint passed no record"
    );
    assert!(dead_letters(dir.path()).is_empty());

    // The dead-letter sink recovers; the batch in flight is read again.
    std::fs::remove_file(dir.path().join("dlq/SessionData")).expect("unblock");
    let stats = pipeline
        .run(std::future::pending())
        .await
        .expect("dead letters written");
    assert_eq!(stats.records_delivered, 0, "the archive never took one");
    assert_eq!(stats.records_dead_lettered, ttl_ids.len() as u64);
    assert_eq!(
        committed(dir.path()).as_deref(),
        Some(format!("{:021}", 109).as_str()),
        "the checkpoint reached the last record"
    );

    let letters = dead_letters(dir.path());
    let ids: Vec<&str> = letters
        .iter()
        .map(|l| l["record"]["eventID"].as_str().expect("eventID"))
        .collect();
    assert_eq!(
        ids, ttl_ids,
        "every TTL deletion, once, in order; no INSERT"
    );
    for letter in &letters {
        assert_eq!(letter["sink"], "archive");
        let error = letter["error"].as_str().expect("error");
        assert!(
            error.contains("sink archive") && error.contains("SessionData"),
            "the archive's error: {error}"
        );
    }

    let writes = writes.lock().expect("lock");
    assert!(!writes.is_empty());
    for (first, last, before) in writes.iter() {
        if let Some(before) = before {
            assert!(
                sequence_after(first, before),
                "dead letters {first}..{last} written after the checkpoint passed them ({before})"
            );
        }
    }
}
