//! `[engine]` and `[source.engine]`: the sidecar whose config has `[engine]`
//! owns that engine (opens it, runs its TTL sweeper, publishes its
//! `SweeperLagMilliseconds`) and its `[source.engine]` reads it; a
//! `[source.engine]` without `[engine]` reads an engine another process owns
//! and starts no sweeper.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_dynamo::{AttributeValue, Item};
use ttlstream::metrics::SnapshotRecorder;
use ttlstream::{Config, Pipeline};
use ttlstream_engine::{
    Engine, ScalarAttributeType, StreamViewType, TableDefinition, TimeToLiveSpecification,
};

use crate::common;

const ITEMS: u64 = 20;

/// An engine under `dir/data` whose table `Sessions` holds [`ITEMS`] items
/// that expired a minute ago (by the system clock), not yet swept.
fn expired_engine(dir: &Path) {
    let engine = Engine::open(dir.join("data"), Default::default()).expect("engine");
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new("Sessions", "Id", ScalarAttributeType::S)
                .with_stream(StreamViewType::OldImage),
        )
        .expect("table");
    engine
        .dynamodb()
        .update_time_to_live("Sessions", TimeToLiveSpecification::enabled("ExpiresAt"))
        .expect("ttl");
    let expired_secs = engine.clock().now_millis() / 1000 - 60;
    let items = (0..ITEMS)
        .map(|i| {
            Item::from(HashMap::from([
                ("Id".to_string(), AttributeValue::S(format!("id-{i:03}"))),
                (
                    "ExpiresAt".to_string(),
                    AttributeValue::N(expired_secs.to_string()),
                ),
            ]))
        })
        .collect();
    engine
        .dynamodb()
        .put_items("Sessions", items)
        .expect("items");
    engine.close().expect("close");
}

fn config(dir: &Path, name: &str, engine: &str) -> Config {
    std::fs::write(dir.join("ttl.json"), common::TTL_FILTER).expect("filter");
    let text = format!(
        "{engine}\n[checkpoint]\ndir = \"state-{name}\"\n\n[[routes]]\nname = \"ttl\"\nfilter = \"ttl.json\"\nsinks = [\"archive\"]\n\n[sinks.archive.file]\npath = \"archive-{name}\"\n"
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("config");
    Config::load(&path).expect("config")
}

#[tokio::test]
async fn the_engine_section_owns_the_sweeper_and_the_source_only_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    expired_engine(dir.path());

    // A reader of an engine another process owns: the items' INSERTs, and
    // no engine of its own.
    let reader = config(
        dir.path(),
        "reader",
        "[source.engine]\ndata_dir = \"data\"\ntable = \"Sessions\"\n",
    );
    let mut pipeline = Pipeline::build(&reader).await.expect("reader");
    assert!(pipeline.engine().is_none(), "a reader owns no engine");
    while pipeline.step().await.expect("step").records > 0 {}
    assert_eq!(pipeline.stats().records_read, ITEMS, "the INSERTs");
    drop(pipeline);

    // The owner: its sweeper deletes the expired items, its source archives
    // the TTL deletions, and it publishes the engine's sweeper lag.
    let owner = config(
        dir.path(),
        "owner",
        "[engine]\ndata_dir = \"data\"\nsweep_interval_millis = 10\n\n[source.engine]\ntable = \"Sessions\"\n",
    );
    let recorder = SnapshotRecorder::new();
    let _guard = metrics::set_default_local_recorder(&recorder);
    let mut pipeline = Pipeline::build(&owner).await.expect("owner");
    assert!(pipeline.engine().is_some(), "[engine] is owned");
    let deadline = Instant::now() + Duration::from_secs(60);
    while pipeline.stats().records_delivered < ITEMS {
        assert!(Instant::now() < deadline, "{:?}", pipeline.stats());
        if pipeline.step().await.expect("step").records == 0 {
            pipeline.flush().await.expect("flush");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    assert_eq!(pipeline.stats().ttl_deletions, ITEMS);
    let lag = recorder.flush().into_iter().find(|d| {
        d.name == "SweeperLagMilliseconds"
            && d.dimensions == [("TableName".to_string(), "Sessions".to_string())]
    });
    assert!(lag.is_some(), "the owner publishes the sweeper lag");
}
