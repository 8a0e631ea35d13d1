//! A closed batch is delivered while the pipeline reads the next one: a step
//! returns while its batch's sink write is still waiting, the next read
//! starts after that batch (not at the committed checkpoint), the checkpoint
//! on disk holds the batch in flight until its write is done, and batches
//! commit in order. A delivery that panics is reported with its range, and
//! the batch, still in flight, is delivered by the next pipeline.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::collections::HashMap;

use serde_json::Value;
use tokio::sync::Semaphore;
use ttlstream::sinks::{Sink, SinkBatch};
use ttlstream::sources::BoxFuture;
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, Item, ScalarAttributeType, StreamPosition,
    StreamViewType, TableDefinition,
};

/// An engine under `dir/data` whose `SessionData` stream holds `count`
/// INSERT records; their `SequenceNumber`s in stream order.
fn engine(dir: &Path, count: usize) -> (Engine, Vec<String>) {
    let engine = Engine::open(dir.join("data"), EngineOptions::default()).expect("engine");
    let dynamodb = engine.dynamodb();
    dynamodb
        .create_table(
            TableDefinition::new("SessionData", "UserName", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewImage),
        )
        .expect("table");
    for i in 0..count {
        let item: Item = HashMap::from([(
            "UserName".to_string(),
            AttributeValue::S(format!("user{i}")),
        )])
        .into();
        dynamodb.put_item("SessionData", item).expect("put");
    }
    let records = dynamodb
        .read_stream("SessionData", StreamPosition::TrimHorizon, 100)
        .expect("stream");
    let sequence_numbers = records
        .iter()
        .map(|r| r.sequence_number.to_string())
        .collect();
    (engine, sequence_numbers)
}

/// Reads of 4 records, files of 4 records: every step closes a batch.
fn config(dir: &Path) -> Config {
    let text = r#"
[source.engine]
data_dir = "data"
table = "SessionData"

[checkpoint]
dir = "state"

[batch]
max_records = 4

[[routes]]
name = "all"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"

[sinks.archive.file.batch]
max_records = 4
"#;
    let path = dir.join("ttlstream.toml");
    std::fs::write(&path, text).expect("write config");
    Config::load(&path).expect("config")
}

/// The checkpoint file on disk.
fn checkpoint(dir: &Path) -> Value {
    let state = dir.join("state");
    let file = std::fs::read_dir(&state)
        .expect("state dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().ends_with(".checkpoint.json"))
        .expect("checkpoint file");
    serde_json::from_str(&std::fs::read_to_string(file).expect("read")).expect("json")
}

/// The `SequenceNumber`s archived under `dir/archive`, in file order.
fn archived(dir: &Path) -> Vec<String> {
    common::ndjson_lines(&dir.join("archive/SessionData"))
        .iter()
        .map(|r| {
            r["dynamodb"]["SequenceNumber"]
                .as_str()
                .expect("seq")
                .to_string()
        })
        .collect()
}

/// The real file sink, whose writes each wait for a permit, noting the
/// checkpoint on disk when each write starts.
struct Gated {
    inner: Box<dyn Sink>,
    permits: Arc<Semaphore>,
    dir: PathBuf,
    started: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Sink for Gated {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn write<'a>(
        &'a self,
        batch: &'a SinkBatch<'a>,
    ) -> BoxFuture<'a, Result<(), ttlstream::error::SinkError>> {
        Box::pin(async move {
            self.started.lock().expect("lock").push((
                batch.first_sequence_number.to_string(),
                checkpoint(&self.dir),
            ));
            self.permits.acquire().await.expect("open").forget();
            self.inner.write(batch).await
        })
    }
}

/// One step, which must not wait for the sink.
async fn step(pipeline: &mut Pipeline) -> ttlstream::pipeline::StepReport {
    tokio::time::timeout(Duration::from_secs(30), pipeline.step())
        .await
        .expect("a step does not wait for the batch before it to be written")
        .expect("step")
}

