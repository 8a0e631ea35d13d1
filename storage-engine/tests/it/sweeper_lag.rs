//! `DynamoDb::sweeper_lag_millis`: the age of the oldest expired, not yet deleted item.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{
    Engine, EngineOptions, ManualClock, ScalarAttributeType, SweeperOptions, TableDefinition,
    TimeToLiveSpecification,
};

fn item(id: &str, expires_at_secs: i64) -> Item {
    Item::from(HashMap::from([
        ("id".to_string(), AttributeValue::S(id.to_string())),
        (
            "ttl".to_string(),
            AttributeValue::N(expires_at_secs.to_string()),
        ),
    ]))
}

/// An engine on a manual clock with an empty `Sessions` table (TTL off).
fn sessions(dir: &std::path::Path) -> (Engine, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_000_000_000_000));
    let engine = Engine::open(
        dir,
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .expect("open");
    engine
        .dynamodb()
        .create_table(TableDefinition::new(
            "Sessions",
            "id",
            ScalarAttributeType::S,
        ))
        .expect("table");
    (engine, clock)
}

#[test]
fn lag_is_the_age_of_the_oldest_unswept_expiry_and_zero_after_a_sweep() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = sessions(dir.path());
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        0,
        "TTL off"
    );
    engine
        .dynamodb()
        .update_time_to_live(
            "Sessions",
            TimeToLiveSpecification {
                attribute_name: "ttl".into(),
                enabled: true,
            },
        )
        .expect("ttl");
    engine
        .dynamodb()
        .put_item("Sessions", item("a", 1_000_000_010))
        .expect("put");
    engine
        .dynamodb()
        .put_item("Sessions", item("b", 1_000_000_030))
        .expect("put");
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        0,
        "nothing expired yet"
    );

    clock.advance(Duration::from_secs(40));
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        30_000,
        "a expired 30 s ago"
    );
    engine.sweep_now().expect("sweep");
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        0
    );
    assert!(engine.dynamodb().sweeper_lag_millis("missing").is_err());
}

#[test]
fn lag_sees_items_written_behind_the_sweeper_after_a_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, clock) = sessions(dir.path());
    engine
        .dynamodb()
        .update_time_to_live("Sessions", TimeToLiveSpecification::enabled("ttl"))
        .expect("ttl");
    for i in 0..50 {
        engine
            .dynamodb()
            .put_item("Sessions", item(&format!("m{i:02}"), 1_000_000_020))
            .expect("put");
    }
    clock.advance(Duration::from_secs(60));
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 50);
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        0
    );
    // Written after the pass, expiring in the seconds it swept and before
    // them, at keys below and above the ones it deleted.
    engine
        .dynamodb()
        .put_item("Sessions", item("z", 1_000_000_020))
        .expect("put");
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        40_000,
        "an item of the swept second"
    );
    engine
        .dynamodb()
        .put_item("Sessions", item("a", 1_000_000_005))
        .expect("put");
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        55_000,
        "an item older than everything swept"
    );
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 2);
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        0
    );
    // Disabling and enabling TTL rebuilds the index: the lag starts over.
    engine
        .dynamodb()
        .put_item("Sessions", item("b", 1_000_000_001))
        .expect("put");
    engine
        .dynamodb()
        .update_time_to_live(
            "Sessions",
            TimeToLiveSpecification {
                attribute_name: "ttl".into(),
                enabled: false,
            },
        )
        .expect("ttl off");
    // The purge of the index, by a pass (which deletes nothing: TTL is off).
    assert_eq!(engine.sweep_now().expect("sweep").deleted, 0);
    engine
        .dynamodb()
        .update_time_to_live("Sessions", TimeToLiveSpecification::enabled("ttl"))
        .expect("ttl on");
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        0,
        "nothing indexed until the sweeper builds the index"
    );
    // A sweeper allowed no deletion still builds the index.
    let sweeper = engine.start_sweeper(SweeperOptions {
        interval: Duration::from_millis(5),
        max_deletes_per_sec: Some(0),
        ..SweeperOptions::default()
    });
    for _ in 0..1_000 {
        if !engine
            .dynamodb()
            .time_to_live_index_building("Sessions")
            .expect("table")
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    sweeper.stop();
    assert_eq!(
        engine
            .dynamodb()
            .sweeper_lag_millis("Sessions")
            .expect("lag"),
        59_000,
        "an item indexed again when TTL was enabled"
    );
}
