use std::time::Duration;

use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{ScalarAttributeType, SequenceNumber, StreamViewType, TableDefinition};

use super::*;

/// The sweeper of an `[engine]` shares each pass between tables: the few
/// expired items of one table go in the first pass although another table
/// ahead of it (in name order) holds more than three passes' worth at the
/// default `max_deletes_per_sweep`. Deletions are ordered by their REMOVE
/// records' sequence numbers (one engine-wide counter); no timing.
#[test]
fn the_sidecar_sweeper_shares_each_pass_between_tables() {
    use ttlstream_engine::{StreamPosition, TimeToLiveSpecification};
    let dir = tempfile::tempdir().expect("tempdir");
    let per_pass = default_max_deletes_per_sweep().get();
    let engine = Engine::open(dir.path(), Default::default()).expect("engine");
    let expired_secs = engine.clock().now_millis() / 1000 - 60;
    for (table, count) in [("Hot", 3 * per_pass + 1_000), ("Small", 10)] {
        engine
            .dynamodb()
            .create_table(TableDefinition::new(table, "Id", ScalarAttributeType::S))
            .expect("table");
        engine
            .dynamodb()
            .update_time_to_live(table, TimeToLiveSpecification::enabled("ExpiresAt"))
            .expect("ttl");
        for first in (0..count).step_by(1_000) {
            let items = (first..count.min(first + 1_000))
                .map(|i| {
                    Item::from(std::collections::HashMap::from([
                        ("Id".to_string(), AttributeValue::S(format!("id-{i:06}"))),
                        (
                            "ExpiresAt".to_string(),
                            AttributeValue::N(expired_secs.to_string()),
                        ),
                    ]))
                })
                .collect();
            engine.dynamodb().put_items(table, items).expect("items");
        }
        // The stream from here on: it holds the TTL deletions only.
        engine
            .dynamodb()
            .update_stream(table, Some(StreamViewType::KeysOnly))
            .expect("stream");
    }
    drop(engine);

    let config = EngineConfig {
        sweep_interval_millis: 3_600_000,
        ..EngineConfig::new(dir.path().to_path_buf())
    };
    let owned = OwnedEngine::open(&config).expect("open");
    let engine = owned.engine().clone();
    let removes = |table: &str| -> Vec<SequenceNumber> {
        engine
            .dynamodb()
            .read_stream(table, StreamPosition::TrimHorizon, usize::MAX)
            .expect("stream")
            .into_iter()
            .filter(|r| r.is_ttl_delete())
            .map(|r| r.sequence_number)
            .collect()
    };
    let mut small = Vec::new();
    for _ in 0..6_000 {
        small = removes("Small");
        if small.len() == 10 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(owned); // stops the sweeper
    assert_eq!(small.len(), 10, "Small's expired items were not all swept");
    let hot_first = removes("Hot").into_iter().filter(|s| *s < small[9]).count();
    assert!(
        hot_first < 3 * per_pass,
        "{hot_first} of Hot's deletions came before Small's last: more than three passes"
    );
}

#[test]
fn max_deletes_per_sweep_defaults_to_10000_and_refuses_0() {
    let minimal = "data_dir = \"data\"\n";
    let config: EngineConfig = toml::from_str(minimal).expect("config");
    assert_eq!(config.max_deletes_per_sweep.get(), 10_000);
    let set: EngineConfig =
        toml::from_str(&format!("{minimal}max_deletes_per_sweep = 250\n")).expect("config");
    assert_eq!(set.max_deletes_per_sweep.get(), 250);
    let zero = toml::from_str::<EngineConfig>(&format!("{minimal}max_deletes_per_sweep = 0\n"));
    let message = zero.expect_err("0 is refused").to_string();
    assert!(message.contains("max_deletes_per_sweep"), "{message}");
}
