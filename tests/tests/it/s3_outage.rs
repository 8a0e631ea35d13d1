//! `ttlstream run` archiving TTL deletions to S3 (s3s-fs on 127.0.0.1) while the
//! server is stopped for 30 seconds, with the default retry settings (the
//! SDK's 3 attempts inside each of the sidecar's own capped, jittered
//! retries): the sidecar never exits, its sweeper goes on deleting items
//! that expire during the outage, the records reach the archive once the
//! server is back, each exactly once, and at no moment does the checkpoint
//! pass a TTL deletion that is not archived.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use ttlstream_tests::s3::{S3Server, objects};
use ttlstream_tests::ttl_table::{TABLE, prepare, put_expiring, ttl_deletion_sequences};
use ttlstream_tests::{key_of, occurrences, wait_until};

const EXPIRED: usize = 1_200;
const ALIVE: usize = 100;
/// Items that expire while the test runs, two a second from 10 s after the
/// start: the outage (which starts a few seconds in) covers some of them.
const EXPIRING: usize = 60;

/// Records of every archived object, read from s3s-fs's directory (valid
/// while the server is down too). Lines of an object still being written are
/// skipped: that only makes the archive look smaller than it is.
fn archived_on_disk(bucket_dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    let mut dirs = vec![bucket_dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "ndjson") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                out.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
            }
        }
    }
    out
}

fn epoch_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64
}

fn sequences(records: &[Value]) -> BTreeSet<String> {
    records
        .iter()
        .filter_map(|r| r["dynamodb"]["SequenceNumber"].as_str().map(str::to_string))
        .collect()
}

fn committed(state: &Path) -> Option<String> {
    let text = std::fs::read_to_string(state.join(format!("{TABLE}.checkpoint.json"))).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value["sequence_number"].as_str().map(str::to_string)
}

fn write_config(dir: &Path, endpoint: &str) -> std::path::PathBuf {
    std::fs::write(
        dir.join("ttl.json"),
        include_str!("../../../deploy/filters/ttl-system-deletes.json"),
    )
    .expect("filter");
    let config = dir.join("ttlstream.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[engine]
data_dir = "data"
sweep_interval_millis = 20

[source.engine]
table = "{TABLE}"

[checkpoint]
dir = "state"

[batch]
max_records = 25
poll_interval_millis = 20

[[routes]]
name = "ttl-archive"
filter = "ttl.json"
sinks = ["archive"]

[sinks.archive.s3]
bucket = "archive"
endpoint_url = "{endpoint}"
force_path_style = true

[sinks.archive.s3.batch]
max_records = 40
max_age_millis = 100
"#
        ),
    )
    .expect("config");
    config
}

#[test]
fn s3_down_for_30_seconds_loses_nothing_and_the_checkpoint_never_passes_an_unarchived_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let Some(mut server) = S3Server::start(&dir.path().join("s3")) else {
        return;
    };
    runtime.block_on(server.create_bucket("archive"));
    let bucket_dir = server.root.join("archive");
    let (engine, mut expired, now_secs) = prepare(&dir.path().join("data"), EXPIRED, ALIVE);
    expired.extend(put_expiring(&engine, now_secs + 10, EXPIRING, 500));
    drop(engine);
    let total = EXPIRED + EXPIRING;
    let config = write_config(dir.path(), &server.endpoint());
    let state = dir.path().join("state");

    let mut child = Command::new(env!("CARGO_BIN_EXE_ttlstream-e2e"))
        .args(["run", "--config"])
        .arg(&config)
        .args(["--log", "warn"])
        .envs(server.env())
        .stdout(Stdio::null())
        .spawn()
        .expect("start sidecar");

    // Samples of (committed checkpoint, archive read after it).
    let mut samples: Vec<(String, BTreeSet<String>)> = Vec::new();
    let sample = |samples: &mut Vec<(String, BTreeSet<String>)>| {
        if let Some(checkpoint) = committed(&state) {
            samples.push((checkpoint, sequences(&archived_on_disk(&bucket_dir))));
        }
    };
    let started = wait_until(Duration::from_secs(60), || {
        sample(&mut samples);
        sequences(&archived_on_disk(&bucket_dir)).len() >= 120
    });
    assert!(started, "the sidecar archived nothing before the outage");

    server.process.stop();
    let outage_began_secs = epoch_secs();
    let archived_at_stop = sequences(&archived_on_disk(&bucket_dir)).len();
    let outage = Instant::now();
    while outage.elapsed() < Duration::from_secs(30) {
        sample(&mut samples);
        assert!(
            child.try_wait().expect("poll sidecar").is_none(),
            "the sidecar must wait out the outage, not exit"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let outage_ended_secs = epoch_secs();
    server.process.restart();

    let finished = wait_until(Duration::from_secs(120), || {
        sample(&mut samples);
        sequences(&archived_on_disk(&bucket_dir)).len() >= total
    });
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("send SIGTERM");
    assert!(status.success());
    let exit = child.wait().expect("reap");
    assert!(
        finished,
        "the archive never reached {total} records after the outage"
    );
    assert!(exit.success(), "sidecar exit on SIGTERM: {exit:?}");
    assert!(
        archived_at_stop < total,
        "the outage must land mid-run ({archived_at_stop} archived when it began)"
    );

    // Read back with the SDK: every TTL deletion once, nothing else.
    let stored = runtime.block_on(objects(&server.client(), "archive", ""));
    let records: Vec<Value> = stored
        .iter()
        .flat_map(|(_, bytes)| {
            std::str::from_utf8(bytes)
                .expect("UTF-8")
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
                .collect::<Vec<_>>()
        })
        .collect();
    let keys: Vec<(String, String)> = records.iter().map(|r| key_of(r, "pk", "sk")).collect();
    let duplicated: Vec<_> = occurrences(keys.iter().cloned())
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .collect();
    assert!(
        duplicated.is_empty(),
        "archived more than once: {duplicated:?}"
    );
    assert_eq!(keys.into_iter().collect::<BTreeSet<_>>(), expired);
    assert!(records.iter().all(|r| r["eventName"] == "REMOVE"
        && r["userIdentity"]["principalId"] == "dynamodb.amazonaws.com"));
    // The sweeper did not stop with the stalled sink: items were deleted
    // (and their REMOVE records written) while S3 was down.
    let deleted_during_outage = records
        .iter()
        .filter_map(|r| r["dynamodb"]["ApproximateCreationDateTime"].as_i64())
        .filter(|at| *at > outage_began_secs && *at < outage_ended_secs)
        .count();
    assert!(
        deleted_during_outage > 0,
        "no TTL deletion between {outage_began_secs} and {outage_ended_secs} (the outage)"
    );

    // The checkpoint never passed a TTL deletion that was not yet archived.
    let engine = ttlstream_engine::Engine::open(dir.path().join("data"), Default::default())
        .expect("reopen engine");
    let ttl = ttl_deletion_sequences(&engine);
    assert_eq!(ttl.len(), total);
    assert!(samples.len() > 100, "{} samples", samples.len());
    for (checkpoint, archived) in &samples {
        let passed_unarchived: Vec<&String> = ttl
            .iter()
            .filter(|s| s.as_str() <= checkpoint.as_str() && !archived.contains(*s))
            .collect();
        assert!(
            passed_unarchived.is_empty(),
            "checkpoint {checkpoint} passed unarchived TTL deletions {passed_unarchived:?}"
        );
    }
}