#[tokio::test]
async fn a_batch_is_delivered_while_the_next_is_read_and_batches_commit_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, seq) = engine(dir.path(), 12);
    assert_eq!(seq.len(), 12);
    let config = config(dir.path());
    let permits = Arc::new(Semaphore::new(0));
    let started = Arc::new(Mutex::new(Vec::new()));
    let source = common::engine_reader(engine, &config);
    let mut pipeline = Pipeline::with_source(&config, source)
        .expect("pipeline")
        .with_sink(Box::new(Gated {
            inner: config.sinks["archive"].build("archive", false),
            permits: Arc::clone(&permits),
            dir: dir.path().to_path_buf(),
            started: Arc::clone(&started),
        }));
    // Records 0..=3 closed; its write waits, and the step returns anyway.
    assert_eq!(step(&mut pipeline).await.records, 4);
    let wait_for_writes = |n: usize| {
        let started = Arc::clone(&started);
        async move {
            for _ in 0..3000 {
                if started.lock().expect("lock").len() >= n {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("the sink was not asked for write {n}");
        }
    };
    wait_for_writes(1).await;
    {
        let started = started.lock().expect("lock");
        let (first, on_disk) = &started[0];
        assert_eq!(first, &seq[0]);
        // In flight on disk before the sink sees it; nothing committed yet.
        assert_eq!(on_disk["in_flight"]["first"], seq[0].as_str());
        assert_eq!(on_disk["in_flight"]["last"], seq[3].as_str());
        assert_eq!(on_disk["sequence_number"], Value::Null);
    }
    assert_eq!(pipeline.stats().batches_committed, 0);

    // The next read starts after the batch in flight: records 4..=7.
    // Closing them waits for 0..=3, which the permit lets through.
    permits.add_permits(1);
    assert_eq!(step(&mut pipeline).await.records, 4);
    assert_eq!(pipeline.stats().batches_committed, 1);
    wait_for_writes(2).await;
    {
        let started = started.lock().expect("lock");
        let (first, on_disk) = &started[1];
        assert_eq!(first, &seq[4]);
        // 0..=3 committed, 4..=7 in flight.
        assert_eq!(on_disk["sequence_number"], seq[3].as_str());
        assert_eq!(on_disk["in_flight"]["first"], seq[4].as_str());
        assert_eq!(on_disk["in_flight"]["last"], seq[7].as_str());
    }

    permits.add_permits(10);
    assert_eq!(step(&mut pipeline).await.records, 4);
    pipeline.flush().await.expect("flush");
    assert_eq!(pipeline.stats().batches_committed, 3);
    assert_eq!(pipeline.stats().records_delivered, 12);
    let on_disk = checkpoint(dir.path());
    assert_eq!(on_disk["sequence_number"], seq[11].as_str());
    assert_eq!(on_disk["in_flight"], Value::Null);
    assert_eq!(
        archived(dir.path()),
        seq,
        "each record archived once, in order"
    );
}

/// A sink whose write panics: a bug, not a failed write.
struct Panics;

impl Sink for Panics {
    fn name(&self) -> &str {
        "archive"
    }

    fn write<'a>(
        &'a self,
        _batch: &'a SinkBatch<'a>,
    ) -> BoxFuture<'a, Result<(), ttlstream::error::SinkError>> {
        Box::pin(async { panic!("the sink's own bug") })
    }
}

#[tokio::test]
async fn a_delivery_that_panics_is_reported_with_its_range_and_delivered_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, seq) = engine(dir.path(), 4);
    let config = config(dir.path());
    let source = common::engine_reader(engine.clone(), &config);
    let mut pipeline = Pipeline::with_source(&config, source)
        .expect("pipeline")
        .with_sink(Box::new(Panics));
    assert_eq!(step(&mut pipeline).await.records, 4);
    let error = pipeline.flush().await.expect_err("the delivery panicked");
    let ttlstream::error::PipelineError::Sink(ttlstream::error::SinkError::DeliveryLost {
        first,
        last,
        ..
    }) = &error
    else {
        panic!("not a lost delivery: {error}");
    };
    assert_eq!((first, last), (&seq[0], &seq[3]));
    assert!(
        error.to_string().contains("ended without an answer"),
        "{error}"
    );
    // Nothing committed: the batch is still in flight on disk.
    let on_disk = checkpoint(dir.path());
    assert_eq!(on_disk["sequence_number"], Value::Null);
    assert_eq!(on_disk["in_flight"]["first"], seq[0].as_str());
    assert_eq!(on_disk["in_flight"]["last"], seq[3].as_str());
    drop(pipeline);

    // The next pipeline on that checkpoint delivers the batch.
    let source = common::engine_reader(engine, &config);
    let mut pipeline = Pipeline::with_source(&config, source).expect("pipeline");
    step(&mut pipeline).await;
    pipeline.flush().await.expect("flush");
    assert_eq!(archived(dir.path()), seq, "each record archived once");
}
