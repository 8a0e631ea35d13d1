//! Shared helpers for the public-API tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use ttlstream_engine::{
    AttributeValue, Engine, EngineOptions, Item, ManualClock, ScalarAttributeType, StreamViewType,
    TableDefinition, TimeToLiveSpecification,
};

/// 2023-11-14T22:13:20Z in epoch milliseconds.
pub const START_MILLIS: i64 = 1_700_000_000_000;
/// The same instant in epoch seconds.
pub const START_SECS: i64 = 1_700_000_000;
pub const TABLE: &str = "SessionData";
pub const TTL_ATTR: &str = "ExpirationTime";

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

pub fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect::<HashMap<_, _>>()
        .into()
}

pub fn key(user: &str) -> Item {
    item(&[("UserName", s(user))])
}

/// An item of the session table expiring at `expiry_secs`.
pub fn session(user: &str, expiry_secs: i64) -> Item {
    item(&[
        ("UserName", s(user)),
        (TTL_ATTR, n(expiry_secs)),
        ("Data", s("x")),
    ])
}

pub fn open(dir: &Path, clock: &Arc<ManualClock>) -> Engine {
    Engine::open(
        dir,
        EngineOptions {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .unwrap()
}

/// Creates `SessionData` (hash key `UserName`: S) with a stream of `view`
/// and TTL enabled on `ExpirationTime`.
pub fn session_table(engine: &Engine, view: StreamViewType) {
    engine
        .dynamodb()
        .create_table(
            TableDefinition::new(TABLE, "UserName", ScalarAttributeType::S).with_stream(view),
        )
        .unwrap();
    engine
        .dynamodb()
        .update_time_to_live(TABLE, TimeToLiveSpecification::enabled(TTL_ATTR))
        .unwrap();
}

/// A fresh engine in a temp dir with the session table.
pub fn setup(view: StreamViewType) -> (tempfile::TempDir, Arc<ManualClock>, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MILLIS));
    let engine = open(dir.path(), &clock);
    session_table(&engine, view);
    (dir, clock, engine)
}

pub fn user_of(item: &Item) -> String {
    match item.get("UserName") {
        Some(AttributeValue::S(u)) => u.clone(),
        other => panic!("no UserName in {other:?}"),
    }
}
