//! End-to-end pipeline throughput: the bundled engine's stream (inserts and TTL
//! deletions) through the TTL filter into the file sink and into S3 on loopback
//! (s3s-fs), batched and one object per record, with ratios measured in the
//! same run.
//!
//! ```sh
//! eval "$(bash scripts/test-tools.sh)"      # TTLSTREAM_S3S_FS
//! cargo run --release -p ttlstream --example pipeline_bench [ITEMS] [PER_RECORD_ITEMS]
//! ```
//!
//! Defaults: 200,000 items (400,000 stream records, half of them TTL
//! deletions) and 10,000 TTL deletions for one-object-per-record mode. The
//! stream is written and swept before timing; each run reads it from
//! `TRIM_HORIZON` with a fresh checkpoint. Figures: stream records read per
//! second and TTL deletions archived per second; CPU time of the process per
//! archived deletion (user + system, every thread; s3s-fs's own not
//! included), steadier than wall time on a busy machine; peak RSS.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_dynamo::{AttributeValue, Item};
use ttlstream::sinks::s3::{S3Sink, S3SinkConfig};
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{
    Engine, EngineOptions, KeyAttribute, ScalarAttributeType, StreamViewType, TableDefinition,
    TimeToLiveSpecification,
};

/// The allocator the `ttlstream` binary uses, so the figures are the sidecar's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TABLE: &str = "SessionData";
const FILTER: &str = r#"{"eventName":["REMOVE"],"userIdentity":{"type":["Service"],"principalId":["dynamodb.amazonaws.com"]}}"#;

fn prepare(dir: &Path, items: usize) -> Engine {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    engine
        .create_table(TableDefinition {
            table_name: TABLE.into(),
            partition_key: KeyAttribute {
                attribute_name: "UserName".into(),
                attribute_type: ScalarAttributeType::S,
            },
            sort_key: Some(KeyAttribute {
                attribute_name: "SessionId".into(),
                attribute_type: ScalarAttributeType::S,
            }),
            stream_view_type: Some(StreamViewType::NewAndOldImages),
            global_secondary_indexes: Vec::new(),
            local_secondary_indexes: Vec::new(),
        })
        .unwrap();
    engine
        .update_time_to_live(
            TABLE,
            TimeToLiveSpecification {
                attribute_name: "ExpirationTime".into(),
                enabled: true,
            },
        )
        .unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let mut next = 0;
    while next < items {
        let end = (next + 10_000).min(items);
        let chunk = (next..end)
            .map(|i| {
                Item::from(HashMap::from([
                    (
                        "UserName".to_string(),
                        AttributeValue::S(format!("user-{}", i % 1000)),
                    ),
                    (
                        "SessionId".to_string(),
                        AttributeValue::S(format!("session-{i:08}")),
                    ),
                    ("Payload".to_string(), AttributeValue::S("x".repeat(100))),
                    (
                        "ExpirationTime".to_string(),
                        AttributeValue::N((now - 60).to_string()),
                    ),
                ]))
            })
            .collect();
        engine.put_items(TABLE, chunk).unwrap();
        next = end;
    }
    while engine.expired_backlog(TABLE).unwrap() > 0 {
        engine.sweep_now().unwrap();
    }
    engine.persist().unwrap();
    engine
}

fn config(work: &Path, name: &str, sink: &str) -> Config {
    let dir = work.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ttl.json"), FILTER).unwrap();
    let text = format!(
        r#"
[source.engine]
data_dir = "unused"
table = "{TABLE}"
sweep_interval_millis = 0

[checkpoint]
dir = "state"

[[routes]]
name = "ttl"
filter = "ttl.json"
sinks = ["archive"]

{sink}
"#
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, text).unwrap();
    Config::load(&path).unwrap()
}

/// CPU seconds (user + system) the process has used, all threads: on a
/// busy machine a steadier figure than wall time.
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime are the
    // 12th and 13th there, in clock ticks (100 per second on Linux).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Runs the pipeline until the stream is drained (or `limit` TTL deletions are
