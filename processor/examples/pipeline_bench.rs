//! End-to-end pipeline throughput: the bundled engine's stream (inserts and TTL
//! deletions) through the TTL filter into the file sink and into S3 on loopback
//! (s3s-fs), batched and one object per record, with ratios measured in the
//! same run.
//!
//! ```sh
//! eval "$(bash scripts/test-tools.sh)"      # TTLSTREAM_S3S_FS
//! cargo run --release -p ttlstream --example pipeline_bench [ITEMS] [PER_RECORD_ITEMS] [PHASE_SECS] [ROUNDS] [MEASURES]
//! ```
//!
//! Defaults: 200,000 items (400,000 stream records, half of them TTL
//! deletions), 2,000 TTL deletions per pass in one-object-per-record mode,
//! phases of at least 5 s, 3 rounds. The stream is written and swept before
//! timing. Each measure runs ROUNDS timed phases; a phase repeats whole
//! passes over the stream (from `TRIM_HORIZON`, fresh checkpoint and archive
//! directory each pass) until it has lasted PHASE_SECS, and the median phase
//! is printed with the others beside it. Figures: TTL deletions archived per
//! second; CPU time of the process per archived deletion (user + system,
//! every thread; s3s-fs's own not included), steadier than wall time on a
//! busy machine; peak RSS. The baseline, measured in the same run, is the
//! engine's own stream read (`DynamoDb::read_stream`) with no filter, encoding
//! or sink. MEASURES, a comma-separated subset of `file`, `file-zstd`,
//! `file-1000`, `s3-batch` and `s3-record` (default: all), picks the measures
//! run beside the baseline (for profiling one of them).

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_dynamo::{AttributeValue, Item};
use ttlstream::sinks::s3::{S3Sink, S3SinkConfig};
use ttlstream::sources::engine::{EngineSource, EngineSourceConfig};
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{
    Engine, EngineOptions, KeyAttribute, ScalarAttributeType, StreamPosition, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};

/// The allocator the `ttlstream` binary uses, so the figures are the sidecar's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TABLE: &str = "SessionData";
const FILTER: &str = r#"{"eventName":["REMOVE"],"userIdentity":{"type":["Service"],"principalId":["dynamodb.amazonaws.com"]}}"#;

