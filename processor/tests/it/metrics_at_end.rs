//! `TimeToLiveDeletedItemCount` is not lost when a run ends: the open period
//! is published as a partial-period datapoint at the end of a replay and on
//! SIGTERM, through EMF lines (the CLI's stdout), PutMetricData (the SDK's
//! recorded-request client) and Prometheus (scraped over HTTP) alike.

use crate::common;
use crate::prometheus_metrics::{free_loopback_port, scrape};

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use ttlstream::demo::items::last_seed_expiration_secs;
use ttlstream::metrics::SnapshotRecorder;
use ttlstream::metrics::exporters::Flusher;
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{ManualClock, StreamViewType};

/// A sidecar config in `dir` reading `source` (TOML), archiving TTL
/// deletions to `dir/archive` in batches of `batch`, with hour-long metric
/// periods (so no period ends during a test) and `metrics` (TOML lines).
fn write_config(dir: &Path, source: &str, batch: usize, metrics: &str) -> std::path::PathBuf {
    let route = common::TTL_ROUTE_TO_FILE;
    common::write_config(
        dir,
        &format!(
            "{source}\n{route}\n[sinks.archive.file.batch]\nmax_records = {batch}\n\n\
             [batch]\nmax_records = {batch}\n\n[metrics]\nperiod_secs = 3600\n{metrics}\n"
        ),
    )
}

/// Sum of `TimeToLiveDeletedItemCount` for `SessionData` over the EMF lines
/// of `stdout`, and how many lines carried it.
fn emf_ttl_count(stdout: &str) -> (f64, usize) {
    let values: Vec<f64> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["TableName"] == "SessionData")
        .filter_map(|line| line["TimeToLiveDeletedItemCount"].as_f64())
        .collect();
    (values.iter().sum(), values.len())
}

#[test]
fn emf_counts_every_ttl_deletion_when_a_replay_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("replay.ndjson"), common::ttl_replay(7)).expect("replay");
    let config = write_config(
        dir.path(),
        "[source.file]\npath = \"replay.ndjson\"",
        100,
        "emf = true",
    );
    let output = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .args(["run", "--config"])
        .arg(&config)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (count, lines) = emf_ttl_count(&stdout);
    assert_eq!(count, 7.0, "every deletion of the open hour: {stdout}");
    assert!(lines >= 1, "{stdout}");
}

#[test]
fn emf_counts_every_ttl_deletion_when_sigterm_stops_the_sidecar() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), "[source.file]\npath = \"-\"", 5, "emf = true");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
        .args(["run", "--config"])
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    // Five deletions, then stdin stays open: the sidecar waits for more.
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(common::ttl_replay(5).as_bytes())
        .expect("write");
    stdin.flush().expect("flush");
    let archive = dir.path().join("archive/SessionData");
    let archived = common::wait_until(Duration::from_secs(60), || {
        common::ndjson_lines(&archive).len() == 5
    });
    assert!(archived, "the five deletions were not archived");
    let output = common::terminate(child, Duration::from_secs(60));
    drop(stdin);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let (count, _) = emf_ttl_count(&stdout);
    assert_eq!(count, 5.0, "{stdout}");
}

/// The `Value` of the datum named `metric` in a PutMetricData CBOR body:
/// the first double under a `Value` key after the name (a dimension's
/// `Value` is text, not a double).
fn cbor_value_after(body: &[u8], metric: &[u8]) -> Option<f64> {
    let at = body.windows(metric.len()).position(|w| w == metric)?;
    let key = b"eValue\xfb";
    let rest = &body[at..];
    let value = rest.windows(key.len()).position(|w| w == key)? + key.len();
    let bytes: [u8; 8] = rest.get(value..value + 8)?.try_into().ok()?;
    Some(f64::from_be_bytes(bytes))
}

#[tokio::test]
async fn put_metric_data_gets_the_open_period_on_shutdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clock = Arc::new(ManualClock::new(
        ttlstream::demo::items::SEED_CREATION_TIME_SECS * 1000,
    ));
    let engine = common::seed_engine(dir.path(), clock.clone(), StreamViewType::OldImage);
    clock.set_millis((last_seed_expiration_secs() + 60) * 1000);
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 5);
    let config = write_config(
        dir.path(),
        "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"",
        1000,
        "",
    );
    let config = Config::load(&config).expect("config");
    let mut pipeline =
        Pipeline::with_source(&config, common::engine_reader(engine, &config)).expect("pipeline");

    let snapshot = SnapshotRecorder::new();
    let _guard = metrics::set_default_local_recorder(&snapshot);
    let (client, http) = common::cloudwatch_replay(&[200]);
    let flusher = Flusher::new(snapshot.clone(), "TTLStream", false, Some(client));
    // Shut down once the five deletions are archived, within the hour.
    let archive = dir.path().join("archive/SessionData");
    let archived = async {
        while common::ndjson_lines(&archive).len() < 5 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let shutdown = async {
        tokio::time::timeout(Duration::from_secs(60), archived)
            .await
            .expect("archived within a minute");
    };
    let stats = ttlstream::sidecar::run_pipeline(
        &mut pipeline,
        Some(flusher),
        Duration::from_secs(3600),
        shutdown,
    )
    .await
    .expect("run");
    assert_eq!(stats.ttl_deletions, 5);

    let requests: Vec<_> = http.actual_requests().collect();
    assert_eq!(requests.len(), 1, "the flush at shutdown");
    let body = requests[0].body().bytes().expect("body");
    assert_eq!(
        cbor_value_after(body, b"TimeToLiveDeletedItemCount"),
        Some(5.0),
        "the open period's five deletions"
    );
}

#[tokio::test]
async fn prometheus_serves_the_open_period_when_a_replay_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("replay.ndjson"), common::ttl_replay(7)).expect("replay");
    let config = write_config(
        dir.path(),
        "[source.file]\npath = \"replay.ndjson\"",
        100,
        "",
    );
    let config = Config::load(&config).expect("config");
    let addr = free_loopback_port();
    let recorder = ttlstream::metrics::prometheus::start(addr).expect("exporter");
    let _guard = metrics::set_default_local_recorder(&recorder);
    let mut pipeline = Pipeline::build(&config).await.expect("pipeline");
    let stats = pipeline
        .run(std::future::pending())
        .await
        .expect("run to the end of the file");
    assert_eq!(stats.ttl_deletions, 7);
    let body = scrape(addr).await;
    assert!(
        body.contains("TimeToLiveDeletedItemCount{TableName=\"SessionData\"} 7"),
        "{body}"
    );
}
