//! Logs never hold attribute values or TTL values; item keys only with
//! `[logging] log_keys = true`. Items with distinctive values expire in the
//! bundled engine (swept by its TTL process), the pipeline runs with every
//! log at TRACE level, one sink fails so the retry, dead-letter and failure
//! paths log too, and the captured text is searched for the values.
//!
//! Its own test binary, not a module of `it/`: it installs a process-wide
//! tracing subscriber at TRACE, which would capture every other test's logs.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use ttlstream::config::SourceConfig;
use ttlstream::sources::engine::EngineSource;
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, Item, ManualClock, ScalarAttributeType, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};

const FILTER: &str = include_str!("../../deploy/filters/ttl-system-deletes.json");
/// A string attribute value.
const ATTRIBUTE_VALUE: &str = "ATTR-VALUE-q7Zx93";
/// A number attribute value.
const NUMBER_VALUE: &str = "8675309.125";
/// The items' TTL (`ExpirationTime`, epoch seconds).
const TTL_SECS: i64 = 1_700_000_123;
/// Partition and sort key values.
const PARTITION_KEY: &str = "KEY-PK-w4Lm2";
const SORT_KEY: &str = "KEY-SK-r8Tn5";

/// Everything every thread logs.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn take(&self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut *self.0.lock().expect("lock"))).into_owned()
    }
}

fn engine(dir: &Path) -> Engine {
    let clock = Arc::new(ManualClock::new((TTL_SECS - 600) * 1000));
    let engine = Engine::open(
        dir.join("data"),
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .expect("engine");
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Sessions", "pk", ScalarAttributeType::S)
                .with_sort_key("sk", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .expect("table");
    engine
        .dynamodb()
        .update_time_to_live(
            "Sessions",
            TimeToLiveSpecification {
                attribute_name: "ExpirationTime".into(),
                enabled: true,
            },
        )
        .expect("ttl");
    for i in 0..3 {
        let item = Item::from(std::collections::HashMap::from([
            ("pk".to_string(), AttributeValue::S(PARTITION_KEY.into())),
            (
                "sk".to_string(),
                AttributeValue::S(format!("{SORT_KEY}-{i}")),
            ),
            (
                "Payload".to_string(),
                AttributeValue::S(ATTRIBUTE_VALUE.into()),
            ),
            ("Amount".to_string(), AttributeValue::N(NUMBER_VALUE.into())),
            (
                "ExpirationTime".to_string(),
                AttributeValue::N(TTL_SECS.to_string()),
            ),
        ]));
        engine.dynamodb().put_item("Sessions", item).expect("put");
    }
    clock.set_millis((TTL_SECS + 3_600) * 1000);
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 3);
    engine
}

/// A pipeline over a fresh engine whose `archive` sink works, whose `blocked`
/// sink cannot create its directory, and whose dead-letter sink works or not.
async fn run_pipeline(dir: &Path, log_keys: bool, dead_letter_works: bool) {
    let engine = engine(dir);
    std::fs::write(dir.join("ttl.json"), FILTER).expect("filter");
    for blocked in ["blocked", "dlq"] {
        std::fs::create_dir_all(dir.join(blocked)).expect("mkdir");
    }
    std::fs::write(dir.join("blocked/Sessions"), b"in the way").expect("block");
    if !dead_letter_works {
        std::fs::write(dir.join("dlq/Sessions"), b"in the way").expect("block");
    }
    let toml = format!(
        r#"
[source.engine]
data_dir = "data"
table = "Sessions"

[checkpoint]
dir = "state"

[retry]
max_retries = 1
max_elapsed_secs = 0
min_delay_millis = 1
max_delay_millis = 2

[logging]
log_keys = {log_keys}

[[routes]]
name = "ttl"
filter = "ttl.json"
sinks = ["archive", "blocked"]

[sinks.archive.file]
path = "archive"

[sinks.blocked.file]
path = "blocked"

[sinks.dead-letters.file]
path = "dlq"

[dead_letter]
sink = "dead-letters"
"#
    );
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, toml).expect("config");
    let config = Config::load(&path).expect("config");
    let Some(SourceConfig::Engine(source)) = &config.source else {
        panic!("[source.engine]");
    };
    let source = Box::new(EngineSource::new(engine, source));
    let mut pipeline = Pipeline::with_source(&config, source).expect("pipeline");
    let mut result = Ok(());
    for _ in 0..5 {
        match pipeline.step().await {
            Ok(report) if report.records == 0 => break,
            Ok(_) => {}
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok() {
        result = pipeline.flush().await;
    }
    assert_eq!(result.is_ok(), dead_letter_works, "{result:?}");
    let archived = std::fs::read_dir(dir.join("archive/Sessions"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(archived > 0, "the TTL deletions reached the working sink");
}

fn assert_no_values(logs: &str, case: &str) {
    assert!(
        logs.contains("sink failed after retries"),
        "{case}: the failure paths ran and logged:\n{logs}"
    );
    for value in [ATTRIBUTE_VALUE, NUMBER_VALUE, &TTL_SECS.to_string()] {
        assert!(
            !logs.contains(value),
            "{case}: `{value}` is in the logs:\n{}",
            logs.lines()
                .filter(|l| l.contains(value))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[tokio::test]
async fn logs_hold_no_attribute_or_ttl_values_and_keys_only_when_asked() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("trace"))
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    for dead_letter_works in [true, false] {
        let dir = tempfile::tempdir().expect("tempdir");
        run_pipeline(dir.path(), false, dead_letter_works).await;
        let logs = captured.take();
        let case = format!("log_keys off, dead letter works: {dead_letter_works}");
        assert_no_values(&logs, &case);
        for key in [PARTITION_KEY, SORT_KEY] {
            assert!(!logs.contains(key), "{case}: key `{key}` is in the logs");
        }
    }

    let dir = tempfile::tempdir().expect("tempdir");
    run_pipeline(dir.path(), true, true).await;
    let logs = captured.take();
    assert_no_values(&logs, "log_keys on");
    assert!(
        logs.contains(PARTITION_KEY) && logs.contains(SORT_KEY),
        "log_keys on: the dead-lettered records' keys are logged:\n{logs}"
    );
}
