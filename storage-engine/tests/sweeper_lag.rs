//! `Engine::sweeper_lag_millis`: the age of the oldest expired, not yet deleted item.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_dynamo::{AttributeValue, Item};
use ttlstream_engine::{
    Engine, EngineOptions, ManualClock, ScalarAttributeType, TableDefinition,
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

#[test]
fn lag_is_the_age_of_the_oldest_unswept_expiry_and_zero_after_a_sweep() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clock = Arc::new(ManualClock::new(1_000_000_000_000));
    let engine = Engine::open(
        dir.path(),
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .expect("open");
    engine
        .create_table(TableDefinition::new(
            "Sessions",
            "id",
            ScalarAttributeType::S,
        ))
        .expect("table");
    assert_eq!(
        engine.sweeper_lag_millis("Sessions").expect("lag"),
        0,
        "TTL off"
    );
    engine
        .update_time_to_live(
            "Sessions",
            TimeToLiveSpecification {
                attribute_name: "ttl".into(),
                enabled: true,
            },
        )
        .expect("ttl");
    engine
        .put_item("Sessions", item("a", 1_000_000_010))
        .expect("put");
    engine
        .put_item("Sessions", item("b", 1_000_000_030))
        .expect("put");
    assert_eq!(
        engine.sweeper_lag_millis("Sessions").expect("lag"),
        0,
        "nothing expired yet"
    );

    clock.advance(Duration::from_secs(40));
    assert_eq!(
        engine.sweeper_lag_millis("Sessions").expect("lag"),
        30_000,
        "a expired 30 s ago"
    );
    engine.sweep_now().expect("sweep");
    assert_eq!(engine.sweeper_lag_millis("Sessions").expect("lag"), 0);
    assert!(engine.sweeper_lag_millis("missing").is_err());
}