/// archived); returns (stream records read, records delivered, seconds, CPU
/// seconds).
async fn run(mut pipeline: Pipeline, limit: u64) -> (u64, u64, f64, f64) {
    let cpu = cpu_secs();
    let started = Instant::now();
    loop {
        let report = pipeline.step().await.unwrap();
        if report.records == 0 || pipeline.stats().records_matched >= limit {
            break;
        }
    }
    pipeline.flush().await.unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    let stats = pipeline.stats();
    let cpu = cpu_secs() - cpu;
    (stats.records_read, stats.records_delivered, elapsed, cpu)
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn s3_client(endpoint: &str) -> aws_sdk_s3::Client {
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(aws_sdk_s3::config::BehaviorVersion::latest())
        .region(aws_sdk_s3::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_s3::config::Credentials::new(
            "AKIABENCH",
            "bench-secret",
            None,
            None,
            "bench",
        ))
        .endpoint_url(endpoint)
        .force_path_style(true)
        .retry_config(aws_sdk_s3::config::retry::RetryConfig::standard())
        .build();
    aws_sdk_s3::Client::from_conf(config)
}

fn start_s3s_fs(root: &Path) -> Option<(Child, String)> {
    let program = std::env::var_os("TTLSTREAM_S3S_FS")?;
    std::fs::create_dir_all(root).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(program)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["--access-key", "AKIABENCH", "--secret-key", "bench-secret"])
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "s3s-fs did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((child, format!("http://127.0.0.1:{port}")))
}

fn line(name: &str, (read, delivered, secs, cpu): (u64, u64, f64, f64)) -> f64 {
    let rate = delivered as f64 / secs;
    println!(
        "{name:<44} {read:>9} read {delivered:>9} archived {secs:>7.2} s {:>11.0} read/s {rate:>11.0} archived/s {:>6.2} CPU µs/archived",
        read as f64 / secs,
        cpu * 1e6 / delivered.max(1) as f64
    );
    rate
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let items: usize = args.next().map_or(200_000, |a| a.parse().unwrap());
    let per_record_items: u64 = args.next().map_or(10_000, |a| a.parse().unwrap());
    let work = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let engine = prepare(&work.path().join("engine"), items);
    println!(
        "prepared {items} items, {} stream records, in {:.1} s",
        2 * items,
        started.elapsed().as_secs_f64()
    );

    let build = |name: &str, sink: &str| {
        Pipeline::build_with_engine(&config(work.path(), name, sink), engine.clone()).unwrap()
    };
    let mut rates = HashMap::new();
    let result = run(
        build("file-1000", "[sinks.archive.file]\npath = \"archive\"\n[sinks.archive.file.batch]\nmax_records = 1000\n"),
        u64::MAX,
    )
    .await;
    rates.insert(
        "file-1000",
        line("file sink, 1,000 records per file (fsync each)", result),
    );
    let result = run(
        build("file", "[sinks.archive.file]\npath = \"archive\"\n"),
        u64::MAX,
    )
    .await;
    rates.insert(
        "file",
        line("file sink, default batch (10,000 / 10 MiB)", result),
    );
    let result = run(
        build(
            "file-zstd",
            "[sinks.archive.file]\npath = \"archive\"\ncompression = \"zstd\"\n",
        ),
        u64::MAX,
    )
    .await;
    line("file sink, default batch, zstd", result);

    if let Some((mut server, endpoint)) = start_s3s_fs(&work.path().join("s3")) {
        let client = s3_client(&endpoint);
        client
            .create_bucket()
            .bucket("archive")
            .send()
            .await
            .unwrap();
        let s3 = |name: &str, objects: &str| {
            // One object per record keeps the default `archives/{time}/{keys}.json`.
            let template = if objects == "batch" {
                format!(
                    "key_template = \"{name}/{{table}}/{{first_sequence}}-{{last_sequence}}.ndjson\"\n"
                )
            } else {
                String::new()
            };
            let sink = format!(
                "[sinks.archive.s3]\nbucket = \"archive\"\nobjects = \"{objects}\"\n{template}"
            );
            let config = config(work.path(), name, &sink);
            let ttlstream::config::SinkConfig::S3(s3_config) = &config.sinks["archive"] else {
                unreachable!()
            };
            let s3_config: S3SinkConfig = s3_config.clone();
            Pipeline::build_with_engine(&config, engine.clone())
                .unwrap()
                .with_sink(Box::new(S3Sink::with_client(
                    "archive",
                    &s3_config,
                    client.clone(),
                    false,
                )))
        };
        let result = run(s3("s3-batch", "batch"), u64::MAX).await;
        let batched = line("s3 sink, batched objects (10,000 / 10 MiB)", result);
        let result = run(s3("s3-record", "record"), per_record_items).await;
        let per_record = line("s3 sink, one object per record (16 in flight)", result);
        println!(
            "ratio s3 batched / one object per record: {:.1}x",
            batched / per_record
        );
        let _ = server.kill();
        let _ = server.wait();
    } else {
        println!(
            "TTLSTREAM_S3S_FS unset: S3 runs skipped (eval \"$(bash scripts/test-tools.sh)\")"
        );
    }
    println!(
        "ratio file default batch / 1,000 per file: {:.2}x",
        rates["file"] / rates["file-1000"]
    );
    println!("peak RSS of the process: {} MiB", peak_rss_kib() / 1024);
}