fn prepare(dir: &Path, items: usize) -> Engine {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    engine
        .dynamodb()
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
        .dynamodb()
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
        engine.dynamodb().put_items(TABLE, chunk).unwrap();
        next = end;
    }
    while engine.dynamodb().expired_backlog(TABLE).unwrap() > 0 {
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

/// The pipeline's source: the stream of the engine the bench owns.
fn reader(engine: &Engine) -> Box<EngineSource> {
    Box::new(EngineSource::new(
        engine.clone(),
        &EngineSourceConfig::new(TABLE),
    ))
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

/// What one timed phase did: stream records read, records archived (or, for
/// the baseline, read), wall seconds and process CPU seconds.
#[derive(Clone, Copy, Default)]
struct Sample {
    read: u64,
    archived: u64,
    secs: f64,
    cpu_secs: f64,
}

impl Sample {
    fn add(&mut self, other: Sample) {
        self.read += other.read;
        self.archived += other.archived;
        self.secs += other.secs;
        self.cpu_secs += other.cpu_secs;
    }
    fn rate(&self) -> f64 {
        self.archived as f64 / self.secs
    }
    fn cpu_micros_per_record(&self) -> f64 {
        self.cpu_secs * 1e6 / self.archived.max(1) as f64
    }
}

/// Runs the pipeline until the stream is drained (or `limit` TTL deletions are
/// archived).
async fn pass(mut pipeline: Pipeline, limit: u64) -> Sample {
    let cpu = cpu_secs();
    let started = Instant::now();
    loop {
        let report = pipeline.step().await.unwrap();
        if report.records == 0 || pipeline.stats().records_matched >= limit {
            break;
        }
    }
    pipeline.flush().await.unwrap();
    let secs = started.elapsed().as_secs_f64();
    let stats = pipeline.stats();
    Sample {
        read: stats.records_read,
        archived: stats.records_delivered,
        secs,
        cpu_secs: cpu_secs() - cpu,
    }
}

/// The baseline: the same stream read with `DynamoDb::read_stream`, 1,000
/// records per read, with no filter, encoding or sink. `archived` counts the
/// records read, so its rate is comparable with the pipeline's read rate.
fn raw_read_pass(engine: &Engine) -> Sample {
    let cpu = cpu_secs();
    let started = Instant::now();
    let mut position = StreamPosition::TrimHorizon;
    let mut read = 0;
    loop {
        let records = engine
            .dynamodb()
            .read_stream(TABLE, position, 1000)
            .unwrap();
        let Some(last) = records.last() else { break };
        read += records.len() as u64;
        position = StreamPosition::AfterSequenceNumber(last.sequence_number);
    }
    Sample {
        read,
        archived: read,
        secs: started.elapsed().as_secs_f64(),
        cpu_secs: cpu_secs() - cpu,
    }
}

/// Bench parameters: each measure runs `rounds` timed phases, and a phase
/// repeats whole passes over the stream until it has lasted `phase_secs`.
struct Plan {
    phase_secs: f64,
    rounds: usize,
}

impl Plan {
    /// Runs `rounds` phases of `one_pass` and prints the median phase.
    async fn measure<F, Fut>(&self, name: &str, mut one_pass: F) -> f64
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = Sample>,
    {
        let mut phases = Vec::new();
        let mut passes = 0;
        for _ in 0..self.rounds {
            let mut phase = Sample::default();
            while phase.secs < self.phase_secs {
                phase.add(one_pass(passes).await);
                passes += 1;
            }
            phases.push(phase);
        }
        phases.sort_by(|a, b| a.rate().total_cmp(&b.rate()));
        let median = phases[phases.len() / 2];
        let rates: Vec<String> = phases.iter().map(|p| format!("{:.0}", p.rate())).collect();
        println!(
            "{name:<46} {:>11.0}/s median of [{}], {:>6.2} CPU µs/record, {:.1} s per phase",
            median.rate(),
            rates.join(", "),
            median.cpu_micros_per_record(),
            median.secs
        );
        median.rate()
    }
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

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let items: usize = args.next().map_or(200_000, |a| a.parse().unwrap());
    let per_record_items: u64 = args.next().map_or(2_000, |a| a.parse().unwrap());
    let plan = Plan {
        phase_secs: args.next().map_or(5.0, |a| a.parse().unwrap()),
        rounds: args.next().map_or(3, |a| a.parse().unwrap()),
    };
    let measures: Option<Vec<String>> = args
        .next()
        .map(|a| a.split(',').map(str::to_string).collect());
    let wanted = |name: &str| {
        measures
            .as_ref()
            .is_none_or(|m| m.iter().any(|n| n == name))
    };
    let work = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let engine = prepare(&work.path().join("engine"), items);
    println!(
        "prepared {items} items, {} stream records, in {:.1} s; {} phases of at least {} s per measure, median shown",
        2 * items,
        started.elapsed().as_secs_f64(),
        plan.rounds,
        plan.phase_secs
    );

    // Each pass reads the whole stream from TRIM_HORIZON with a fresh
    // checkpoint and archive directory, removed after the pass.
    let build = |name: &str, pass: usize, sink: &str| {
        let config = config(work.path(), &format!("{name}-{pass}"), sink);
        Pipeline::with_source(&config, reader(&engine)).unwrap()
    };
    let clean = |name: &str, pass: usize| {
        let _ = std::fs::remove_dir_all(work.path().join(format!("{name}-{pass}")));
    };
    let baseline = plan
        .measure("baseline: DynamoDb::read_stream, records read", |_| async {
            raw_read_pass(&engine)
        })
        .await;
    let mut file_runs = Vec::new();
    for (name, label, sink) in [
        (
            "file",
            "file sink, default batch (10,000 / 10 MiB)",
            "[sinks.archive.file]\npath = \"archive\"\n",
        ),
        (
            "file-zstd",
            "file sink, default batch, zstd",
            "[sinks.archive.file]\npath = \"archive\"\ncompression = \"zstd\"\n",
        ),
        (
            "file-1000",
            "file sink, 1,000 records per file (fsync each)",
            "[sinks.archive.file]\npath = \"archive\"\n[sinks.archive.file.batch]\nmax_records = 1000\n",
        ),
    ] {
        if !wanted(name) {
            continue;
        }
        let rate = plan
            .measure(label, |n| {
                let pipeline = build(name, n, sink);
                async move {
                    let sample = pass(pipeline, u64::MAX).await;
                    clean(name, n);
                    sample
                }
            })
            .await;
        file_runs.push((label, rate));
    }

    let s3_wanted = wanted("s3-batch") || wanted("s3-record");
    if s3_wanted && let Some((mut server, endpoint)) = start_s3s_fs(&work.path().join("s3")) {
        let client = s3_client(&endpoint);
        client
            .create_bucket()
            .bucket("archive")
            .send()
            .await
            .unwrap();
        let s3 = |name: &str, pass: usize, objects: &str| {
            // One object per record keeps the default `archives/{time}/{keys}.json`.
            let template = if objects == "batch" {
                format!(
                    "key_template = \"{name}/{{table}}/{{first_sequence}}-{{last_sequence}}.ndjson\"\n"
                )
            } else {
                String::new()
            };
            // endpoint_url names the given client's endpoint (loopback: the
            // payload goes unsigned, as with a client built from the config).
            let sink = format!(
                "[sinks.archive.s3]\nbucket = \"archive\"\nendpoint_url = \"{endpoint}\"\nobjects = \"{objects}\"\n{template}"
            );
            let config = config(work.path(), &format!("{name}-{pass}"), &sink);
            let ttlstream::config::SinkConfig::S3(s3_config) = &config.sinks["archive"] else {
                unreachable!()
            };
            let s3_config: S3SinkConfig = s3_config.clone();
            Pipeline::with_source(&config, reader(&engine))
                .unwrap()
                .with_sink(Box::new(S3Sink::with_client(
                    "archive",
                    &s3_config,
                    client.clone(),
                    false,
                )))
        };
        let mut batched = None;
        if wanted("s3-batch") {
            let rate = plan
                .measure("s3 sink, batched objects (10,000 / 10 MiB)", |n| {
                    let pipeline = s3("s3-batch", n, "batch");
                    async move { pass(pipeline, u64::MAX).await }
                })
                .await;
            batched = Some(rate);
        }
        if wanted("s3-record") {
            let per_record = plan
                .measure("s3 sink, one object per record (16 in flight)", |n| {
                    let pipeline = s3("s3-record", n, "record");
                    async move { pass(pipeline, per_record_items).await }
                })
                .await;
            if let Some(batched) = batched {
                println!(
                    "ratio s3 batched / one object per record: {:.1}x",
                    batched / per_record
                );
            }
        }
        let _ = server.kill();
        let _ = server.wait();
    } else if s3_wanted {
        println!(
            "TTLSTREAM_S3S_FS unset: S3 runs skipped (eval \"$(bash scripts/test-tools.sh)\")"
        );
    }
    for (label, rate) in file_runs {
        // The pipeline reads two stream records per archived TTL deletion.
        println!(
            "ratio to the baseline's read rate, {label}: {:.2} (records read), {:.2} (archived)",
            2.0 * rate / baseline,
            rate / baseline
        );
    }
    println!("peak RSS of the process: {} MiB", peak_rss_kib() / 1024);
}
