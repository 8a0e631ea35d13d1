//! The table and items `engine_bench`, `sweep_profile` and `ttlstream-server`'s
//! `reads_bench` write.

use std::collections::HashMap;
use std::sync::Arc;

use ttlstream_engine::{
    AttributeValue, Clock, Engine, EngineOptions, Item, ScalarAttributeType, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};

pub const TABLE: &str = "SessionData";
/// The clock's start, epoch milliseconds.
pub const START_MILLIS: i64 = 1_700_000_000_000;

/// Item `i` (~150 bytes): hash key `UserName`, TTL attribute
/// `ExpirationTime` at `expiry_secs` (epoch seconds), 100 bytes of `Data`.
pub fn item(i: usize, expiry_secs: i64) -> Item {
    HashMap::from([
        (
            "UserName".to_string(),
            AttributeValue::S(format!("user{i:08}")),
        ),
        (
            "ExpirationTime".to_string(),
            AttributeValue::N(expiry_secs.to_string()),
        ),
        ("Data".to_string(), AttributeValue::S("x".repeat(100))),
    ])
    .into()
}

/// An engine in `dir` on `clock` with [`TABLE`]: a `NEW_AND_OLD_IMAGES`
/// stream and TTL on `ExpirationTime`.
pub fn open(dir: &std::path::Path, clock: Arc<dyn Clock>) -> Engine {
    let engine = Engine::open(
        dir,
        EngineOptions {
            clock,
            ..Default::default()
        },
    )
    .unwrap();
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "UserName", ScalarAttributeType::S)
                .with_stream(StreamViewType::NewAndOldImages),
        )
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled("ExpirationTime"))
        .unwrap();
    engine
}
